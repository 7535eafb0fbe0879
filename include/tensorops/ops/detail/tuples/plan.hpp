// tensorops/ops/detail/tuples/plan.hpp — the index tuples of gather_nd and scatter_nd: what a coordinate names
// (the range test and the normalisation of negative indices), the plan of the walk over the tuples, and the
// element-type-free layouts the shape checks and the planner see.
//
// An indices tensor of shape [t0, …, t(q−2), k] holds t0·…·t(q−2) tuples of k coordinates. Coordinate c of a
// tuple indexes dimension `first_dimension + c` of the indexed tensor (first_dimension = batch_dims for
// gather_nd, 0 for scatter_nd); signed coordinates may count from the end (−1 is the last index).
//
// Algorithm (two passes over the indices, no allocation):
//   1. validate (validate.hpp): one read-only pass over every coordinate, branch-free (an OR of "out of range"
//      flags per line of tuples, vectorisable for k = 1). Only when a flag is set does a cold second walk find the
//      first bad tuple in row-major order, to name it in the error. Nothing has been written yet.
//   2. walk (chunks.hpp): tuples in row-major order of the index array, in chunks of `tuple_chunk`; for each chunk
//      the coordinates are normalised into element offsets in a small array on the stack (offsets.hpp: one
//      multiply-add per coordinate, no checks: pass 1 proved them in range), then the operator's kernel consumes
//      the chunk. A plain copy of trivially copyable elements whose slices are contiguous runs or single elements
//      (scatter_nd without a reduction, gather_nd) skips the chunks: offsets are computed and the slices moved in
//      one loop (fused_copy.hpp, copy_tuples), instantiated per index type × direction; it prefetches the slices
//      it will move.
// The walk over the tuple dimensions is planned like any loop nest (size-1 dimensions dropped, dimensions
// that chain merged) but never reordered or reversed: tuples are always consumed in row-major order, which
// is what makes "the last duplicate wins" and the reduction order of scatter_nd deterministic.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "../../../core/element.hpp"
#include "../../../core/tensor_view.hpp"
#include "../../../iter/nd_loop.hpp"
#include "../../../iter/plan.hpp"

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

}  // namespace tensorops::detail
