// tensorops/ops/detail/index_tuples.hpp — the index tuples of gather_nd and scatter_nd: how they are walked,
// how every one of them is checked before anything is written, and how they become element offsets.
//
// An indices tensor of shape [t0, …, t(q−2), k] holds t0·…·t(q−2) tuples of k coordinates. Coordinate c of a
// tuple indexes dimension `first_dimension + c` of the indexed tensor (first_dimension = batch_dims for
// gather_nd, 0 for scatter_nd); signed coordinates may count from the end (−1 is the last index).
//
// Algorithm (two passes over the indices, no allocation):
//   1. validate: one read-only pass over every coordinate, branch-free (an OR of "out of range" flags per
//      line of tuples, vectorisable for k = 1). Only when a flag is set does a cold second walk find the
//      first bad tuple in row-major order, to name it in the error. Nothing has been written yet.
//   2. walk: tuples in row-major order of the index array, in chunks of `tuple_chunk` (32); for each chunk the
//      coordinates are normalised into element offsets in a small array on the stack (one multiply-add per
//      coordinate, no checks: pass 1 proved them in range), then the operator's kernel consumes the chunk. The chunk filler depends on the index type only, the
//      consumer on the element type (and reduction) only, and the walk on neither: filler and consumer are
//      called through function pointers, once per chunk, so index type × element type × reduction instantiate
//      additively, not multiplicatively, and the walk is compiled once.
//      A plain copy of trivially copyable elements whose slices are contiguous runs or single elements (scatter_nd
//      without a reduction, gather_nd) skips the chunks: offsets are computed and the slices moved in one loop
//      (copy_tuples), instantiated per index type × direction; it prefetches the slices it will move.
// The walk over the tuple dimensions is planned like any loop nest (size-1 dimensions dropped, dimensions
// that chain merged) but never reordered or reversed: tuples are always consumed in row-major order, which
// is what makes "the last duplicate wins" and the reduction order of scatter_nd deterministic.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../../core/element.hpp"
#include "../../core/error.hpp"
#include "../../core/tensor_view.hpp"
#include "../../exec/executor.hpp"
#include "../../exec/split.hpp"
#include "../../iter/nd_loop.hpp"
#include "../../iter/plan.hpp"
#include "../../simd/copy.hpp"
#include "../../simd/prefetch.hpp"

namespace tensorops::detail {

/// True when `value` indexes a dimension of size `extent`: [0, extent) for unsigned types, [−extent, extent) for
/// signed ones, i.e. 0 ≤ value + extent < 2·extent, tested in 64-bit unsigned arithmetic. Exact for every extent
/// a view can have (≤ PTRDIFF_MAX < 2^63): a negative sum is at least extent − 2^63 and wraps to at least
/// extent + 2^63 ≥ 2·extent, so it fails; a non-negative one is below 2^64 and does not wrap. Branch-free.
template <index_element I>
[[nodiscard]] constexpr bool in_range(I value, std::size_t extent) noexcept {
    const auto limit = static_cast<std::uint64_t>(extent);
    if constexpr (std::is_signed_v<I>)
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(value)) + limit < 2 * limit;
    else
        return static_cast<std::uint64_t>(value) < limit;
}

/// The index in [0, extent) that an in-range `value` names (negative values count from the end).
template <index_element I>
[[nodiscard]] constexpr std::ptrdiff_t normalised(I value, std::size_t extent) noexcept {
    if constexpr (std::is_signed_v<I>)
        return static_cast<std::ptrdiff_t>(value) + (value < 0 ? static_cast<std::ptrdiff_t>(extent) : 0);
    else
        return static_cast<std::ptrdiff_t>(value);
}

/// The tuples of one call, once the shapes are checked.
struct tuple_plan {
    /// The tuple dimensions (indices.shape[:-1]) in row-major order, never reordered or reversed. Operands:
    /// 0 the tuple's first coordinate in `indices`; 1 the tuple's slice in the data tensor (scatter_nd's
    /// updates, gather_nd's output); 2 the batch's origin in the indexed tensor (gather_nd's batch dimensions;
    /// always 0 for scatter_nd).
    iter::loop_nest<3> walk;
    std::size_t count = 0;                  // number of tuples
    std::size_t k = 0;                      // coordinates per tuple
    std::size_t first_dimension = 0;        // dimension of the indexed tensor that coordinate 0 indexes
    std::ptrdiff_t coordinate_stride = 0;   // stride of `indices` along its last dimension
    extents_array extents{};                // size of the dimension each coordinate indexes
    strides_array strides{};                // stride of the indexed tensor along that dimension
};

