// bench/harness.hpp — what every tensorops benchmark shares: the counters and the timed loops here, the buffers and
// fills in buffers.hpp, the machine's limits and their probe kernels in machine_limits.hpp.
//
//   * buffers:  pre-touched, page-aligned storage that lives for the whole process and is handed out
//               again to every benchmark asking for the same (slot, size). First touch of 64 MiB costs
//               ~50 ms of page faults on this machine — more than most operators — so no benchmark
//               allocates or touches fresh memory inside (or even near) its timed loop.
//   * fills:    deterministic pseudo-random contents (splitmix64), reproducible across runs and compilers.
//   * limits:   the machine's read and copy bandwidth, measured in this very process (the machine is
//               shared and noisy, so a figure from another day means little), as the BEST of several
//               repetitions, and raised further whenever a later observation beats it; timed with the
//               clock the benchmarks use (CPU time of the benchmark thread).
//   * counters: `bytes_per_second` and `pct_of_read_limit` / `pct_of_copy_limit` (the mean pass), plus
//               `best_pct_of_read_limit` / `best_pct_of_copy_limit` (the fastest pass, for iterations of at least
//               1 MiB: like against like, since the limits are fastest passes too) and `allocs_per_iter`
//               (heap allocations per iteration: main.cpp wraps malloc & co., operator new included);
//               benchmarks of ≥ 16 MiB run through run_paired also report `paired_pct_of_…` and
//               `paired_median_pct_of_…`: against the limit's kernel run on their own buffers between their
//               iterations, so that the host's speed, which drifts by the minute, cancels out.
//
// Byte-counting convention (used by every benchmark, limits included): bytes moved per iteration =
// bytes the operation must read + bytes it must write, each counted once. A sum of N bytes moves N; a
// copy (or a cumulative sum) of N bytes moves 2N. Write-allocate traffic is not counted. With this
// convention an operator that copies as fast as the copy probe shows pct_of_copy_limit = 100.
//
// Which limit applies: `limit::read` when the output is small next to the input (reductions, arg-reductions),
// `limit::copy` when input and output are both streamed (cumulative ops, scatter's input → output copy).
// The limits are measured on 64 MiB buffers, i.e. mostly from memory (on this machine the shared
// last-level cache holds part of a 64 MiB buffer that is read again and again): benchmarks on
// cache-resident sizes (64 KiB …) legitimately exceed 100 %.
//
// A typical operator benchmark:
//
//     static void BM_cumsum_f32(benchmark::State& state) {
//         const auto n = static_cast<std::size_t>(state.range(0)) / sizeof(float);
//         auto in = tb::random_input<float>(n, /*slot=*/0);
//         auto out = tb::scratch<float>(n, /*slot=*/1);
//         tb::run(state, 2 * n * sizeof(float), tb::limit::copy, [&] {
//             tensorops::cumulative_sum(...in..., ...out...);
//             benchmark::DoNotOptimize(out.data());
//             benchmark::ClobberMemory();
//         });
//     }
//     BENCHMARK(BM_cumsum_f32)->Apply(tb::defaults)->Arg(64 << 10)->Arg(64 << 20);
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "buffers.hpp"
#include "machine_limits.hpp"

