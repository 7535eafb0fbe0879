// tensorops/ops/detail/reduce/dispatch.hpp — the kernels behind reduce (every function but argmax/argmin), chosen by
// layout.
//
// Kernels never validate and never throw. They receive a planned nest (operand 0 = output, with stride 0 on the
// reduced dimensions; operand 1 = input), the set of planned dimensions that are reduced, and a policy
// (reductions.hpp). Layouts, each in its own file:
//   short_rows.hpp   the group is one contiguous run of at most short_row_limit elements: eight outputs at a time, one
//                    accumulator each, their horizontal steps folded into one register; back-to-back rows of 2 to
//                    narrow_row_max elements in narrow_rows.hpp;
//   inner.hpp        the innermost dimension is reduced and contiguous in the input: for each output, several vector
//                    accumulators run along the contiguous runs of its group (contiguous.hpp); one horizontal step
//                    per output;
//   outer.hpp        the innermost dimension is kept and contiguous in input and output (narrower than a vector only
//                    when the rows lie back to back): vectorised across it, the group's rows streamed in memory order
//                    into a row of accumulators held in L1; no horizontal step;
//   strided.hpp      anything else, and user-defined element types: one scalar accumulator per output.
// Log-sum-exp has kernels of its own for the first three (../log_sum_exp/). On an executor, parallel.hpp cuts the
// work so that every output is computed exactly as sequentially.
// Float sums are accumulated in blocks of cascade_block elements and the blocks combined pairwise (cascade.hpp) — in
// the outer layout, where every lane of a row is a separate sum, in a three-level cascade — so the error grows like
// log(n), or (2·cascade_block + n / cascade_block²) for outer sums, rather than like n.
#pragma once

#include <cstddef>

#include "../../../exec/executor.hpp"
#include "../../../exec/split.hpp"
#include "../../../iter/plan.hpp"
#include "../../../simd/pack.hpp"
#include "../log_sum_exp/outer.hpp"
#include "../log_sum_exp/runs.hpp"
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

/// Reduces over the planned dimensions in `reduced` (count = elements per group).
template <class T, class R>
void run_reduce(const T* input, T* output, const iter::loop_nest<2>& nest, iter::axis_set reduced, std::size_t count, const R& r) {
    const auto parts = split_reduce_nest(nest, reduced);
    if constexpr (R::vectorizable && simd::vectorized) {
        constexpr std::size_t W = simd::lanes<T>;
        const std::size_t last = nest.rank - 1;
        if (nest.rank > 0 && reduced.test(last) && nest.strides[1][last] == 1) {
            if (parts.group.rank == 1 && nest.sizes[last] <= short_row_limit<T, R>) {  // one short run per output
                reduce_short_rows(input, output, parts.kept, nest.sizes[last], r);
                return;
            }
            if (nest.sizes[last] >= W) {
                reduce_inner(input, output, parts, count, r);
                return;
            }
        }
        // Kept rows narrower than a vector too, when they lie back to back: the outer kernel fuses them into wide rows.
        if (nest.rank > 0 && !reduced.test(last) && nest.inner_is_contiguous({0, 1}) && parts.group.rank > 0 &&
            (nest.sizes[last] >= W || parts.group.strides[1][parts.group.rank - 1] == static_cast<std::ptrdiff_t>(nest.sizes[last]))) {
            reduce_outer(input, output, parts, count, r);
            return;
        }
    }
    reduce_strided(input, output, parts, count, r);
}

/// run_reduce on an executor, bit-identical to it. An [n rows, w columns] nest reduced over its rows (the outer
/// layout with nothing else kept) is cut into bands of whole blocks of rows (reduce_rows_in_bands,
/// reduce_rows_log_sum_exp_in_bands); a single contiguous line reduced by a function with line blocks (sums,
/// max/min, integer products) into aligned chunks of its cascade (reduce_line_in_chunks), by log-sum-exp or a
/// floating product into its fixed blocks (log_sum_exp_of_run, product_run_in_blocks), several runs into one output by runs
/// (log-sum-exp) or chunks of runs (reduce_runs_on); anything else into pieces of independent outputs
/// (exec/split.hpp).
template <class T, class R>
void run_reduce_on(const executor_ref& exec, const T* input, T* output, const iter::loop_nest<2>& nest, iter::axis_set reduced,
                   std::size_t count, const R& r) {
    const std::size_t bytes = nest.element_count() * sizeof(T);
    if constexpr (R::vectorizable && simd::vectorized) {
        const bool one_line = nest.rank == 1 && reduced.test(0) && nest.strides[1][0] == 1 && nest.sizes[0] >= simd::lanes<T>;
        if constexpr (R::line_blocks && !R::shifted) {  // one output, one contiguous line: chunks of the line
            if (one_line && reduce_line_in_chunks(exec, input + nest.offsets[1], output + nest.offsets[0], nest.sizes[0], count, r))
                return;
        } else {  // log-sum-exp, floating products: the fixed blocks of the line
            if (one_line) {
                if constexpr (R::shifted) {
                    output[nest.offsets[0]] = log_sum_exp_of_run(&exec, input + nest.offsets[1], nest.sizes[0], count, r);
                } else {
                    output[nest.offsets[0]] = r.finish(product_run_in_blocks(&exec, input + nest.offsets[1], nest.sizes[0], r), count, r.identity());
                }
                return;
            }
        }
        if (reduce_runs_on(exec, input, output, nest, reduced, count, r)) return;  // one output over several runs
        const bool rows_reduced = nest.rank == 2 && reduced.test(0) && !reduced.test(1) && nest.inner_is_contiguous({0, 1});
        if (rows_reduced && wanted_pieces(exec, bytes) > 1 && nest.sizes[1] >= simd::lanes<T>) {
            const std::size_t n = nest.sizes[0], width = nest.sizes[1];
            const std::ptrdiff_t step = nest.strides[1][0];
            const T* x = input + nest.offsets[1];
            T* y = output + nest.offsets[0];
            if constexpr (R::shifted) {
                if (n >= 2 * lse_block_rows) {
                    reduce_rows_log_sum_exp_in_bands(exec, x, y, width, n, step, count);
                    return;
                }
            } else if constexpr (R::row_blocks) {
                if (reduce_rows_in_bands(exec, x, y, width, n, step, count, r)) return;
            }
        }
    }
    for_each_piece(exec, nest, independent_dimensions<T>(nest, reduced), bytes,
                   [&](const iter::loop_nest<2>& piece) { run_reduce(input, output, piece, reduced, count, r); });
}

}  // namespace tensorops::detail
