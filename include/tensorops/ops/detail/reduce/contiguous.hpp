// tensorops/ops/detail/reduce/contiguous.hpp — the inner reduce kernel's loop: for one output, several vector
// accumulators along the contiguous runs of its group, blocks joining a cascade; groups of many runs in chunks.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

#include "../../../core/inline.hpp"
#include "../../../exec/executor.hpp"
#include "../../../iter/nd_loop.hpp"
#include "../../../iter/plan.hpp"
#include "../../../iter/unroll.hpp"
#include "../../../simd/pack.hpp"
#include "../../../simd/prefetch.hpp"
#include "../cascade.hpp"
#include "../reductions.hpp"
#include "../stream_hints.hpp"
#include "../tuning.hpp"

namespace tensorops::detail {

// ---------------------------------------------------------------------------------------------
// Inner: the innermost dimension is reduced and contiguous.
//
// Algorithm. For each output, the group is a set of contiguous runs (the innermost reduced dimension) placed by the
// other reduced dimensions. inner_accumulators vector accumulators take that many vectors per step, so as many
// independent dependency chains hide the latency of the combining instruction (a NaN-propagating max is three
// instructions deep); run ends narrower than a vector go to a scalar accumulator. The loop hints every line
// inner_lines_ahead bytes on (on CPUs where that pays: simd::line_hints_pay) and each page simd::page_prefetch_distance
// bytes before it gets there (simd::prefetch_stream_ahead: the hardware prefetchers stop at a page's end, and its
// address translation would stall the stream). The accumulators are folded into a block total every cascade_block
// elements per lane and the blocks combined pairwise (a cascade) — for accuracy in float sums, and for every reduction
// with R::line_blocks so that one long line can be cut into pieces bit-identically (reduce_line_in_chunks). One
// horizontal step per output. A group of more than run_chunk_elements elements in several runs goes in chunks of whole
// runs, their values combined in order (accumulate_run_chunks), so that one output over many runs can be cut into
// pieces too.

/// The `count` of accumulate_runs_after and accumulate_runs that means every run of the nest.
inline constexpr std::size_t all_runs = static_cast<std::size_t>(-1);

/// The inner kernel's running state over the contiguous runs of one group: the vector accumulators and the steps
/// taken in the current block, the cascade of vector blocks, and the scalar accumulator of the run ends with its
/// own cascade. `add_run` continues it along one run; `value` is the accumulated value of everything added. Both
/// are always inlined so that a caller walking one run keeps the accumulators in registers from the first vector
/// to the horizontal step (through a closure they would go through memory at every output, a per-output cost that
/// does not overlap the memory stream: rows of a few KiB pay it).
template <class T, class R>
struct inner_runs {
    using P = simd::pack<T>;
    using A = typename R::accumulator;
    static constexpr std::size_t W = P::size;
    static constexpr std::size_t U = inner_accumulators;

    const R& r;
    A shift;
    cascade<P>& blocks;
    std::array<P, U> accumulators;
    std::size_t in_block = 0;       // steps per lane since the last push
    A rest;                         // the run ends narrower than a vector
    std::size_t rest_in_block = 0;  // elements since rest's last push
    cascade<A> scalar_blocks;
    bool hint_lines;                // hint_stream_step's `lines`: from what the caller reads in all (hints_lines)

    inner_runs(const R& reduction, const A& shift_value, cascade<P>& vector_blocks, bool lines)
        : r(reduction), shift(shift_value), blocks(vector_blocks), rest(reduction.identity()), hint_lines(lines) {
        iter::fill_unrolled(accumulators, P(static_cast<simd::compute_t<T>>(r.identity())));
    }

    /// r's lane combination as a callable (combine_all, the cascade).
    [[TENSOROPS_ALWAYS_INLINE]] auto lane_combiner() const {
        return [this](const P& a, const P& b) { return r.combine_lanes(a, b); };
    }

    /// After `done` more steps (never past the end of a block): at the end of a block, its total joins the cascade.
    [[TENSOROPS_ALWAYS_INLINE]] void end_steps(std::array<P, U>& acc, std::size_t& steps, std::size_t done) {
        if constexpr (R::line_blocks) {
            steps += done;
            if (steps == cascade_block) {
                blocks.push(combine_all(acc, lane_combiner()), lane_combiner());
                iter::fill_unrolled(acc, P(static_cast<simd::compute_t<T>>(r.identity())));
                steps = 0;
            }
        }
    }

    /// Continues the accumulation along the `length` contiguous elements at x.
    [[TENSOROPS_ALWAYS_INLINE]] void add_run(const T* x, std::size_t length) {
        using C = simd::compute_t<T>;
        const P shift_lanes(static_cast<C>(shift));
        std::array<P, U> acc = accumulators;  // in registers along the run
        std::size_t steps = in_block;         // likewise
        std::size_t j = 0;
        while (j + U * W <= length) {
            // The whole steps up to the end of the run or of the block: a counted loop, the block's push after it.
            std::size_t now = (length - j) / (U * W);
            if constexpr (R::line_blocks) now = std::min(now, cascade_block - steps);
            for (std::size_t s = 0; s < now; ++s, j += U * W) {
                hint_stream_step(x + j, U * W * sizeof(T), hint_lines);
                iter::unrolled<U>([&](auto k) { acc[k] = r.combine_lanes(acc[k], r.lift_lanes(simd::load(x + j + k * W), shift_lanes)); });
            }
            end_steps(acc, steps, now);
        }
        if (j < length) simd::prefetch_stream_ahead(x + j, (length - j) * sizeof(T));  // the hints tile the run
        for (; j + W <= length; j += W) {
            acc[0] = r.combine_lanes(acc[0], r.lift_lanes(simd::load(x + j), shift_lanes));
            end_steps(acc, steps, 1);
        }
        accumulators = acc;
        in_block = steps;
        if (j == length) return;
        A tail = rest;
        for (; j < length; ++j) {
            tail = r.combine(tail, r.lift(x[j], shift));
            if constexpr (R::line_blocks) {
                if (++rest_in_block == cascade_block) {
                    scalar_blocks.push(tail, [&](const A& a, const A& b) { return r.combine(a, b); });
                    tail = r.identity();
                    rest_in_block = 0;
                }
            }
        }
        rest = tail;
    }