/// The sizes and strides of one view, with the element type left out: what the shape checks and the planner
/// need, so that they are compiled once rather than once per element type × index type.
struct layout {
    std::span<const std::size_t> sizes;
    std::span<const std::ptrdiff_t> strides;
    [[nodiscard]] std::size_t rank() const noexcept { return sizes.size(); }
};

template <class T>
[[nodiscard]] layout layout_of(const tensor_view<T>& view) noexcept {
    return {view.sizes(), view.strides()};
}

/// True when `actual` equals first ++ second (no allocation: the shape checks run on every call).
[[nodiscard]] inline bool equals_concatenation(std::span<const std::size_t> actual, std::span<const std::size_t> first,
                                               std::span<const std::size_t> second) noexcept {
    return actual.size() == first.size() + second.size() && std::equal(first.begin(), first.end(), actual.begin()) &&
           std::equal(second.begin(), second.end(), actual.begin() + static_cast<std::ptrdiff_t>(first.size()));
}

/// first ++ second, for error messages.
[[nodiscard]] inline std::vector<std::size_t> concatenation(std::span<const std::size_t> first, std::span<const std::size_t> second) {
    std::vector<std::size_t> joined(first.begin(), first.end());
    joined.insert(joined.end(), second.begin(), second.end());
    return joined;
}

/// Plans the tuples of `indices` (rank ≥ 1, last size k ≥ 1) for an indexed tensor of rank ≥ batch_dims + k
/// whose first `batch_dims` dimensions the tuple dimensions share, and a data tensor whose leading dimensions
/// are the tuple dimensions. Shapes must already be checked.
[[nodiscard]] inline tuple_plan plan_tuples(const layout& indices, const layout& data, const layout& indexed, std::size_t batch_dims) {
    tuple_plan plan;
    const std::size_t tuple_rank = indices.rank() - 1;
    plan.k = indices.sizes[tuple_rank];
    plan.first_dimension = batch_dims;
    plan.coordinate_stride = indices.strides[tuple_rank];
    for (std::size_t c = 0; c < plan.k; ++c) {
        plan.extents[c] = indexed.sizes[batch_dims + c];
        plan.strides[c] = indexed.strides[batch_dims + c];
    }
    iter::loop_request<3> request;
    request.rank = tuple_rank;
    request.ordered.set();  // row-major, always
    plan.count = 1;
    for (std::size_t d = 0; d < tuple_rank; ++d) {
        request.sizes[d] = indices.sizes[d];
        plan.count *= indices.sizes[d];
        request.strides[0][d] = indices.strides[d];
        request.strides[1][d] = data.strides[d];
        request.strides[2][d] = d < batch_dims ? indexed.strides[d] : 0;
    }
    plan.walk = iter::plan_loops(request);
    return plan;
}

/// The nest that walks one tuple's slice, whose dimensions have the given sizes: operand 0 is the destination
/// (strides of `destination` from its dimension destination_first on), operand 1 the source (likewise).
[[nodiscard]] inline iter::loop_nest<2> plan_slice(std::span<const std::size_t> sizes, const layout& destination,
                                                   std::size_t destination_first, const layout& source, std::size_t source_first) {
    iter::loop_request<2> request;
    request.rank = sizes.size();
    for (std::size_t d = 0; d < request.rank; ++d) {
        request.sizes[d] = sizes[d];
        request.strides[0][d] = destination.strides[destination_first + d];
        request.strides[1][d] = source.strides[source_first + d];
    }
    return iter::plan_loops(request);
}

/// Calls body(line_offsets, length, line_strides) for every innermost line of tuples, in row-major order:
/// tuple i of a line has operand offsets line_offsets[o] + i · line_strides[o].
template <class Body>
void for_each_tuple_line(const tuple_plan& plan, Body&& body) {
    const auto& walk = plan.walk;
    if (walk.rank == 0) {  // a single tuple
        body(walk.offsets, std::size_t{1}, std::array<std::ptrdiff_t, 3>{});
        return;
    }
    const std::size_t inner = walk.rank - 1;
    const std::array<std::ptrdiff_t, 3> line_strides{walk.strides[0][inner], walk.strides[1][inner], walk.strides[2][inner]};
    iter::for_each_outer_index(walk, inner, [&](const std::array<std::ptrdiff_t, 3>& line) { body(line, walk.sizes[inner], line_strides); });
}

