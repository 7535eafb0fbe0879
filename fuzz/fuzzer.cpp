// The libFuzzer target of tensorops (build: clang++ -fsanitize=fuzzer,address,undefined, optimised; see
// fuzz/CMakeLists.txt and tools/run-tests.sh clang-fuzz). Its first byte sends an input to one of two halves
// (fuzz_input.hpp); each decodes the rest into one operator call and checks it differentially against the
// independent scalar reference (tests/reference.hpp).
//
// The typed API (a first byte of 64 or more; typed_*.cpp): cumulative sum and product, cumulative max and min (with
// and without an index output), cumulative log-sum-exp, reduce (the twelve functions), argmax, argmin, scatter-ND
// (every reduction) and gather-ND over float32, float64, float16, bfloat16, int32, uint8 and int64 with
// int32/int64/uint32/uint64 indices; small tensors (up to 64 elements, one call in 32 up to 2048) of rank 0 to
// 4 (6 for gather's output) with sizes of 0 now and then; views packed, permuted, padded, reversed (negative strides),
// broadcast (stride 0), gapped or with random strides in [-6, 6]; outputs in place, interleaved with their input,
// overlapping another view, or apart; any axis list, direction, exclusive flag, batch_dims; no executor, an inline
// executor that cuts work into pieces from 1 byte on and runs them out of order, or a pool of two threads. Before
// the call the fuzzer decides from the arguments alone what the contract (SEMANTICS.md, the operators' contract
// comments) requires: that the call be refused (a rule broken), that it run (every rule kept and every overlap
// provably absent), or either (an overlap the library's conservative test may not rule out). Then:
//   - a refusal must be a tensorops::error, allowed by that decision, and leave every byte of every buffer as it was;
//   - a return must be allowed; every output element must equal the reference (integers and exact float inputs:
//     exactly; other floats: within the accumulation's error bound n·ε·Σ|x| plus one rounding; copies bit for bit),
//     and every byte the output does not address — guard bytes, the elements between an interleaved output's, the
//     inputs — must be as it was;
//   - on an executor, the same call without one must give the same bytes (bit-identical for any executor);
//   - no access outside the buffers (each a heap block of exactly the bytes its views reach: AddressSanitizer),
//     no undefined behaviour (UBSan).
// The dml descriptors (a first byte below 64; fuzz_*.cpp): fuzz_one_input.cpp decodes the rest as it always has —
// random buffer tensor descriptors (usually consistent, sometimes any field broken), buffers of exactly
// total_tensor_size_in_bytes, in-place and overlapping bindings — and requires: a refusal leaves the output as it
// was; an accepted call matches the reference and writes nothing outside the output; ASan and UBSan stay silent.
// Any other outcome aborts, which libFuzzer reports with the input that caused it. With TENSOROPS_FUZZ_STATS set, the
// counts of refused and checked calls per operator are printed at exit.
#include <cstdio>
#include <cstdlib>

#include "fuzz_input.hpp"
#include "fuzzing.hpp"
#include "typed_fuzzing.hpp"

namespace {

void print_outcomes() {
    using namespace tensorops_fuzz;
    for (std::size_t i = 0; i < std::size(operation_names); ++i)
        std::fprintf(stderr, "dml   %-20s validated only %9llu  refused %9llu  run and checked %9llu\n", operation_names[i],
                     static_cast<unsigned long long>(outcomes[i][validated_only]), static_cast<unsigned long long>(outcomes[i][rejected]),
                     static_cast<unsigned long long>(outcomes[i][checked]));
    for (std::size_t i = 0; i < typed::operation_count; ++i)
        std::fprintf(stderr, "typed %-20s refused %9llu  refused (may) %9llu  run and checked %9llu\n", typed::operation_names[i],
                     static_cast<unsigned long long>(typed::outcomes[i][typed::refused]),
                     static_cast<unsigned long long>(typed::outcomes[i][typed::refused_unprovable]),
                     static_cast<unsigned long long>(typed::outcomes[i][typed::checked]));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const bool report = [] {
        if (std::getenv("TENSOROPS_FUZZ_STATS") != nullptr) std::atexit(print_outcomes);
        return true;
    }();
    (void)report;
    tensorops_fuzz::fuzz_input(data, size);
    return 0;
}
