// bench/numpy_probes.cpp — the suite's read and copy probes (harness.hpp) as a C library, so that bench/numpy_peer.py
// times NumPy against the same limits, in its own process, pass by pass.
#include "harness.hpp"

extern "C" float tensorops_bench_read_probe(const float* p, std::size_t n) { return tensorops_bench::read_probe_sum(p, n); }
extern "C" void tensorops_bench_copy_probe(void* dst, const void* src, std::size_t bytes) { tensorops_bench::copy_probe(dst, src, bytes); }
