// tensorops/ops/detail/tuples/fused_copy.hpp — pass 2 fused with a plain copy (copy_tuples), for scatter_nd without
// a reduction and for gather_nd: each tuple's offset computed and its slice (one element or one contiguous run)
// moved in the same loop, the slices a few tuples ahead hinted. Measurements: bench/journal/notes-scan-and-tuples.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "../../../core/element.hpp"
#include "../../../core/inline.hpp"
#include "../../../simd/copy.hpp"
#include "../../../simd/prefetch.hpp"
#include "plan.hpp"

namespace tensorops::detail {

/// Moves the `length` slices of one line of tuples: tuple i's slice at indexed + position_of(i) and data +
/// slice_of(i), `Bytes` bytes each (0: slice_bytes, a run-time size, moved by simd::copy_bytes), from data to indexed
/// when Scatter, else back. While tuple i moves, the slice of tuple i + ahead is hinted (an element's line; a run's
/// first simd::slice_prefetch_lines lines, for a scattered run as lines about to be written): its offset is computed
/// twice, once to hint and once to move, rather than kept in an array (see copy_tuples). The slices lie at random
/// places, which no hardware prefetcher follows: only software hints overlap their misses.
/// Everything arrives by value, to live in registers: stores through std::byte* may alias anything reachable through
/// a pointer, so a loop reading its bounds or pointers through a reference reloads them after every copy.
template <bool Scatter, std::size_t Bytes, class Position, class Slice>
[[TENSOROPS_ALWAYS_INLINE]] inline void move_slices(std::conditional_t<Scatter, std::byte*, const std::byte*> indexed,
                                                    std::conditional_t<Scatter, const std::byte*, std::byte*> data,
                                                    std::size_t length, std::size_t slice_bytes, std::size_t ahead,
                                                    Position position_of, Slice slice_of) noexcept {
    constexpr bool element = Bytes != 0 && Bytes <= 16;
    const std::size_t bytes = Bytes != 0 ? Bytes : slice_bytes;
    const auto copy = [&](std::byte* destination, const std::byte* source) {
        if constexpr (element) std::memcpy(destination, source, Bytes);  // one load and one store
        else simd::copy_bytes(destination, source, bytes);
    };
    const auto move = [&](std::size_t i) {
        if constexpr (Scatter) copy(indexed + position_of(i), data + slice_of(i));
        else copy(data + slice_of(i), indexed + position_of(i));
    };
    std::size_t i = 0;
    for (; i + ahead < length; ++i) {
        if constexpr (element) simd::prefetch_line(indexed + position_of(i + ahead));  // one line
        else if constexpr (Bytes != 0) simd::prefetch_slice_start<Bytes, Scatter>(indexed + position_of(i + ahead));
        else simd::prefetch_slice_start<Scatter>(indexed + position_of(i + ahead), bytes);
        move(i);
    }
    for (; i < length; ++i) move(i);
}

/// The indexed tensor's and the data tensor's bytes, as copy_tuples sees them: scatter writes the indexed one, gather
/// the data one.
template <bool Scatter>
using indexed_pointer = std::conditional_t<Scatter, std::byte*, const std::byte*>;

template <bool Scatter>
using data_pointer = std::conditional_t<Scatter, const std::byte*, std::byte*>;

/// Where a line of tuples lies: tuple i at tuples + i · tuple_stride, its slice at indexed + i · base_stride + (the
/// tuple's offset) and at data + i · slice_stride (strides in bytes but tuple_stride, in elements of I).
template <index_element I, bool Scatter>
struct tuple_line {
    const I* tuples;
    indexed_pointer<Scatter> indexed;
    data_pointer<Scatter> data;
    std::size_t length;
    std::ptrdiff_t tuple_stride, base_stride, slice_stride;
};

/// copy_tuples' loop over one line of tuples (move_slices), one coordinate per tuple (k = 1) or several.
/// Not inlined, on purpose: in a function of its own the compiler keeps the loop's values in registers (inlined into
/// copy_tuples' nested lambdas, GCC 12 kept five of them on the stack and reloaded them every tuple).
/// The common layout — indices back to back, no batch dimension, and, for sizes known at compile time, both tensors
/// dense along the tuples — gets a loop of its own with fewer values live.
template <index_element I, bool Scatter, std::size_t Bytes>
[[gnu::noinline]] void move_line_one_coordinate(const tuple_line<I, Scatter> line, std::size_t slice_bytes, std::size_t extent,
                                                std::ptrdiff_t stride, std::size_t ahead) noexcept {
    const I* tuples = line.tuples;
    const std::ptrdiff_t tuple_stride = line.tuple_stride, base_stride = line.base_stride, slice_stride = line.slice_stride;
    const auto slice_of = [=](std::size_t i) { return static_cast<std::ptrdiff_t>(i) * slice_stride; };
    if (tuple_stride == 1 && base_stride == 0) {  // indices back to back, no batch dimension
        if constexpr (Bytes != 0) {
            if (stride == static_cast<std::ptrdiff_t>(Bytes) && slice_stride == static_cast<std::ptrdiff_t>(Bytes)) {
                // Both tensors dense along the tuples: every stride is the slice's size, a constant.
                const auto dense_position = [=](std::size_t i) { return normalised(tuples[i], extent) * static_cast<std::ptrdiff_t>(Bytes); };
                const auto dense_slice = [](std::size_t i) { return static_cast<std::ptrdiff_t>(i * Bytes); };
                move_slices<Scatter, Bytes>(line.indexed, line.data, line.length, slice_bytes, ahead, dense_position, dense_slice);
                return;
            }
        }
        const auto position_of = [=](std::size_t i) { return normalised(tuples[i], extent) * stride; };
        move_slices<Scatter, Bytes>(line.indexed, line.data, line.length, slice_bytes, ahead, position_of, slice_of);
        return;
    }
    const auto position_of = [=](std::size_t i) {
        const auto step = static_cast<std::ptrdiff_t>(i);
        return step * base_stride + normalised(tuples[step * tuple_stride], extent) * stride;
    };
    move_slices<Scatter, Bytes>(line.indexed, line.data, line.length, slice_bytes, ahead, position_of, slice_of);
}

/// copy_tuples' loop over one line of tuples of several coordinates each (k > 1), the strides in bytes.
template <index_element I, bool Scatter, std::size_t Bytes>
[[gnu::noinline]] void move_line_coordinates(const tuple_line<I, Scatter> line, std::size_t slice_bytes, const tuple_plan& plan,
                                             std::ptrdiff_t element_bytes, std::size_t ahead) noexcept {
    const I* tuples = line.tuples;
    const std::ptrdiff_t tuple_stride = line.tuple_stride, base_stride = line.base_stride, slice_stride = line.slice_stride;
    const std::size_t k = plan.k;
    const std::ptrdiff_t coordinate_stride = plan.coordinate_stride;
    const extents_array extents = plan.extents;
    strides_array strides_in_bytes = plan.strides;
    for (std::size_t c = 0; c < k; ++c) strides_in_bytes[c] *= element_bytes;
    const auto position_of = [=](std::size_t i) {
        const auto step = static_cast<std::ptrdiff_t>(i);
        const I* tuple = tuples + step * tuple_stride;
        std::ptrdiff_t position = step * base_stride;
        for (std::size_t c = 0; c < k; ++c)
            position += normalised(tuple[static_cast<std::ptrdiff_t>(c) * coordinate_stride], extents[c]) * strides_in_bytes[c];
        return position;
    };
    const auto slice_of = [=](std::size_t i) { return static_cast<std::ptrdiff_t>(i) * slice_stride; };
    move_slices<Scatter, Bytes>(line.indexed, line.data, line.length, slice_bytes, ahead, position_of, slice_of);
}

/// Pass 2 fused with a plain copy, for scatter_nd without a reduction and for gather_nd, when the elements are
/// trivially copyable and each tuple's slice is one contiguous run in both tensors, or a single element: offsets
/// are computed and the slice moved in the same loop (move_slices), with no array of offsets in between. (That
/// array's stores would share the store buffer with the copies' stores, which commit in order behind cache
/// misses.) Scatter copies data → indexed, gather indexed → data; the order is row-major. Both hint the indexed slices
/// simd::tuples_ahead tuples on (their first simd::slice_prefetch_lines lines).
template <index_element I, bool Scatter>
void copy_tuples(const void* indices, const tuple_plan& plan, indexed_pointer<Scatter> indexed, data_pointer<Scatter> data,
                 std::size_t element_bytes, std::size_t slice_bytes) {
    const auto size = static_cast<std::ptrdiff_t>(element_bytes);
    const std::size_t ahead = simd::tuples_ahead(slice_bytes);
    // Slices of 1, 2, 4, 8 or 16 bytes (single elements) move with a size known at compile time: one load and one
    // store, not a call to memcpy per tuple. So do rows of 32 to 512 bytes (8 to 128 floats, the usual widths of the
    // embedding tables gathered and scattered by rows): copy and hints unrolled, no loop to count. Other sizes take
    // the run-time loop.
    const auto copy_all = [&]<std::size_t Bytes>(std::integral_constant<std::size_t, Bytes>) {
        for_each_tuple_line(plan, [&](const std::array<std::ptrdiff_t, 3>& offsets, std::size_t length, const std::array<std::ptrdiff_t, 3>& strides) {
            const tuple_line<I, Scatter> line{static_cast<const I*>(indices) + offsets[0], indexed + offsets[2] * size, data + offsets[1] * size,
                                              length, strides[0], strides[2] * size, strides[1] * size};
            if (plan.k == 1) move_line_one_coordinate<I, Scatter, Bytes>(line, slice_bytes, plan.extents[0], plan.strides[0] * size, ahead);
            else move_line_coordinates<I, Scatter, Bytes>(line, slice_bytes, plan, size, ahead);
        });
    };
    switch (slice_bytes) {
        case 1: copy_all(std::integral_constant<std::size_t, 1>{}); break;
        case 2: copy_all(std::integral_constant<std::size_t, 2>{}); break;
        case 4: copy_all(std::integral_constant<std::size_t, 4>{}); break;
        case 8: copy_all(std::integral_constant<std::size_t, 8>{}); break;
        case 16: copy_all(std::integral_constant<std::size_t, 16>{}); break;
        case 32: copy_all(std::integral_constant<std::size_t, 32>{}); break;
        case 64: copy_all(std::integral_constant<std::size_t, 64>{}); break;
        case 128: copy_all(std::integral_constant<std::size_t, 128>{}); break;
        case 256: copy_all(std::integral_constant<std::size_t, 256>{}); break;
        case 512: copy_all(std::integral_constant<std::size_t, 512>{}); break;
        default: copy_all(std::integral_constant<std::size_t, 0>{}); break;
    }
}

}  // namespace tensorops::detail
