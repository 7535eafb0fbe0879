// tensorops/ops/detail/log_sum_exp/runs.hpp — log-sum-exp of contiguous runs: one run finished from its one pass, or
// in fixed blocks of stretches; a group of runs merged in order, on an executor by runs.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <vector>

#include "../../../exec/executor.hpp"
#include "../../../exec/split.hpp"
#include "../../../iter/nd_loop.hpp"
#include "../fixed_blocks.hpp"
#include "../reduce_nest.hpp"
#include "../reductions.hpp"
#include "../stream_hints.hpp"
#include "stretch.hpp"

namespace tensorops::detail {

/// Log-sum-exp state of one contiguous run of `length` elements, in fixed blocks (fixed_blocks.hpp), each block's
/// stretches merged in order (log_sum_exp_block), the blocks merged in order: sequentially when exec is null, else with
/// the blocks in pieces on *exec; the same bits either way.
template <class T>
log_sum_exp_state<accumulator_t<T>> log_sum_exp_run_in_blocks(const executor_ref* exec, const T* x, std::size_t length) {
    using S = log_sum_exp_state<accumulator_t<T>>;
    return fold_blocks_on<S>(
        exec, length, sizeof(T), [&](std::size_t start, std::size_t n) { return log_sum_exp_block(x + start, n); },
        [](const S& a, const S& b) { return merge(a, b); });
}

/// The log-sum-exp of one contiguous run of `length` elements, finished: a run of one stretch of a vectorisable type
/// from its one pass (log_sum_exp_one_pass) and the reference (finish_from_reference: its terms neither brought to
/// the maximum's shift nor merged, which saves the work of going through the stretch's state) or, where that pass
/// does not serve, its two passes; any other from its blocks' state (log_sum_exp_run_in_blocks, on *exec if not null).
/// The same bits whatever exec, and wherever the run lies (a line alone or a row of many).
/// `hint_lines`: see hint_stream_step.
template <class T>
T log_sum_exp_of_run(const executor_ref* exec, const T* x, std::size_t length, std::size_t count, bool hint_lines = true) {
    using R = log_sum_exp_reduction<T>;
    const R r{};
    const auto finish = [&](const log_sum_exp_state<typename R::accumulator>& state) {
        return r.finish(state.sum, count, R::shift_for(state.maximum));
    };
    if constexpr (R::vectorizable) {
        if (length >= 1 && length <= lse_stretch) {
            const auto one = log_sum_exp_one_pass(x, length, hint_lines);
            if (one.served) return R::finish_from_reference(one.sum, one.reference);
            // What the run's one block of one stretch would come to, without that stretch's one pass done again.
            return finish(log_sum_exp_two_passes(x, length));
        }
    }
    return finish(log_sum_exp_run_in_blocks(exec, x, length));
}

/// Log-sum-exp state of one group's runs (`runs`: the group without its innermost dimension; each run `length`
/// contiguous elements from base + its offset), each in fixed blocks, merged in the walk order. On an executor
/// (exec not null, pieces ≥ 2) the runs' states are computed in up to `pieces` pieces first, each writing its own,
/// then merged the same way on the calling thread: the same bits.
template <class T>
log_sum_exp_state<accumulator_t<T>> log_sum_exp_of_runs(const executor_ref* exec, std::size_t pieces, const T* base,
                                                        const iter::loop_nest<2>& runs, std::size_t length) {
    using A = accumulator_t<T>;
    log_sum_exp_state<A> state{-std::numeric_limits<A>::infinity(), A(0)};
    if (exec == nullptr || pieces < 2) {
        iter::for_each_element(runs, [&](const std::array<std::ptrdiff_t, 2>& run) {
            state = merge(state, log_sum_exp_run_in_blocks(nullptr, base + run[1], length));
        });
        return state;
    }
    std::vector<const T*> starts;
    starts.reserve(runs.element_count());
    iter::for_each_element(runs, [&](const std::array<std::ptrdiff_t, 2>& run) { starts.push_back(base + run[1]); });
    pieces = std::min(pieces, starts.size());
    std::vector<log_sum_exp_state<A>> states(starts.size());
    exec->parallel_for(pieces, [&](std::size_t piece) {
        for (std::size_t i = piece * starts.size() / pieces; i < (piece + 1) * starts.size() / pieces; ++i)
            states[i] = log_sum_exp_run_in_blocks(nullptr, starts[i], length);
    });
    for (const auto& run_state : states) state = merge(state, run_state);
    return state;
}

/// Log-sum-exp's inner kernel (the innermost dimension reduced, contiguous and at least a vector long): each output
/// from its run in one pass (log_sum_exp_of_run), or from its group's runs merged in order (log_sum_exp_of_runs).
template <class T>
void reduce_inner_log_sum_exp(const T* input, T* output, const reduce_nests<>& parts, std::size_t count) {
    using R = log_sum_exp_reduction<T>;
    const R r{};
    const group_runs grouped = runs_of_group(parts.group);
    const bool hint_lines = hints_lines(parts.kept.element_count() * count * sizeof(T));
    if (grouped.runs.rank == 0) {  // one run per output
        const std::ptrdiff_t run_offset = grouped.runs.offsets[1];
        iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 2>& at) {
            output[at[0]] = log_sum_exp_of_run(nullptr, input + at[1] + run_offset, grouped.length, count, hint_lines);
        });
        return;
    }
    iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 2>& at) {
        const auto state = log_sum_exp_of_runs(nullptr, 1, input + at[1], grouped.runs, grouped.length);
        output[at[0]] = r.finish(state.sum, count, R::shift_for(state.maximum));
    });
}

/// One output over several contiguous runs (reduce_nest.hpp, is_one_output_of_runs), on an executor: the runs' states
/// in pieces, merged in order (log_sum_exp_of_runs). Returns false (nothing done) when the group is not that, or not
/// worth cutting.
template <class T>
bool log_sum_exp_runs_on(const executor_ref& exec, const T* input, T* output, const iter::loop_nest<2>& nest, iter::axis_set reduced,
                         std::size_t count) {
    using R = log_sum_exp_reduction<T>;
    const auto one = [&](std::ptrdiff_t y, std::ptrdiff_t x, const group_runs& grouped, std::size_t wanted) {
        const auto state = log_sum_exp_of_runs(&exec, wanted, input + x, grouped.runs, grouped.length);
        output[y] = R{}.finish(state.sum, count, R::shift_for(state.maximum));
    };
    return for_the_output_of_runs<T>(exec, nest, reduced, simd::lanes<T>, one);
}

}  // namespace tensorops::detail
