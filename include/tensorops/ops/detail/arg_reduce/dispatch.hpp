// tensorops/ops/detail/arg_reduce/dispatch.hpp — the kernels behind argmax / argmin, chosen by layout.
//
// The nest has three operands: 0 = output (index type, stride 0 on reduced dimensions), 1 = input,
// 2 = the flat-index pseudo-operand (row-major strides over the reduced axes, 0 on kept ones), so a walk knows
// each element's flat index. The reduced dimensions are planned `ordered`: a group is walked in increasing
// flat index, so "first" is a strict comparison and "last" a non-strict one. NaN counts as the extreme: the
// first (or last) NaN wins over every number. Layouts:
//   inner    (inner.hpp; the innermost reduced dimension is contiguous): the group is cut into blocks; in a block, per lane,
//            the best value and the step (four vectors) that reached it (locate_extreme); blocks are compared
//            as scalars, and only the winning step is searched again for the position — one pass over memory;
//   outer    (outer.hpp, outer_by_extreme.hpp; a kept dimension is contiguous): lanes of 32 or 64 bits keep, per lane, the best value and its flat
//            index, compared with each row in walk order and updated (with selects) only where it changes (back-to-back
//            rows narrower than arg_fused_row_bytes, vectors or not, fused into wide rows: outer.hpp); 8- and
//            16-bit lanes, too narrow for an index, find each column's extreme, then walk the rows again to where
//            it first (last) occurs (arg_reduce_rows_by_extreme);
//   strided  (strided.hpp) every other case and user types: scalar, ties broken by flat index, so it does not depend on the walk
//            order.
// The kernels write through an `index_output`, which sees the output's storage as unsigned integers of its width:
// they are compiled once per element type, not once per element type × index type (policy.hpp). Rows shorter than a
// few vectors take short_rows.hpp, back-to-back rows narrower than a register narrow_rows.hpp; on an executor,
// parallel.hpp cuts the work so that every output is what the sequential kernels give.
#pragma once

#include <cstddef>

#include "../../../exec/executor.hpp"
#include "../../../exec/split.hpp"
#include "../../../iter/plan.hpp"
#include "../reduce_nest.hpp"
#include "../tuning.hpp"
#include "inner.hpp"
#include "outer_by_extreme.hpp"
#include "parallel.hpp"
#include "strided.hpp"

