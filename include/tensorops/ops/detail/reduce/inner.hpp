// tensorops/ops/detail/reduce/inner.hpp — the inner layout: the innermost dimension is reduced and contiguous and at
// least a vector long; one output at a time (contiguous.hpp's loop).
#pragma once

#include <array>
#include <cstddef>

#include "../../../iter/nd_loop.hpp"
#include "../../../iter/plan.hpp"
#include "../reduce_nest.hpp"
#include "../stream_hints.hpp"
#include "blocks.hpp"
#include "contiguous.hpp"

namespace tensorops::detail {

/// y[i · y_step] = r's finished reduction of the `length` ≥ one vector contiguous elements at x + i · x_step, for i <
/// `outputs`: reduce_inner's loop over one line of outputs, each run accumulated exactly as accumulate_runs does.
/// `hint_lines`: see hint_stream_step.
template <class T, class R>
void reduce_runs_of_line(const T* x, std::ptrdiff_t x_step, T* y, std::ptrdiff_t y_step, std::size_t outputs, std::size_t length,
                         std::size_t count, const R& r, bool hint_lines) {
    const typename R::accumulator no_shift = r.identity();
    for (std::size_t i = 0; i < outputs; ++i, x += x_step, y += y_step) {
        cascade<simd::pack<T>> blocks;
        inner_runs<T, R> state(r, no_shift, blocks, hint_lines);
        state.add_run(x, length);
        *y = r.finish(state.value(), count, no_shift);
    }
}

/// The inner kernel (every function but log-sum-exp's: log_sum_exp/runs.hpp): each output from its group's runs.
template <class T, class R>
void reduce_inner(const T* input, T* output, const reduce_nests<>& parts, std::size_t count, const R& r) {
    const group_runs grouped = runs_of_group(parts.group);
    const std::size_t length = grouped.length;
    const iter::loop_nest<2>& runs = grouped.runs;
    const bool hint_lines = hints_lines(parts.kept.element_count() * count * sizeof(T));
    const typename R::accumulator no_shift = r.identity();
    if (runs.rank == 0) {  // one run per output (the usual "reduce the last axis")
        const std::ptrdiff_t run_offset = runs.offsets[1];
        if constexpr (!R::line_blocks) {  // floating products: a single run goes in fixed blocks
            iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 2>& at) {
                output[at[0]] = r.finish(product_run_in_blocks(nullptr, input + at[1] + run_offset, length, r, hint_lines), count, no_shift);
            });
        } else {
            // The innermost kept dimension is a plain loop (reduce_runs_of_line) around accumulate_runs for one run,
            // spelt out: the whole line of outputs is one function. As the odometer's body, called once an output,
            // each output costs a stack frame with its cascades zeroed (a `rep stos`) that does not overlap the memory
            // stream: measured slower on one thread and on two, and slower still through two calls an output (the
            // figures: bench/journal/notes-reduce-and-log-sum-exp.md).
            if (parts.kept.rank == 0) {
                output[parts.kept.offsets[0]] =
                    r.finish(accumulate_runs(input + parts.kept.offsets[1], runs, length, r, no_shift, 0, all_runs, hint_lines), count, no_shift);
                return;
            }
            const std::size_t inner = parts.kept.rank - 1;
            const std::size_t outputs = parts.kept.sizes[inner];
            const std::ptrdiff_t y_step = parts.kept.strides[0][inner], x_step = parts.kept.strides[1][inner];
            iter::for_each_outer_index(parts.kept, inner, [&](const std::array<std::ptrdiff_t, 2>& line) {
                reduce_runs_of_line(input + line[1] + run_offset, x_step, output + line[0], y_step, outputs, length, count, r, hint_lines);
            });
        }
        return;
    }
    iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 2>& at) {
        output[at[0]] = r.finish(accumulate_run_chunks(nullptr, 1, input + at[1], runs, length, r, no_shift, hint_lines), count, no_shift);
    });
}

}  // namespace tensorops::detail