// ---------------------------------------------------------------------------------------------
// Pass 1: validation.

/// True when every coordinate of `count` tuples starting at `first` (tuple i at first + i · tuple_stride) is in range.
template <index_element I>
[[nodiscard]] bool line_in_range(const I* first, std::size_t count, std::ptrdiff_t tuple_stride, const tuple_plan& plan) noexcept {
    unsigned bad = 0;
    if (plan.k == 1) {
        const std::size_t extent = plan.extents[0];
        if (tuple_stride == 1) {
            for (std::size_t i = 0; i < count; ++i) bad |= static_cast<unsigned>(!in_range(first[i], extent));
        } else {
            for (std::size_t i = 0; i < count; ++i)
                bad |= static_cast<unsigned>(!in_range(first[static_cast<std::ptrdiff_t>(i) * tuple_stride], extent));
        }
    } else {
        for (std::size_t i = 0; i < count; ++i) {
            const I* tuple = first + static_cast<std::ptrdiff_t>(i) * tuple_stride;
            for (std::size_t c = 0; c < plan.k; ++c)
                bad |= static_cast<unsigned>(!in_range(tuple[static_cast<std::ptrdiff_t>(c) * plan.coordinate_stride], plan.extents[c]));
        }
    }
    return bad == 0;
}

/// True when every tuple of the plan is in range (the fast pass: no early exit, no error text).
template <index_element I>
[[nodiscard]] bool tuples_in_range(const I* indices, const tuple_plan& plan) noexcept {
    bool all = true;
    for_each_tuple_line(plan, [&](const std::array<std::ptrdiff_t, 3>& line, std::size_t length, const std::array<std::ptrdiff_t, 3>& strides) {
        all = line_in_range(indices + line[0], length, strides[0], plan) && all;
    });
    return all;
}

/// Finds the first tuple (row-major order of the index array) with a coordinate out of range and throws
/// tensorops::error naming its position, its value, the coordinate at fault and the valid range.
template <index_element I>
[[noreturn]] void throw_invalid_tuple(std::string_view operation, const tensor_view<const I>& indices, const tuple_plan& plan,
                                      std::string_view indexed_name) {
    const std::size_t tuple_rank = indices.rank() - 1;
    std::array<std::size_t, max_rank> position{};
    for (std::size_t n = 0; n < plan.count; ++n) {
        std::ptrdiff_t offset = 0;
        for (std::size_t d = 0; d < tuple_rank; ++d) offset += static_cast<std::ptrdiff_t>(position[d]) * indices.stride(d);
        const I* tuple = indices.data() + offset;
        const auto coordinate = [&](std::size_t c) { return tuple[static_cast<std::ptrdiff_t>(c) * plan.coordinate_stride]; };
        for (std::size_t c = 0; c < plan.k; ++c) {
            if (in_range(coordinate(c), plan.extents[c])) continue;
            std::string where = "indices[";
            for (std::size_t d = 0; d < tuple_rank; ++d) where += std::to_string(position[d]) + ", ";
            where += ":]";
            std::string value = "{";
            for (std::size_t i = 0; i < plan.k; ++i) value += (i ? ", " : "") + std::to_string(coordinate(i));
            value += "}";
            const std::size_t extent = plan.extents[c];
            const std::string dimension = "dimension " + std::to_string(plan.first_dimension + c) + " of " + std::string(indexed_name);
            std::string rule = "the index tuple " + where + " is " + value + ": coordinate " + std::to_string(c) + " (" +
                               std::to_string(coordinate(c)) + ") ";
            if (extent == 0) {
                rule += "indexes " + dimension + ", which has size 0 and so no valid index";
            } else {
                const std::string low = std::is_signed_v<I> ? "-" + std::to_string(extent) : std::string("0");
                rule += "is outside [" + low + ", " + std::to_string(extent - 1) + "], the valid range for " + dimension +
                        " (size " + std::to_string(extent) + ")";
            }
            throw error(operation, "indices", rule + "; nothing was written");
        }
        for (std::size_t d = tuple_rank; d-- > 0;) {
            if (++position[d] < indices.size(d)) break;
            position[d] = 0;
        }
    }
    throw error(operation, "indices", "holds an index out of range; nothing was written");  // not reached
}