namespace tensorops::detail {

// ---------------------------------------------------------------------------------------------
// Dispatch by layout.

template <bool Maximum, bool Last, class T>
void arg_reduce_outer(const T* input, const index_output& output, const reduce_nests<3>& parts) {
    const std::size_t last = parts.kept.rank - 1;
    const std::size_t columns = parts.kept.sizes[last];
    iter::axis_set innermost;
    innermost.set(last);
    iter::for_each_element(iter::remove_dimensions(parts.kept, innermost), [&](const std::array<std::ptrdiff_t, 3>& at) {
        if constexpr (sizeof(simd::compute_t<T>) >= 4) arg_reduce_rows<Maximum, Last>(input + at[1], output.shifted(at[0]), columns, parts.group, at[2]);
        else arg_reduce_rows_by_extreme<Maximum, Last>(input + at[1], output.shifted(at[0]), columns, parts.group, at[2]);
    });
}

template <bool Maximum, bool Last, class T>
void run_arg_reduce(const T* input, const index_output& output, const iter::loop_nest<3>& nest, iter::axis_set reduced) {
    if constexpr (builtin_element<T> && simd::vectorized) {
        constexpr std::size_t W = simd::lanes<T>;
        const auto parts = split_reduce_nest(nest, reduced);
        const std::size_t last = nest.rank - 1;
        // Rows narrower than a vector too, where each output has one (arg_reduce_inner: locate_in_short_row).
        if (nest.rank > 0 && reduced.test(last) && nest.strides[1][last] == 1 && (nest.sizes[last] >= W || parts.group.rank == 1)) {
            arg_reduce_inner<Maximum, Last>(input, output, parts);
            return;
        }
        // Rows narrower than a vector go there too where it fuses them (arg_fused_rows: back to back, one reduced axis).
        bool fused_narrow_rows = false;
        if constexpr (sizeof(simd::compute_t<T>) >= 4)
            fused_narrow_rows = nest.rank > 0 && parts.group.rank == 1 &&
                                arg_fused_rows<T>(nest.sizes[last], parts.group.strides[1][0], parts.group.sizes[0]) > 1;
        if (nest.rank > 0 && !reduced.test(last) && nest.inner_is_contiguous({0, 1}) && (nest.sizes[last] >= W || fused_narrow_rows) &&
            parts.group.rank > 0) {
            // 32- and 64-bit lanes hold the flat index in a lane of the same width (if it fits); narrower ones find
            // it again (arg_reduce_rows_by_extreme).
            bool index_fits = true;
            if constexpr (sizeof(simd::compute_t<T>) >= 4)
                index_fits = parts.group.element_count() <= std::numeric_limits<typename simd::lane_index_pack<simd::pack<T>>::value_type>::max();
            if (index_fits) {
                arg_reduce_outer<Maximum, Last>(input, output, parts);
                return;
            }
        }
    }
    arg_reduce_strided<Maximum, Last>(input, output, nest, reduced);
}

/// run_arg_reduce on an executor, with the same answer: one contiguous line into chunks of whole blocks
/// (arg_reduce_line_in_chunks), an [n rows, w columns] nest reduced over its rows into bands of rows
/// (arg_reduce_rows_in_bands; narrow rows back to back: bands of fused rows, arg_reduce_fused_rows_in_bands) unless its
/// rows are wide, anything else (wide rows: strips of columns) into pieces of independent outputs.
template <bool Maximum, bool Last, class T>
void run_arg_reduce_on(const executor_ref& exec, const T* input, const index_output& output, const iter::loop_nest<3>& nest,
                       iter::axis_set reduced) {
    const std::size_t bytes = nest.element_count() * sizeof(T);
    // Rows wide enough that each thread's strip of columns is a long stream of every row are cut by columns (the
    // pieces below), as scans across rows are (min_strip_bytes): the bands of rows keep a running best and its
    // indices for every column in each band, as wide as the rows — for a few very wide rows, more memory to allocate,
    // fill and merge than the input itself. Either way the answers are exact: the same.
    const bool rows_in_bands = nest.rank == 2 && reduced.test(0) && !reduced.test(1) && nest.inner_is_contiguous({0, 1}) &&
                              nest.sizes[1] * sizeof(T) < wanted_pieces(exec, bytes) * min_strip_bytes;
    if constexpr (builtin_element<T> && simd::vectorized && sizeof(simd::compute_t<T>) < 4) {  // 8- and 16-bit lanes
        if (rows_in_bands && wanted_pieces(exec, bytes) > 1 && nest.sizes[1] >= simd::lanes<T> && nest.sizes[0] >= 8) {
            arg_reduce_rows_by_extreme_in_bands<Maximum, Last>(exec, input + nest.offsets[1], output.shifted(nest.offsets[0]), nest.sizes[1],
                                                               nest.sizes[0], nest.strides[1][0], nest.strides[2][0], nest.offsets[2]);
            return;
        }
    }
    if constexpr (builtin_element<T> && simd::vectorized && sizeof(simd::compute_t<T>) >= 4) {
        using L = typename simd::lane_index_pack<simd::pack<T>>::value_type;
        if (nest.rank == 1 && reduced.test(0) && nest.strides[1][0] == 1 && nest.strides[2][0] == 1 &&
            arg_reduce_line_in_chunks<Maximum, Last>(exec, input + nest.offsets[1], output.shifted(nest.offsets[0]), nest.sizes[0],
                                                     nest.offsets[2]))
            return;
        // Narrow rows back to back (one reduced axis, the rows' flat indices within the index lanes): bands of fused rows.
        if (nest.rank == 2 && reduced.test(0) && !reduced.test(1) && nest.inner_is_contiguous({0, 1}) && wanted_pieces(exec, bytes) > 1 &&
            nest.sizes[0] <= std::numeric_limits<L>::max()) {
            const std::size_t fuse = arg_fused_rows<T>(nest.sizes[1], nest.strides[1][0], nest.sizes[0]);
            if (fuse > 1 && nest.sizes[0] / fuse >= 2) {
                arg_reduce_fused_rows_in_bands<Maximum, Last>(exec, input + nest.offsets[1], output.shifted(nest.offsets[0]), nest.sizes[1],
                                                              nest.sizes[0], fuse, nest.strides[2][0], nest.offsets[2]);
                return;
            }
        }
        if (rows_in_bands && wanted_pieces(exec, bytes) > 1 && nest.sizes[1] >= simd::lanes<T> &&
            nest.sizes[0] >= 8 && nest.sizes[0] <= std::numeric_limits<L>::max()) {
            arg_reduce_rows_in_bands<Maximum, Last>(exec, input + nest.offsets[1], output.shifted(nest.offsets[0]), nest.sizes[1], nest.sizes[0],
                                                    nest.strides[1][0], nest.strides[2][0], nest.offsets[2]);
            return;
        }
    }
    for_each_piece(exec, nest, independent_dimensions<T>(nest, reduced), bytes,
                   [&](const iter::loop_nest<3>& piece) { run_arg_reduce<Maximum, Last>(input, output, piece, reduced); });
}

}  // namespace tensorops::detail
