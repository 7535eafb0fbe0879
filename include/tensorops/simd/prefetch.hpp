// tensorops/simd/prefetch.hpp — software prefetch hints for the streaming kernels. (Whether the per-line hints are
// given is the CPU profile's choice: line_hints_pay, cpu_profile.hpp.)
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "../core/inline.hpp"

namespace tensorops::simd {

/// Size of the unit the memory system moves (every x86-64 and most ARM cores).
inline constexpr std::size_t cache_line_bytes = 64;

/// Bytes of a base page of virtual memory, the unit one address translation covers (x86-64; ARM kernels with 4 KiB
/// granules). Bigger pages only make prefetch_page_ahead hint more often than it needs to, never wrongly.
inline constexpr std::size_t page_bytes = 4096;

/// Bytes of one way of an L1 data cache: addresses a multiple of this apart fall in the same set (32 KiB 8-way and
/// 48 KiB 12-way caches both have 4 KiB ways; ARM's 64 KiB 4-way would be 16 KiB — a wrong value only misplaces what
/// place_apart_from-like helpers try to keep apart, never a result).
inline constexpr std::size_t l1_way_bytes = 4096;

/// How far ahead of their reads the streaming kernels hint each page they will enter (bytes; see prefetch_page_ahead).
/// Far enough that a page's address translation and first lines are in hand before a stream at full speed reaches
/// it: hints 8 or 16 KiB ahead come too late for the reductions over rows, and 128 KiB ahead gains nothing over 64
/// (the figures: bench/journal/notes-simd-and-iter.md).
inline constexpr std::ptrdiff_t page_prefetch_distance = 65536;

/// Asks the memory system to start reading the `bytes` bytes that begin `distance` bytes from `address`
/// (negative: before it), one hint per cache line. A hint only: those bytes may lie outside any object — a
/// prefetch never faults and is never an access; the address is computed as an integer, so no out-of-bounds
/// pointer is formed. Compilers without the builtin get nothing.
/// Always inlined: GCC 12 finds a function whose only effect is __builtin_prefetch to be "looping const" (a prefetch
/// is no side effect to it) and drops the calls that its early inliner did not inline — the inner reduce kernel's
/// loop, in an always-inlined member, lost every hint that way (clang kept them).
[[TENSOROPS_ALWAYS_INLINE]] inline void prefetch_ahead(const void* address, std::ptrdiff_t distance,
                                                       std::size_t bytes) noexcept {
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

/// Hints that the cache line holding `address` will be written (ForWrite; x86: prefetchw where the target has it, else
/// an ordinary prefetch) or read. A hint only, as prefetch_ahead.
template <bool ForWrite>
[[TENSOROPS_ALWAYS_INLINE]] inline void prefetch_line_as(const void* address) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(address, ForWrite ? 1 : 0, 3);
#else
    (void)address;
#endif
}

/// One step of a kernel that walks memory upward, the step reading [address, address + bytes) with bytes ≤ page_bytes:
/// hints the first cache line of the page that begins in [address + distance, address + distance + bytes), if one does.
/// A walk whose steps tile its stream thus hints each page it will enter, once, `distance` bytes before it gets there.
/// A hint only, as prefetch_ahead (the address may lie outside any object).
///
/// Why pages and not lines: the hardware prefetchers follow a stream within a page and stop at its end, and the first
/// read of a page waits for its address translation — a page walk, which under virtualisation (nested page tables)
/// costs several dependent memory reads, and which no hardware prefetcher starts early. A hint at the page's first line
/// runs that walk, and starts the page's stream, while the kernel is still reading pages before it. It matters most
/// where memory is in 4 KiB pages (transparent huge pages only on madvise, as Debian sets it): 2 MiB pages put 512
/// times fewer translations in a stream's path. One hint per line a few KiB ahead (what the reductions did before) does
/// not do this job: it was no faster than no hints at all, and added to the page hints it slowed them
/// (the figures: bench/journal/notes-simd-and-iter.md).
template <bool ForWrite = false>
[[TENSOROPS_ALWAYS_INLINE]] inline void prefetch_page_ahead(const void* address, std::ptrdiff_t distance,
                                                            std::size_t bytes) noexcept {
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(address) + static_cast<std::uintptr_t>(distance);
    const std::uintptr_t page = (first + page_bytes - 1) & ~static_cast<std::uintptr_t>(page_bytes - 1);
    if (page - first < bytes) prefetch_line_as<ForWrite>(reinterpret_cast<const void*>(page));
}

/// The hints of prefetch_page_ahead(address, distance, StepBytes) at every step of a walk upward from `start` in steps
/// of StepBytes (a power of two no larger than a page) — the first line of each page that begins within a step's bytes
/// `distance` on — with one compare a step instead of the address arithmetic: the step that enters the next page is
/// counted in advance. at(k) gives step k's hint and returns the line it hinted, or null (k = 0, 1, 2, … in order;
/// steps may be skipped only where no hint falls). For the outer kernels' row walks (ops/detail/row_walk.hpp,
/// for_each_row_vector_prefetching), whose steps are a cache line of two vectors: the page test took five of a line's
/// sixteen instructions. Call at(k) after step k's loads, never before them: on rows that begin a page the hint falls
/// on a row's first line, and issued ahead of the step's loads it slows them from memory.
template <std::size_t StepBytes>
class page_hint_walk {
    static_assert(StepBytes != 0 && StepBytes <= page_bytes && page_bytes % StepBytes == 0);

public:
    page_hint_walk(const void* start, std::ptrdiff_t distance) noexcept {
        const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(start) + static_cast<std::uintptr_t>(distance);
        next_page_ = (first + page_bytes - 1) & ~static_cast<std::uintptr_t>(page_bytes - 1);
        next_step_ = (next_page_ - first) / StepBytes;
    }
    [[TENSOROPS_ALWAYS_INLINE]] const void* at(std::size_t step) noexcept {
        if (step != next_step_) return nullptr;
        const void* const line = reinterpret_cast<const void*>(next_page_);
        prefetch_line_as<false>(line);
        next_page_ += page_bytes;
        next_step_ += page_bytes / StepBytes;
        return line;
    }

private:
    std::uintptr_t next_page_;
    std::size_t next_step_;
};

/// prefetch_page_ahead for a kernel that walks memory downward, the step reading [address, address + bytes): hints the
/// last cache line of the page that ends in [address − distance, address − distance + bytes), if one does — the line at
/// which the walk will enter that page.
template <bool ForWrite = false>
[[TENSOROPS_ALWAYS_INLINE]] inline void prefetch_page_below(const void* address, std::ptrdiff_t distance,
                                                            std::size_t bytes) noexcept {
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(address) - static_cast<std::uintptr_t>(distance);
    const std::uintptr_t page_end = (first + bytes) & ~static_cast<std::uintptr_t>(page_bytes - 1);
    if (page_end - first - 1 < bytes) prefetch_line_as<ForWrite>(reinterpret_cast<const void*>(page_end - 1));
}

/// What a kernel streaming through memory calls once per step, the step touching [address, address + bytes): the page
/// hint page_prefetch_distance ahead in the walk's direction (Downward: toward lower addresses), for reading or, with
/// ForWrite, for writing (an output stream: its pages' translations and lines' ownership are needed just the same).
template <bool ForWrite = false, bool Downward = false>
[[TENSOROPS_ALWAYS_INLINE]] inline void prefetch_stream_ahead(const void* address, std::size_t bytes) noexcept {
    if constexpr (Downward) prefetch_page_below<ForWrite>(address, page_prefetch_distance, bytes);
    else prefetch_page_ahead<ForWrite>(address, page_prefetch_distance, bytes);
}

/// What a kernel starts a stream with when no step before it hinted the stream's beginning (a block of a line that
/// another thread scans the blocks around): one hint in each page of its first `bytes` bytes (Downward: of the
/// `bytes` bytes ending at `address`, the walk's first element), the pages its steps' own hints
/// (prefetch_stream_ahead) would have entered too late. A hint only, as prefetch_ahead.
template <bool ForWrite = false, bool Downward = false>
[[TENSOROPS_ALWAYS_INLINE]] inline void prefetch_stream_start(const void* address, std::size_t bytes) noexcept {
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(address);
    for (std::size_t offset = 0; offset < bytes; offset += page_bytes)
        prefetch_line_as<ForWrite>(reinterpret_cast<const void*>(Downward ? first - offset : first + offset));
}

/// How many rows ahead a kernel walking rows `pitch` elements of T apart hints: the first row at least
/// page_prefetch_distance bytes on (0 for a pitch of 0).
template <class T>
[[nodiscard]] constexpr std::size_t rows_ahead(std::ptrdiff_t pitch) noexcept {
    const std::ptrdiff_t bytes = pitch * static_cast<std::ptrdiff_t>(sizeof(T));
    if (bytes == 0) return 0;
    const std::ptrdiff_t size = bytes < 0 ? -bytes : bytes;
    return static_cast<std::size_t>((page_prefetch_distance + size - 1) / size);
}

/// How far ahead (bytes, signed) a kernel walking rows `pitch` elements of T apart hints: rows_ahead rows on.
template <class T>
[[nodiscard]] constexpr std::ptrdiff_t rows_ahead_bytes(std::ptrdiff_t pitch) noexcept {
    return pitch * static_cast<std::ptrdiff_t>(sizeof(T)) * static_cast<std::ptrdiff_t>(rows_ahead<T>(pitch));
}

/// Gather's and scatter's copies (ops/detail/tuples/fused_copy.hpp, move_slices): how many index tuples ahead they hint
/// the slice they will move, for slices of `slice_bytes` bytes — about 8 KiB of slices ahead,
/// between 4 and 64 tuples. The slices lie at random places, which no hardware prefetcher follows; without hints
/// only the misses of the few tuples the core's out-of-order window holds overlap. The hints overlap those of many
/// tuples; for small slices, the more tuples ahead (up to the clamp's 64), the more of them
/// (the figures: bench/journal/notes-simd-and-iter.md).
[[nodiscard]] constexpr std::size_t tuples_ahead(std::size_t slice_bytes) noexcept {
    return std::clamp<std::size_t>(8192 / std::max<std::size_t>(slice_bytes, 1), 4, 64);
}

/// How many cache lines of each slice those hints cover: the first four. Past them a long slice is a sequential
/// stream, which the hardware prefetchers follow.
inline constexpr std::size_t slice_prefetch_lines = 4;

/// Hints that the cache line holding `address` will be read.
[[TENSOROPS_ALWAYS_INLINE]] inline void prefetch_line(const void* address) noexcept {
    prefetch_line_as<false>(address);
}

/// Hints that the cache line holding `address` will be read a little later: into L2, not L1 (prefetcht1 on x86).
/// For lines that would otherwise displace the ones being read now: rows a power of two bytes apart (4 KiB, say)
/// map to the same L1 sets, and a set holds only so many lines.
[[TENSOROPS_ALWAYS_INLINE]] inline void prefetch_line_to_l2(const void* address) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(address, 0, 2);
#else
    (void)address;
#endif
}

