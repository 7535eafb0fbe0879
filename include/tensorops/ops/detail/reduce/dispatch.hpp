// tensorops/ops/detail/reduce/dispatch.hpp — the kernels behind reduce (every function but argmax/argmin), chosen by
// layout.
//
// Kernels never validate and never throw. They receive a planned nest (operand 0 = output, with stride 0 on the
// reduced dimensions; operand 1 = input), the set of planned dimensions that are reduced, and a policy
// (reductions.hpp). Layouts, each in its own file:
//   short_rows.hpp   the group is one contiguous run of at most short_row_elements elements: eight outputs at a time, one
//                    accumulator each, their horizontal steps folded into one register; back-to-back rows of 2 to
//                    narrow_row_max elements in narrow_rows.hpp;
//   inner.hpp        the innermost dimension is reduced and contiguous in the input: for each output, several vector
//                    accumulators run along the contiguous runs of its group (contiguous.hpp); one horizontal step
//                    per output;
//   outer.hpp        the innermost dimension is kept and contiguous in input and output (narrower than a vector only
//                    when the rows lie back to back): vectorised across it, the group's rows streamed in memory order
//                    into a row of accumulators held in L1; no horizontal step (a line's plan in row_units.hpp; a
//                    line of a few rows a strip of columns at a time in registers, few_rows.hpp);
//   strided.hpp      anything else, and user-defined element types: one scalar accumulator per output.
// Log-sum-exp is a family of its own with the same layouts (../log_sum_exp/dispatch.hpp). On an executor, parallel.hpp
// cuts the work so that every output is computed exactly as sequentially.
// Float sums are accumulated in blocks of cascade_block elements and the blocks combined pairwise (cascade.hpp) — in
// the outer layout, where every lane of a row is a separate sum, in a three-level cascade — so the error grows like
// log(n), or (2·cascade_block + n / cascade_block²) for outer sums, rather than like n.
#pragma once

#include <cstddef>

#include "../../../exec/executor.hpp"
#include "../../../exec/split.hpp"
#include "../../../iter/plan.hpp"
#include "../../../simd/pack.hpp"
#include "../reduce_nest.hpp"
#include "blocks.hpp"
#include "inner.hpp"
#include "outer.hpp"
#include "parallel.hpp"
#include "short_rows.hpp"
#include "strided.hpp"

namespace tensorops::detail {

// ---------------------------------------------------------------------------------------------
// Dispatch by layout.

/// Reduces over the planned dimensions in `reduced` (count = elements per group), sequentially: every function but
/// log-sum-exp (log_sum_exp/dispatch.hpp).
template <class T, class R>
void run_reduce(const T* input, T* output, const iter::loop_nest<2>& nest, iter::axis_set reduced, std::size_t count, const R& r) {
    const auto parts = split_reduce_nest(nest, reduced);
    if constexpr (R::vectorizable && simd::vectorized) {
        switch (layout_of(nest, reduced, parts, simd::lanes<T>, short_row_elements<T>)) {
            case reduce_layout::short_rows: return reduce_short_rows(input, output, parts.kept, nest.sizes[nest.rank - 1], r);
            case reduce_layout::inner: return reduce_inner(input, output, parts, count, r);
            case reduce_layout::outer: return reduce_outer(input, output, parts, count, r);
            case reduce_layout::strided: break;
        }
    }
    reduce_strided(input, output, parts, count, r);
}

/// run_reduce on an executor, bit-identical to it — and to run_reduce on any piece of the nest (exec/split.hpp), a
/// single row included: a range of an outer kept axis reduced alone gives its outputs the bits the whole gives them
/// (tensorops::mpi relies on it). A single contiguous line, longer than a short row, into one output: by a function
/// with line blocks (sums, max/min, integer products) in aligned chunks of its cascade (reduce_line_in_chunks), by a
/// floating product in its fixed blocks (product_run_in_blocks); several runs into one output in chunks of runs
/// (reduce_runs_on); an [n rows, w columns] nest reduced over its rows in bands of whole blocks of rows
/// (reduce_rows_in_bands); anything else in pieces of independent outputs (exec/split.hpp).
template <class T, class R>
void run_reduce_on(const executor_ref& exec, const T* input, T* output, const iter::loop_nest<2>& nest, iter::axis_set reduced,
                   std::size_t count, const R& r) {
    const std::size_t bytes = nest.element_count() * sizeof(T);
    if constexpr (R::vectorizable && simd::vectorized) {
        constexpr std::size_t W = simd::lanes<T>;
        // One line longer than a short row (a short one is a short row, as in a nest of many: the same bits).
        if (is_one_contiguous_line(nest, reduced, W) && nest.sizes[0] > short_row_elements<T>) {
            const T* x = input + nest.offsets[1];
            T* y = output + nest.offsets[0];
            if constexpr (R::line_blocks) {
                if (reduce_line_in_chunks(exec, x, y, nest.sizes[0], count, r)) return;
            } else {
                *y = r.finish(product_run_in_blocks(&exec, x, nest.sizes[0], r), count, r.identity());
                return;
            }
        }
        if (reduce_runs_on(exec, input, output, nest, reduced, count, r)) return;
        if constexpr (R::row_blocks) {
            if (is_rows_over_columns(nest, reduced, W) && wanted_pieces(exec, bytes) > 1 &&
                reduce_rows_in_bands(exec, input + nest.offsets[1], output + nest.offsets[0], nest.sizes[1], nest.sizes[0], nest.strides[1][0],
                                     count, r))
                return;
        }
    }
    for_each_piece(exec, nest, independent_dimensions<T>(nest, reduced), bytes,
                   [&](const iter::loop_nest<2>& piece) { run_reduce(input, output, piece, reduced, count, r); });
}

}  // namespace tensorops::detail