    /// The accumulated value of every run added: the vector blocks' cascade and the accumulators, one horizontal
    /// step, then the run ends.
    [[TENSOROPS_ALWAYS_INLINE]] A value() const {
        const auto combine = lane_combiner();
        const auto combine_scalars = [&](const A& a, const A& b) { return r.combine(a, b); };
        const P lanes = blocks.total(combine_all(accumulators, combine), combine);
        return r.combine(r.reduce_lanes(lanes), scalar_blocks.total(rest, combine_scalars));
    }
};

/// The accumulated value of the runs (the inner kernel's loop) of a nest (`runs`: the group without its innermost
/// dimension, each run `length` contiguous elements from base + its offset) — all of them, or `count` from the
/// first-th in row-major order — its vector blocks joining `blocks`: the cascade of the blocks before the first run
/// when the group's first blocks were summed elsewhere (reduce_line_in_chunks). `hint_lines`: see hint_stream_step.
template <class T, class R>
typename R::accumulator accumulate_runs_after(const T* base, const iter::loop_nest<2>& runs, std::size_t length, const R& r,
                                              const typename R::accumulator& shift, cascade<simd::pack<T>>& blocks,
                                              std::size_t first = 0, std::size_t count = all_runs, bool hint_lines = true) {
    inner_runs<T, R> state(r, shift, blocks, hint_lines);
    if (runs.rank == 0 && first == 0 && count != 0) {  // one run: no walk
        state.add_run(base + runs.offsets[1], length);
        return state.value();
    }
    const auto add = [&](const std::array<std::ptrdiff_t, 2>& at) { state.add_run(base + at[1], length); };
    if (count == all_runs) iter::for_each_element(runs, add);
    else iter::for_each_element_from(runs, first, count, add);
    return state.value();
}

/// The accumulated value of the runs of one group (the inner kernel's loop), or of `count` of them from the
/// first-th.
template <class T, class R>
typename R::accumulator accumulate_runs(const T* base, const iter::loop_nest<2>& runs, std::size_t length, const R& r,
                                        const typename R::accumulator& shift, std::size_t first = 0, std::size_t count = all_runs,
                                        bool hint_lines = true) {
    cascade<simd::pack<T>> blocks;  // left uninitialised: levels are written before they are read
    return accumulate_runs_after(base, runs, length, r, shift, blocks, first, count, hint_lines);
}

/// The accumulated value of a group of `runs` (each `length` ≥ one vector, contiguous), as the inner kernel
/// computes it. Up to run_chunk_elements elements: accumulate_runs. Beyond: in chunks of whole runs (each by
/// accumulate_runs, a cascade of its own), the chunks' values combined in order — through a cascade for pairwise
/// reductions (float sums), so the error still grows like log n. On an executor (exec not null, pieces ≥ 2) the
/// chunks are computed in up to `pieces` pieces, each writing its own values, and combined the same way on the
/// calling thread: the same bits whatever the thread count.
template <class T, class R>
typename R::accumulator accumulate_run_chunks(const executor_ref* exec, std::size_t pieces, const T* base, const iter::loop_nest<2>& runs,
                                              std::size_t length, const R& r, const typename R::accumulator& shift, bool hint_lines = true) {
    using A = typename R::accumulator;
    const std::size_t total = runs.element_count();
    const std::size_t per_chunk = std::max<std::size_t>(1, run_chunk_elements / length);
    if (total <= per_chunk) return accumulate_runs(base, runs, length, r, shift, 0, all_runs, hint_lines);
    const std::size_t chunks = (total + per_chunk - 1) / per_chunk;
    const auto chunk_value = [&](std::size_t c) {
        return accumulate_runs(base, runs, length, r, shift, c * per_chunk, std::min(per_chunk, total - c * per_chunk), hint_lines);
    };
    const auto combine = [&](const A& a, const A& b) { return r.combine(a, b); };
    A result = r.identity();
    cascade<A> pairwise;
    const auto add = [&](std::size_t c, const A& value) {
        if constexpr (R::pairwise) pairwise.push(value, combine);
        else result = c == 0 ? value : combine(result, value);
    };
    if (exec == nullptr || pieces < 2) {
        for (std::size_t c = 0; c < chunks; ++c) add(c, chunk_value(c));
    } else {
        pieces = std::min(pieces, chunks);
        std::vector<A> values(chunks);
        exec->parallel_for(pieces, [&](std::size_t piece) {
            for (std::size_t c = piece * chunks / pieces; c < (piece + 1) * chunks / pieces; ++c) values[c] = chunk_value(c);
        });
        for (std::size_t c = 0; c < chunks; ++c) add(c, values[c]);
    }
    if constexpr (R::pairwise) return pairwise.total(result, combine);
    else return result;
}

}  // namespace tensorops::detail
