// bench/buffers.hpp — the benchmarks' memory: heap allocations counted, deterministic pseudo-random fills, and
// pre-touched buffers that live for the whole process (harness.hpp says why and how the suite uses them).
#pragma once

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

namespace tensorops_bench {

inline constexpr std::size_t KiB = std::size_t{1} << 10;
inline constexpr std::size_t MiB = std::size_t{1} << 20;

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

}  // namespace tensorops_bench