/// Runs body(piece) for pieces of the plan's tuples (exec/split.hpp), each a plan of its own over a range of
/// tuples. `bytes_per_tuple`: memory traffic per tuple, to size the pieces.
template <class Body>
void for_each_tuple_piece(const executor_ref& exec, const tuple_plan& plan, std::size_t bytes_per_tuple, const Body& body) {
    iter::axis_set every;
    for (std::size_t d = 0; d < plan.walk.rank; ++d) every.set(d);
    for_each_piece(exec, plan.walk, every, plan.count * bytes_per_tuple, [&](const iter::loop_nest<3>& walk) {
        tuple_plan piece = plan;
        piece.walk = walk;
        piece.count = walk.element_count();
        body(piece);
    });
}

/// Pass 1: throws tensorops::error (argument "indices") unless every tuple is in range. The pieces only read and
/// report; the first bad tuple (row-major) is then found on the calling thread, so the error does not depend on
/// the executor.
template <index_element I>
void validate_tuples(const executor_ref& exec, std::string_view operation, const tensor_view<const I>& indices, const tuple_plan& plan,
                     std::string_view indexed_name) {
    std::atomic<bool> all{true};
    for_each_tuple_piece(exec, plan, plan.k * sizeof(I), [&](const tuple_plan& piece) {
        if (!tuples_in_range(indices.data(), piece)) all.store(false, std::memory_order_relaxed);
    });
    if (!all.load(std::memory_order_relaxed)) throw_invalid_tuple(operation, indices, plan, indexed_name);
}

// ---------------------------------------------------------------------------------------------
// Pass 2: tuples → element offsets, a chunk at a time.

/// Tuples per chunk: the offsets of one chunk live on the stack (256 bytes). Small on purpose: computing a chunk's
/// offsets never misses the cache, applying it mostly does, and the out-of-order window must hold both phases
/// for the misses of consecutive chunks to overlap. 1M random f32 elements into 16 MiB: chunks of 16–32 run as
/// fast as a plain loop, 64 about 15 % slower, 256–1024 about 30 % slower (element gather alike).
inline constexpr std::size_t tuple_chunk = 32;

/// for_each_tuple_chunk consumes a chunk of slices of several lines in groups of this many tuples, each after the
/// hints for as many tuples of the next chunk.
inline constexpr std::size_t hint_group = 8;

/// Coordinate c of the tuple at `tuple`, normalised (in range: pass 1 checked it).
template <index_element I>
[[nodiscard]] std::ptrdiff_t coordinate_of(const I* tuple, std::size_t c, const tuple_plan& plan) noexcept {
    return normalised(tuple[static_cast<std::ptrdiff_t>(c) * plan.coordinate_stride], plan.extents[c]);
}

/// Σ_c coordinate_of(tuple, c) · plan.strides[c]: where, in the indexed tensor, the tuple's slice starts.
template <index_element I>
[[nodiscard]] std::ptrdiff_t tuple_offset(const I* tuple, const tuple_plan& plan) noexcept {
    std::ptrdiff_t offset = 0;
    for (std::size_t c = 0; c < plan.k; ++c) offset += coordinate_of(tuple, c, plan) * plan.strides[c];
    return offset;
}

/// positions[i] = base + i · base_stride + Σ_c normalised(coordinate c of tuple i) · plan.strides[c] for the
/// `count` tuples at indices + first + i · tuple_stride (all in range: pass 1 checked them).
template <index_element I>
void fill_positions(const void* indices, std::ptrdiff_t first, std::ptrdiff_t tuple_stride, std::size_t count, const tuple_plan& plan,
                    std::ptrdiff_t base, std::ptrdiff_t base_stride, std::ptrdiff_t* positions) {
    const I* tuples = static_cast<const I*>(indices) + first;
    if (plan.k == 1) {
        const std::size_t extent = plan.extents[0];
        const std::ptrdiff_t stride = plan.strides[0];
        if (tuple_stride == 1 && base_stride == 0) {  // the common case, kept to a few instructions per tuple
            for (std::size_t i = 0; i < count; ++i) positions[i] = base + normalised(tuples[i], extent) * stride;
            return;
        }
        for (std::size_t i = 0; i < count; ++i) {
            const auto step = static_cast<std::ptrdiff_t>(i);
            positions[i] = base + step * base_stride + normalised(tuples[step * tuple_stride], extent) * stride;
        }
    } else {
        for (std::size_t i = 0; i < count; ++i) {
            const auto step = static_cast<std::ptrdiff_t>(i);
            positions[i] = base + step * base_stride + tuple_offset(tuples + step * tuple_stride, plan);
        }
    }
}