namespace tensorops_bench {

// ---------------------------------------------------------------------------------------------
// Counters.

/// Sets `bytes_per_second` and `pct_of_read_limit` or `pct_of_copy_limit` from the bytes one iteration
/// moves (reads + writes, see the convention above). Both are Google Benchmark rates, so they use the
/// benchmark's own clock (CPU time, or wall time under UseRealTime) and pct = bytes_per_second / limit
/// exactly. The console prints the percentage with a "/s" suffix (every rate gets one): read it as %.
/// In a benchmark with several threads, pass each thread's own share: the counters are averaged over
/// threads, so the rates come out as totals (use UseRealTime() there).
inline void set_bandwidth_counters(benchmark::State& state, std::int64_t bytes_per_iteration, limit which) {
    using benchmark::Counter;
    const auto flags = static_cast<Counter::Flags>(Counter::kIsIterationInvariantRate | Counter::kAvgThreads);
    const double bytes = static_cast<double>(bytes_per_iteration);
    const auto& l = limits();
    const double roof = which == limit::read ? l.read_bytes_per_second : l.copy_bytes_per_second;
    state.counters["bytes_per_second"] = Counter(bytes, flags);
    // 100 · bytes / roof, as a rate over the run's seconds, is 100 · achieved / roof.
    state.counters[which == limit::read ? "pct_of_read_limit" : "pct_of_copy_limit"] =
        Counter(100.0 * bytes / roof, flags);
}

/// Sets `allocs_per_iter` from a count of allocation calls taken around the timed loop.
inline void set_allocation_counter(benchmark::State& state, std::uint64_t allocations_in_loop) {
    state.counters["allocs_per_iter"] =
        benchmark::Counter(static_cast<double>(allocations_in_loop), benchmark::Counter::kAvgIterations);
}

/// Iterations moving at least this many bytes are timed one by one for the best-pass counter (below): two
/// clock reads per iteration are then < 0.1 % of it; smaller ones would measure the clock.
inline constexpr std::int64_t best_pass_min_bytes = std::int64_t{1} << 20;

/// Sets `best_pct_of_read_limit` / `best_pct_of_copy_limit`: the fastest single iteration against the limit,
/// which is itself the fastest pass of its probe. The mean-based pct counter compares an operator's average
/// pass, interference included, with the probe's best pass; on a host whose speed moves by 30 % from one
/// minute to the next (the AMD guest of 2026-11-23), that mixes the operator's speed with the host's noise.
/// Interference only slows a pass down, so best against best is the like-for-like comparison; both are shown.
inline void set_best_pass_counter(benchmark::State& state, std::int64_t bytes_per_iteration, limit which, double best_seconds) {
    const auto& l = limits();
    const double roof = which == limit::read ? l.read_bytes_per_second : l.copy_bytes_per_second;
    state.counters[which == limit::read ? "best_pct_of_read_limit" : "best_pct_of_copy_limit"] =
        benchmark::Counter(100.0 * static_cast<double>(bytes_per_iteration) / best_seconds / roof);
}

/// The timed loop every benchmark should use: runs `body` once per iteration, then sets the bandwidth
/// and allocation counters (and, in single-threaded benchmarks of iterations of at least best_pass_min_bytes,
/// the best-pass counter, timed with the limits' clock). `body` should end with DoNotOptimize/ClobberMemory on
/// its result.
template <class Body>
void run(benchmark::State& state, std::int64_t bytes_per_iteration, limit which, Body&& body) {
    (void)limits();  // make sure the (long) first measurement never lands inside a timed region
    const std::uint64_t allocations_before = allocations();
    const bool time_passes = state.threads() == 1 && bytes_per_iteration >= best_pass_min_bytes;
    double best_seconds = 1e300;
    if (time_passes) {
        for (auto _ : state) {
            const double t0 = thread_cpu_seconds();
            body();
            best_seconds = std::min(best_seconds, thread_cpu_seconds() - t0);
        }
    } else {
        for (auto _ : state) body();
    }
    const std::uint64_t allocations_after = allocations();
    set_bandwidth_counters(state, bytes_per_iteration, which);
    set_allocation_counter(state, allocations_after - allocations_before);
    if (time_passes && best_seconds > 0 && best_seconds < 1e300) set_best_pass_counter(state, bytes_per_iteration, which, best_seconds);
}

// ---------------------------------------------------------------------------------------------
// Paired probes: the limit's own kernel over the benchmark's own buffers, timed between its iterations.
//
// The limits above are the fastest probe pass of the whole process; a benchmark that runs minutes later in a slower
// phase of the host (this guest's speed moves by up to 30 % from one minute to the next) then looks slower than it
// is, and one that runs in a faster phase than the probe's can pass 100 %. A paired probe removes the host from
// the ratio: after every timed iteration (with the timer paused) it reads — or copies — the very bytes the
// operator read, in the same order and from the same cache state (the benchmark's buffers, not the limit's, so a
// 64 MiB input keeps whatever share of it the last-level cache holds, as between the operator's own passes).
// Each operator pass is then compared with a probe pass of the same seconds.

/// Sum of the `bytes` at p as 32-bit integer lanes, the read probe's loop (read_probe_sum, its page hints too) for any element type:
/// integer adds, so no input bit pattern (subnormals, NaN) can slow it down. Reads whole words; a tail of fewer
/// than four bytes is left out.
[[gnu::noinline]] inline std::uint32_t read_probe_words(const void* p, std::size_t bytes) noexcept {
    constexpr std::size_t vector_bytes = probe_vector_bytes;
    using vec = std::uint32_t __attribute__((vector_size(vector_bytes)));
    constexpr std::size_t accumulators = 256 / vector_bytes;
    const auto* bytes_at = static_cast<const unsigned char*>(p);
    const std::size_t body = bytes - bytes % 256;
    vec acc[accumulators] = {};
    for (std::size_t i = 0; i < body; i += 256) {
        probe_hint_page_ahead(bytes_at + i, 256);
#pragma GCC unroll 16
        for (std::size_t k = 0; k < accumulators; ++k) {
            vec v;
            std::memcpy(&v, bytes_at + i + k * vector_bytes, sizeof v);
            acc[k] += v;
        }
    }
    vec all = acc[0];
    for (std::size_t k = 1; k < accumulators; ++k) all += acc[k];
    std::uint32_t total = 0;
    for (std::size_t j = 0; j < vector_bytes / 4; ++j) total += all[j];
    for (std::size_t i = body; i + 4 <= bytes; i += 4) {
        std::uint32_t word;
        std::memcpy(&word, bytes_at + i, 4);
        total += word;
    }
    return total;
}

/// What a paired probe does once per iteration: read `source` (limit::read), or copy it to `destination`
/// (limit::copy, with copy_probe); `bytes` moved by the convention above (a copy moves twice its size).
struct paired_probe {
    limit which = limit::read;
    const void* source = nullptr;
    void* destination = nullptr;
    std::size_t size = 0;  // bytes read (and written, for a copy)