/// Hints that the cache line holding `address` will be written.
[[TENSOROPS_ALWAYS_INLINE]] inline void prefetch_line_for_write(const void* address) noexcept {
    prefetch_line_as<true>(address);
}

/// Hints (ForWrite: for writing) the start of a slice of `bytes` ≥ 1 bytes at `address`: slice_prefetch_lines hints,
/// at address + min(i · cache_line_bytes, bytes − 1) — every line of a slice of up to that many lines that starts on a
/// line boundary, the first and the last line of a shorter one that does not (repeated hints of a line are harmless).
/// A fixed number of hints, not a loop over the slice's lines: in gather's and scatter's loop (move_slices), where the
/// slice size is known only at run time, such a loop, its trip count computed from the address or from the size, costs
/// more than the hints it would save (the figures: bench/journal/notes-simd-and-iter.md).
template <bool ForWrite = false>
[[TENSOROPS_ALWAYS_INLINE]] inline void prefetch_slice_start(const void* address, std::size_t bytes) noexcept {
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
[[TENSOROPS_ALWAYS_INLINE]] inline void prefetch_slice_start(const void* address) noexcept {
    static_assert(Bytes >= 1);
    // No lambdas here: GCC drops the hints of a call it did not inline (see prefetch_ahead).
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(address);
    for (std::size_t offset = 0; offset < std::min(Bytes, slice_prefetch_lines * cache_line_bytes); offset += cache_line_bytes) {
        prefetch_line_as<ForWrite>(reinterpret_cast<const void*>(first + offset));
    }
    if constexpr (Bytes <= slice_prefetch_lines * cache_line_bytes) prefetch_line_as<ForWrite>(reinterpret_cast<const void*>(first + Bytes - 1));
}

}  // namespace tensorops::simd
