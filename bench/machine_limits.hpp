// bench/machine_limits.hpp — the machine's read and copy bandwidth, measured in the benchmark's own process with
// the probe kernels below: the yardsticks of every pct_of_… counter (harness.hpp).
#pragma once

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>
#include <vector>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "buffers.hpp"

namespace tensorops_bench {

/// Size of the buffers the limits are measured on: far larger than the 2 × 2 MiB of L2, so the limits
/// describe streaming from memory (or from whatever last-level cache the hypervisor lends us).
inline constexpr std::size_t limit_bytes = 64 * MiB;

// ---------------------------------------------------------------------------------------------
// The kernels the limits are measured with.

/// The probes' vector width: the target's native one (wider vectors are lowered through the stack by GCC 12).
#if defined(__AVX512F__)
inline constexpr std::size_t probe_vector_bytes = 64;
#elif defined(__AVX__)
inline constexpr std::size_t probe_vector_bytes = 32;
#else
inline constexpr std::size_t probe_vector_bytes = 16;
#endif

/// The probes' page hint, once per trip over [at, at + bytes): the first line of the page that begins 64 KiB
/// further on, if one does (see read_probe_sum); ForWrite: for writing (the copy probe's destination).
template <bool ForWrite = false>
[[gnu::always_inline]] inline void probe_hint_page_ahead(const void* at, std::size_t bytes) noexcept {
    constexpr std::uintptr_t page = 4096, page_ahead = 65536;
    const std::uintptr_t ahead = reinterpret_cast<std::uintptr_t>(at) + page_ahead;
    const std::uintptr_t next_page = (ahead + page - 1) & ~(page - 1);
    if (next_page - ahead < bytes) __builtin_prefetch(reinterpret_cast<const void*>(next_page), ForWrite ? 1 : 0, 3);
}

/// Sum of `n` floats with independent vector accumulators: 256 bytes per trip, one native vector
/// (GCC/Clang vector extensions) per accumulator — four zmm with AVX-512, eight ymm with AVX, sixteen xmm
/// otherwise — so the loop is limited by loads, not by the FP-add latency. Written with explicit vectors
/// because at -march=native GCC auto-vectorises with 256-bit vectors, and on this machine 512-bit loads
/// pull a partly cache-resident 64 MiB buffer in measurably faster: the limit must be the best this core
/// can do. (The vector width must match the target: wider-than-native vectors are lowered through the
/// stack by GCC 12.) For the same reason each trip hints the first line of the page that begins 64 KiB
/// further on, if one does: on this KVM guest, whose memory is in 4 KiB pages, the hardware prefetchers stop
/// at each page's end and its address translation (a nested page walk) stalls the stream — the plain loop
/// read 16–24 GB/s, with these hints 28–34 GB/s (64 MiB, alternated, best of 15); in 2 MiB pages the hints
/// changed nothing (29–40 against 35–37). The library's streaming kernels hint their pages the same way
/// (simd::prefetch_page_ahead), so a probe without them would not be the limit. Not the library's sum: only
/// a probe of how fast this core can read.
[[gnu::noinline]] inline float read_probe_sum(const float* __restrict p, std::size_t n) noexcept {
    constexpr std::size_t vector_bytes = probe_vector_bytes;
    using vec = float __attribute__((vector_size(vector_bytes)));
    constexpr std::size_t lanes = vector_bytes / sizeof(float);
    constexpr std::size_t accumulators = 256 / vector_bytes;
    constexpr std::size_t step = accumulators * lanes;
    const std::size_t body = n - n % step;
    vec acc[accumulators] = {};
    for (std::size_t i = 0; i < body; i += step) {
        probe_hint_page_ahead(p + i, step * sizeof(float));
#pragma GCC unroll 16
        for (std::size_t k = 0; k < accumulators; ++k) {
            vec v;
            std::memcpy(&v, p + i + k * lanes, sizeof v);  // an unaligned vector load
            acc[k] += v;
        }
    }
    vec all = acc[0];
    for (std::size_t k = 1; k < accumulators; ++k) all += acc[k];
    float total = 0.0f;
    for (std::size_t j = 0; j < lanes; ++j) total += all[j];
    for (std::size_t i = body; i < n; ++i) total += p[i];
    return total;
}

/// The C library's memcpy, whatever strategy it picks for this size on this CPU (glibc switches to non-temporal
/// stores only above a threshold derived from the last-level cache size; on this machine 64 MiB stays below it).
[[gnu::noinline]] inline void copy_probe_memcpy(void* dst, const void* src, std::size_t bytes) noexcept {
    std::memcpy(dst, src, bytes);
}

/// The copy probe: memcpy below 4 MiB; from 4 MiB on, 256 bytes per trip through native vectors (ordinary stores),
/// each trip hinting the page 64 KiB ahead in the source and, for writing, in the destination (see read_probe_sum: on
/// this guest's 4 KiB pages glibc's memcpy stalls at every page). It was the faster copy here (64 MiB 23–25 GB/s
/// against memcpy's 16–19, 16 MiB 38–39 against 33–38, 256 MiB 22–23 against 21, read + written, best of 15,
/// alternated; memcpy faster at 1 MiB, in cache). The limits also time memcpy passes and keep the best of both.
[[gnu::noinline]] inline void copy_probe(void* dst, const void* src, std::size_t bytes) noexcept {
    constexpr std::size_t trip = 256, vector_bytes = probe_vector_bytes;
    using vec = unsigned char __attribute__((vector_size(vector_bytes)));
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    std::size_t done = 0;
    if (bytes >= (std::size_t{4} << 20)) {
        for (; done + trip <= bytes; done += trip) {
            probe_hint_page_ahead(s + done, trip);
            probe_hint_page_ahead<true>(d + done, trip);
#pragma GCC unroll 16
            for (std::size_t k = 0; k < trip; k += vector_bytes) {
                vec v;
                std::memcpy(&v, s + done + k, sizeof v);
                std::memcpy(d + done + k, &v, sizeof v);
            }
        }
    }
    std::memcpy(d + done, s + done, bytes - done);
}

/// A copy with non-temporal (streaming) stores, which skip the read-for-ownership of each destination
/// line. Informative: an operator that streams its output may beat the memcpy limit by this much.
[[gnu::noinline]] inline void copy_probe_streaming(void* dst, const void* src, std::size_t bytes) noexcept {
#if defined(__AVX__)
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    const std::size_t head = std::min(bytes, (32 - reinterpret_cast<std::uintptr_t>(d) % 32) % 32);
    std::memcpy(d, s, head);
    d += head, s += head, bytes -= head;
    for (; bytes >= 128; d += 128, s += 128, bytes -= 128) {
        const __m256i v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
        const __m256i v1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32));
        const __m256i v2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 64));
        const __m256i v3 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 96));
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d), v0);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + 32), v1);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + 64), v2);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + 96), v3);
    }
    _mm_sfence();
    std::memcpy(d, s, bytes);