    [[nodiscard]] std::int64_t bytes() const noexcept { return static_cast<std::int64_t>(which == limit::copy ? 2 * size : size); }
    void pass() const noexcept {
        if (which == limit::read) {
            std::uint32_t sink = read_probe_words(source, size);
            benchmark::DoNotOptimize(sink);
        } else {
            copy_probe(destination, source, size);
            benchmark::DoNotOptimize(destination);
            benchmark::ClobberMemory();
        }
    }
};

/// A paired read probe over the elements of `input` (what a reduction reads).
template <class T>
[[nodiscard]] paired_probe paired_read(std::span<const T> input) {
    return {limit::read, input.data(), nullptr, input.size_bytes()};
}

/// A paired copy probe from `input` to `output` (what a scan reads and writes; output at least as large).
template <class T>
[[nodiscard]] paired_probe paired_copy(std::span<const T> input, std::span<T> output) {
    return {limit::copy, input.data(), output.data(), input.size_bytes()};
}

/// A paired probe that is the copy limit's own pass (memcpy of limit_bytes between the limit's buffers): for operators
/// whose traffic no sequential copy of their own buffers mimics (scatter and gather, at random places).
[[nodiscard]] inline paired_probe paired_copy_limit() {
    return {limit::copy, copy_limit_source().data(), copy_limit_destination().data(), limit_bytes};
}

/// Iterations of at least this many bytes take their paired probe when one is given: below it the buffers live in
/// the caches and the process-wide limits are the right yardstick (percentages above 100 mean cache speed).
inline constexpr std::int64_t paired_min_bytes = std::int64_t{16} << 20;

/// Like run (below), with a paired probe after every iteration (timer paused): sets, besides run's counters,
/// `paired_pct_of_read_limit` / `paired_pct_of_copy_limit` — the operator's fastest pass against the paired probe's
/// fastest pass of the same run, in bytes per second — and `paired_median_pct_…`, the median over iterations of the
/// operator's pass against the probe pass right after it. Single-threaded benchmarks only; smaller iterations
/// (below paired_min_bytes) or several threads: the probe is not run and this is run.
template <class Body>
void run_paired(benchmark::State& state, std::int64_t bytes_per_iteration, limit which, const paired_probe& probe, Body&& body) {
    if (state.threads() != 1 || bytes_per_iteration < paired_min_bytes) {
        run(state, bytes_per_iteration, which, std::forward<Body>(body));
        return;
    }
    (void)limits();
    for (int i = 0; i < 2; ++i) probe.pass();  // as the limits' warm-up
    double best_seconds = 1e300, best_probe_seconds = 1e300;
    std::vector<double> pair_ratios;  // probe speed / operator speed, per iteration (allocated before the count starts)
    pair_ratios.reserve(1024);
    const std::uint64_t allocations_before = allocations();
    std::uint64_t allocations_paused = 0;
    for (auto _ : state) {
        const double t0 = thread_cpu_seconds();
        body();
        const double seconds = thread_cpu_seconds() - t0;
        const std::uint64_t paused_from = allocations();
        state.PauseTiming();
        const double probe_seconds = detail::seconds_of([&] { probe.pass(); });
        best_seconds = std::min(best_seconds, seconds);
        best_probe_seconds = std::min(best_probe_seconds, probe_seconds);
        pair_ratios.push_back(probe_seconds / static_cast<double>(probe.bytes()) / (seconds / static_cast<double>(bytes_per_iteration)));
        state.ResumeTiming();
        allocations_paused += allocations() - paused_from;  // the harness's own (the ratios, the timer's) are not the operator's
    }
    const std::uint64_t allocations_after = allocations();
    set_bandwidth_counters(state, bytes_per_iteration, which);
    set_allocation_counter(state, allocations_after - allocations_before - allocations_paused);
    if (best_seconds <= 0 || best_seconds >= 1e300) return;
    set_best_pass_counter(state, bytes_per_iteration, which, best_seconds);
    const double operator_speed = static_cast<double>(bytes_per_iteration) / best_seconds;
    const double probe_speed = static_cast<double>(probe.bytes()) / best_probe_seconds;
    const std::string suffix = which == limit::read ? "read_limit" : "copy_limit";
    state.counters["paired_pct_of_" + suffix] = benchmark::Counter(100.0 * operator_speed / probe_speed);
    std::nth_element(pair_ratios.begin(), pair_ratios.begin() + static_cast<std::ptrdiff_t>(pair_ratios.size() / 2), pair_ratios.end());
    state.counters["paired_median_pct_of_" + suffix] = benchmark::Counter(100.0 * pair_ratios[pair_ratios.size() / 2]);
}

/// Defaults for every single-threaded benchmark of the suite: microseconds, and Google Benchmark's
/// default clock, CPU time of the benchmark thread — the clock the limits are measured with (see
/// thread_cpu_seconds). Threaded benchmarks add UseRealTime().
inline void defaults(benchmark::internal::Benchmark* b) { b->Unit(benchmark::kMicrosecond); }

/// Human form of a byte count for labels and context lines ("64 KiB", "64 MiB").
[[nodiscard]] inline std::string human_bytes(std::size_t bytes) {
    if (bytes >= MiB && bytes % MiB == 0) return std::to_string(bytes / MiB) + " MiB";
    if (bytes >= KiB && bytes % KiB == 0) return std::to_string(bytes / KiB) + " KiB";
    return std::to_string(bytes) + " B";
}

}  // namespace tensorops_bench

namespace tb = tensorops_bench;
