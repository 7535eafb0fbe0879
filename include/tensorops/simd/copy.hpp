// tensorops/simd/copy.hpp — copying a few hundred bytes through vector registers, inlined into the caller's loop.
//
// For loops that make many short copies (the slices of gather_nd and scatter_nd): a call to the C library's memcpy
// per copy costs more than the copy itself there (see copy_bytes). Long copies go to copy_stream: memcpy, or for copies
// of megabytes a loop that hints each page ahead (the input → output copy of scatter_nd).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../core/inline.hpp"
#include "pack.hpp"
#include "prefetch.hpp"

namespace tensorops::simd {

/// Bytes one move of copy_bytes carries: the widest vector register the build targets (at least 16: every 64-bit
/// target moves 16 bytes in one or two instructions, and without xsimd a pack is one lane wide).
inline constexpr std::size_t copy_block_bytes = std::max<std::size_t>(lanes<std::uint8_t>, 16);

/// Copies up to this many bytes inline; longer copies go to copy_stream (memcpy, whose long-copy strategies pay off
/// there, or from stream_copy_min_bytes on its page-hinted loop).
inline constexpr std::size_t inline_copy_max_bytes = 2048;

/// Copies copy_block_bytes bytes from `source` to `destination` (non-overlapping) in one register: a load and a store
/// of the pack of bytes. (Not a memcpy of that constant size: GCC 12 expands one of 32 bytes into two 16-byte moves at
/// x86-64-v3, twice the loads and stores, and slower in gather's and scatter's loops of short copies.)
[[TENSOROPS_ALWAYS_INLINE]] inline void copy_block(std::byte* destination, const std::byte* source) noexcept {
    if constexpr (lanes<std::uint8_t> == copy_block_bytes)
        simd::store(reinterpret_cast<std::uint8_t*>(destination), simd::load(reinterpret_cast<const std::uint8_t*>(source)));
    else
        std::memcpy(destination, source, copy_block_bytes);
}

/// Copies of at least this many bytes take copy_stream's loop rather than memcpy (below it the data mostly lives in
/// the caches, where glibc's memcpy is the faster copy).
inline constexpr std::size_t stream_copy_min_bytes = std::size_t{4} << 20;

/// Copies `bytes` bytes from `source` to `destination`, which must not overlap; same result as memcpy.
/// Algorithm: copies of at least stream_copy_min_bytes go four registers (copy_block) per step, each step hinting the
/// page of the source and of the destination page_prefetch_distance ahead (prefetch_stream_ahead; the destination's for
/// writing); the rest, and shorter copies, go to memcpy. Why: glibc's memcpy crosses each 4 KiB page of a long copy
/// without warning, so every page's address translation and the restart of the hardware prefetchers lie in its path
/// (see prefetch_page_ahead); this loop's page hints take them out of it (the figures:
/// bench/journal/notes-simd-and-iter.md).
inline void copy_stream(std::byte* destination, const std::byte* source, std::size_t bytes) noexcept {
    constexpr std::size_t step = 4 * copy_block_bytes;
    std::size_t offset = 0;
    if (bytes >= stream_copy_min_bytes) {
        for (; offset + step <= bytes; offset += step) {
            prefetch_stream_ahead(source + offset, step);
            prefetch_stream_ahead<true>(destination + offset, step);
            copy_block(destination + offset, source + offset);
            copy_block(destination + offset + copy_block_bytes, source + offset + copy_block_bytes);
            copy_block(destination + offset + 2 * copy_block_bytes, source + offset + 2 * copy_block_bytes);
            copy_block(destination + offset + 3 * copy_block_bytes, source + offset + 3 * copy_block_bytes);
        }
    }
    std::memcpy(destination + offset, source + offset, bytes - offset);
}

/// Copies `bytes` bytes from `source` to `destination`, which must not overlap. Copies of at least one register and at
/// most inline_copy_max_bytes move a register at a time in the caller's own loop (the last move overlapping the one
/// before it when `bytes` is not a whole number of registers); shorter ones call memcpy, longer ones copy_stream.
/// Same result as memcpy.
/// Algorithm: copy_block after copy_block, four to a loop step while four registers' worth remain (a run-time trip
/// count costs a compare and a branch per step: four moves share them).
/// Why not memcpy itself: in a loop of many short copies (gather's and scatter's slices), one memcpy call per copy
/// costs more than the copy inlined, scattering and gathering alike, with the same hints ahead (the figures:
/// bench/journal/notes-simd-and-iter.md). Why the calls cost this much was not pinned down (on the CPU measured,
/// glibc picked its AVX-512 variant).
[[TENSOROPS_ALWAYS_INLINE]] inline void copy_bytes(std::byte* destination, const std::byte* source,
                                                   std::size_t bytes) noexcept {
    constexpr std::size_t block = copy_block_bytes;
    if (bytes < block) {
        std::memcpy(destination, source, bytes);
        return;
    }
    if (bytes > inline_copy_max_bytes) {
        copy_stream(destination, source, bytes);
        return;
    }
    std::size_t offset = 0;
    for (; offset + 4 * block <= bytes; offset += 4 * block) {
        copy_block(destination + offset, source + offset);
        copy_block(destination + offset + block, source + offset + block);
        copy_block(destination + offset + 2 * block, source + offset + 2 * block);
        copy_block(destination + offset + 3 * block, source + offset + 3 * block);
    }
    for (; offset + block <= bytes; offset += block) copy_block(destination + offset, source + offset);
    if (offset < bytes) copy_block(destination + bytes - block, source + bytes - block);
}

}  // namespace tensorops::simd
