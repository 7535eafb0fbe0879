// tensorops/ops/detail/log_sum_exp/runs.hpp — log-sum-exp of contiguous runs: one run finished from its one pass, or
// in fixed blocks of stretches; a group of runs merged in order, on an executor by runs.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <vector>

#include "../../../exec/executor.hpp"
#include "../../../iter/nd_loop.hpp"
#include "../fixed_blocks.hpp"
#include "../reductions.hpp"
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
/// the maximum's shift nor merged; f32 rows of 1024 in cache 1.30 ns a vector against 1.48 through the stretch's
/// state) or, where that pass does not serve, its two passes; any other from its blocks' state (log_sum_exp_run_in_blocks,
/// on *exec if not null). The same bits whatever exec, and wherever the run lies (a line alone or a row of many).
/// `hint_lines`: see hint_stream_step.
template <class T, class R>
T log_sum_exp_of_run(const executor_ref* exec, const T* x, std::size_t length, std::size_t count, const R& r, bool hint_lines = true) {
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

}  // namespace tensorops::detail
