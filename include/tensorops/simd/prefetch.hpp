// tensorops/simd/prefetch.hpp — software prefetch hints for the streaming kernels.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace tensorops::simd {

/// Size of the unit the memory system moves (every x86-64 and most ARM cores).
inline constexpr std::size_t cache_line_bytes = 64;

/// How far ahead of their loads the read-only streaming kernels (reductions, argmax/argmin) prefetch (bytes).
/// Float max over 64 MiB read at ~80 % of the read limit without hints, ~100 % with them (Intel host, 2 KiB). On an
/// AMD Zen 5, 4 KiB against 2 KiB, 64 MiB of f32 rows of 4 KiB reduced over the rows (interleaved, three rounds):
/// SUM 46.4–46.8 against 31–46 GB/s, MAX 42.1–42.6 against 38–43, ARGMAX 41.6–42.2 against 33–39, a single line
/// 56 against 45–56 — never slower, and steadier. (With no hints at all, the rows' ends stall the stream there.)
/// Then 8 KiB against 4 KiB, each pass against a read probe of the same bytes right after it (best of 15, the two
/// distances alternated in one process, four rounds): rows of 4 KiB SUM 1.25–1.47 against 1.32–1.70 ms, MAX 1.31–1.53
/// against 1.45–1.70, ARGMAX 1.42–1.44 against 1.55–1.58; one line of 64 MiB SUM 1.40 against 1.50, ARGMAX 1.39
/// against 1.53 ms. Rows of 1 KiB, which the short-row kernel takes, were 3–10 % slower with 8 KiB: they keep
/// short_row_prefetch_distance.
inline constexpr std::ptrdiff_t read_prefetch_distance = 8192;

/// How far ahead of a row's start the short-row kernel (rows of at most 2 KiB) prefetches (bytes): see above.
inline constexpr std::ptrdiff_t short_row_prefetch_distance = 4096;

/// How far ahead of the row they are reading the outer kernels (rows combined lane-wise into a row of accumulators in
/// L1; ops/detail/reduce_kernels.hpp) prefetch: at least this many bytes, a whole number of rows on. On an AMD Zen 5,
/// 64 MiB of f32 rows of 4 KiB reduced over the rows, each pass against a read probe of the same bytes right after it
/// (best of 15, three rounds, two binaries alternated): a hint per cache line 8 KiB ahead against none, SUM 0.90–0.93×
/// the probe's speed against 0.77–0.87×, MAX 0.90–0.91× against 0.81–0.83×. In a hand-written prototype 4 KiB ahead
/// gained less (SUM 0.84–0.95×, MAX 0.80–0.87×, against 0.87–0.89× and 0.95–0.99× at 8 KiB), and all the hints of a
/// row at its start, rather than one per line as it goes, were slower than none.
inline constexpr std::ptrdiff_t outer_prefetch_distance = 8192;

/// Asks the memory system to start reading the `bytes` bytes that begin `distance` bytes from `address`
/// (negative: before it), one hint per cache line. A hint only: those bytes may lie outside any object — a
/// prefetch never faults and is never an access; the address is computed as an integer, so no out-of-bounds
/// pointer is formed. Compilers without the builtin get nothing.
/// Always inlined: GCC 12 finds a function whose only effect is __builtin_prefetch to be "looping const" (a prefetch
/// is no side effect to it) and drops the calls that its early inliner did not inline — the inner reduce kernel's
/// loop, in an always-inlined member, lost every hint that way (clang kept them). 64 MiB of f32 rows of 4 KiB summed
/// on an AMD Zen 5 (best of 30, three rounds, against the read probe in the same process): 0.91–0.92× the probe's
/// speed without the hints, 0.95–0.97× with them.
[[gnu::always_inline]] inline void prefetch_ahead(const void* address, std::ptrdiff_t distance, std::size_t bytes) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(address) + static_cast<std::uintptr_t>(distance);
    for (std::size_t offset = 0; offset < bytes; offset += cache_line_bytes)
        __builtin_prefetch(reinterpret_cast<const void*>(first + offset), 0, 3);
#else
    (void)address;
    (void)distance;
    (void)bytes;
#endif
}