/// Moves the `length` slices of one line of tuples: tuple i's slice at indexed + position_of(i) and data +
/// slice_of(i), `Bytes` bytes each (0: slice_bytes, a run-time size, moved by simd::copy_bytes), from data to indexed
/// when Scatter, else back. While tuple i moves, the slice of tuple i + ahead is hinted (an element's line; a run's
/// first simd::slice_prefetch_lines lines, for a scattered run as lines about to be written): its offset is computed
/// twice, once to hint and once to move, rather than kept in an array (see copy_tuples). The slices lie at random
/// places, which no hardware prefetcher follows. On an AMD Zen 5, 64K random rows of 256 bytes scattered into a 256 MiB
/// tensor by hand-written loops, each pass against a 64 MiB memcpy right after it (medians of 21 in one process, the
/// rows left in the last-level cache by the pass before): 51–53 % of its speed without hints, 70–78 % with hints 8–32
/// rows ahead (for writing or for reading alike). With a call to memcpy per row the hints had gained less (56–59 %),
/// and on this host and the Intel one before they had looked like a loss. Single elements scattered with hints 64 ahead: 2.56–2.69
/// ms against 2.73–2.82 without (1M random f32 into 16 MiB, medians of 30 in one process; the plain loop 2.51–2.58).
/// Everything arrives by value, to live in registers: stores through std::byte* may alias anything reachable through
/// a pointer, so a loop reading its bounds or pointers through a reference reloads them after every copy (through a
/// lambda's captures, element scatter took 1.10–1.18× a plain loop's time; by value, 0.95–0.98×).
template <bool Scatter, std::size_t Bytes, class Position, class Slice>
[[gnu::always_inline]] inline void move_slices(std::conditional_t<Scatter, std::byte*, const std::byte*> indexed,
                                               std::conditional_t<Scatter, const std::byte*, std::byte*> data, std::size_t length,
                                               std::size_t slice_bytes, std::size_t ahead, Position position_of,
                                               Slice slice_of) noexcept {
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
/// dense along the tuples — gets a loop of its own with fewer values live: element gather 2.6–2.9 → 2.4–2.7 ms
/// (medians, 1M random f32 out of 16 MiB, two builds alternated; the plain loop 3.0–3.1 ms).
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
/// array's stores share the store buffer with the copies' stores, which commit in order behind cache misses: 64K
/// rows of 256 bytes went ~12 % slower through it than a plain memcpy loop, 1M single f32 elements ~30 %.) Scatter
/// copies data → indexed, gather indexed → data; the order is row-major. Both hint the indexed slices
/// simd::tuples_ahead tuples on (their first simd::slice_prefetch_lines lines).
template <index_element I, bool Scatter>
void copy_tuples(const void* indices, const tuple_plan& plan, indexed_pointer<Scatter> indexed, data_pointer<Scatter> data,
                 std::size_t element_bytes, std::size_t slice_bytes) {
    const auto size = static_cast<std::ptrdiff_t>(element_bytes);
    const std::size_t ahead = simd::tuples_ahead(slice_bytes);
    // Slices of 1, 2, 4, 8 or 16 bytes (single elements) move with a size known at compile time: one load and one
    // store, not a call to memcpy per tuple. So do rows of 32 to 512 bytes (8 to 128 floats, the usual widths of the
    // embedding tables gathered and scattered by rows): copy and hints unrolled, no loop to count. 64K random rows of
    // 256 bytes on an AMD Zen 5, each pass paired with a memcpy pass (medians of 21, one process), scattered at 62 %
    // of its speed with the size known only at run time, 67 % known at compile time (hand-written loop: 69 %); gathered
    // at 62 and 67 % (hand-written: 68 %). Other sizes take the run-time loop.
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

/// The tuples one piece of a parallel scatter applies: those whose coordinate `coordinate`, normalised, lies in
/// [begin, end). Tuples that differ in one coordinate select disjoint slices, and the output's layout is unique, so
/// pieces with disjoint ranges write disjoint elements — and each piece applies its tuples in row-major order, so
/// every element sees the same updates in the same order as sequentially, duplicates and reductions included.
struct tuple_owner {
    std::size_t coordinate = 0;
    std::size_t begin = 0;
    std::size_t end = 0;
};

/// Like fill_positions, for the tuples a piece owns only: the tuples whose coordinate owner.coordinate lies in
/// [owner.begin, owner.end) are packed, in order, into positions[] and data_offsets[] (tuple i's slice in the data
/// tensor at data + i · data_stride); returns how many. Branch-free (every tuple is written, the count advances
/// only for the owned ones): which tuples a piece owns is as unpredictable as the indices.
template <index_element I>
[[nodiscard]] std::size_t fill_owned_positions(const void* indices, std::ptrdiff_t first, std::ptrdiff_t tuple_stride, std::size_t count,
                                               const tuple_plan& plan, std::ptrdiff_t data, std::ptrdiff_t data_stride,
                                               const tuple_owner& owner, std::ptrdiff_t* positions, std::ptrdiff_t* data_offsets) {
    const I* tuples = static_cast<const I*>(indices) + first;
    const std::size_t width = owner.end - owner.begin;
    std::size_t kept = 0;
    if (plan.k == 1) {
        const std::size_t extent = plan.extents[0];
        const std::ptrdiff_t stride = plan.strides[0];
        for (std::size_t i = 0; i < count; ++i) {
            const auto step = static_cast<std::ptrdiff_t>(i);
            const std::ptrdiff_t coordinate = normalised(tuples[step * tuple_stride], extent);
            positions[kept] = coordinate * stride;
            data_offsets[kept] = data + step * data_stride;
            kept += static_cast<std::size_t>(static_cast<std::size_t>(coordinate) - owner.begin < width);
        }
        return kept;
    }
    for (std::size_t i = 0; i < count; ++i) {
        const auto step = static_cast<std::ptrdiff_t>(i);
        const I* tuple = tuples + step * tuple_stride;
        positions[kept] = tuple_offset(tuple, plan);
        data_offsets[kept] = data + step * data_stride;
        kept += static_cast<std::size_t>(static_cast<std::size_t>(coordinate_of(tuple, owner.coordinate, plan)) - owner.begin < width);
    }
    return kept;
}

/// The indices of a call with the pass-2 routines for their element type (type-erased: see the file comment):
/// `fill` computes a chunk of offsets, `fill_owned` those of the tuples a piece owns; `scatter_copy` and
/// `gather_copy` are the fused copies above.
struct tuple_source {
    using fill_function = void (*)(const void*, std::ptrdiff_t, std::ptrdiff_t, std::size_t, const tuple_plan&, std::ptrdiff_t,
                                   std::ptrdiff_t, std::ptrdiff_t*);
    using fill_owned_function = std::size_t (*)(const void*, std::ptrdiff_t, std::ptrdiff_t, std::size_t, const tuple_plan&, std::ptrdiff_t,
                                                std::ptrdiff_t, const tuple_owner&, std::ptrdiff_t*, std::ptrdiff_t*);
    using scatter_copy_function = void (*)(const void*, const tuple_plan&, std::byte*, const std::byte*, std::size_t, std::size_t);
    using gather_copy_function = void (*)(const void*, const tuple_plan&, const std::byte*, std::byte*, std::size_t, std::size_t);
    const void* indices = nullptr;
    std::size_t index_bytes = 0;  // sizeof the index type
    fill_function fill = nullptr;
    fill_owned_function fill_owned = nullptr;
    scatter_copy_function scatter_copy = nullptr;
    gather_copy_function gather_copy = nullptr;
};

template <index_element I>
[[nodiscard]] tuple_source make_tuple_source(const I* indices) noexcept {
    return {indices, sizeof(I), &fill_positions<I>, &fill_owned_positions<I>, &copy_tuples<I, true>, &copy_tuples<I, false>};
}

/// True when a tuple's slice is one run of several elements, contiguous in both tensors (the fused copies apply).
[[nodiscard]] inline bool slice_is_one_run(const iter::loop_nest<2>& slice) noexcept {
    return slice.rank == 1 && slice.strides[0][0] == 1 && slice.strides[1][0] == 1;
}

/// The elements of a slice that is a single element (rank 0) or one run (slice_is_one_run).
[[nodiscard]] inline std::size_t run_length(const iter::loop_nest<2>& slice) noexcept { return slice.rank == 0 ? 1 : slice.sizes[0]; }

/// The data offsets of a chunk's tuples: data + i · stride (all tuples of a line), or listed one by one (the
/// tuples a piece owns, packed by fill_owned_positions).
struct strided_offsets {
    std::ptrdiff_t first;
    std::ptrdiff_t stride;
    [[nodiscard]] std::ptrdiff_t operator()(std::size_t i) const noexcept { return first + static_cast<std::ptrdiff_t>(i) * stride; }
};
struct listed_offsets {
    const std::ptrdiff_t* offsets;
    [[nodiscard]] std::ptrdiff_t operator()(std::size_t i) const noexcept { return offsets[i]; }
};

/// What consumes the chunks of pass 2, type-erased so that the walk is compiled once, not once per element type ×
/// reduction (the consumer is called once per chunk): `kernel(positions, data_at, count)` with data_at a
/// strided_offsets (`consume`) or, for the pieces of a parallel scatter, a listed_offsets (`consume_listed`).
struct chunk_consumer {
    void (*consume)(const void* context, const std::ptrdiff_t* positions, std::ptrdiff_t data, std::ptrdiff_t data_stride,
                    std::size_t count) = nullptr;
    void (*consume_listed)(const void* context, const std::ptrdiff_t* positions, const std::ptrdiff_t* data, std::size_t count) = nullptr;
    const void* context = nullptr;
    /// Where the slices of the indexed tensor lie, for hints (no hints when `indexed` is null): the walk hints the
    /// `hinted_bytes` at indexed + position · element_bytes of the next chunk's tuples while this chunk is consumed,
    /// as lines about to be written when `for_write`.
    const std::byte* indexed = nullptr;
    std::size_t element_bytes = 0;
    std::size_t hinted_bytes = 0;
    bool for_write = false;
};

/// `consumer` with hints for the slices of `count` tuples at `positions` of an indexed tensor at `indexed`: the first
/// `slice_bytes` bytes of each (0: one element), for writing when `for_write`.
[[nodiscard]] inline chunk_consumer with_hints(chunk_consumer consumer, const void* indexed, std::size_t element_bytes, std::size_t slice_bytes,
                                               bool for_write) noexcept {
    consumer.indexed = static_cast<const std::byte*>(indexed);
    consumer.element_bytes = element_bytes;
    consumer.hinted_bytes = slice_bytes;
    consumer.for_write = for_write;
    return consumer;
}

/// hint_chunk's loop: the slices of `bytes` bytes at indexed + positions[i] · element_bytes (single elements: their line).
template <bool ForWrite>
[[gnu::always_inline]] inline void hint_slices(const std::byte* indexed, std::ptrdiff_t element_bytes, std::size_t bytes,
                                               const std::ptrdiff_t* positions, std::size_t count) noexcept {
    if (bytes <= static_cast<std::size_t>(element_bytes))
        for (std::size_t i = 0; i < count; ++i) simd::prefetch_line_as<ForWrite>(indexed + positions[i] * element_bytes);
    else
        for (std::size_t i = 0; i < count; ++i) simd::prefetch_slice_start<ForWrite>(indexed + positions[i] * element_bytes, bytes);
}

/// The hints of with_hints for one chunk. Always inlined: GCC drops the calls of a function whose only effect is a
/// prefetch (see simd::prefetch_ahead).
[[gnu::always_inline]] inline void hint_chunk(const chunk_consumer& consumer, const std::ptrdiff_t* positions, std::size_t count) noexcept {
    if (consumer.indexed == nullptr) return;
    const std::byte* indexed = consumer.indexed;
    const auto size = static_cast<std::ptrdiff_t>(consumer.element_bytes);
    const std::size_t bytes = consumer.hinted_bytes;
    if (consumer.for_write) hint_slices<true>(indexed, size, bytes, positions, count);
    else hint_slices<false>(indexed, size, bytes, positions, count);
}

/// A chunk_consumer calling `kernel(positions, strided_offsets, count)` (kernel must outlive the walk).
template <class Kernel>
[[nodiscard]] chunk_consumer consumer_of(const Kernel& kernel) noexcept {
    chunk_consumer consumer;
    consumer.consume = [](const void* context, const std::ptrdiff_t* positions, std::ptrdiff_t data, std::ptrdiff_t data_stride,
                          std::size_t count) { (*static_cast<const Kernel*>(context))(positions, strided_offsets{data, data_stride}, count); };
    consumer.context = &kernel;
    return consumer;
}

/// consumer_of with the listed form too (for the pieces of a parallel scatter).
template <class Kernel>
[[nodiscard]] chunk_consumer listing_consumer_of(const Kernel& kernel) noexcept {
    chunk_consumer consumer = consumer_of(kernel);
    consumer.consume_listed = [](const void* context, const std::ptrdiff_t* positions, const std::ptrdiff_t* data, std::size_t count) {
        (*static_cast<const Kernel*>(context))(positions, listed_offsets{data}, count);
    };
    return consumer;
}

/// Pass 2: calls the consumer for every chunk of tuples, in row-major order of the index array, with
/// positions[i] the element offset, in the indexed tensor, of the slice tuple i selects (batch origin included)
/// and data + i · data_stride the offset of tuple i's slice in the data tensor. Each chunk's positions are computed
/// one chunk ahead, so that the consumer's hints (with_hints) for a chunk go out while the chunk before it is
/// consumed: tuple_chunk tuples ahead.
inline void for_each_tuple_chunk(const tuple_plan& plan, const tuple_source& source, const chunk_consumer& consumer) {
    std::array<std::array<std::ptrdiff_t, tuple_chunk>, 2> positions;
    for_each_tuple_line(plan, [&](const std::array<std::ptrdiff_t, 3>& line, std::size_t length, const std::array<std::ptrdiff_t, 3>& strides) {
        const auto fill = [&](std::size_t start, std::ptrdiff_t* into) {
            const std::size_t count = std::min(tuple_chunk, length - start);
            const auto skip = static_cast<std::ptrdiff_t>(start);
            source.fill(source.indices, line[0] + skip * strides[0], strides[0], count, plan, line[2] + skip * strides[2], strides[2], into);
            return count;
        };
        const std::size_t group = consumer.hinted_bytes > consumer.element_bytes ? hint_group : tuple_chunk;
        std::size_t current = 0, count = length == 0 ? 0 : fill(0, positions[0].data());
        hint_chunk(consumer, positions[0].data(), count);
        for (std::size_t start = 0; start < length; start += tuple_chunk) {
            const std::size_t next_count = start + tuple_chunk < length ? fill(start + tuple_chunk, positions[current ^ 1].data()) : 0;
            // Slices of several lines: the chunk in quarters, each after the hints for a quarter of the next chunk —
            // hints go out a few at a time, as the work they are ahead of frees the core's miss buffers (a burst of a
            // whole chunk's hints stalls on them). Single elements: one line each, the whole chunk at once.
            for (std::size_t part = 0; part < count; part += group) {
                const std::size_t hinted = part < next_count ? std::min(group, next_count - part) : 0;
                hint_chunk(consumer, positions[current ^ 1].data() + part, hinted);
                const auto skip = static_cast<std::ptrdiff_t>(start + part);
                consumer.consume(consumer.context, positions[current].data() + part, line[1] + skip * strides[1], strides[1],
                                 std::min(group, count - part));
            }
            current ^= 1;
            count = next_count;
        }
    });
}

/// Pass 2 for one piece of a parallel scatter (no batch dimensions): like for_each_tuple_chunk (one chunk ahead,
/// hinted), but only the tuples `owner` names reach the consumer's listed form, still in row-major order.
inline void for_each_owned_tuple_chunk(const tuple_plan& plan, const tuple_source& source, const tuple_owner& owner,
                                       const chunk_consumer& consumer) {
    std::array<std::array<std::ptrdiff_t, tuple_chunk>, 2> positions, data_offsets;
    for_each_tuple_line(plan, [&](const std::array<std::ptrdiff_t, 3>& line, std::size_t length, const std::array<std::ptrdiff_t, 3>& strides) {
        const auto fill = [&](std::size_t start, std::size_t buffer) {
            const std::size_t count = std::min(tuple_chunk, length - start);
            const auto skip = static_cast<std::ptrdiff_t>(start);
            const std::size_t kept = source.fill_owned(source.indices, line[0] + skip * strides[0], strides[0], count, plan, line[1] + skip * strides[1],
                                                       strides[1], owner, positions[buffer].data(), data_offsets[buffer].data());
            hint_chunk(consumer, positions[buffer].data(), kept);
            return kept;
        };
        std::size_t current = 0, kept = length == 0 ? 0 : fill(0, 0);
        for (std::size_t start = 0; start < length; start += tuple_chunk) {
            const std::size_t next_kept = start + tuple_chunk < length ? fill(start + tuple_chunk, current ^ 1) : 0;
            if (kept != 0) consumer.consume_listed(consumer.context, positions[current].data(), data_offsets[current].data(), kept);
            current ^= 1;
            kept = next_kept;
        }
    });
}

}  // namespace tensorops::detail
