// tensorops/ops/detail/log_sum_exp/dispatch.hpp — the kernels behind reduce's LOG_SUM_EXP, chosen by layout: a family
// of its own beside reduce's (reduce/dispatch.hpp), with the same layouts and the same ways of cutting the work.
//
// Log-sum-exp is m + ln Σ e^(x − m) with m the group's maximum (SEMANTICS.md §2). Its kernels read memory once where
// they can: the terms are taken against a reference from the first elements (a power of two for float lanes), and a
// stretch, row or column whose maximum that reference does not serve (or that holds NaN or ±inf) is redone in two
// passes from cache. Layouts:
//   short_rows.hpp   groups that are one short contiguous run (log_sum_exp_short_row_elements): G rows at a time;
//   runs.hpp         the inner layout: each run in one pass, long runs in fixed blocks of stretches (stretch.hpp);
//   outer.hpp        the outer layout: blocks of rows against a reference row, merged into running rows;
//   strided.hpp      anything else: two scalar passes per group.
// On an executor, one long line is cut into its fixed blocks, several runs of one output by runs, [n, w] over the
// rows into bands of whole blocks: the same bits as sequentially.
#pragma once

#include <cstddef>

#include "../../../exec/executor.hpp"
#include "../../../exec/split.hpp"
#include "../../../iter/plan.hpp"
#include "../../../simd/pack.hpp"
#include "../reduce_nest.hpp"
#include "../reductions.hpp"
#include "../tuning.hpp"
#include "outer.hpp"
#include "runs.hpp"
#include "short_rows.hpp"
#include "strided.hpp"

namespace tensorops::detail {

/// Log-sum-exp over the planned dimensions in `reduced` (count = elements per group), sequentially.
template <class T>
void run_log_sum_exp(const T* input, T* output, const iter::loop_nest<2>& nest, iter::axis_set reduced, std::size_t count) {
    const auto parts = split_reduce_nest(nest, reduced);
    if constexpr (log_sum_exp_reduction<T>::vectorizable && simd::vectorized) {
        switch (layout_of(nest, reduced, parts, simd::lanes<T>, log_sum_exp_short_row_elements<T>)) {
            case reduce_layout::short_rows: return reduce_short_rows_log_sum_exp(input, output, parts.kept, nest.sizes[nest.rank - 1]);
            case reduce_layout::inner: return reduce_inner_log_sum_exp(input, output, parts, count);
            case reduce_layout::outer: return reduce_outer_log_sum_exp(input, output, parts, count);
            case reduce_layout::strided: break;
        }
    }
    log_sum_exp_strided(input, output, parts, count);
}

/// run_log_sum_exp on an executor, bit-identical to it and to run_log_sum_exp on any piece, a single row included (as
/// run_reduce_on): one contiguous line longer than a short row in its fixed blocks (log_sum_exp_of_run),
/// one output over several runs by runs (log_sum_exp_runs_on), [n, w] over n ≥ two blocks of rows in bands of blocks
/// (reduce_rows_log_sum_exp_in_bands), anything else in pieces of independent outputs (exec/split.hpp).
template <class T>
void run_log_sum_exp_on(const executor_ref& exec, const T* input, T* output, const iter::loop_nest<2>& nest, iter::axis_set reduced,
                        std::size_t count) {
    const std::size_t bytes = nest.element_count() * sizeof(T);
    if constexpr (log_sum_exp_reduction<T>::vectorizable && simd::vectorized) {
        constexpr std::size_t W = simd::lanes<T>;
        // One line longer than a short row (a short one is a short row, as in a nest of many: the same bits).
        if (is_one_contiguous_line(nest, reduced, W) && nest.sizes[0] > log_sum_exp_short_row_elements<T>) {
            output[nest.offsets[0]] = log_sum_exp_of_run(&exec, input + nest.offsets[1], nest.sizes[0], count);
            return;
        }
        if (log_sum_exp_runs_on(exec, input, output, nest, reduced, count)) return;
        if (is_rows_over_columns(nest, reduced, W) && wanted_pieces(exec, bytes) > 1 && nest.sizes[0] >= 2 * lse_block_rows) {
            reduce_rows_log_sum_exp_in_bands(exec, input + nest.offsets[1], output + nest.offsets[0], nest.sizes[1], nest.sizes[0],
                                             nest.strides[1][0], count);
            return;
        }
    }
    for_each_piece(exec, nest, independent_dimensions<T>(nest, reduced), bytes,
                   [&](const iter::loop_nest<2>& piece) { run_log_sum_exp(input, output, piece, reduced, count); });
}

}  // namespace tensorops::detail
