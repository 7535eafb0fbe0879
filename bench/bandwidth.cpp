// bench/bandwidth.cpp — the machine's limits as visible benchmarks, and peer smoke tests.
//
// BM_read_limit_64MiB / BM_copy_limit_64MiB / BM_copy_memcpy_64MiB run the probes the limits are measured with and raise the
// limits whenever one of their passes beats the best so far; their pct counters are therefore ≤ 100.
// The peer benchmarks prove the optional Eigen / xtensor plumbing and record what those libraries reach
// on the simplest cases (whole-buffer f32 sum, 1-D f32 cumulative sum), the figures later operator
// benchmarks are compared with.
#include "harness.hpp"

#include <cstddef>
#include <cstdint>

#ifdef TENSOROPS_BENCH_HAVE_EIGEN
#include <unsupported/Eigen/CXX11/Tensor>
#endif

#ifdef TENSOROPS_BENCH_HAVE_XTENSOR
#include <array>
#include <xtensor/xadapt.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xtensor.hpp>
#endif

namespace {

// ---------------------------------------------------------------------------------------------
// The limits.

void BM_read_limit_64MiB(benchmark::State& state) {
    const auto buf = tb::read_limit_buffer();
    tb::run(state, static_cast<std::int64_t>(tb::limit_bytes), tb::limit::read, [&] {
        const double t0 = tb::thread_cpu_seconds();
        float s = tb::read_probe_sum(buf.data(), buf.size());
        benchmark::DoNotOptimize(s);
        tb::observe(tb::limit::read, static_cast<double>(tb::limit_bytes) / (tb::thread_cpu_seconds() - t0));
    });
}
BENCHMARK(BM_read_limit_64MiB)->Apply(tb::defaults);

// One copy of the limit's 64 MiB per iteration with `copy`, each pass raising the copy limit if it is faster.
void run_copy_limit(benchmark::State& state, void (*copy)(void*, const void*, std::size_t)) {
    const auto src = tb::copy_limit_source();
    const auto dst = tb::copy_limit_destination();
    tb::run(state, static_cast<std::int64_t>(2 * tb::limit_bytes), tb::limit::copy, [&] {
        const double t0 = tb::thread_cpu_seconds();
        copy(dst.data(), src.data(), tb::limit_bytes);
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
        tb::observe(tb::limit::copy, 2.0 * static_cast<double>(tb::limit_bytes) / (tb::thread_cpu_seconds() - t0));
    });
}

void BM_copy_limit_64MiB(benchmark::State& state) { run_copy_limit(state, tb::copy_probe); }
BENCHMARK(BM_copy_limit_64MiB)->Apply(tb::defaults);

// The C library's memcpy of the same buffers (the limit keeps the faster of the two copies).
void BM_copy_memcpy_64MiB(benchmark::State& state) { run_copy_limit(state, tb::copy_probe_memcpy); }
BENCHMARK(BM_copy_memcpy_64MiB)->Apply(tb::defaults);

// The same copy with non-temporal stores (not a limit: it shows how far above the memcpy limit an
// operator that streams its output could go).
void BM_copy_streaming_64MiB(benchmark::State& state) {
    const auto src = tb::copy_limit_source();
    const auto dst = tb::copy_limit_destination();
    tb::run(state, static_cast<std::int64_t>(2 * tb::limit_bytes), tb::limit::copy, [&] {
        tb::copy_probe_streaming(dst.data(), src.data(), tb::limit_bytes);
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
    });
}
BENCHMARK(BM_copy_streaming_64MiB)->Apply(tb::defaults);

// Both cores reading their half of the same 64 MiB at once. Informative only (the other engineer's
// jobs share these two cores, so expect noise): the counters compare with the single-thread limit.
void BM_read_64MiB_threads(benchmark::State& state) {
    static const auto buf = tb::read_limit_buffer();  // thread-safe initialisation, no pool access later
    const auto threads = static_cast<std::size_t>(state.threads());
    const std::size_t share = buf.size() / threads;
    const float* p = buf.data() + static_cast<std::size_t>(state.thread_index()) * share;
    tb::run(state, static_cast<std::int64_t>(share * sizeof(float)), tb::limit::read, [&] {
        float s = tb::read_probe_sum(p, share);
        benchmark::DoNotOptimize(s);
    });
}
BENCHMARK(BM_read_64MiB_threads)->Apply(tb::defaults)->UseRealTime()->Threads(2);

// The same probes over other sizes, to show where the caches end on this machine (the limits above are
// for 64 MiB; a cache-resident size legitimately shows more than 100 %). Slots 100+ keep these buffers
// apart from the operators' ones.
void BM_read_probe(benchmark::State& state) {
    const auto in = tb::random_input<float>(static_cast<std::size_t>(state.range(0)) / sizeof(float), 100);
    tb::run(state, state.range(0), tb::limit::read, [&] {
        float s = tb::read_probe_sum(in.data(), in.size());
        benchmark::DoNotOptimize(s);
    });
}
BENCHMARK(BM_read_probe)->Apply(tb::defaults)->Arg(64 << 10)->Arg(1 << 20)->Arg(16 << 20)->Arg(256 << 20);

void BM_copy_probe(benchmark::State& state) {
    const auto bytes = static_cast<std::size_t>(state.range(0));
    const auto src = tb::random_input<float>(bytes / sizeof(float), 101);
    const auto dst = tb::scratch<float>(bytes / sizeof(float), 102);
    tb::run(state, 2 * state.range(0), tb::limit::copy, [&] {
        tb::copy_probe(dst.data(), src.data(), bytes);
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
    });
}
BENCHMARK(BM_copy_probe)->Apply(tb::defaults)->Arg(64 << 10)->Arg(1 << 20)->Arg(16 << 20)->Arg(256 << 20);

// ---------------------------------------------------------------------------------------------
// Peers: f32 sum of a whole buffer (64 KiB: in L1/L2; 64 MiB: streamed from memory).

std::size_t floats_of(const benchmark::State& state) {
    return static_cast<std::size_t>(state.range(0)) / sizeof(float);
}

// A plain loop, as a user would write it. Without -ffast-math the compiler must keep the additions in
// order, so this runs at one add per FP-add latency: the baseline every vectorised sum must beat.
void BM_peer_scalar_sum_f32(benchmark::State& state) {
    const auto in = tb::random_input<float>(floats_of(state), 0);
    tb::run(state, state.range(0), tb::limit::read, [&] {
        float s = 0.0f;
        for (const float x : in) s += x;
        benchmark::DoNotOptimize(s);
    });
}
BENCHMARK(BM_peer_scalar_sum_f32)->Apply(tb::defaults)->Arg(64 << 10)->Arg(64 << 20);

#ifdef TENSOROPS_BENCH_HAVE_EIGEN
void BM_peer_eigen_sum_f32(benchmark::State& state) {
    const auto in = tb::random_input<float>(floats_of(state), 0);
    const Eigen::TensorMap<const Eigen::Tensor<const float, 1>> x(in.data(), static_cast<Eigen::Index>(in.size()));
    float s = 0.0f;
    Eigen::TensorMap<Eigen::Tensor<float, 0>> result(&s);  // 0-d view of `s`: no allocation per call
    tb::run(state, state.range(0), tb::limit::read, [&] {
        result = x.sum();
        benchmark::DoNotOptimize(s);
    });
}
BENCHMARK(BM_peer_eigen_sum_f32)->Apply(tb::defaults)->Arg(64 << 10)->Arg(64 << 20);

void BM_peer_eigen_cumsum_f32(benchmark::State& state) {
    const auto in = tb::random_input<float>(floats_of(state), 0);
    const auto out = tb::scratch<float>(floats_of(state), 1);
    const auto n = static_cast<Eigen::Index>(in.size());
    const Eigen::TensorMap<const Eigen::Tensor<const float, 1>> x(in.data(), n);
    Eigen::TensorMap<Eigen::Tensor<float, 1>> y(out.data(), n);
    tb::run(state, 2 * state.range(0), tb::limit::copy, [&] {
        y = x.cumsum(0);  // the scan evaluator writes straight into the mapped destination
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    });
}
BENCHMARK(BM_peer_eigen_cumsum_f32)->Apply(tb::defaults)->Arg(64 << 20);
#endif

#ifdef TENSOROPS_BENCH_HAVE_XTENSOR
auto adapt_input(std::span<const float> in) {
    return xt::adapt(in.data(), in.size(), xt::no_ownership(), std::array<std::size_t, 1>{in.size()});
}

// xt::sum is lazy by default; evaluating the 0-d expression runs the reduction. The immediate strategy
// (which allocates a 0-d result) was not faster here.
void BM_peer_xtensor_sum_f32(benchmark::State& state) {
    const auto in = tb::random_input<float>(floats_of(state), 0);
    const auto x = adapt_input(in);
    tb::run(state, state.range(0), tb::limit::read, [&] {
        float s = xt::sum(x)();
        benchmark::DoNotOptimize(s);
    });
}
BENCHMARK(BM_peer_xtensor_sum_f32)->Apply(tb::defaults)->Arg(64 << 10)->Arg(64 << 20);

// xt::cumsum has no output parameter: it copies its input into a fresh xarray and scans that in place,
// so each call allocates (and first-touches) 64 MiB. That is what a user of xtensor gets; it shows in
// allocs_per_iter and in the time.
void BM_peer_xtensor_cumsum_f32(benchmark::State& state) {
    const auto in = tb::random_input<float>(floats_of(state), 0);
    const auto x = adapt_input(in);
    tb::run(state, 2 * state.range(0), tb::limit::copy, [&] {
        auto y = xt::cumsum(x);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    });
}
BENCHMARK(BM_peer_xtensor_cumsum_f32)->Apply(tb::defaults)->Arg(64 << 20);
#endif

}  // namespace