#else
    std::memcpy(dst, src, bytes);  // no AVX: no streaming variant, the figure equals the copy limit's
#endif
}

// ---------------------------------------------------------------------------------------------
// Machine limits: measured once per process, best of several repetitions, then only ever raised.
//
// Why the best and not the mean: the machine is shared with other jobs and runs under a hypervisor.
// Interference only ever makes a pass slower, never faster, so the fastest pass is the best estimate of
// what the hardware can do, and a fair yardstick for operators measured minutes apart in the same run.

enum class limit { read, copy };

struct machine_limits {
    double read_bytes_per_second = 0;  // 64 MiB f32 sum (read_probe_sum), 64 MiB moved per pass
    double copy_bytes_per_second = 0;  // copy of 64 MiB (copy_probe or memcpy, the faster), 128 MiB moved per pass (read + write)
    int read_passes = 0;               // how many timed passes the figures are the best of
    int copy_passes = 0;
};

/// CPU time of the calling thread, the clock Google Benchmark uses for single-threaded benchmarks unless
/// told UseRealTime(). On this shared two-core machine it leaves out the time other jobs take the core
/// from us (wall-clock figures of the same code vary 2× when another build runs); memory stalls count.
[[nodiscard]] inline double thread_cpu_seconds() noexcept {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

namespace detail {

inline machine_limits& limits_storage() {
    static machine_limits limits;
    return limits;
}

/// Dedicated buffers (slots far from the ones benchmarks use) so the limit probes never clobber inputs.
inline constexpr int limit_slot_read = -1;
inline constexpr int limit_slot_copy_src = -2;
inline constexpr int limit_slot_copy_dst = -3;

template <class F>
double seconds_of(F&& pass) {
    const double t0 = thread_cpu_seconds();
    pass();
    return thread_cpu_seconds() - t0;
}

}  // namespace detail

/// Buffers of the limit probes: 64 MiB each, pre-touched, random floats in the read buffer.
[[nodiscard]] inline std::span<const float> read_limit_buffer() {
    return random_input<float>(limit_bytes / sizeof(float), detail::limit_slot_read, 42);
}
[[nodiscard]] inline std::span<const float> copy_limit_source() {
    return random_input<float>(limit_bytes / sizeof(float), detail::limit_slot_copy_src, 43);
}
[[nodiscard]] inline std::span<float> copy_limit_destination() {
    return scratch<float>(limit_bytes / sizeof(float), detail::limit_slot_copy_dst);
}

/// Records an observed bandwidth; the limit keeps the best ever seen.
inline void observe(limit which, double bytes_per_second) {
    auto& l = detail::limits_storage();
    if (which == limit::read) {
        l.read_bytes_per_second = std::max(l.read_bytes_per_second, bytes_per_second);
        ++l.read_passes;
    } else {
        l.copy_bytes_per_second = std::max(l.copy_bytes_per_second, bytes_per_second);
        ++l.copy_passes;
    }
}

/// One pass of each probe, timed in thread CPU seconds, as `limits()` and the visible limit benchmarks use.
inline double time_read_pass() {
    const auto buf = read_limit_buffer();
    float sink = 0;
    const double s = detail::seconds_of([&] { sink = read_probe_sum(buf.data(), buf.size()); });
    benchmark::DoNotOptimize(sink);
    return s;
}
inline double time_copy_pass(void (*copy)(void*, const void*, std::size_t)) {
    const auto src = copy_limit_source();
    const auto dst = copy_limit_destination();
    return detail::seconds_of([&] {
        copy(dst.data(), src.data(), limit_bytes);
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
    });
}
inline double time_copy_pass() { return time_copy_pass(copy_probe); }
inline double time_memcpy_pass() { return time_copy_pass(copy_probe_memcpy); }

/// The limits, measured on first use, thereafter the best seen so far. Each probe runs 2 warm-up passes,
/// then timed passes back to back — at least `min_passes` and at least `min_seconds` — the way a
/// benchmark's iterations run. On this machine a 64 MiB buffer is partly held by the (shared, adaptive)
/// last-level cache: reading the same 64 MiB again and again speeds up over the first ~100 passes (12 →
/// up to ~28 GB/s), and a copy in between evicts it again. Interleaving the probes, or stopping after a
/// handful of passes, would therefore report a limit lower than what the benchmarks themselves reach.
inline const machine_limits& limits(int min_passes = 15, double min_seconds = 0.5) {
    auto& l = detail::limits_storage();
    if (l.read_passes == 0 || l.copy_passes == 0) {
        auto measure = [&](limit which, double bytes, double (*pass)()) {
            for (int i = 0; i < 2; ++i) (void)pass();
            double spent = 0;
            for (int i = 0; i < min_passes || spent < min_seconds; ++i) {
                const double s = pass();
                spent += s;
                observe(which, bytes / s);
            }
        };
        measure(limit::read, static_cast<double>(limit_bytes), time_read_pass);
        measure(limit::copy, 2.0 * static_cast<double>(limit_bytes), time_copy_pass);
        measure(limit::copy, 2.0 * static_cast<double>(limit_bytes), time_memcpy_pass);  // the limit is the faster copy
    }
    return l;
}

/// Read bandwidth with `threads` threads, each summing its own contiguous share of the 64 MiB buffer at
/// the same time; best of `passes`, in wall-clock time. A hook for multi-threaded comparisons: the
/// counters below always use the single-thread limits. The threads start once and meet at a barrier
/// before and after each pass.
inline double read_bandwidth_threads(int threads, int passes = 10) {
    const auto buf = read_limit_buffer();
    const std::size_t share = buf.size() / static_cast<std::size_t>(threads);
    std::barrier sync(threads);
    double best = 1e300;
    auto worker = [&](int t) {
        const float* p = buf.data() + static_cast<std::size_t>(t) * share;
        for (int pass = -2; pass < passes; ++pass) {  // two warm-up passes
            sync.arrive_and_wait();
            const auto t0 = std::chrono::steady_clock::now();
            float s = read_probe_sum(p, share);
            benchmark::DoNotOptimize(s);
            sync.arrive_and_wait();
            if (t == 0 && pass >= 0) {
                const auto t1 = std::chrono::steady_clock::now();
                best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
            }
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker, t);
    worker(0);
    for (auto& th : pool) th.join();
    return static_cast<double>(share * static_cast<std::size_t>(threads) * sizeof(float)) / best;
}

}  // namespace tensorops_bench