/// Gather's and scatter's copies (ops/detail/index_tuples.hpp, move_slices): how many index tuples ahead they hint
/// the slice they will move, for slices of `slice_bytes` bytes — about 8 KiB of slices ahead,
/// between 4 and 64 tuples. The slices lie at random places, which no hardware prefetcher follows; without hints
/// only the misses of the few tuples the core's out-of-order window holds overlap. On an AMD Zen 5, against the same
/// plain loop without hints (best of 30): gathering 1M random f32 out of 16 MiB 1.7× faster 64 tuples ahead (1.1× at
/// 16); gathering 64K random rows of 256 bytes out of 256 MiB 1.8–2.3× faster 16–32 rows ahead (1.6–1.7× at 4);
/// scattering them, 8, 16 and 32 rows ahead gained about as much (move_slices).
[[nodiscard]] constexpr std::size_t tuples_ahead(std::size_t slice_bytes) noexcept {
    return std::clamp<std::size_t>(8192 / std::max<std::size_t>(slice_bytes, 1), 4, 64);
}

/// How many cache lines of each slice those hints cover: the first four. Past them a long slice is a sequential
/// stream, which the hardware prefetchers follow.
inline constexpr std::size_t slice_prefetch_lines = 4;

/// Hints that the cache line holding `address` will be written (ForWrite; x86: prefetchw where the target has it, else
/// an ordinary prefetch) or read. A hint only, as prefetch_ahead.
template <bool ForWrite>
[[gnu::always_inline]] inline void prefetch_line_as(const void* address) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(address, ForWrite ? 1 : 0, 3);
#else
    (void)address;
#endif
}

/// Hints that the cache line holding `address` will be read.
[[gnu::always_inline]] inline void prefetch_line(const void* address) noexcept { prefetch_line_as<false>(address); }

/// Hints that the cache line holding `address` will be read a little later: into L2, not L1 (prefetcht1 on x86).
/// For lines that would otherwise displace the ones being read now: rows a power of two bytes apart (4 KiB, say)
/// map to the same L1 sets, and a set holds only so many lines.
[[gnu::always_inline]] inline void prefetch_line_to_l2(const void* address) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(address, 0, 2);
#else
    (void)address;
#endif
}

/// Hints that the cache line holding `address` will be written.
[[gnu::always_inline]] inline void prefetch_line_for_write(const void* address) noexcept { prefetch_line_as<true>(address); }

/// Hints (ForWrite: for writing) the start of a slice of `bytes` ≥ 1 bytes at `address`: slice_prefetch_lines hints,
/// at address + min(i · cache_line_bytes, bytes − 1) — every line of a slice of up to that many lines that starts on a
/// line boundary, the first and the last line of a shorter one that does not (repeated hints of a line are harmless).
/// A fixed number of hints: in gather's and scatter's loop (move_slices) a loop over the slice's lines, its trip count
/// computed from the address or from the size, scattered 64K random rows of 256 bytes at 37–40 % of a memcpy's speed,
/// these four hints at 46–48 % (AMD Zen 5, slice size known only at run time; each pass paired with a memcpy pass
/// right after it, medians of 21 in one process).
template <bool ForWrite = false>
[[gnu::always_inline]] inline void prefetch_slice_start(const void* address, std::size_t bytes) noexcept {
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(address);
    const std::size_t last = bytes - 1;
    for (std::size_t line = 0; line < slice_prefetch_lines; ++line) {
        prefetch_line_as<ForWrite>(reinterpret_cast<const void*>(first + std::min(line * cache_line_bytes, last)));
    }
}

/// prefetch_slice_start for a slice whose size, Bytes ≥ 1, is known at compile time: only the hints that differ — one
/// every cache_line_bytes within the slice (at most slice_prefetch_lines), and one for its last byte when the slice
/// is no longer than those lines.
template <std::size_t Bytes, bool ForWrite = false>
[[gnu::always_inline]] inline void prefetch_slice_start(const void* address) noexcept {
    static_assert(Bytes >= 1);
    // No lambdas here: GCC drops the hints of a call it did not inline (see prefetch_ahead).
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(address);
    for (std::size_t offset = 0; offset < std::min(Bytes, slice_prefetch_lines * cache_line_bytes); offset += cache_line_bytes) {
        prefetch_line_as<ForWrite>(reinterpret_cast<const void*>(first + offset));
    }
    if constexpr (Bytes <= slice_prefetch_lines * cache_line_bytes) prefetch_line_as<ForWrite>(reinterpret_cast<const void*>(first + Bytes - 1));
}

}  // namespace tensorops::simd
