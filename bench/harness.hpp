// bench/harness.hpp — what every tensorops benchmark shares.
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

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace tensorops_bench {

inline constexpr std::size_t KiB = std::size_t{1} << 10;
inline constexpr std::size_t MiB = std::size_t{1} << 20;

/// Size of the buffers the limits are measured on: far larger than the 2 × 2 MiB of L2, so the limits
/// describe streaming from memory (or from whatever last-level cache the hypervisor lends us).
inline constexpr std::size_t limit_bytes = 64 * MiB;

// ---------------------------------------------------------------------------------------------
// Allocation counting. main.cpp replaces malloc, calloc, realloc, aligned_alloc, posix_memalign and
// memalign (forwarding to glibc) and counts every call; operator new, Eigen's and xsimd's aligned
// allocators all end up there. A benchmark whose code allocates in its timed loop shows allocs_per_iter > 0.

inline std::atomic<std::uint64_t> allocation_calls{0};

inline void count_allocation() noexcept { allocation_calls.fetch_add(1, std::memory_order_relaxed); }

[[nodiscard]] inline std::uint64_t allocations() noexcept {
    return allocation_calls.load(std::memory_order_relaxed);
}

// ---------------------------------------------------------------------------------------------
// Deterministic pseudo-random fills.

/// splitmix64: a tiny, fast, well-mixed 64-bit generator; the same seed gives the same sequence everywhere.
class splitmix64 {
public:
    explicit constexpr splitmix64(std::uint64_t seed) noexcept : state_(seed) {}
    constexpr std::uint64_t operator()() noexcept {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

private:
    std::uint64_t state_;
};

/// Uniform value in [0, 1) with 24 (float) or 53 (otherwise) random bits.
template <class F>
constexpr F unit_interval(std::uint64_t bits) noexcept {
    if constexpr (std::is_same_v<F, float>) {
        return static_cast<float>(bits >> 40) * 0x1p-24f;
    } else {
        return static_cast<F>(bits >> 11) * static_cast<F>(0x1p-53);
    }
}

/// Fills `data` with values uniform in [lo, hi) for floating types, in [lo, hi] for integers. Any other
/// type constructible from float (e.g. tensorops::float16) gets float values in [lo, hi) converted.
template <class T>
void fill_uniform(std::span<T> data, std::uint64_t seed, double lo, double hi) {
    splitmix64 rng(seed);
    if constexpr (std::is_floating_point_v<T>) {
        const T base = static_cast<T>(lo), width = static_cast<T>(hi - lo);
        for (T& x : data) x = base + width * unit_interval<T>(rng());
    } else if constexpr (std::is_integral_v<T>) {
        const auto base = static_cast<std::int64_t>(lo);
        const auto width = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - base) + 1;
        for (T& x : data) x = static_cast<T>(base + static_cast<std::int64_t>(rng() % width));
    } else {
        static_assert(std::is_constructible_v<T, float>, "fill_uniform: element type not constructible from float");
        const auto base = static_cast<float>(lo), width = static_cast<float>(hi - lo);
        for (T& x : data) x = T(base + width * unit_interval<float>(rng()));
    }
}

/// Default ranges: [-1, 1) for floating types (sums stay well conditioned), [-64, 63] for signed and
/// [0, 127] for unsigned integers (fits int8/uint8; wider sums may wrap, which the library defines).
template <class T>
void fill_uniform(std::span<T> data, std::uint64_t seed) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
        fill_uniform(data, seed, -64.0, 63.0);
    } else if constexpr (std::is_integral_v<T>) {
        fill_uniform(data, seed, 0.0, 127.0);
    } else {
        fill_uniform(data, seed, -1.0, 1.0);
    }
}

// ---------------------------------------------------------------------------------------------
// Buffers: a process-wide pool keyed by (slot, byte size).
//
// `slot` tells apart buffers of one benchmark that must not alias (0 = first input, 1 = output, …).
// The same (slot, bytes) always returns the same memory, already touched, so switching between
// benchmarks costs no page faults. Memory is page-aligned; pass a `subspan(1)` to test misalignment.
// Not thread-safe: ask for buffers before the timed loop, from one thread (e.g. thread_index() == 0
// or before any threaded benchmark starts).

namespace detail {

struct pooled_buffer {
    struct freer {
        void operator()(void* p) const noexcept { std::free(p); }
    };
    std::unique_ptr<void, freer> memory;
    std::size_t bytes = 0;
    // What the contents are, so `random_input` refills only when needed; empty = unspecified.
    std::string contents;
};

inline std::map<std::pair<int, std::size_t>, pooled_buffer>& pool() {
    static std::map<std::pair<int, std::size_t>, pooled_buffer> buffers;
    return buffers;
}

inline pooled_buffer& pooled(std::size_t bytes, int slot) {
    auto& entry = pool()[{slot, bytes}];
    if (!entry.memory) {
        constexpr std::size_t page = 4096;
        const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + page - 1) / page * page;
        void* p = std::aligned_alloc(page, rounded);
        if (p == nullptr) throw std::bad_alloc();
        std::memset(p, 0, rounded);  // first touch happens here, once per process
        entry.memory.reset(p);
        entry.bytes = bytes;
        entry.contents = "zero";
    }
    return entry;
}

}  // namespace detail

/// Writable, pre-touched storage for `count` elements of T; contents unspecified.
template <class T>
[[nodiscard]] std::span<T> scratch(std::size_t count, int slot) {
    static_assert(std::is_trivially_copyable_v<T>, "pool buffers hold trivially copyable elements");
    auto& b = detail::pooled(count * sizeof(T), slot);
    b.contents.clear();  // the caller may write anything
    return {static_cast<T*>(b.memory.get()), count};
}

/// Pre-touched storage for `count` elements of T holding `fill_uniform(…, seed)`. Filled on the first
/// request and again only if the same buffer was since handed out as scratch or with other contents.
template <class T>
[[nodiscard]] std::span<const T> random_input(std::size_t count, int slot, std::uint64_t seed = 1) {
    static_assert(std::is_trivially_copyable_v<T>, "pool buffers hold trivially copyable elements");
    auto& b = detail::pooled(count * sizeof(T), slot);
    std::string tag = std::string("uniform:") + typeid(T).name() + ':' + std::to_string(seed);
    std::span<T> data{static_cast<T*>(b.memory.get()), count};
    if (b.contents != tag) {
        fill_uniform(data, seed);
        b.contents = std::move(tag);
    }
    return data;
}

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
