// tensorops/ops/detail/reduce_kernels.hpp — the kernels behind reduce (every function but argmax/argmin).
//
// Kernels never validate and never throw. They receive a planned nest (operand 0 = output, with stride 0 on
// the reduced dimensions; operand 1 = input), the set of planned dimensions that are reduced, and a policy
// (reductions.hpp). Layouts:
//   short    the group is one contiguous run of at most short_row_limit elements (2 KiB of floats, log-sum-exp 512 B;
//            shorter than a vector too): eight outputs at a time, one accumulator each, their horizontal steps folded
//            into one register;
//   inner    the innermost dimension is reduced and contiguous in the input: for each output, several vector
//            accumulators run along the contiguous runs of its group; one horizontal step per output;
//   outer    the innermost dimension is kept and contiguous in input and output (narrower than a vector only when
//            the rows lie back to back): vectorise across it, the group's rows streamed in memory order into a
//            row of accumulators held in L1; no horizontal step;
//   strided  anything else, and user-defined element types: one scalar accumulator per output.
// Float sums are accumulated in blocks of cascade_block elements and the blocks combined pairwise (the cascade
// below) — in the outer layout, where every lane of a row is a separate sum, in a three-level cascade — so the
// error grows like log(n), or (2·cascade_block + n / cascade_block²) for outer sums, rather than like n.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "../../exec/executor.hpp"
#include "../../exec/split.hpp"
#include "../../iter/nd_loop.hpp"
#include "../../iter/plan.hpp"
#include "../../iter/unroll.hpp"
#include "../../simd/pack.hpp"
#include "../../simd/prefetch.hpp"
#include "../../simd/shuffle.hpp"
#include "log_sum_exp_avx512.hpp"
#include "reductions.hpp"
#include "stream_hints.hpp"

namespace tensorops::detail {

/// Elements (per lane) summed sequentially before a block joins the cascade.
inline constexpr std::size_t cascade_block = 128;

/// Pairwise summation of a stream of block totals, like a binary counter: level k holds the sum of 2^k blocks,
/// and a new block carries upwards through the occupied levels. The rounding error of the total grows with
/// log2(blocks) instead of with the number of blocks. Works on scalars and on simd packs; levels that were
/// never filled are never read (so they need no initialisation).
template <class V>
class cascade {
public:
    template <class Combine>
    void push(V block, Combine&& combine) {
        push_at(block, 0, combine);
    }
    /// Adds the sum of 2^level blocks that a cascade of their own computed (its level `level`), while every level
    /// below is empty here — exactly what pushing those blocks one by one would have done.
    template <class Combine>
    void push_at(V block, std::size_t level, Combine&& combine) {
        for (; level + 1 < levels && (occupied_ >> level & 1u); ++level) {
            block = combine(levels_[level], block);
            occupied_ &= ~(std::uint64_t{1} << level);
        }
        if (occupied_ >> level & 1u) block = combine(levels_[level], block);  // the top level absorbs (2^40 blocks)
        levels_[level] = block;
        occupied_ |= std::uint64_t{1} << level;
    }
    /// Level `level`: after 2^level pushes into an empty cascade, the sum of those blocks.
    [[nodiscard]] const V& level(std::size_t level) const noexcept { return levels_[level]; }
    /// The sum of every pushed block and `rest`, smallest levels first.
    template <class Combine>
    [[nodiscard]] V total(V rest, Combine&& combine) const {
        for (std::uint64_t remaining = occupied_; remaining != 0; remaining &= remaining - 1)
            rest = combine(rest, levels_[static_cast<std::size_t>(std::countr_zero(remaining))]);
        return rest;
    }

private:
    static constexpr std::size_t levels = 40;
    std::array<V, levels> levels_;
    std::uint64_t occupied_ = 0;
};

/// Splits a reduce nest into the kept dimensions (walked by the odometer, with the nest's base offsets) and
/// the group of reduced dimensions (walked for each output, offsets relative to the group's first element).
template <std::size_t Operands = 2>
struct reduce_nests {
    iter::loop_nest<Operands> kept;
    iter::loop_nest<Operands> group;
};

template <std::size_t Operands>
reduce_nests<Operands> split_reduce_nest(const iter::loop_nest<Operands>& nest, iter::axis_set reduced) {
    iter::axis_set kept_positions;
    for (std::size_t d = 0; d < nest.rank; ++d)
        if (!reduced.test(d)) kept_positions.set(d);
    reduce_nests<Operands> parts{iter::remove_dimensions(nest, reduced), iter::remove_dimensions(nest, kept_positions)};
    parts.group.offsets = {};
    return parts;
}

// ---------------------------------------------------------------------------------------------
// Scalar: one group at a time.

/// Calls run(pointer, length, step) for every line of the group along its innermost dimension (a group of
/// rank 0 is one line of length 1), so kernels can keep their accumulators in registers along a line.
template <class T, std::size_t Operands, class Run>
void for_each_group_line(const T* base, const iter::loop_nest<Operands>& group, Run&& run) {
    if (group.rank == 0) {
        run(base, std::size_t{1}, std::ptrdiff_t{1});
        return;
    }
    const std::size_t last = group.rank - 1;
    iter::for_each_outer_index(group, last, [&](const std::array<std::ptrdiff_t, Operands>& at) {
        run(base + at[1], group.sizes[last], group.strides[1][last]);
    });
}

/// The accumulated (not yet finished) value of one group starting at `base`.
template <class T, class R>
typename R::accumulator accumulate_group(const T* base, const iter::loop_nest<2>& group, const R& r,
                                         const typename R::accumulator& shift) {
    using A = typename R::accumulator;
    const auto combine = [&](const A& a, const A& b) { return r.combine(a, b); };
    A running = r.identity();
    bool started = R::has_identity;  // without an identity the group starts from its first element
    cascade<A> blocks;
    std::size_t in_block = 0;
    for_each_group_line(base, group, [&](const T* x, std::size_t length, std::ptrdiff_t step) {
        A local = running;
        for (std::size_t i = 0; i < length; ++i, x += step) {
            const A value = r.lift(*x, shift);
            if constexpr (!R::has_identity) {
                local = started ? r.combine(local, value) : value;
                started = true;
            } else {
                local = r.combine(local, value);
            }
            if constexpr (R::pairwise) {
                if (++in_block == cascade_block) {
                    blocks.push(local, combine);
                    local = r.identity();
                    in_block = 0;
                }
            }
        }
        running = local;
    });
    if constexpr (R::pairwise) return blocks.total(running, combine);
    else return running;
}

/// The shift of one group (its maximum, adjusted) for shifted reductions; the identity otherwise.
template <class T, class R>
typename R::accumulator group_shift(const T* base, const iter::loop_nest<2>& group, const R& r) {
    if constexpr (R::shifted) {
        const extreme_reduction<T, true> maximum;
        return R::shift_for(accumulate_group(base, group, maximum, {}));
    } else {
        return r.identity();
    }
}

template <class T, class R>
void reduce_strided(const T* input, T* output, const reduce_nests<>& parts, std::size_t count, const R& r) {
    iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 2>& at) {
        const T* base = input + at[1];
        const auto shift = group_shift(base, parts.group, r);
        output[at[0]] = r.finish(accumulate_group(base, parts.group, r, shift), count, shift);
    });
}

// ---------------------------------------------------------------------------------------------
// Inner: the innermost dimension is reduced and contiguous.
//
// Algorithm. For each output, the group is a set of contiguous runs (the innermost reduced dimension) placed
// by the other reduced dimensions. inner_accumulators vector accumulators take that many vectors per step, so
// as many independent dependency chains hide the latency of the combining instruction (a NaN-propagating max
// is three instructions deep); run ends narrower than a vector go to a scalar accumulator. The loop hints every line
// inner_lines_ahead bytes on (on CPUs where that pays: simd::line_hints_pay) and each page
// simd::page_prefetch_distance bytes before it gets there
// (simd::prefetch_stream_ahead: the hardware prefetchers stop at a page's end, and its address translation would
// stall the stream; earlier, a hint per line 8 KiB ahead had helped float max, which without hints read 64 MiB at
// ~80 % of the read limit on an Intel host). The accumulators
// are folded into a block total every cascade_block elements per lane and the blocks combined pairwise (a
// cascade) — for accuracy in float sums, and for every reduction with R::line_blocks so that one long line can
// be cut into pieces bit-identically (reduce_line_in_chunks). One horizontal step per output. A group of more than
// run_chunk_elements elements in several runs goes in chunks of whole runs, their values combined in order
// (accumulate_run_chunks), so that one output over many runs can be cut into pieces too.

/// Vector accumulators of the inner kernel.
inline constexpr std::size_t inner_accumulators = 8;

/// The `count` of accumulate_runs_after and accumulate_runs that means every run of the nest.
inline constexpr std::size_t all_runs = static_cast<std::size_t>(-1);

/// The combination of the N ≥ 1 accumulators, as a balanced tree (an odd count's last joins the tree of the others).
template <class P, std::size_t N, class Combine>
[[gnu::always_inline]] inline P combine_all(const std::array<P, N>& accumulators, Combine&& combine) {
    static_assert(N >= 1);
    if constexpr (N == 1) {
        return accumulators[0];
    } else if constexpr (N % 2 == 1) {
        std::array<P, N - 1> even;
        iter::unrolled<N - 1>([&](auto k) { even[k] = accumulators[k]; });
        return combine(combine_all(even, combine), accumulators[N - 1]);
    } else {
        std::array<P, N / 2> half;
        iter::unrolled<N / 2>([&](auto k) { half[k] = combine(accumulators[k], accumulators[k + N / 2]); });
        return combine_all(half, combine);
    }
}

/// The inner kernel's running state over the contiguous runs of one group: the vector accumulators and the steps
/// taken in the current block, the cascade of vector blocks, and the scalar accumulator of the run ends with its
/// own cascade. `add_run` continues it along one run; `value` is the accumulated value of everything added. Both
/// are always inlined so that a caller walking one run keeps the accumulators in registers from the first vector
/// to the horizontal step (the per-output cost of rows of a few KiB: ~80 cycles through a closure and memory,
/// which did not overlap the memory stream).
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
    [[gnu::always_inline]] auto lane_combiner() const {
        return [this](const P& a, const P& b) { return r.combine_lanes(a, b); };
    }

    /// After `done` more steps (never past the end of a block): at the end of a block, its total joins the cascade.
    [[gnu::always_inline]] void end_steps(std::array<P, U>& acc, std::size_t& steps, std::size_t done) {
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
    [[gnu::always_inline]] void add_run(const T* x, std::size_t length) {
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
    [[gnu::always_inline]] A value() const {
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

/// Runs per chunk of a group of many runs (accumulate_run_chunks): as many whole runs as make run_chunk_elements
/// elements, at least one. Fixed by the group alone, so chunks fall in the same places whatever the thread count.
inline constexpr std::size_t run_chunk_elements = 65536;

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

/// Log-sum-exp state of a stretch of elements: its maximum m and s = Σ e^(x − shift(m)), shift(m) = m, or 0
/// when m is ±inf (SEMANTICS.md §2). Stretches merge exactly like the whole: the larger maximum wins and the
/// other sum is rescaled by e^(shift − new shift), so one pass over memory suffices.
template <class A>
struct log_sum_exp_state {
    A maximum;
    A sum;
};

template <class A>
log_sum_exp_state<A> merge(const log_sum_exp_state<A>& a, const log_sum_exp_state<A>& b) {
    using std::exp;
    using std::isinf;
    // A zero sum means an empty or all −inf part (any other part holds its maximum's e^0 = 1, or is inf or NaN):
    // the other part is the merge, and the common first merge into the empty state costs no exp.
    if (a.sum == A(0)) return b;
    if (b.sum == A(0)) return a;
    const auto shift_of = [](const A& m) { return isinf(m) ? A(0) : m; };
    const A maximum = simd::max_propagate_nan(a.maximum, b.maximum);
    const A shift = shift_of(maximum);
    const auto rescaled = [&](const log_sum_exp_state<A>& part) { return part.sum * exp(shift_of(part.maximum) - shift); };
    return {maximum, rescaled(a) + rescaled(b)};
}

/// r's combination of the `count` contiguous elements at x, lifted with `shift`, without a cascade: the inner
/// kernel's loop for one stretch short enough to need none (a block of argmax/argmin, a log-sum-exp stretch).
template <class T, class R>
typename R::accumulator reduce_contiguous(const T* x, std::size_t count, const R& r, const typename R::accumulator& shift) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    using A = typename R::accumulator;
    constexpr std::size_t W = P::size;
    constexpr std::size_t U = inner_accumulators;
    const P shift_lanes(static_cast<C>(shift));
    const auto combine = [&](const P& a, const P& b) { return r.combine_lanes(a, b); };
    std::array<P, U> acc;
    iter::fill_unrolled(acc, P(static_cast<C>(r.identity())));
    std::size_t j = 0;
    for (; j + U * W <= count; j += U * W) {
        hint_stream_step(x + j, U * W * sizeof(T), true);
        iter::unrolled<U>([&](auto k) { acc[k] = combine(acc[k], r.lift_lanes(simd::load(x + j + k * W), shift_lanes)); });
    }
    if (j < count) simd::prefetch_stream_ahead(x + j, (count - j) * sizeof(T));  // the hints tile the run
    for (; j + W <= count; j += W) acc[0] = combine(acc[0], r.lift_lanes(simd::load(x + j), shift_lanes));
    A total = r.reduce_lanes(combine_all(acc, combine));
    for (; j < count; ++j) total = r.combine(total, r.lift(x[j], shift));
    return total;
}

/// Log-sum-exp state of `count` ≥ 1 contiguous elements in two passes: the NaN-propagating maximum, then the
/// terms e^(x − maximum) (reduce_contiguous), or the known sum of a maximum that is not finite. Any element type.
template <class T>
log_sum_exp_state<accumulator_t<T>> log_sum_exp_two_passes(const T* x, std::size_t count) {
    using std::isfinite;
    using A = accumulator_t<T>;
    using lse = log_sum_exp_reduction<T>;
    const A top = reduce_contiguous(x, count, extreme_reduction<T, true>{}, {});
    if (!isfinite(top)) return {top, lse::sum_for_non_finite(top)};
    return {top, reduce_contiguous(x, count, lse{}, top)};
}

/// What one pass over a stretch finds (log_sum_exp_one_pass), in compute lanes' type C.
template <class C>
struct log_sum_exp_terms {
    C top;        // the maximum, blind to NaN
    C reference;  // log_sum_exp_reduction::reference_for_lanes of an estimate of top
    C sum;        // Σ term_lanes(x, reference)
    bool served;  // top and sum finite and the reference serves top: sum is right (else redo in two passes)
};

/// One pass over `count` ≥ 1 contiguous elements of a vectorisable type: their maximum and their terms over a
/// reference taken from the first elements.
///
/// Algorithm: the reference comes from the maximum of the first (up to) U vectors (reference_for_lanes: for float
/// lanes k = round(estimate · log2 e), the terms e^x / 2^k by exp_over_power_of_two); then one walk takes, per
/// vector, top = max(top, x) (a plain maximum, blind to NaN) and sum += term_lanes(x, reference), U vectors a step
/// into two pairs of accumulators. A NaN element makes the sum NaN (term_lanes' promise), a +inf one top +inf; a
/// stretch whose top or sum is not finite, or whose reference does not serve top (reference_serves: top more than
/// ~66 above the first vectors' maximum, or |k| above 2^20), is not `served`, and its caller redoes it in two passes.
/// The row end is loaded with −inf in the missing lanes (a term of at most 2^−124 for float lanes, below half an ulp
/// of the sum, whose largest term is at least 2^−1). The walk hints the pages ahead (simd::prefetch_stream_ahead), and
/// the hardware prefetchers read the next stretch from memory while this one computes.
/// Against the two passes it replaced (the maximum, then the terms over top's reference from L1), f32 in cache on a
/// Zen 5 with AVX2, ns a vector of 8: rows of 1024 1.71 → 1.48 (1.30 finished from the reference, see
/// log_sum_exp_of_run), one line of 64 Ki 1.45 → 1.28. One pair of accumulators ran at 1.35, three at 1.50 and four
/// (which spill with the term's constants) at 1.49; two vectors a step as fast as four.
/// Where this build's registers are AVX2's and the CPU has AVX-512F, float stretches take the same walk on 512-bit
/// registers (avx512::log_sum_exp_walk, log_sum_exp_avx512.hpp): the same bits, 1.3–1.4× faster on a Zen 4.
template <class T>
log_sum_exp_terms<simd::compute_t<T>> log_sum_exp_one_pass(const T* x, std::size_t count, bool hint_lines = true) {
    using std::isfinite;
    using lse = log_sum_exp_reduction<T>;
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    constexpr std::size_t W = P::size;
    constexpr std::size_t U = 4;
    constexpr C lowest = -std::numeric_limits<C>::infinity();
    const std::size_t tail = count % W, full = count - tail;
    const auto maximum = [](const P& a, const P& b) { return simd::max_ignoring_nan(a, b); };
    P first = full == 0 ? simd::load_partial(x, tail, lowest) : simd::load(x);
    for (std::size_t j = W; j < std::min(full, U * W); j += W) first = maximum(first, simd::load(x + j));
    const P reference = lse::reference_for_lanes(P(simd::reduce_max(first)));
    const auto r = lse::term_reference_lanes(reference);
    struct top_and_sum {
        P top, sum;
    };
    const auto add = [&](const top_and_sum& a, const P& v) TENSOROPS_INLINE_STEP {
        return top_and_sum{maximum(a.top, v), lse::add_term_lanes(a.sum, v, r)};
    };
    constexpr std::size_t pairs = 2;
    std::array<top_and_sum, pairs> acc;
    bool walked = false;
    if constexpr (has_avx512_log_sum_exp<T>) {
        if (simd::avx512_kernels_run()) {  // the same walk on 512-bit registers: the same bits (log_sum_exp_avx512.hpp)
            log_sum_exp_walk_lanes lanes;
            avx512::log_sum_exp_walk(x, full, tail, r.lowest.get(0), r.k_less_rounding.get(0), hint_lines, lanes);
            for (std::size_t k = 0; k < pairs; ++k) acc[k] = top_and_sum{simd::load(lanes.top + k * W), simd::load(lanes.sum + k * W)};
            walked = true;
        }
    }
    if (!walked) {
        iter::fill_unrolled(acc, top_and_sum{P(lowest), P(C(0))});
        std::size_t j = 0;
        for (; j + U * W <= full; j += U * W) {
            hint_stream_step(x + j, U * W * sizeof(T), hint_lines);  // as reduce_contiguous
            iter::unrolled<U>([&](auto k) {
                auto& a = acc[k % pairs];
                a = add(a, simd::load(x + j + k * W));
            });
        }
        if (j < full + tail) simd::prefetch_stream_ahead(x + j, (full + tail - j) * sizeof(T));  // the hints tile the stretch
        for (; j < full; j += W) acc[0] = add(acc[0], simd::load(x + j));
        if (tail != 0) acc[0] = add(acc[0], simd::load_partial(x + full, tail, lowest));
    }
    const auto all = combine_all(acc, [&](const top_and_sum& a, const top_and_sum& b) { return top_and_sum{maximum(a.top, b.top), a.sum + b.sum}; });
    const P top(simd::reduce_max(all.top));
    const C sum = simd::reduce_add(all.sum);
    const bool served = isfinite(sum) && isfinite(top.get(0)) && !simd::any(!lse::reference_serves(top, reference));
    return {top.get(0), reference.get(0), sum, served};
}

/// Log-sum-exp state of `count` ≥ 1 contiguous elements (a stretch, short enough to stay in L1 for a second pass).
/// Vectorisable types: log_sum_exp_one_pass, its sum brought to top's shift (at_top), or, where it is not served,
/// the two passes (a NaN or infinite element, a reference out of reach). Other types: the two passes.
template <class T>
log_sum_exp_state<accumulator_t<T>> log_sum_exp_stretch(const T* x, std::size_t count) {
    using A = accumulator_t<T>;
    using lse = log_sum_exp_reduction<T>;
    if constexpr (!lse::vectorizable) {
        return log_sum_exp_two_passes(x, count);
    } else {
        using P = simd::pack<T>;
        const auto one = log_sum_exp_one_pass(x, count);
        if (!one.served) return log_sum_exp_two_passes(x, count);
        return {static_cast<A>(one.top), static_cast<A>(simd::to_array(lse::at_top(P(one.sum), P(one.reference), P(one.top)))[0])};
    }
}

// ---------------------------------------------------------------------------------------------
// Runs in fixed blocks, for the functions without a cascade of blocks: log-sum-exp and floating products.
//
// Log-sum-exp merges the states of its stretches in order, and a floating product keeps running products: neither
// can be cut into the aligned chunks of a block cascade (reduce_line_in_chunks). A contiguous run of one of them is
// computed in fixed blocks of line_fold_block elements instead: each block from scratch, the block values then
// folded in order (merge, ×). The blocks do not depend on the executor, so threads may compute them while the
// calling thread folds: bit-identical for any executor and thread count. A run of one block computes as it did
// before there were blocks. (A floating product restarts from 1 every block: for data in [0, 1) it passes through
// subnormals once per 64 Ki elements, a few dozen steps per lane — nothing like the 128-row blocks it does not
// take in the outer kernel.)

/// Elements per block of a run of log-sum-exp or a floating product (a multiple of every vector step).
inline constexpr std::size_t line_fold_block = std::size_t{1} << 16;
/// Elements per log-sum-exp stretch: read once (log_sum_exp_one_pass), a second time from L1 when the one pass does
/// not serve; its sums hold 2048 / 16 = 128 terms a lane with AVX2 (cascade_block, the float sums' bound).
inline constexpr std::size_t lse_stretch = 2048;

/// value(start, count) for the blocks of a run of `length` ≥ 1 elements, folded in order: fold(fold(v0, v1), v2)….
template <class S, class Value, class Fold>
S fold_blocks(std::size_t length, const Value& value, const Fold& fold) {
    S folded = value(std::size_t{0}, std::min(line_fold_block, length));
    for (std::size_t start = line_fold_block; start < length; start += line_fold_block)
        folded = fold(folded, value(start, std::min(line_fold_block, length - start)));
    return folded;
}

/// fold_blocks with the block values computed in pieces on `exec` (each writes its own), then folded on the
/// calling thread in the same order: the same result. Sequentially where the run is not worth cutting.
template <class S, class Value, class Fold>
S fold_blocks(const executor_ref& exec, std::size_t length, std::size_t element_bytes, const Value& value, const Fold& fold) {
    const std::size_t blocks = (length + line_fold_block - 1) / line_fold_block;
    const std::size_t pieces = std::min(wanted_pieces(exec, length * element_bytes), blocks);
    if (pieces < 2) return fold_blocks<S>(length, value, fold);
    std::vector<S> values(blocks);
    exec.parallel_for(pieces, [&](std::size_t piece) {
        for (std::size_t b = piece * blocks / pieces; b < (piece + 1) * blocks / pieces; ++b) {
            const std::size_t start = b * line_fold_block;
            values[b] = value(start, std::min(line_fold_block, length - start));
        }
    });
    S folded = values[0];
    for (std::size_t b = 1; b < blocks; ++b) folded = fold(folded, values[b]);
    return folded;
}

/// Log-sum-exp state of the block of `count` contiguous elements at x: its stretches merged in order.
template <class T>
log_sum_exp_state<accumulator_t<T>> log_sum_exp_block(const T* x, std::size_t count) {
    using A = accumulator_t<T>;
    log_sum_exp_state<A> state{-std::numeric_limits<A>::infinity(), A(0)};
    for (std::size_t start = 0; start < count; start += lse_stretch)
        state = merge(state, log_sum_exp_stretch(x + start, std::min(lse_stretch, count - start)));
    return state;
}

/// A floating product of the `count` contiguous elements at x with the inner kernel's accumulators.
template <class T, class R>
typename R::accumulator product_block(const T* x, std::size_t count, const R& r, bool hint_lines = true) {
    return accumulate_runs(x, iter::loop_nest<2>{}, count, r, r.identity(), 0, all_runs, hint_lines);
}

/// The reduction of one contiguous run of `length` elements by log-sum-exp (its state) or a floating product, in
/// fixed blocks (see above): sequentially when exec is null, else with the blocks in pieces on *exec. `hint_lines`:
/// see hint_stream_step.
template <class T, class R>
auto reduce_run_in_blocks(const executor_ref* exec, const T* x, std::size_t length, const R& r, bool hint_lines = true) {
    const auto fold_on = [&](auto identity, const auto& value, const auto& fold) {
        using S = decltype(identity);
        return exec == nullptr ? fold_blocks<S>(length, value, fold) : fold_blocks<S>(*exec, length, sizeof(T), value, fold);
    };
    if constexpr (R::shifted) {
        using S = log_sum_exp_state<typename R::accumulator>;
        return fold_on(S{}, [&](std::size_t start, std::size_t n) { return log_sum_exp_block(x + start, n); },
                       [](const S& a, const S& b) { return merge(a, b); });
    } else {
        using A = typename R::accumulator;
        return fold_on(A{}, [&](std::size_t start, std::size_t n) { return product_block(x + start, n, r, hint_lines); },
                       [&](const A& a, const A& b) { return r.combine(a, b); });
    }
}

/// The log-sum-exp of one contiguous run of `length` elements, finished: a run of one stretch of a vectorisable type
/// from its one pass (log_sum_exp_one_pass) and the reference (finish_from_reference: its terms neither brought to
/// the maximum's shift nor merged; f32 rows of 1024 in cache 1.30 ns a vector against 1.48 through the stretch's
/// state) or, where that pass does not serve, its two passes; any other from its blocks' state (reduce_run_in_blocks,
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
    return finish(reduce_run_in_blocks(exec, x, length, r, hint_lines));
}

/// Log-sum-exp state of one group's runs (`runs`: the group without its innermost dimension; each run `length`
/// contiguous elements from base + its offset), each in fixed blocks, merged in the walk order. On an executor
/// (exec not null, pieces ≥ 2) the runs' states are computed in up to `pieces` pieces first, each writing its own,
/// then merged the same way on the calling thread: the same bits.
template <class T, class R>
log_sum_exp_state<typename R::accumulator> log_sum_exp_of_runs(const executor_ref* exec, std::size_t pieces, const T* base,
                                                               const iter::loop_nest<2>& runs, std::size_t length, const R& r) {
    using A = typename R::accumulator;
    log_sum_exp_state<A> state{-std::numeric_limits<A>::infinity(), A(0)};
    if (exec == nullptr || pieces < 2) {
        iter::for_each_element(runs, [&](const std::array<std::ptrdiff_t, 2>& run) {
            state = merge(state, reduce_run_in_blocks(nullptr, base + run[1], length, r));
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
            states[i] = reduce_run_in_blocks(nullptr, starts[i], length, r);
    });
    for (const auto& run_state : states) state = merge(state, run_state);
    return state;
}

// ---------------------------------------------------------------------------------------------
// Short rows: the group is one contiguous run of at most short_row_elements elements (2 KiB of floats).
//
// Algorithm. Per output, the general inner kernel sets up inner_accumulators accumulators, combines them and takes
// one horizontal step, and runs shorter than a vector went to the scalar kernel: for runs of a few vectors that
// costs more than reading them (64 MiB of f32 rows of 8 elements: SUM 38.8 ms, MAX 83.8 ms, where one read takes
// 2.3–5 ms; rows of 3: SUM 66 ms). Here the rows are taken short_row_group at a time: each row's vectors are
// combined in order into one accumulator (longer rows: in several, below) — its last, partial vector read as the
// row's last W elements with the lanes already counted set to the identity, a run shorter than a vector as one vector
// with the lanes past it set to the identity (read whole where the rows after it are the input's, else by a partial load) — and the group's
// accumulators are folded into one register by simd::reduce_lanes_of_rows, lane p holding row p's combination,
// which is finished lane-wise and written. Each row hints the pages simd::page_prefetch_distance past it (the rows to
// come, when they lie back to back; 64 MiB of f32 rows of 256 and 64, SUM 11–12 → 13–13.5 and 13.5–14 → 18–21 GB/s
// against a hint per line 4 KiB ahead, Zen 5 guest in 4 KiB pages). A row's arithmetic does not depend on its group (a short group repeats
// its last row), so pieces of the outputs on any executor compute what the whole does. Log-sum-exp takes rows of two
// registers or more in one pass, each row's terms over a reference from its first vector
// (log_sum_exp_short_rows_one_pass), and shorter rows, or rows that reference does not serve, in two: the group's
// maxima, then the sums of e^(x − shift) (from L1); groups are finished (the logarithm) in batches (reduce_short_rows). Float sums: one accumulator of ≤ 64
// elements per lane, then the lanes pairwise (the general kernel sums up to cascade_block = 128 per lane).
// Rows of short_rows_one_by_one_vectors vectors and short_rows_one_by_one_bytes bytes or more (other than
// log-sum-exp's) are read one after the other instead, not side by side (combine_row_alone): each in short_row_chains
// accumulators (after the first vector, vectors 1, 5, 9, … join the first, 2, 6, 10, … the second, …; whole vectors
// left over and the last, partial one join the first), combined pairwise at the row's end — so a float lane's chain
// sums at most 20 elements, not 64. Read side by side — the group's eight rows a vector each at a time — rows of
// 64–512 floats came from memory at half the speed or less on an AMD Zen 4 guest (f32 SUM of 64 MiB, ns a vector of 8,
// side by side → one by one: rows of 48 1.42 → 0.95, 64 1.60 → 0.95, 128 2.52 → 0.93, 256 2.20 → 0.90, 512 1.68 →
// 0.84; 1 MiB in L2: 0.51 → 0.50, 0.48 → 0.47, 0.41 → 0.39, 0.38 → 0.37, 0.43 → 0.42; rows of 16 and 32 floats ran
// 5–50 % slower one by one, 40 alike). Hints a line 16 KiB ahead did not help the side-by-side reads (slower), nor did
// two rows side by side (as slow as eight).

/// Rows of at most this many vectors of up to 32 bytes take the short-row kernel (beyond, the general kernel was as fast
/// with AVX2).
inline constexpr std::size_t short_row_vectors = 64;

/// Rows of at most this many elements take the short-row kernel: short_row_vectors vectors of up to 32 bytes (2 KiB
/// of floats with AVX2). With 64-byte registers the limit stays 2 KiB rather than 64 vectors: rows of 4 KiB taken
/// eight at a time are eight streams of whole pages, which an AMD Zen 5 read at 0.71–0.86× the speed of a plain
/// 64 MiB sum where the general kernel, one row after the other, reads at 0.91–1.07× (SUM of 64 MiB of f32 rows of
/// 1024, -march=native, best of 30, three rounds).
template <class T>
inline constexpr std::size_t short_row_elements = short_row_vectors * std::min<std::size_t>(simd::lanes<T>, 32 / sizeof(simd::compute_t<T>));

/// Rows of at most this many elements take the short-row kernel: short_row_elements, or for log-sum-exp a quarter of
/// it (128 floats with AVX2); longer log-sum-exp rows go to the inner kernel, one pass each (log_sum_exp_one_pass)
/// with its horizontal steps per row. The short-row kernel's one pass (log_sum_exp_short_rows_one_pass) is faster in
/// cache up to 512 floats, but slower from memory beyond 128 (f32, AVX2, Zen 5, ns a vector of 8, short-row against
/// inner: 512 KiB rows of 136 1.52 / 2.59, 256 1.33 / 1.85, 512 1.24 / 1.47; 64 MiB rows of 192 3.18 / 2.29, 256 2.97 /
/// 2.05, 512 2.57 / 1.70 — not understood: line hints each line once, or 8 or 32 KiB ahead, did not change it).
template <class T, class R>
inline constexpr std::size_t short_row_limit = R::shifted ? short_row_elements<T> / 4 : short_row_elements<T>;

/// Rows reduced together by the short-row kernel: eight, or a register's lane count if smaller.
template <class T>
inline constexpr std::size_t short_row_group = std::min<std::size_t>(simd::lanes<T>, 8);

/// Rows of at least this many vectors and short_rows_one_by_one_bytes bytes are read one after the other in the
/// short-row kernel (see above), shorter ones side by side.
inline constexpr std::size_t short_rows_one_by_one_vectors = 6;
/// The bytes of that least row: rows of 64 float16 or int16 elements (eight vectors of the 32-bit lanes they widen to,
/// 128 bytes) ran 4–14 % slower one by one, from memory and in L2; of 256, 2.6–3.4× faster from memory.
inline constexpr std::size_t short_rows_one_by_one_bytes = 192;

/// Accumulators of a row read on its own in the short-row kernel: independent chains, so that the latency of the
/// combining instruction does not bound the row.
inline constexpr std::size_t short_row_chains = 4;

/// Whether the short-row kernel reads rows of `length` elements of T, `lanes` a vector, one after the other
/// (combine_row_alone) rather than side by side: rows of short_rows_one_by_one_vectors vectors and
/// short_rows_one_by_one_bytes bytes or more, but for log-sum-exp's.
template <class R, class T>
[[nodiscard]] constexpr bool reads_rows_one_by_one(std::size_t length, std::size_t lanes) noexcept {
    return !R::shifted && length >= short_rows_one_by_one_vectors * lanes && length * sizeof(T) >= short_rows_one_by_one_bytes;
}

/// The lanes of r's combination of the `length` (≥ W) contiguous elements at `row`, lifted with `shift`, in lanes of U
/// (as combine_short_rows): short_row_chains accumulators along the row (from the second vector on, vector i joins chain
/// (i − 1) mod short_row_chains; the first vector, whole vectors left over and the last, partial one, the first chain),
/// combined pairwise at its end.
template <class U, class T, class R, class Shift>
[[gnu::always_inline]] inline simd::pack<U> combine_row_alone(const T* row, std::size_t length, const R& r, const Shift& shift) {
    using P = simd::pack<U>;
    using C = simd::compute_t<U>;
    constexpr std::size_t W = P::size, Q = short_row_chains;
    const P identity(static_cast<C>(r.identity()));
    simd::prefetch_stream_ahead(row, length * sizeof(T));
    std::array<P, Q> chain;
    chain[0] = r.lift_lanes(simd::load_as<U>(row), shift);
    iter::unrolled<Q - 1>([&](auto q) TENSOROPS_INLINE_STEP { chain[q + 1] = identity; });
    std::size_t j = W;
    for (; j + Q * W <= length; j += Q * W)
        iter::unrolled<Q>([&](auto q) TENSOROPS_INLINE_STEP { chain[q] = r.combine_lanes(chain[q], r.lift_lanes(simd::load_as<U>(row + j + q * W), shift)); });
    for (; j + W <= length; j += W) chain[0] = r.combine_lanes(chain[0], r.lift_lanes(simd::load_as<U>(row + j), shift));
    if (j < length) {  // the last W elements, of which the first W − (length − j) were counted already
        const auto counted = simd::detail::lanes_below<P>(W - (length - j));
        chain[0] = r.combine_lanes(chain[0], simd::select(counted, identity, r.lift_lanes(simd::load_as<U>(row + length - W), shift)));
    }
    return combine_all(chain, [&](const P& a, const P& b) { return r.combine_lanes(a, b); });
}

/// Lane p (p < G) = r's combination of the `length` (≥ 1) contiguous elements at rows[p], lifted with
/// shift_of(p) (a register; ignored by reductions that are not shifted). Rows shorter than a register are one
/// vector each, its lanes from `length` on set to the identity: read whole where `whole` (the caller knows that W
/// elements from each row's start are input elements: the rows after it), else by a partial load. The lanes that
/// count are the same either way, and so is the value. In lanes of U: T's own, or the 32-bit lanes 8- and 16-bit
/// integers widen to (simd::load_as; r is then the reduction over U).
template <class U, class T, class R, std::size_t G, class Shift>
[[gnu::always_inline]] inline simd::pack<U> combine_short_rows(const std::array<const T*, G>& rows, std::size_t length, const R& r,
                                                                  const Shift& shift_of, bool whole = false) {
    using P = simd::pack<U>;
    using C = simd::compute_t<U>;
    constexpr std::size_t W = P::size;
    const P identity(static_cast<C>(r.identity()));
    std::array<P, G> acc;
    if (length < W) {  // one vector per row
        const auto valid = simd::detail::lanes_below<P>(length);
        if (whole)
            iter::unrolled<G>([&](auto k) TENSOROPS_INLINE_STEP { acc[k] = simd::select(valid, r.lift_lanes(simd::load_as<U>(rows[k]), shift_of(k)), identity); });
        else
            iter::unrolled<G>([&](auto k) TENSOROPS_INLINE_STEP {
                acc[k] = simd::select(valid, r.lift_lanes(simd::load_partial_as<U>(rows[k], length), shift_of(k)), identity);
            });
    } else if (reads_rows_one_by_one<R, T>(length, W)) {
        iter::unrolled<G>([&](auto k) TENSOROPS_INLINE_STEP { acc[k] = combine_row_alone<U>(rows[k], length, r, shift_of(k)); });
    } else {
        // Rows S at a time: log-sum-exp's terms take enough constants that eight accumulators spilled (f32, 512 KiB, ns
        // a row, eight → four at a time: rows of 8 5.8 → 5.3, of 16 7.8 → 7.3, of 64 20.3 → 20.0).
        constexpr std::size_t S = R::shifted ? std::min<std::size_t>(G, 4) : G;
        iter::unrolled<G / S>([&](auto half) TENSOROPS_INLINE_STEP {
            constexpr std::size_t first = half * S;
            iter::unrolled<S>([&](auto i) TENSOROPS_INLINE_STEP {
                constexpr std::size_t k = first + i;
                simd::prefetch_stream_ahead(rows[k], length * sizeof(T));
                acc[k] = r.lift_lanes(simd::load_as<U>(rows[k]), shift_of(k));
            });
            std::size_t j = W;
            for (; j + W <= length; j += W)
                iter::unrolled<S>([&](auto i) TENSOROPS_INLINE_STEP {
                    constexpr std::size_t k = first + i;
                    acc[k] = r.combine_lanes(acc[k], r.lift_lanes(simd::load_as<U>(rows[k] + j), shift_of(k)));
                });
            if (j < length) {  // the last W elements, of which the first W − (length − j) were counted already
                const auto counted = simd::detail::lanes_below<P>(W - (length - j));
                iter::unrolled<S>([&](auto i) TENSOROPS_INLINE_STEP {
                    constexpr std::size_t k = first + i;
                    acc[k] = r.combine_lanes(acc[k], simd::select(counted, identity, r.lift_lanes(simd::load_as<U>(rows[k] + length - W), shift_of(k))));
                });
            }
        });
    }
    return simd::reduce_lanes_of_rows(acc, [&](const P& a, const P& b) { return r.combine_lanes(a, b); });
}

/// Whether log-sum-exp rows of two registers or more take one pass in the short-row kernel (reduce_short_rows): for
/// float lanes (float and float16 data). Double lanes' term is e^(x − reference), as costly as the second pass's
/// e^(x − shift): one pass ran 4–7 % slower for rows of 8 and 16 doubles, and as fast for rows of 64.
template <class R, class T>
inline constexpr bool short_rows_in_one_pass = [] {
    if constexpr (R::shifted && R::vectorizable) return std::is_same_v<simd::compute_t<T>, float>;
    else return false;
}();

/// What the one pass over a group of short rows gives, lane p for row p (log_sum_exp_short_rows_one_pass).
template <class P>
struct short_rows_terms {
    P top;        ///< the row's maximum, blind to NaN
    P reference;  ///< log_sum_exp_reduction::reference_for_lanes of the maximum of the row's first vector
    P sum;        ///< Σ term_lanes(x, reference) over the row
};

/// Log-sum-exp of G short rows (lane p: rows[p], `length` ≥ one register's lanes of contiguous elements each) in one
/// pass: each row's terms over a reference from its own first vector.
///
/// Algorithm: the rows' first vectors are folded into one register by reduce_lanes_of_rows, whose lane p, row p's
/// first maximum, gives its reference (reference_for_lanes: an integer k, the terms e^x / 2^k by
/// exp_over_power_of_two, as the long rows' log_sum_exp_one_pass); then each row is walked once, S rows at a time,
/// taking top = max(top, x) and sum += term(x) (the last W elements of a row with the lanes counted already adding
/// 0), and the G tops and sums are folded as the references were. Where the reference serves the row's top and the sum is finite (the caller checks: reference_serves), ln(2^k · sum) is the
/// row's value (finish_from_reference_lanes); elsewhere — a NaN or ±inf element, a top far above the first vector —
/// the caller takes the two passes. With `hint_lines`, each step hints the line inner_lines_ahead past it, as the
/// inner kernel's one pass does (64 MiB of rows of 128 floats: 4.4 → 3.0 ns a vector of 8).
/// Against the two passes (the maxima, then e^(x − shift) from L1), f32 rows, one thread, AVX2, Zen 5, ns a vector of
/// 8: in cache (512 KiB) rows of 24 3.27 → 3.04, 33 3.50 → 3.00, 64 2.57 → 1.89, 100 2.51 → 1.74, 128 2.34 → 1.49;
/// 64 MiB from memory rows of 64 2.79 → 2.28, 128 4.66 → 3.04. Two rows at a time (S): four ran 3–8 % slower.
template <class T, std::size_t G>
[[gnu::always_inline]] inline short_rows_terms<simd::pack<T>> log_sum_exp_short_rows_one_pass(const std::array<const T*, G>& rows,
                                                                                               std::size_t length, bool hint_lines) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    using lse = log_sum_exp_reduction<T>;
    static_assert(std::is_same_v<C, float>);  // short_rows_in_one_pass
    constexpr std::size_t W = P::size;
    const P zero(C(0));
    const auto maximum = [](const P& a, const P& b) { return simd::max_ignoring_nan(a, b); };
    std::array<P, G> firsts;
    iter::unrolled<G>([&](auto k) TENSOROPS_INLINE_STEP { firsts[k] = simd::load(rows[k]); });
    const P reference = lse::reference_for_lanes(simd::reduce_lanes_of_rows(firsts, maximum));
    const auto term_reference = lse::term_reference_lanes(reference);
    // Each row's term reference (simd::power_of_two_reference) in every lane.
    std::array<simd::power_of_two_reference<P>, G> row_reference;
    const auto lowest_lanes = simd::to_array(term_reference.lowest), k_lanes = simd::to_array(term_reference.k_less_rounding);
    iter::unrolled<G>([&](auto k) TENSOROPS_INLINE_STEP { row_reference[k] = {P(lowest_lanes[k]), P(k_lanes[k])}; });
    std::array<P, G> tops, sums;
    constexpr std::size_t S = std::min<std::size_t>(G, 2);  // four rows at a time ran 3–8 % slower (rows of 16–128)
    iter::unrolled<G / S>([&](auto part) TENSOROPS_INLINE_STEP {
        constexpr std::size_t first = part * S;
        iter::unrolled<S>([&](auto i) TENSOROPS_INLINE_STEP {
            constexpr std::size_t k = first + i;
            simd::prefetch_stream_ahead(rows[k], length * sizeof(T));  // as combine_short_rows
            const P x = simd::load(rows[k]);
            tops[k] = x;
            sums[k] = lse::term_lanes(x, row_reference[k]);
        });
        std::size_t j = W;
        for (; j + W <= length; j += W)
            iter::unrolled<S>([&](auto i) TENSOROPS_INLINE_STEP {
                constexpr std::size_t k = first + i;
                if (hint_lines) simd::prefetch_ahead(rows[k] + j, inner_lines_ahead, W * sizeof(T));
                const P x = simd::load(rows[k] + j);
                tops[k] = maximum(tops[k], x);
                sums[k] = lse::add_term_lanes(sums[k], x, row_reference[k]);
            });
        if (j < length) {  // the last W elements, of which the first W − (length − j) were counted already
            const auto counted = simd::detail::lanes_below<P>(W - (length - j));
            iter::unrolled<S>([&](auto i) TENSOROPS_INLINE_STEP {
                constexpr std::size_t k = first + i;
                const P x = simd::load(rows[k] + length - W);
                tops[k] = maximum(tops[k], x);
                sums[k] = sums[k] + simd::select(counted, zero, lse::term_lanes(x, row_reference[k]));
            });
        }
    });
    return {simd::reduce_lanes_of_rows(tops, maximum), reference, simd::reduce_lanes_of_rows(sums, [](const P& a, const P& b) { return a + b; })};
}

// Narrow rows back to back: rows of L elements, 2 ≤ L ≤ narrow_row_max and L < W (the register's lanes), each row
// right after the previous one (row stride L), in registers of 32- or 64-bit lanes — 8- and 16-bit integers widened to
// 32-bit lanes on load (narrow_row_lane_t).
//
// Algorithm. The short-row kernel reads each such row with a partial load of its own and folds eight rows' registers
// into one by a butterfly: ~9 cycles per row of 3 floats with AVX2, three times a plain loop. Here W rows are L whole
// registers v[0 … L): component c of the W rows (lane p = element p·L + c, which is lane (p·L + c) mod W of register
// (p·L + c) div W) is assembled by constant blends and permutes (narrow_rows::components: the registers rotated so that
// a component's elements lie in distinct lanes — no rotation when L and W are coprime —, then L − 1 blends and one
// permute per component; the argmax kernel of narrow rows uses it too). Then each lane (row) is combined exactly as the
// short-row kernel combines a row shorter than a register: the lanes from L on the identity, folded by reduce_lanes'
// tree (lane i with lane i + K, K = W/2 … 1) — so a row's value is bit for bit what the short-row kernel gives it,
// whichever kernel a piece of the outputs takes. For that the elements are lifted (squared, |x|, e^(x − shift)) in
// the loaded registers, before the blends and permutes, as the short-row kernel lifts before its selects: a lift
// meeting a combination directly would let the compiler contract x·x + y into a fused multiply-add that the other
// kernel does not make. Log-sum-exp's shift, one per row (lane), is spread to the loaded registers' layout by a
// permute each. Rows after the last whole W are read by partial loads. Rows of 3 floats (AVX2): 3 loads, 3
// permutes, 6 blends and 6 adds per 8 rows, where a plain loop does 3 loads and 2 adds per row.

/// Back-to-back rows of up to this many elements (and fewer than a register's lanes) take the narrow-row kernel: its
/// blends grow as L² where the short-row kernel's work per row barely grows with L. (Since components take 2L permutes,
/// 7 measured faster for SUM of f32 rows of 5–7 — 1.3–1.7 → 0.3–0.8 ns a row — but doubles this kernel's
/// instantiations; left at 4, see bench/RESULTS.md 2026-11-27 16:30.)
inline constexpr std::size_t narrow_row_max = 4;

/// Whether T has the narrow-row kernel: registers of 32- or 64-bit lanes, which have one-instruction permutes.
template <class T>
inline constexpr bool has_narrow_row_kernel = [] {
    if constexpr (simd::vectorized && builtin_element<T>) return sizeof(simd::compute_t<T>) >= 4 && simd::lanes<T> > 2;
    else return false;
}();

/// The lanes reduce's narrow-row kernel computes rows of T in: T's own, or 32-bit lanes for 8- and 16-bit integers
/// (sign- or zero-extended on load, simd::load_widened). Integer reductions keep their value modulo 2^n in wider
/// lanes (sums, products: every T's reduction wraps) or exactly (max, min), so the truncated results are the narrow
/// lanes' bit for bit; and eight uint8 rows of 3 become three registers of eight lanes, which the 32-bit permutes
/// and blends take apart (reduce_narrow_rows), where the short-row kernel read one 32-lane register a row and folded
/// it: 1.8 ns a row against ~0.2 for float rows.
template <class T>
using narrow_row_lane_t =
    std::conditional_t<std::is_integral_v<T> && (sizeof(T) < 4), std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>, T>;

/// Whether reduce has the narrow-row kernel for rows of T (in narrow_row_lane_t lanes), and for how many elements a
/// row at most: narrow_row_max, below a register's lanes.
template <class T>
inline constexpr bool has_narrow_reduce_kernel = [] {
    if constexpr (builtin_element<T>) return has_narrow_row_kernel<narrow_row_lane_t<T>>;
    else return false;
}();
template <class T>
inline constexpr std::size_t narrow_reduce_row_max = [] {
    if constexpr (has_narrow_reduce_kernel<T>) return std::min(narrow_row_max, simd::lanes<narrow_row_lane_t<T>> - 1);
    else return std::size_t{0};
}();

namespace narrow_rows {

/// Lanes register S is rotated up by before the blends: S mod gcd(L, W) (none when L and W are coprime).
template <std::size_t L, std::size_t S>
[[nodiscard]] constexpr unsigned rotation(unsigned w) noexcept {
    return static_cast<unsigned>(S % std::gcd(L, static_cast<std::size_t>(w)));
}
[[nodiscard]] constexpr unsigned rotation_of(std::size_t l, std::size_t s, unsigned w) noexcept {
    return static_cast<unsigned>(s % std::gcd(l, static_cast<std::size_t>(w)));
}
/// Lane q of register S rotated: its lane q − rotation.
template <std::size_t L, std::size_t S>
struct rotated_lane {
    static constexpr std::size_t get(unsigned q, unsigned w) noexcept { return (q + w - rotation<L, S>(w)) % w; }
};
/// Where element e of the W rows (register e div W, lane e mod W) lies in its register rotated.
[[nodiscard]] constexpr unsigned rotated_position(std::size_t l, std::size_t e, unsigned w) noexcept {
    return static_cast<unsigned>((e % w + rotation_of(l, e / w, w)) % w);
}
/// Component C of the W rows from the blend of the rotated registers: row p's element C (element p·L + C) at its
/// rotated position.
template <std::size_t L, std::size_t C>
struct component_lane {
    static constexpr std::size_t get(unsigned p, unsigned w) noexcept { return rotated_position(L, p * L + C, w); }
};
/// Lane q of the blend for component C: from rotated register S? (The lane of the row whose element C is there.)
template <std::size_t L, std::size_t C, std::size_t S>
struct source_lane_in_register {
    static constexpr bool get(unsigned q, unsigned w) noexcept {
        for (unsigned p = 0; p < w; ++p)
            if (rotated_position(L, p * L + C, w) == q) return (p * L + C) / w == S;
        return false;
    }
};
/// Whether, for every component, the W rows' elements lie in distinct lanes of the rotated registers (so that one
/// blend of them holds all): true for every 2 ≤ L ≤ W with W a power of two — an element of component C lies at a
/// lane ≡ C (mod g), g = gcd(L, W), which the rotation makes ≡ C + S (mod g) (checked here for the W in use).
[[nodiscard]] constexpr bool rotations_separate(std::size_t l, unsigned w) noexcept {
    for (std::size_t c = 0; c < l; ++c)
        for (unsigned p = 0; p < w; ++p)
            for (unsigned r = p + 1; r < w; ++r)
                if (rotated_position(l, p * l + c, w) == rotated_position(l, r * l + c, w)) return false;
    return true;
}
/// The row lane q of register S belongs to: element S·W + q of the W rows.
template <std::size_t L, std::size_t S>
struct row_of_lane {
    static constexpr std::size_t get(unsigned q, unsigned w) noexcept { return (S * w + q) / L; }
};

/// The L components of the W rows held in v (component c: lane p = row p's element c). Algorithm: register S is
/// rotated up by S mod gcd(L, W) lanes (a permute, none where L and W are coprime), after which each component's W
/// elements lie in distinct lanes across the L registers: L − 1 constant blends gather them into one register, and
/// one permute puts row p's in lane p. 2L permutes at most and L(L − 1) blends, where permuting every register for
/// every component took L² permutes (argmax of f32 rows, ns a row, AVX2, AMD Zen 5: of 4 0.60 → 0.49, of 6 1.29 → 0.94,
/// of 8 2.35 → 1.5).
template <std::size_t L, class P>
[[gnu::always_inline]] inline std::array<P, L> components(const std::array<P, L>& v) noexcept {
    constexpr std::size_t W = P::size;
    static_assert(L >= 2 && L <= W && rotations_separate(L, W));
    std::array<P, L> rotated;
    iter::unrolled<L>([&](auto s) TENSOROPS_INLINE_STEP {
        if constexpr (rotation<L, s>(W) == 0) rotated[s] = v[s];
        else rotated[s] = simd::permute_constant<rotated_lane<L, s>>(v[s]);
    });
    std::array<P, L> out;
    iter::unrolled<L>([&](auto c) TENSOROPS_INLINE_STEP {
        P blend = rotated[0];
        iter::unrolled<L - 1>([&](auto s) TENSOROPS_INLINE_STEP {
            blend = simd::select_constant<source_lane_in_register<L, c, s + 1>>(rotated[s + 1], blend);
        });
        out[c] = simd::permute_constant<component_lane<L, c>>(blend);
    });
    return out;
}

/// Lane-wise, reduce_lanes' tree over W virtual lanes: lane c < L is component c (lifted already), the others r's
/// identity; lane i is combined with lane i + K for K = W/2 … 1. Pairs of identities stay the identity without an
/// instruction (e ∘ e = e for every reduction); a lane meeting an identity is still combined (−0 + 0 = +0).
template <std::size_t W, std::size_t L, class P, class R>
[[gnu::always_inline]] inline P fold_rows(const std::array<P, L>& components, const R& r) noexcept {
    using C = typename P::value_type;
    std::array<P, W> lane;
    iter::unrolled<W>([&](auto c) {
        if constexpr (c < L) lane[c] = components[c];
        else lane[c] = P(static_cast<C>(r.identity()));
    });
    const auto level = [&]<std::size_t K>(std::integral_constant<std::size_t, K>, const auto& self) {
        iter::unrolled<K>([&](auto i) {
            if constexpr (i < L || i + K < L) lane[i] = r.combine_lanes(lane[i], lane[i + K]);
        });
        if constexpr (K > 1) self(std::integral_constant<std::size_t, K / 2>{}, self);
    };
    level(std::integral_constant<std::size_t, W / 2>{}, level);
    return lane[0];
}

}  // namespace narrow_rows

/// The narrow-row kernel (see above): n rows of L elements at x, back to back; row k's value to y[k · out_step]. Rows of
/// 8- and 16-bit integers in 32-bit lanes (narrow_row_lane_t), by reduction R rebound to them.
template <std::size_t L, class T, class TypedR>
void reduce_narrow_rows(const T* x, T* y, std::size_t n, std::ptrdiff_t out_step, const TypedR&) {
    using U = narrow_row_lane_t<T>;
    using R = rebind_reduction_t<TypedR, U>;
    using P = simd::pack<U>;
    using C = simd::compute_t<U>;
    constexpr std::size_t W = P::size;
    constexpr bool widened = !std::is_same_v<U, T>;
    static_assert(L >= 2 && L < W);
    const R r{};
    // Row p's finished value in lane p, as the short-row kernel's group_values computes it for a row shorter than W.
    const auto rows_of = [&](const std::array<P, L>& v) TENSOROPS_INLINE_STEP {
        const P no_shift(C(0));
        std::array<P, L> lifted;
        if constexpr (R::shifted) {  // log-sum-exp: the maxima, then Σ e^(x − shift) where the maximum is finite
            const P top = narrow_rows::fold_rows<W>(narrow_rows::components(v), extreme_reduction<U, true>{});
            const P shift = R::shift_for_lanes(top);
            iter::unrolled<L>([&](auto s) { lifted[s] = r.lift_lanes(v[s], simd::permute_constant<narrow_rows::row_of_lane<L, s>>(shift)); });
            return r.finish_lanes(R::sum_for_non_finite_lanes(top, narrow_rows::fold_rows<W>(narrow_rows::components(lifted), r)), L, shift);
        } else {
            iter::unrolled<L>([&](auto s) { lifted[s] = r.lift_lanes(v[s], no_shift); });
            return r.finish_lanes(narrow_rows::fold_rows<W>(narrow_rows::components(lifted), r), L, no_shift);
        }
    };
    // A whole register to consecutive outputs at once, otherwise element by element (float16: simd::store and the
    // element conversion round alike, NaN payloads included — core/float16.hpp; widened lanes: truncated to T, the
    // value modulo 2^n).
    const auto store = [&](T* out, const P& values, std::size_t count) TENSOROPS_INLINE_STEP {
        if (out_step == 1 && count == W) {
            if constexpr (widened) return simd::store_narrowed<T, U>(out, values);
            else return simd::store(out, values);
        }
        const auto lanes = simd::to_array(values);
        for (std::size_t k = 0; k < count; ++k) out[static_cast<std::ptrdiff_t>(k) * out_step] = static_cast<T>(lanes[k]);
    };
    std::size_t i = 0;
    for (; i + W <= n; i += W, x += W * L, y += static_cast<std::ptrdiff_t>(W) * out_step) {
        std::array<P, L> v;
        iter::unrolled<L>([&](auto s) { v[s] = simd::load_as<U>(x + s * W); });
        store(y, rows_of(v), W);
    }
    if (const std::size_t rest = n - i; rest != 0) {  // partial loads; the lanes past the rows are not stored
        std::array<P, L> v;
        iter::unrolled<L>([&](auto s) {
            const std::size_t first = s * W, available = rest * L > first ? std::min(W, rest * L - first) : 0;
            if (available == W) v[s] = simd::load_as<U>(x + first);  // load_partial takes fewer than W
            else v[s] = available == 0 ? P(C(0)) : simd::load_partial_as<U>(x + first, available);
        });
        store(y, rows_of(v), rest);
    }
}

/// reduce_narrow_rows for the row length `length` (2 ≤ length ≤ narrow_reduce_row_max<T>).
template <class T, class R>
void reduce_narrow_rows(const T* x, T* y, std::size_t n, std::ptrdiff_t out_step, std::size_t length, const R& r) {
    iter::unrolled<narrow_row_max - 1>([&](auto k) {
        constexpr std::size_t L = k + 2;
        if constexpr (L <= narrow_reduce_row_max<T>) {
            if (length == L) reduce_narrow_rows<L>(x, y, n, out_step, r);
        }
    });
}

/// Whether the short-row kernel's rows of `length` elements (the innermost dimension of `kept`) go to the narrow-row
/// kernel: back to back, 2 ≤ length ≤ narrow_reduce_row_max<T>.
template <class T>
[[nodiscard]] bool takes_narrow_row_kernel(const iter::loop_nest<2>& kept, std::size_t length) noexcept {
    const bool back_to_back = kept.rank != 0 && kept.strides[1][kept.rank - 1] == static_cast<std::ptrdiff_t>(length);
    return has_narrow_reduce_kernel<T> && back_to_back && length >= 2 && length <= narrow_reduce_row_max<T>;
}

/// Groups of rows whose finish the short-row kernel defers to the end of a batch (see reduce_short_rows).
inline constexpr std::size_t short_row_batch = 8;

/// The short-row kernel (see above) for rows of `length` elements, 1 ≤ length ≤ short_row_limit<T, R>, in lanes of U
/// (T's own, or for 8- and 16-bit integers the 32-bit lanes of narrow_row_lane_t, R rebound to them).
/// Groups are accumulated one after the other (for log-sum-exp in one pass, or its maxima, then its terms, while the
/// group is in L1)
/// and finished short_row_batch at a time after them: the finish of log-sum-exp and LOG_SUM is a logarithm, a call
/// across which every live vector register is spilled, and whose latency, at the end of each group's chain of
/// dependent steps, the next group's loads had waited behind. f32 [rows, L], one thread, ns a row, one group at a time
/// → finished in batches (with the max combine and log-sum-exp's shift helpers always inline, which GCC had left calls
/// in the batched loop): log-sum-exp, 512 KiB, rows of 8 / 16 / 64 6.8 / 8.8 / 21.7 → 5.5 / 7.6 / 20.7; LOG_SUM of 64
/// 6.4 → 3.8; 64 MiB from memory, rows of 8 7.0 → 5.8. (Taking every group's maxima first, then every group's terms,
/// was faster in cache but left the memory stream idle through the terms: log-sum-exp of 64 MiB of rows of 64 33.8 →
/// 51.4 ns a row.)
template <class U, class T, class R>
void reduce_short_rows_in(const T* input, T* output, const iter::loop_nest<2>& kept, std::size_t length, const R& r) {
    using P = simd::pack<U>;
    using C = simd::compute_t<U>;
    constexpr std::size_t G = short_row_group<U>;
    constexpr std::size_t B = short_row_batch;
    const auto no_shift = [](std::size_t) { return P(C(0)); };
    // The rows along the innermost kept dimension are taken G at a time with their pointers stepped here: a closure
    // call and a nest step per row cost more than a row of a few elements (SUM of rows of 3 floats: 64 instructions
    // per row that way). A line's last group repeats its last row.
    const std::size_t inner = kept.rank == 0 ? 0 : kept.rank - 1;
    const std::size_t n = kept.rank == 0 ? 1 : kept.sizes[inner];
    const std::ptrdiff_t in_step = kept.rank == 0 ? 0 : kept.strides[1][inner];
    const std::ptrdiff_t out_step = kept.rank == 0 ? 0 : kept.strides[0][inner];
    const bool back_to_back = in_step == static_cast<std::ptrdiff_t>(length);
    const bool narrow = std::is_same_v<U, T> && takes_narrow_row_kernel<T>(kept, length);
    // Log-sum-exp of rows of two registers or more in one pass (log_sum_exp_short_rows_one_pass); shorter rows take
    // the two passes — as the narrow-row kernel does, whatever their layout —, where the one pass's reference per row
    // cost more than the second pass from L1 saves (f32, 512 KiB, ns a row, two passes / one pass: rows of 9 7.16 /
    // 7.34, of 12 5.34 / 5.47, of 16 7.55 / 7.58; of 24 9.80 / 9.12).
    const bool one_pass = short_rows_in_one_pass<R, U> && length >= 2 * P::size;
    const bool hint_lines = hints_lines(kept.element_count() * length * sizeof(T));
    iter::for_each_outer_index(kept, inner, [&](const std::array<std::ptrdiff_t, 2>& line) {
        const T* x = input + line[1];
        T* y = output + line[0];
        if constexpr (std::is_same_v<U, T> && has_narrow_reduce_kernel<T>) {
            if (narrow) return reduce_narrow_rows(x, y, n, out_step, length, r);
        }
        // The G rows from row `first`, whose first is at `at` (a pointer stepped group by group: computed from `first`
        // for every group, SUM of f32 rows of 8 and 16 ran 0.1–0.15 ns a row slower), the last row repeated past the
        // line's end.
        const auto group_rows = [&](const T* at, std::size_t first) TENSOROPS_INLINE_STEP {
            std::array<const T*, G> rows;
            if (first + G <= n) iter::unrolled<G>([&](auto k) { rows[k] = at + static_cast<std::ptrdiff_t>(k) * in_step; });
            else iter::unrolled<G>([&](auto k) { rows[k] = x + static_cast<std::ptrdiff_t>(std::min<std::size_t>(first + k, n - 1)) * in_step; });
            return rows;
        };
        // Whether the rows of the group from row `first`, shorter than a register, may be read a whole register each:
        // where the line's rows lie back to back and W elements from the group's last row end within the line, they
        // are the input's own elements (nothing past the line is read: it may be another tensor's, or unmapped). A
        // partial load of 8- and 16-bit lanes had gone through memory (int8 rows of 5: 19 ns a row that way, 1.8 read
        // whole).
        const auto whole_rows = [&](std::size_t first) TENSOROPS_INLINE_STEP {
            return length < P::size && back_to_back && (std::min(first + G, n) - 1) * length + P::size <= n * length;
        };
        // Row `row` … of the group: lane k's value to its output.
        const auto write = [&](std::size_t row, const P& finished) TENSOROPS_INLINE_STEP {
            const auto values = simd::to_array(finished);
            const std::size_t here = std::min(G, n - row);
            T* out = y + static_cast<std::ptrdiff_t>(row) * out_step;
            if (here == G) iter::unrolled<G>([&](auto k) { out[static_cast<std::ptrdiff_t>(k) * out_step] = static_cast<T>(values[k]); });
            else for (std::size_t k = 0; k < here; ++k) out[static_cast<std::ptrdiff_t>(k) * out_step] = static_cast<T>(values[k]);
        };
        const std::ptrdiff_t group_step = static_cast<std::ptrdiff_t>(G) * in_step;
        const T* at = x;
        for (std::size_t first = 0; first < n; first += G * B) {
            const std::size_t groups = std::min(B, (n - first + G - 1) / G);
            // Per group: the lanes to finish (log-sum-exp in one pass: its sums, and references in `shifts`), or
            // `written` already.
            std::array<P, B> totals, shifts;
            std::array<bool, B> written{};
            for (std::size_t b = 0; b < groups; ++b, at += group_step) {
                const std::size_t row = first + b * G;
                const auto rows = group_rows(at, row);
                const bool whole = whole_rows(row);
                if constexpr (R::shifted) {  // log-sum-exp: one pass, or the maxima, then Σ e^(x − shift) where the maximum is finite
                    struct total_and_shift {
                        P total, shift;
                    };
                    const auto two_passes = [&]() TENSOROPS_INLINE_STEP {
                        const P top = combine_short_rows<U>(rows, length, extreme_reduction<U, true>{}, no_shift, whole);
                        const P shift = R::shift_for_lanes(top);
                        const auto shift_lanes = simd::to_array(shift);
                        return total_and_shift{R::sum_for_non_finite_lanes(top, combine_short_rows<U>(rows, length, r, [&](std::size_t k) { return P(shift_lanes[k]); }, whole)), shift};
                    };
                    if constexpr (short_rows_in_one_pass<R, U>) {
                        if (one_pass) {
                            const auto one = log_sum_exp_short_rows_one_pass(rows, length, hint_lines);
                            const auto served = (simd::abs(one.sum) < P(std::numeric_limits<C>::infinity())) & R::reference_serves(one.top, one.reference);
                            totals[b] = one.sum;
                            shifts[b] = one.reference;
                            if (simd::any(!served & simd::detail::lanes_below<P>(G))) {  // rows the reference does not serve: two passes
                                const auto two = two_passes();
                                write(row, simd::select(served, R::finish_from_reference_lanes(one.sum, one.reference), r.finish_lanes(two.total, length, two.shift)));
                                written[b] = true;
                            }
                            continue;
                        }
                    }
                    const auto two = two_passes();
                    totals[b] = two.total;
                    shifts[b] = two.shift;
                } else {
                    totals[b] = combine_short_rows<U>(rows, length, r, no_shift, whole);
                }
            }
            for (std::size_t b = 0; b < groups; ++b) {
                if (written[b]) continue;
                const std::size_t row = first + b * G;
                if constexpr (short_rows_in_one_pass<R, U>) {
                    if (one_pass) {
                        write(row, R::finish_from_reference_lanes(totals[b], shifts[b]));
                        continue;
                    }
                }
                write(row, r.finish_lanes(totals[b], length, R::shifted ? shifts[b] : P(C(0))));
            }
        }
    });
}

/// The short-row kernel for rows of `length` elements, 1 ≤ length ≤ short_row_limit<T, R>: rows of up to a 32-bit
/// register's lanes of 8- and 16-bit integers in those lanes (widened on load, simd::load_as; R rebound as the
/// narrow-row kernel's: sums and products keep their value modulo 2^n, max and min are exact, so the truncated values
/// are the same bits) — a row is one vector of 8 lanes instead of 32 or 16, and eight rows fold in three butterfly
/// levels instead of five or four —, other rows in T's lanes. Back-to-back rows of up to narrow_reduce_row_max take
/// the narrow-row kernel either way.
template <class T, class R>
void reduce_short_rows(const T* input, T* output, const iter::loop_nest<2>& kept, std::size_t length, const R& r) {
    if constexpr (has_narrow_reduce_kernel<T> && !std::is_same_v<narrow_row_lane_t<T>, T>) {
        using U = narrow_row_lane_t<T>;
        if (length <= simd::lanes<U> && !takes_narrow_row_kernel<T>(kept, length)) return reduce_short_rows_in<U>(input, output, kept, length, rebind_reduction_t<R, U>{});
    }
    reduce_short_rows_in<T>(input, output, kept, length, r);
}

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

template <class T, class R>
void reduce_inner(const T* input, T* output, const reduce_nests<>& parts, std::size_t count, const R& r) {
    const std::size_t last = parts.group.rank - 1;
    const std::size_t length = parts.group.sizes[last];
    iter::axis_set innermost;
    innermost.set(last);
    const auto runs = iter::remove_dimensions(parts.group, innermost);
    const bool hint_lines = hints_lines(parts.kept.element_count() * count * sizeof(T));
    if constexpr (R::shifted) {  // log-sum-exp: one pass, run by run in blocks of stretches (see log_sum_exp_state)
        if (runs.rank == 0) {  // one run per output
            const std::ptrdiff_t run_offset = runs.offsets[1];
            iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 2>& at) {
                output[at[0]] = log_sum_exp_of_run(nullptr, input + at[1] + run_offset, length, count, r, hint_lines);
            });
            return;
        }
        iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 2>& at) {
            const auto state = log_sum_exp_of_runs(nullptr, 1, input + at[1], runs, length, r);
            output[at[0]] = r.finish(state.sum, count, R::shift_for(state.maximum));
        });
        return;
    }
    const typename R::accumulator no_shift = r.identity();
    if (runs.rank == 0) {  // one run per output (the usual "reduce the last axis")
        const std::ptrdiff_t run_offset = runs.offsets[1];
        if constexpr (!R::line_blocks) {  // floating products: a single run goes in fixed blocks
            iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 2>& at) {
                output[at[0]] = r.finish(reduce_run_in_blocks(nullptr, input + at[1] + run_offset, length, r, hint_lines), count, no_shift);
            });
        } else {
            // The innermost kept dimension is a plain loop (reduce_runs_of_line) around accumulate_runs for one run,
            // spelt out: the whole line of outputs is one function. As the odometer's body, called once an output,
            // each output cost a stack frame with its cascades zeroed (a `rep stos`) that did not overlap the memory
            // stream. AMD Zen 5 guest, 64 MiB of f32 rows of 4 KiB, median against the read probe in the same
            // process (binaries alternated, six runs of eight rounds): two threads on halves 0.73–0.97× → 0.91–1.03×,
            // one thread 0.94–0.95× → 0.98–1.0×. (Through two calls an output, earlier, it had been slower still.)
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

// ---------------------------------------------------------------------------------------------
// Outer: the innermost dimension is kept and contiguous; vectorise across it, streaming whole rows.
//
// Algorithm. Call a "row" the stretch of the innermost kept dimension at one element of the group. The
// group's rows are walked in the nest's order, one at a time, and combined lane-wise into a row of accumulators
// that stays in L1 (a load and a store of the accumulator per input vector, which L1 serves many times faster than
// memory), so memory is read row after row as it lies: one stream, which the hardware prefetchers follow. (Walking
// a narrow tile of columns down all the rows, with the accumulators in registers, ran at a third of the read
// bandwidth; cutting rows into 256-lane panels at three quarters; four rows at a time, combined with each other
// before the accumulator, read four pages at once: on an AMD Zen 5 half the speed of one row at a time, 64 MiB of
// f32 rows of 4 KiB — bench/RESULTS.md.) One refinement: the rows of a long line are folded two at a time, one
// accumulator load and store for both — a row of the line's first half with the same row of its second half, two
// streams far apart (row_units); neighbouring rows read that way were 2–3.5× slower from memory. Rows wider than a
// panel — what fits in
// outer_row_budget bytes of accumulator rows — are cut into panels, each walked over all the rows. No
// horizontal step at all; row ends narrower than a vector use partial loads.
// Three rows of accumulators: the running row takes cascade_block input rows and then joins the block row,
// which takes cascade_block such blocks and then joins the total row — a three-level cascade whose error grows
// like (2·cascade_block + n / cascade_block²)·ε rather than n·ε for sums. Every function with R::row_blocks keeps
// this structure (for max, min and integer products it costs one row combination per 128 rows): it fixes the
// order of operations in blocks of cascade_block rows (row_units: for a group of one line, a unit is a block, or two
// blocks far apart whose rows are folded in pairs), so reduce_rows_in_bands can give the units to several threads and
// combine their running rows exactly as here. Floating products keep one running row (restarting
// from 1 every block, data in [0, 1) went through subnormals again each time: 2.4× slower).
// Log-sum-exp takes the rows in blocks of lse_block_rows: in one pass the block's maximum and Σ e^(x − reference)
// against a reference row from its first rows (log_sum_exp_block), merged into a running (maximum, sum) pair of
// rows the way log_sum_exp_state merges stretches.

/// Stack bytes an outer reduction may use for its rows of accumulators.
inline constexpr std::size_t outer_row_budget = 32 * 1024;
/// Rows per log-sum-exp block (a block of 1024-lane float rows is 1 MiB: a vector redone by log_sum_exp_block
/// finds it in L2 or L3). Each block costs a few exponentials per lane besides its rows' (the end of
/// log_sum_exp_block, log_sum_exp_merge): blocks of 64 rows ran 10 % slower than of 128 in cache, and 128 4–5 %
/// slower than 256 from memory (64 MiB of f32, Zen 5; 512 gained nothing more).
inline constexpr std::size_t lse_block_rows = 256;
/// Rows log_sum_exp_block takes at once (a vector's sum adds their terms in row order all the same).
inline constexpr std::size_t lse_row_group = 8;
/// Rows of accumulators of the outer log-sum-exp kernel (running maximum and sum; the block's maximum, shift, sums),
/// placed apart from the input (accumulator_rows::place_apart_from, lines 0–4); log_sum_exp_block's two rows of
/// references go after them.
inline constexpr std::size_t lse_accumulator_rows = 5;

/// `Rows` rows of accumulator lanes, `panel` lanes each (a power of two, at least a vector), left uninitialised,
/// in `Budget` bytes (and a way of L1 more, for place_apart_from).
template <class C, std::size_t Rows, std::size_t Budget = outer_row_budget>
struct accumulator_rows {
    static constexpr std::size_t panel = std::bit_floor(Budget / (Rows * sizeof(C)));
    static constexpr std::size_t line_lanes = simd::cache_line_bytes / sizeof(C);

    [[nodiscard]] C* row(std::size_t k) noexcept { return first_row + k * pitch; }

    /// Moves the rows (their contents are lost) so that lane j of row k lies in the L1 set half a way plus
    /// `lines_after` + k lines (to within one) after the set of `input` + j lanes: never in the set of the input's
    /// line of the same lanes, nor in one another's. For the outer kernels whose rows of input lie a multiple of
    /// l1_way_bytes apart (rows of 1024 floats, 512 doubles…; exactly where the input's lanes are as wide as C's, over
    /// a stretch of lanes where they are narrower — float16): a vector's lines from a group of eight rows fill eight
    /// ways of one set, and rows of accumulators placed where the stack happened to be (Linux moves its start by up to
    /// 8 KiB from process to process) fell in that set too, one or two lines more than its ways. Outer log-sum-exp of
    /// f32 [256, 1024] (1 MiB, L2) on Zen 5, called under stack offsets of 0–4032 bytes in one process: 1.41–1.79 ns
    /// a vector of 8 by the offset, placed apart 1.43–1.44 at every offset.
    void place_apart_from(const void* input, std::size_t lines_after) noexcept {
        const std::uintptr_t wanted = reinterpret_cast<std::uintptr_t>(input) + simd::l1_way_bytes / 2 + lines_after * simd::cache_line_bytes;
        const std::uintptr_t offset = (wanted - reinterpret_cast<std::uintptr_t>(lanes)) % simd::l1_way_bytes / simd::cache_line_bytes;
        first_row = lanes + offset * line_lanes;
        pitch = panel + line_lanes;
    }

    /// The lanes the rows lie in, wherever they are placed.
    static constexpr std::size_t storage_lanes = Rows * (panel + line_lanes) + simd::l1_way_bytes / sizeof(C);
    [[nodiscard]] const C* storage() const noexcept { return lanes; }

private:
    alignas(64) C lanes[storage_lanes];
    C* first_row = lanes;
    std::size_t pitch = panel;
};

/// Calls step_lanes(j, load, store) for j = 0, W, 2W, … below `width` (W = lanes<T>): load(p) reads the vector
/// at p and store(p, v) writes it — a partial one at the row's end, which touches nothing past `width` lanes.
/// p may point to any element type with W-lane packs (input, accumulator or index rows).
/// Always inlined: the step's captures (row pointers, accumulator row) must become registers of the caller's
/// loop — called through a closure pointer, each step reloaded them, since its stores might alias them. For the same
/// reason every step passed here is TENSOROPS_INLINE_STEP (simd/config.hpp): called at two or three sites, GCC 12 -O2
/// otherwise kept some of them out of line.
template <class T, class Step>
[[gnu::always_inline]] inline void for_each_row_vector(std::size_t width, Step&& step_lanes) {
    constexpr std::size_t W = simd::lanes<T>;
    std::size_t j = 0;
    for (; j + W <= width; j += W)
        step_lanes(j, [](const auto* p) { return simd::load(p); }, [](auto* p, const auto& v) { simd::store(p, v); });
    if (const std::size_t tail = width - j; tail != 0)
        step_lanes(j, [tail](const auto* p) { return simd::load_partial(p, tail, {}); },
                   [tail](auto* p, const auto& v) { simd::store_partial(p, v, tail); });
}

/// for_each_row_vector, walking the rows whose lanes start at `row` (and, if not null, `beside`: a second row read in
/// the same steps) a cache line at a time and hinting each row's stretch `ahead` bytes on (simd::rows_ahead_bytes;
/// 0: none): its first line, then each page that begins in it (the hints of simd::prefetch_page_ahead at every line,
/// counted by simd::page_hint_walk, after the line's loads). What the outer kernels read, one vector per step_lanes; a
/// line's steps are unrolled.
/// Pages, not lines: 64 MiB of f32 [16384, 1024] reduced over the rows on an AMD Zen 5 guest in 4 KiB pages, SUM ran at
/// 2.0–2.5 ns per 8 floats with a hint per line 8 KiB ahead (what this walk did before), 0.96–1.0 with the page hints;
/// MAX 2.0–2.2 → 1.03–1.08, float16 SUM 0.97–1.12 → 0.59–0.65 ns per 8 halves. Where the rows are not back to back
/// ([8192, 4000], [128, 262144]: read a panel at a time, the stream breaking at each row's end) hints per line
/// as well as per page were no faster (2.7–3.4 ns per 8 floats either way).
/// The page test of each line is counted (simd::page_hint_walk: one compare a line, the same hints) and comes after the
/// line's loads. Computed at every line it took five of the sixteen instructions of a line of f32 SUM, whose loop was
/// then bound by its instructions more than by memory: 256 KiB of rows in L2 ran at 53–69 GB/s, counted 76–85 (AMD
/// Zen 5 guest). Counted but before the line's loads, page-aligned rows (where the hint falls on a row's first line)
/// ran 1.7× slower from memory (1.7–1.9 → 3.1–3.3 ms for 64 MiB on one thread; rows 16 bytes past a page 0.9–1.1×);
/// after them, 1.42–1.64 ms against 1.48–1.54 for the page test. On a two-thread pool, 64 MiB of f32 [16384, 1024],
/// median against a two-thread read probe after each call (binaries alternated, rounds of 150 calls), page test →
/// counted after the loads: SUM 0.70–0.75 → 0.77–0.78 page-aligned, 0.71–0.73 → 0.76–0.78 16 bytes past a page;
/// argmax 0.55–0.61 → 0.62–0.67; MAX 0.70–0.71 → 0.72–0.73 (page-aligned).
/// Unrolled: GCC 12 at -O2 kept a line's four float16 steps a loop, 0.87–0.92 ns per 8 halves in L2 against 0.32–0.33
/// unrolled (AMD Zen 5). Placing the same hints between stretches of lines instead of testing at every line (no test
/// in the loop) ran 64 MiB of f32 rows 20–35 % slower for L1 and SUM (10 runs, alternated; float16 pairs unchanged):
/// not kept.
template <class T, class Step>
[[gnu::always_inline]] inline void for_each_row_vector_prefetching(const T* row, const T* beside, std::ptrdiff_t ahead, std::size_t width,
                                                                    Step&& step_lanes) {
    constexpr std::size_t W = simd::lanes<T>;
    constexpr std::size_t per_line = std::max<std::size_t>(1, simd::cache_line_bytes / (W * sizeof(T)));  // vectors per line
    constexpr std::size_t line_lanes = per_line * W;
    constexpr std::size_t line_bytes = line_lanes * sizeof(T);
    const auto load = [](const auto* p) { return simd::load(p); };
    const auto store = [](auto* p, const auto& v) { simd::store(p, v); };
    const auto hint = [&](std::size_t j, std::size_t bytes) TENSOROPS_INLINE_STEP {
        simd::prefetch_page_ahead(row + j, ahead, bytes);
        if (beside != nullptr) simd::prefetch_page_ahead(beside + j, ahead, bytes);
    };
    std::size_t j = 0;
    // The whole lines, each followed by after_line(line): its hints, after its loads (see above).
    const auto walk_lines = [&](auto&& after_line) TENSOROPS_INLINE_STEP {
        for (std::size_t line = 0; j + line_lanes <= width; j += line_lanes, ++line) {
            iter::unrolled<per_line>([&](auto k) { step_lanes(j + k * W, load, store); });
            after_line(line);
        }
    };
    if (ahead == 0) {
        walk_lines([](std::size_t) {});
    } else {
        simd::prefetch_ahead(row, ahead, 1);  // the page the row ahead starts in, then prefetch_page_ahead's hints, counted
        simd::page_hint_walk<line_bytes> row_hints(row, ahead);
        if (beside == nullptr) {
            walk_lines([&](std::size_t line) { row_hints.at(line); });
        } else {
            simd::prefetch_ahead(beside, ahead, 1);
            simd::page_hint_walk<line_bytes> beside_hints(beside, ahead);
            walk_lines([&](std::size_t line) {
                row_hints.at(line);
                beside_hints.at(line);
            });
        }
    }
    if (j == width) return;
    if (ahead != 0) hint(j, line_bytes);  // the last line, less than whole
    for_each_row_vector<T>(width - j, [&](std::size_t i, const auto& load_rest, const auto& store_rest) TENSOROPS_INLINE_STEP { step_lanes(j + i, load_rest, store_rest); });
}

/// row[0 … width) = value. In vector stores where C has a vector register (GCC 12 -O2 left std::fill a scalar loop:
/// refilling the outer kernel's accumulator rows took 16 % of a MAX over 64 rows of 1024 floats in cache).
template <class C>
void fill_row(C* row, std::size_t width, C value) {
    std::size_t j = 0;
    if constexpr (std::is_arithmetic_v<C> && simd::vectorized) {
        using P = simd::pack<C>;
        const P lanes(value);
        for (; j + P::size <= width; j += P::size) simd::store(row + j, lanes);
    }
    std::fill(row + j, row + width, value);
}

/// accumulators[j] ∘= the input row's lane j lifted, for lanes 0 … width − 1 (reductions that are not shifted);
/// hints the row `ahead` bytes on (simd::rows_ahead_bytes; 0: none).
template <class T, class R>
void fold_row(const T* row, simd::compute_t<T>* accumulators, std::size_t width, const R& r, std::ptrdiff_t ahead = 0) {
    static_assert(!R::shifted, "log-sum-exp folds its rows in log_sum_exp_block");
    using P = simd::pack<T>;
    const P no_shift(simd::compute_t<T>(0));
    for_each_row_vector_prefetching<T>(row, nullptr, ahead, width, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        store(accumulators + j, r.combine_lanes(P(load(accumulators + j)), r.lift_lanes(P(load(row + j)), no_shift)));
    });
}

/// accumulators[j] ∘= (row lane j lifted ∘ `other` lane j lifted), for lanes 0 … width − 1: two rows for one load and
/// store of the accumulator (see row_units); hints both rows `ahead` bytes on.
template <class T, class R>
void fold_row_pair(const T* row, const T* other, simd::compute_t<T>* accumulators, std::size_t width, const R& r, std::ptrdiff_t ahead) {
    static_assert(!R::shifted, "log-sum-exp folds its rows in log_sum_exp_block");
    using P = simd::pack<T>;
    const P no_shift(simd::compute_t<T>(0));
    for_each_row_vector_prefetching<T>(row, other, ahead, width, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        const P pair = r.combine_lanes(r.lift_lanes(P(load(row + j)), no_shift), r.lift_lanes(P(load(other + j)), no_shift));
        store(accumulators + j, r.combine_lanes(P(load(accumulators + j)), pair));
    });
}

/// into[j] ∘= from[j] for lanes 0 … width − 1.
template <class T, class R>
void combine_rows(simd::compute_t<T>* into, const simd::compute_t<T>* from, std::size_t width, const R& r) {
    for_each_row_vector<T>(width, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        store(into + j, r.combine_lanes(load(into + j), load(from + j)));
    });
}

/// Rows of at least this many bytes are streamed one by one; narrower rows that lie back to back in memory are
/// taken `fused_rows` at a time as one wide row (see reduce_rows).
inline constexpr std::size_t narrow_row_bytes = 4096;

/// How many back-to-back rows of `width` lanes, `step` elements apart, the outer kernel fuses into one wide row: 1
/// unless the rows are adjacent (step = width), narrower than narrow_row_bytes, and that many fit in a panel of `panel`
/// lanes.
template <class T>
[[nodiscard]] std::size_t fused_rows(std::size_t width, std::ptrdiff_t step, std::size_t panel) {
    if (width > panel || step != static_cast<std::ptrdiff_t>(width)) return 1;
    const std::size_t wanted = (narrow_row_bytes + width * sizeof(T) - 1) / (width * sizeof(T));
    return std::max<std::size_t>(1, std::min(wanted, panel / width));
}

/// Calls visit(row, lanes, ahead) for the group's rows from `base` in order, one at a time: each row is `fuse`
/// back-to-back rows of `width` (lanes = fuse · width) while whole ones remain in the line, then single rows
/// (lanes = width); `ahead` is what to prefetch, simd::rows_ahead_bytes of the line's pitch.
template <class T, class Visit>
void for_each_row(const T* base, const iter::loop_nest<2>& group, std::size_t width, std::size_t fuse, Visit&& visit) {
    for_each_group_line(base, group, [&](const T* line, std::size_t length, std::ptrdiff_t step) {
        const std::size_t wide = fuse * width;
        const std::ptrdiff_t wide_step = static_cast<std::ptrdiff_t>(fuse) * step;
        const std::ptrdiff_t wide_ahead = simd::rows_ahead_bytes<T>(wide_step), ahead = simd::rows_ahead_bytes<T>(step);
        std::size_t i = 0;
        for (; i + fuse <= length; i += fuse, line += wide_step) visit(line, wide, wide_ahead);
        for (; i < length; ++i, line += step) visit(line, width, ahead);
    });
}

/// y[j] = finish(the fuse segments of `total`, `w` lanes each, combined), j < w.
template <class T, class R>
void finish_segments(simd::compute_t<T>* total, std::size_t w, std::size_t fuse, T* y, std::size_t count, const R& r) {
    using C = simd::compute_t<T>;
    using P = simd::pack<T>;
    for (std::size_t segment = 1; segment < fuse; ++segment) combine_rows<T>(total, total + segment * w, w, r);
    for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        store(y + j, r.finish_lanes(load(total + j), count, P(C(0))));
    });
}

/// reduce_rows for a group of several lines (and for functions without row blocks): its rows in the nest's order,
/// fused as reduce_rows fuses them, into a running row that joins the block row every cascade_block rows (fused or
/// not), the block row joining the total row every cascade_block blocks.
template <class T, class R>
void reduce_rows_of_group(const T* x, T* y, std::size_t width, const iter::loop_nest<2>& group, std::size_t count, const R& r) {
    using C = simd::compute_t<T>;
    constexpr std::size_t levels = R::row_blocks ? 3 : 1;  // running, blocks, total
    accumulator_rows<C, levels> rows;
    const C identity = static_cast<C>(r.identity());
    const std::size_t fuse = group.rank == 0 ? 1 : fused_rows<T>(width, group.strides[1][group.rank - 1], rows.panel);
    for (std::size_t start = 0; start < width; start += rows.panel) {
        const std::size_t w = std::min(rows.panel, width - start);
        const std::size_t lanes = fuse * w;
        for (std::size_t k = 0; k < levels; ++k) fill_row(rows.row(k), lanes, identity);
        C* running = rows.row(0);
        std::size_t rows_in_block = 0, blocks = 0;
        for_each_row(x + start, group, w, fuse, [&](const T* row, std::size_t row_lanes, std::ptrdiff_t ahead) {
            fold_row(row, running, row_lanes, r, ahead);
            if constexpr (R::row_blocks) {
                if (++rows_in_block < cascade_block) return;
                combine_rows<T>(rows.row(1), running, lanes, r);
                fill_row(running, lanes, identity);
                rows_in_block = 0;
                if (++blocks < cascade_block) return;
                combine_rows<T>(rows.row(2), rows.row(1), lanes, r);
                fill_row(rows.row(1), lanes, identity);
                blocks = 0;
            }
        });
        if constexpr (R::row_blocks) {
            combine_rows<T>(rows.row(1), running, lanes, r);
            combine_rows<T>(rows.row(2), rows.row(1), lanes, r);
        }
        finish_segments(rows.row(levels - 1), w, fuse, y + start, count, r);
    }
}

/// Rows the outer kernel folds two at a time are at least this far apart (bytes; see row_units).
inline constexpr std::size_t far_pair_bytes = std::size_t{2} << 20;

/// Bytes between rows of T `step` elements apart, either way.
template <class T>
[[nodiscard]] constexpr std::size_t pitch_bytes(std::ptrdiff_t step) noexcept {
    return static_cast<std::size_t>(step < 0 ? -step : step) * sizeof(T);
}

/// How the outer kernel walks one line of `visits` rows (each `visit_step` elements after the one before) for functions
/// with row blocks: in units, each folded into a running row of its own, the running rows then combined in order
/// (unit_combiner) — whether one thread does it all (reduce_rows) or several share the units out
/// (reduce_rows_in_bands), so the results are the same bit for bit. Unit u is block u, rows
/// [u · cascade_block, (u + 1) · cascade_block), folded one row at a time — or, when `paired`, block u beside block
/// u + units (the second half of the line), row i of one with row i of the other (fold_row_pair: one load and store
/// of the accumulator for the two rows' vectors), the rows of block u that have no partner one at a time.
/// Pairs only where the halves lie at least far_pair_bytes apart. Measured (AMD Zen 5 guest, 64 MiB of
/// float16 [32768, 1024] over the rows, stand-alone kernels in one process, best of 10, ns per 8 halves, against a
/// plain vector sum of the same bytes: S): one row at a time 1.1–1.3 × S, row pairs 32 MiB apart 0.9–1.15 × S,
/// 2 MiB apart 1.07 ×, 512 KiB 1.35 ×, 8 KiB 2.3 ×, the two halves of a 4 KiB page 3–3.5 × — near streams are
/// slow here, which is why the halves of the line are paired and not neighbours. In L2 (512 KiB): one row at a time
/// 0.36, pairs 0.27 ns, S 0.27: the conversions alone. Paired at first for float16 only (whose lanes are wider than
/// its elements); f32 pairs too since the page hints are counted (for_each_row_vector_prefetching): 64 MiB of f32
/// [16384, 1024] on a two-thread pool, median of 100 calls against a two-thread read probe after each (binaries
/// alternated, page-aligned buffers): SUM 0.88–0.97 → 0.96–1.02 (0.90 → 0.71 ms), MAX 0.77–0.79 → 0.95–1.17, L2
/// 0.84–0.94 → 1.04; one thread SUM 0.90–0.92 → 1.07–1.11, MAX 0.85–0.86 → 0.99–1.04 of its probe.
/// of_line plans a line of `n` rows of `width` lanes, `step` elements apart: rows fused `fuse` at a time (fused_rows,
/// for the accumulator rows' panel) make `visits` rows of fuse · width lanes, `visit_step` apart, and the n mod fuse
/// rows left over go to the last unit (fold_rows_left_over). What reduce_rows and reduce_rows_in_bands must agree on.
struct row_units {
    std::size_t fuse = 1;
    std::ptrdiff_t visit_step = 0;
    std::size_t visits = 0;
    std::size_t units = 0;
    bool paired = false;

    template <class T>
    [[nodiscard]] static row_units of_line(std::size_t width, std::size_t n, std::ptrdiff_t step) noexcept {
        const std::size_t fuse = fused_rows<T>(width, step, accumulator_rows<simd::compute_t<T>, 3>::panel);
        const std::ptrdiff_t visit_step = static_cast<std::ptrdiff_t>(fuse) * step;
        const std::size_t visits = n / fuse;
        const std::size_t blocks = (visits + cascade_block - 1) / cascade_block;
        const std::size_t half = (blocks + 1) / 2;
        const std::size_t pitch = pitch_bytes<T>(visit_step);
        const bool paired = blocks >= 2 && half * cascade_block * pitch >= far_pair_bytes;
        return {fuse, visit_step, visits, paired ? half : blocks, paired};
    }
};

/// running ∘= unit `unit` of `plan` (row_units) of the line of rows from x, `lanes` lanes of each (fused) row.
template <class T, class R>
void fold_unit(const T* x, std::size_t lanes, const row_units& plan, std::size_t unit, simd::compute_t<T>* running, const R& r) {
    const std::ptrdiff_t step = plan.visit_step;
    const std::ptrdiff_t ahead = simd::rows_ahead_bytes<T>(step);
    const std::size_t first = unit * cascade_block, end = std::min(plan.visits, first + cascade_block);
    const T* row = x + static_cast<std::ptrdiff_t>(first) * step;
    std::size_t i = first;
    if (const std::size_t partner = (unit + plan.units) * cascade_block; plan.paired && partner < plan.visits) {
        const std::size_t pairs = std::min(plan.visits, partner + cascade_block) - partner;
        const T* other = x + static_cast<std::ptrdiff_t>(partner) * step;
        for (std::size_t k = 0; k < pairs; ++k, ++i, row += step, other += step) fold_row_pair(row, other, running, lanes, r, ahead);
    }
    for (; i < end; ++i, row += step) fold_row(row, running, lanes, r, ahead);
}

/// running ∘= the rows of a line of `n` rows (`step` apart, `w` lanes each) that fusing them `fuse` at a time left
/// over: the last n mod fuse rows, one at a time into the running row's first w lanes.
template <class T, class R>
void fold_rows_left_over(const T* x, std::size_t n, std::ptrdiff_t step, std::size_t fuse, std::size_t w, simd::compute_t<T>* running,
                         const R& r) {
    const T* row = x + static_cast<std::ptrdiff_t>(n - n % fuse) * step;
    for (std::size_t i = n - n % fuse; i < n; ++i, row += step) fold_row(row, running, w, r, simd::rows_ahead_bytes<T>(step));
}

/// The outer kernel's last two levels: running rows added in order to a block row, which joins the total row every
/// cascade_block of them (reduce_rows' comment). `block` and `total` are rows of `lanes` lanes, set to the identity.
template <class T, class R>
struct unit_combiner {
    using C = simd::compute_t<T>;
    C* block;
    C* total;
    std::size_t lanes;
    const R& r;
    std::size_t in_block = 0;

    void add(const C* running) {
        combine_rows<T>(block, running, lanes, r);
        if (++in_block < cascade_block) return;
        combine_rows<T>(total, block, lanes, r);
        fill_row(block, lanes, static_cast<C>(r.identity()));
        in_block = 0;
    }
    /// The total row, the block row joined to it.
    [[nodiscard]] C* finish() {
        combine_rows<T>(total, block, lanes, r);
        return total;
    }
};

/// The outer kernel for one stretch of `width` contiguous outputs y (every function but log-sum-exp).
/// Narrow rows that lie back to back ([n, w] reduced over n, w · sizeof(T) < 4 KiB) are fused k at a time into
/// rows of k · w lanes, whose k segments are combined at the end: per-row overhead and, more important, several
/// row streams inside one 4 KiB page (which the hardware prefetchers follow badly) are avoided — f32 rows of
/// 256 B–2 KiB ran at 50–80 % of the speed of 4 KiB rows, float16 rows of 2 KiB at 70 %, before.
/// A group of one line (the common case: [n, w] over n) is walked in row_units by functions with row blocks; the
/// rows left over after the fused ones go to the last unit's running row.
template <class T, class R>
void reduce_rows(const T* x, T* y, std::size_t width, const iter::loop_nest<2>& group, std::size_t count, const R& r) {
    if constexpr (R::row_blocks) {
        if (group.rank == 1) {
            using C = simd::compute_t<T>;
            const std::size_t n = group.sizes[0];
            const std::ptrdiff_t step = group.strides[1][0];
            const row_units plan = row_units::of_line<T>(width, n, step);
            const std::size_t fuse = plan.fuse;
            const C identity = static_cast<C>(r.identity());
            accumulator_rows<C, 3> rows;  // running, block, total
            for (std::size_t start = 0; start < width; start += rows.panel) {
                const std::size_t w = std::min(rows.panel, width - start);
                const std::size_t lanes = fuse * w;
                for (std::size_t k = 0; k < 3; ++k) fill_row(rows.row(k), lanes, identity);
                unit_combiner<T, R> combiner{rows.row(1), rows.row(2), lanes, r};
                C* running = rows.row(0);
                const std::size_t units = std::max<std::size_t>(plan.units, 1);
                for (std::size_t u = 0; u < units; ++u) {
                    if (u != 0) fill_row(running, lanes, identity);
                    if (u < plan.units) fold_unit(x + start, lanes, plan, u, running, r);
                    if (u + 1 == units) fold_rows_left_over(x + start, n, step, fuse, w, running, r);
                    combiner.add(running);
                }
                finish_segments(combiner.finish(), w, fuse, y + start, count, r);
            }
            return;
        }
    }
    reduce_rows_of_group(x, y, width, group, count, r);
}

/// reduce_rows for a group of one line of `n` rows, `step` apart, on an executor: the line's row_units (the same
/// as reduce_rows', fused rows included) are shared out in pieces of whole units (piece_begin), each unit's running row
/// computed exactly as reduce_rows computes it — a panel at a time in a row on the piece's stack, in L1 — and stored
/// into `partial`; then the calling thread combines the running rows in order, as reduce_rows does (unit_combiner).
/// Every output is therefore bit-identical to reduce_rows'. Each thread streams whole rows, which the hardware
/// prefetchers follow (cutting the rows between threads instead ran at half the two-thread read limit). Memory: one
/// row of accumulators per unit (1/128 of the input for f32). Returns false, having done nothing, for a line of fewer
/// than two units. (The running rows had been folded in `partial` itself, filled by the calling thread before the
/// pieces, so that the other thread's first fold of each unit read its row from the caller's cache. Folding on the
/// stack measured neither faster nor slower — two-thread pool, f32 SUM over [16384, 1024], median paired ratios
/// 0.70–0.87 either way — and is kept for the serial fill it removes.)
template <class T, class R>
bool reduce_rows_in_bands(const executor_ref& exec, const T* x, T* y, std::size_t width, std::size_t n, std::ptrdiff_t step,
                          std::size_t count, const R& r) {
    using C = simd::compute_t<T>;
    const C identity = static_cast<C>(r.identity());
    const row_units plan = row_units::of_line<T>(width, n, step);
    const std::size_t fuse = plan.fuse;
    if (plan.units < 2) return false;
    const std::size_t lanes = fuse * width;
    // Each unit's running row, written whole by the piece that folds it (so left uninitialised here).
    const auto partial = std::make_unique_for_overwrite<C[]>(plan.units * lanes);
    const std::size_t pieces = std::min(plan.units, wanted_pieces(exec, n * width * sizeof(T)));
    exec.parallel_for(pieces, [&](std::size_t piece) {
        accumulator_rows<C, 1> running_row;  // in L1: a panel of the running row, stored into `partial` once folded
        C* const running = running_row.row(0);
        const std::size_t end = piece_begin(piece + 1, pieces, plan.units, exec.concurrency());
        for (std::size_t u = piece_begin(piece, pieces, plan.units, exec.concurrency()); u < end; ++u) {
            for (std::size_t start = 0; start < lanes; start += running_row.panel) {
                const std::size_t w = std::min(running_row.panel, lanes - start);
                fill_row(running, w, identity);
                fold_unit(x + start, w, plan, u, running, r);
                // Rows left over only where rows are fused (fuse > 1), and fused rows fit one panel: as reduce_rows.
                if (fuse > 1 && u + 1 == plan.units) fold_rows_left_over(x, n, step, fuse, width, running, r);
                std::copy(running, running + w, partial.get() + u * lanes + start);
            }
        }
    });
    accumulator_rows<C, 2> rows;  // block, total
    for (std::size_t start = 0; start < width; start += rows.panel) {  // panels of outputs (with fused rows, one)
        const std::size_t w = std::min(rows.panel, width - start);
        const std::size_t panel_lanes = fuse * w;
        fill_row(rows.row(0), panel_lanes, identity);
        fill_row(rows.row(1), panel_lanes, identity);
        unit_combiner<T, R> combiner{rows.row(0), rows.row(1), panel_lanes, r};
        for (std::size_t u = 0; u < plan.units; ++u) combiner.add(partial.get() + u * lanes + start);
        finish_segments(combiner.finish(), w, fuse, y + start, count, r);
    }
    return true;
}

/// One log-sum-exp block of the outer kernel: `count` rows (pointers in `block`) of `w` lanes → the block's
/// maximum row `top` (NaN where a lane holds one), `shift` = shift_for(top) and the row of sums Σ e^(x − shift)
/// (e^top — +inf, 0 or NaN — where top is not finite), as a two-pass block (maximum, then terms) would give them.
///
/// Algorithm: one pass from memory. A reference row comes from the maximum of the block's first (up to) four
/// rows (log_sum_exp_reduction::reference_for_lanes); then, row by row, top = max(top, x) and sums +=
/// e^x over the reference — so the block is read once and its exponentials overlap the memory stream (the
/// maximum first and the terms in a second pass from L2, as this kernel did before, ran at 0.72–0.75× this
/// speed: the first pass waited on memory with nothing to overlap). Each lane's sum is then brought to top's
/// shift (at_top). The row loop is what bounds the kernel (compute, not memory, at AVX2 width), so it does the
/// least per vector: top is a plain maximum, blind to NaN, and NaN and +inf elements are caught instead by the
/// sum they make NaN or +inf (term_lanes' promise; otherwise finite: terms of served lanes stay below 2^96).
/// A vector of lanes whose sum is not finite, or where some finite top is out of its reference's reach
/// (reference_serves: a −inf first-rows estimate replaced by 0 far from the rest, or first rows ~60 or more
/// below it), is redone from cache: its top with NaN-propagating maxima, then — where some top is finite — its
/// sum with the exact shift. One vector's second pass over the block, not the block's. A lane whose top is not
/// finite takes its known sum.
/// Accuracy: float lanes keep the reference as a power of two and round no distance from it (see
/// simd::exp_over_power_of_two), so the result is within a few ulp of the two-pass block's, whatever the distance
/// (an earlier version with exp_shifted against the estimate lost up to 80 ulp of a result near 2 when the first
/// rows lay 60 below the rest).
/// Where this build's registers are AVX2's and the CPU has AVX-512F, float rows go through the same row loop on 512-bit
/// registers (avx512::log_sum_exp_block_rows, log_sum_exp_avx512.hpp): the same bits, 1.15–1.25× faster on a Zen 4.
template <class T>
void log_sum_exp_block(const T* const* block, std::size_t count, std::size_t w, simd::compute_t<T>* top, simd::compute_t<T>* shift,
                       simd::compute_t<T>* sums) {
    using C = simd::compute_t<T>;
    using P = simd::pack<T>;
    using lse = log_sum_exp_reduction<T>;
    constexpr C infinity = std::numeric_limits<C>::infinity();
    fill_row(shift, w, -infinity);
    for (std::size_t i = 0; i < std::min<std::size_t>(count, 4); ++i) fold_row(block[i], shift, w, extreme_reduction<T, true>{});
    for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        store(shift + j, lse::reference_for_lanes(load(shift + j)));
    });
    // term_reference_lanes of the reference, once for the block's rows: two rows of lanes for float lanes
    // (simd::power_of_two_reference), one for double lanes (the reference).
    constexpr bool two_rows = std::is_same_v<C, float>;
    accumulator_rows<C, 2> references;
    references.place_apart_from(block[0], lse_accumulator_rows);
    C* const first = references.row(0);
    C* const second = references.row(1);
    for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        const auto r = lse::term_reference_lanes(load(shift + j));
        if constexpr (two_rows) {
            store(first + j, r.lowest);
            store(second + j, r.k_less_rounding);
        } else {
            store(first + j, r);
        }
    });
    const auto reference_at = [&](std::size_t j, const auto& load) {
        if constexpr (two_rows) return simd::power_of_two_reference<P>{load(first + j), load(second + j)};
        else return load(first + j);
    };
    fill_row(top, w, -infinity);
    fill_row(sums, w, C(0));
    // Rows lse_row_group at a time, so that a vector's top, sum and reference stay in registers across them; the
    // next group's rows are hinted a cache line at a time (without, 64 MiB of f32 rows of 4 KiB took 3.6 or 5.7 ms
    // from run to run; with, 3.3–3.5), into L2: hinted into L1, the next group's lines of rows 4 KiB apart and the
    // group's own fall in the same L1 set, more than its ways — the kernel ran at 2.2 ns a vector of 8 floats with
    // 1024-float rows against 1.4 with 1040, and with the hints into L2 at 1.4 (Zen 5, rows in L2; 64 MiB from
    // memory 5.6–5.8 → 4.0–4.8 ms in the same minutes). The rows of the group after the next are touched once
    // (touch_rows, stream_hints.hpp), so that the next group's hints find their pages translated.
    std::size_t i = 0;
    const auto add_rows = [&]<std::size_t Rows>(std::integral_constant<std::size_t, Rows>) {
        std::array<const T*, Rows> rows;
        for (std::size_t k = 0; k < Rows; ++k) rows[k] = block[i + k];
        const bool hint_next = Rows > 1 && i + 2 * Rows <= count;
        const T* const* const touched = rows_to_touch(block, i, Rows, count);
        for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
            if (hint_next && j % (simd::cache_line_bytes / sizeof(T)) == 0)
                for (std::size_t k = 0; k < Rows; ++k) simd::prefetch_line_to_l2(block[i + Rows + k] + j);
            if (touched != nullptr && j == row_touch_offset<T>) touch_rows(touched, Rows);
            const auto reference = reference_at(j, load);
            P t = load(top + j), sum = load(sums + j);
            iter::unrolled<Rows>([&](auto k) {
                const P x = load(rows[k] + j);
                t = simd::max_ignoring_nan(t, x);
                sum = lse::add_term_lanes(sum, x, reference);
            });
            store(top + j, t);
            store(sums + j, sum);
        });
        i += Rows;
    };
    bool walked = false;
    if constexpr (has_avx512_log_sum_exp<T>) {
        if (simd::avx512_kernels_run()) {  // the same loop on 512-bit registers: the same bits (log_sum_exp_avx512.hpp)
            avx512::log_sum_exp_block_rows<lse_row_group>(block, count, w, first, second, top, sums);
            walked = true;
        }
    }
    if (!walked) {
        while (i + lse_row_group <= count) add_rows(std::integral_constant<std::size_t, lse_row_group>{});
        while (i < count) add_rows(std::integral_constant<std::size_t, 1>{});
    }
    for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        P t = load(top + j);
        const P reference = load(shift + j), sum = load(sums + j);
        const auto finite = [](const P& v) { return simd::abs(v) < P(infinity); };
        const bool caught = simd::any(!finite(sum));  // a NaN or +inf element (or an unserved lane's term)
        if (caught) {
            t = load(block[0] + j);
            for (std::size_t k = 1; k < count; ++k) t = simd::max_propagate_nan(t, load(block[k] + j));
            store(top + j, t);
        }
        const P exact = lse::shift_for_lanes(t);
        store(shift + j, exact);
        if (caught || simd::any(finite(t) & !lse::reference_serves(t, reference))) {
            P redone(C(0));
            if (simd::any(finite(t)))
                for (std::size_t k = 0; k < count; ++k) redone = redone + lse{}.lift_lanes(load(block[k] + j), exact);
            store(sums + j, lse::sum_for_non_finite_lanes(t, redone));
        } else {
            store(sums + j, lse::sum_for_non_finite_lanes(t, lse::at_top(sum, reference, t)));
        }
    });
}

/// Merges a block (top, shift, sums) into the running (maximum m, sum s) rows: both sums rescaled to the new
/// shift; an empty or all −inf sum adds nothing (and must not turn 0 · e^big into NaN). A vector of lanes whose
/// running maximum the block does not pass (the common case after the first blocks) keeps its shift and adds the
/// block's sum rescaled: one exponential, not two.
template <class T>
void log_sum_exp_merge(simd::compute_t<T>* m, simd::compute_t<T>* s, const simd::compute_t<T>* top, const simd::compute_t<T>* shift,
                       const simd::compute_t<T>* sums, std::size_t w) {
    using C = simd::compute_t<T>;
    using P = simd::pack<T>;
    using lse = log_sum_exp_reduction<T>;
    for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        const P old_max = load(m + j), old_sum = load(s + j), block_top = load(top + j), block_sum = load(sums + j);
        const auto rescaled = [&](const P& sum, const P& from, const P& to) {
            return simd::select(sum == P(C(0)), P(C(0)), sum * simd::exp(from - to));
        };
        const P old_shift = lse::shift_for_lanes(old_max);
        if (!simd::any(!(block_top <= old_max))) {  // no lane grows, none is NaN: e^(old shift − new shift) = 1
            store(s + j, old_sum + rescaled(block_sum, load(shift + j), old_shift));
            return;
        }
        const P new_max = simd::max_propagate_nan(old_max, block_top);
        const P new_shift = lse::shift_for_lanes(new_max);
        store(m + j, new_max);
        store(s + j, rescaled(old_sum, old_shift, new_shift) + rescaled(block_sum, load(shift + j), new_shift));
    });
}

/// Writes the finished log-sum-exp of the running rows (m, s) to y.
template <class T>
void log_sum_exp_finish(const simd::compute_t<T>* m, const simd::compute_t<T>* s, T* y, std::size_t w, std::size_t count) {
    const log_sum_exp_reduction<T> lse;
    for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        store(y + j, lse.finish_lanes(load(s + j), count, log_sum_exp_reduction<T>::shift_for_lanes(load(m + j))));
    });
}

/// The outer kernel for log-sum-exp (see the algorithm above).
template <class T>
void reduce_rows_log_sum_exp(const T* x, T* y, std::size_t width, const iter::loop_nest<2>& group, std::size_t count) {
    using C = simd::compute_t<T>;
    enum : std::size_t { running_max, running_sum, block_max, block_shift, block_sum, row_count };
    static_assert(row_count == lse_accumulator_rows);
    accumulator_rows<C, row_count> rows;
    std::array<const T*, lse_block_rows> block;
    for (std::size_t start = 0; start < width; start += rows.panel) {
        const std::size_t w = std::min(rows.panel, width - start);
        rows.place_apart_from(x + start, 0);
        fill_row(rows.row(running_max), w, -std::numeric_limits<C>::infinity());
        fill_row(rows.row(running_sum), w, C(0));
        std::size_t pending = 0;
        const auto flush = [&] {
            log_sum_exp_block(block.data(), pending, w, rows.row(block_max), rows.row(block_shift), rows.row(block_sum));
            log_sum_exp_merge<T>(rows.row(running_max), rows.row(running_sum), rows.row(block_max), rows.row(block_shift), rows.row(block_sum), w);
            pending = 0;
        };
        for_each_group_line(x + start, group, [&](const T* line, std::size_t length, std::ptrdiff_t step) {
            for (std::size_t i = 0; i < length; ++i, line += step) {
                block[pending] = line;
                if (++pending == lse_block_rows) flush();
            }
        });
        if (pending != 0) flush();
        log_sum_exp_finish(rows.row(running_max), rows.row(running_sum), y + start, w, count);
    }
}

/// reduce_rows_log_sum_exp for a group of one line of `n` rows, `step` apart, on an executor: the blocks of
/// lse_block_rows rows are shared out (guided pieces of whole blocks: piece_begin), each block's maximum, shift and
/// sums rows computed exactly as the sequential kernel computes them and kept; the blocks are then merged in order
/// (log_sum_exp_merge: one or two exponentials per lane and block, against the kernel's 256), in strips of columns
/// shared out again — a lane's merges are its own, so a strip's thread merges them in the same order as the sequential
/// kernel. Bit-identical to reduce_rows_log_sum_exp.
/// The merges took the calling thread 70–120 µs after the last piece of 64 MiB of f32 [16384, 1024] on two threads
/// (tensorops_timeline lse_columns), ~5 % of the call; the kept rows are not zeroed first (the caller's ~30 µs before
/// the pieces start).
template <class T>
void reduce_rows_log_sum_exp_in_bands(const executor_ref& exec, const T* x, T* y, std::size_t width, std::size_t n, std::ptrdiff_t step,
                                      std::size_t count) {
    using C = simd::compute_t<T>;
    const std::size_t blocks = (n + lse_block_rows - 1) / lse_block_rows;
    const std::unique_ptr<C[]> kept(new C[3 * blocks * width]);  // per block: maximum, shift, sums rows; each written once
    const auto row_of = [&](std::size_t b, std::size_t k) { return kept.get() + (3 * b + k) * width; };
    const std::size_t threads = exec.concurrency();
    const std::size_t pieces = std::min(blocks, wanted_pieces(exec, n * width * sizeof(T)));
    // Each block's rows are made in rows of the sequential kernel's panel placed apart from the input (kept's rows,
    // from the heap, lie where the input's do in L1 sets when both are whole pages) and copied out.
    exec.parallel_for(pieces, [&](std::size_t piece) {
        std::array<const T*, lse_block_rows> block;
        accumulator_rows<C, lse_accumulator_rows> own;
        for (std::size_t b = piece_begin(piece, pieces, blocks, threads); b < piece_begin(piece + 1, pieces, blocks, threads); ++b) {
            const std::size_t first = b * lse_block_rows, rows = std::min(lse_block_rows, n - first);
            for (std::size_t start = 0; start < width; start += own.panel) {
                const std::size_t w = std::min(own.panel, width - start);
                own.place_apart_from(x + start, 0);
                for (std::size_t i = 0; i < rows; ++i) block[i] = x + start + static_cast<std::ptrdiff_t>(first + i) * step;
                log_sum_exp_block(block.data(), rows, w, own.row(0), own.row(1), own.row(2));
                for (std::size_t k = 0; k < 3; ++k) std::copy_n(own.row(k), w, row_of(b, k) + start);
            }
        }
    });
    // Strips of whole line_blocks (a multiple of every vector width, so the lanes group into vectors as in the
    // sequential kernel's panels), at most one a thread.
    const std::size_t strip_units = (width + line_block - 1) / line_block, strips = std::min(threads, strip_units);
    exec.parallel_for(strips, [&](std::size_t strip) {
        const std::size_t strip_start = strip * strip_units / strips * line_block;
        const std::size_t strip_end = std::min(width, (strip + 1) * strip_units / strips * line_block);
        accumulator_rows<C, 2> running;
        for (std::size_t start = strip_start; start < strip_end; start += running.panel) {
            const std::size_t w = std::min(running.panel, strip_end - start);
            fill_row(running.row(0), w, -std::numeric_limits<C>::infinity());
            fill_row(running.row(1), w, C(0));
            for (std::size_t b = 0; b < blocks; ++b)
                log_sum_exp_merge<T>(running.row(0), running.row(1), row_of(b, 0) + start, row_of(b, 1) + start, row_of(b, 2) + start, w);
            log_sum_exp_finish(running.row(0), running.row(1), y + start, w, count);
        }
    });
}

template <class T, class R>
void reduce_outer(const T* input, T* output, const reduce_nests<>& parts, std::size_t count, const R& r) {
    const std::size_t last = parts.kept.rank - 1;
    const std::size_t columns = parts.kept.sizes[last];
    iter::axis_set innermost;
    innermost.set(last);
    iter::for_each_element(iter::remove_dimensions(parts.kept, innermost), [&](const std::array<std::ptrdiff_t, 2>& at) {
        if constexpr (R::shifted) reduce_rows_log_sum_exp(input + at[1], output + at[0], columns, parts.group, count);
        else reduce_rows(input + at[1], output + at[0], columns, parts.group, count, r);
    });
}

// ---------------------------------------------------------------------------------------------
// Dispatch by layout.

/// The dimensions along which a reduce nest may be cut into pieces that compute every output exactly as the whole
/// does (exec/split.hpp): the kept ones — but not the innermost when its rows are narrow enough for the outer
/// kernel to fuse back-to-back rows, since a piece's part of a row is not back to back with the next.
template <class T, std::size_t Operands>
[[nodiscard]] iter::axis_set independent_dimensions(const iter::loop_nest<Operands>& nest, iter::axis_set reduced) {
    iter::axis_set kept;
    for (std::size_t d = 0; d < nest.rank; ++d)
        if (!reduced.test(d)) kept.set(d);
    if (nest.rank > 0 && nest.sizes[nest.rank - 1] * sizeof(T) < narrow_row_bytes) kept.reset(nest.rank - 1);
    return kept;
}

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

/// A reduction with blocks (R::line_blocks: sums, max/min, integer products) of one contiguous line of `length`
/// elements into *y, on an executor. The inner kernel
/// (accumulate_runs) pushes a block every cascade_block steps of inner_accumulators vectors into a binary-counter
/// cascade, whose tree does not depend on where the stream is cut: 2^k blocks starting at a multiple of 2^k form
/// one node of it. So the line's first blocks are cut into such aligned chunks, each summed by a piece with a
/// cascade of its own; the calling thread carries the chunk nodes into the cascade at level k (push_at) and runs
/// the rest of the line itself, continuing that cascade (accumulate_runs_after). Bit-identical to the sequential kernel. Returns false
/// (nothing done) when the line is too short to be worth it.
template <class T, class R>
bool reduce_line_in_chunks(const executor_ref& exec, const T* x, T* y, std::size_t length, std::size_t count, const R& r) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    constexpr std::size_t W = P::size, U = inner_accumulators, block = cascade_block * U * W;
    const std::size_t full_blocks = length / block;
    const std::size_t wanted = wanted_pieces(exec, length * sizeof(T));
    if (wanted < 2 || full_blocks < 2) return false;
    std::size_t level = 0;
    while ((full_blocks >> (level + 1)) >= wanted) ++level;
    const std::size_t chunk_blocks = std::size_t{1} << level, chunks = full_blocks >> level;
    const typename R::accumulator no_shift = r.identity();
    const P identity(static_cast<C>(r.identity())), shift_lanes(static_cast<C>(no_shift));
    const auto combine = [&](const P& a, const P& b) { return r.combine_lanes(a, b); };
    std::vector<P> nodes(chunks);
    exec.parallel_for(chunks, [&](std::size_t c) {
        cascade<P> own;
        const T* at = x + c * chunk_blocks * block;
        for (std::size_t b = 0; b < chunk_blocks; ++b) {
            std::array<P, U> acc;
            iter::fill_unrolled(acc, identity);
            for (std::size_t step = 0; step < cascade_block; ++step, at += U * W) {
                hint_stream_step(at, U * W * sizeof(T), true);
                iter::unrolled<U>([&](auto k) { acc[k] = combine(acc[k], r.lift_lanes(simd::load(at + k * W), shift_lanes)); });
            }
            own.push(combine_all(acc, combine), combine);
        }
        nodes[c] = own.level(level);
    });
    cascade<P> blocks;
    for (const P& node : nodes) blocks.push_at(node, level, combine);
    const std::size_t done = chunks * chunk_blocks * block;
    *y = r.finish(accumulate_runs_after(x + done, iter::loop_nest<2>{}, length - done, r, no_shift, blocks), count, no_shift);
    return true;
}

/// One output over several contiguous runs (every dimension reduced, the innermost contiguous and at least a vector
/// long: what reduce_inner computes), on an executor: log-sum-exp by runs (log_sum_exp_of_runs), every other
/// function by chunks of runs (accumulate_run_chunks), in pieces. Returns false (nothing done) when the group is not
/// that, or not worth cutting.
template <class T, class R>
bool reduce_runs_on(const executor_ref& exec, const T* input, T* output, const iter::loop_nest<2>& nest, iter::axis_set reduced,
                    std::size_t count, const R& r) {
    if (nest.rank < 2 || reduced.count() != nest.rank) return false;
    const std::size_t last = nest.rank - 1;
    const std::size_t length = nest.sizes[last];
    if (nest.strides[1][last] != 1 || length < simd::lanes<T>) return false;
    const std::size_t wanted = wanted_pieces(exec, nest.element_count() * sizeof(T));
    if (wanted < 2) return false;
    const auto parts = split_reduce_nest(nest, reduced);
    iter::axis_set innermost;
    innermost.set(parts.group.rank - 1);
    const auto runs = iter::remove_dimensions(parts.group, innermost);
    iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 2>& at) {  // the one output
        if constexpr (R::shifted) {
            const auto state = log_sum_exp_of_runs(&exec, wanted, input + at[1], runs, length, r);
            output[at[0]] = r.finish(state.sum, count, R::shift_for(state.maximum));
        } else {
            const typename R::accumulator no_shift = r.identity();
            output[at[0]] = r.finish(accumulate_run_chunks(&exec, wanted, input + at[1], runs, length, r, no_shift), count, no_shift);
        }
    });
    return true;
}

/// run_reduce on an executor, bit-identical to it. An [n rows, w columns] nest reduced over its rows (the outer
/// layout with nothing else kept) is cut into bands of whole blocks of rows (reduce_rows_in_bands,
/// reduce_rows_log_sum_exp_in_bands); a single contiguous line reduced by a function with line blocks (sums,
/// max/min, integer products) into aligned chunks of its cascade (reduce_line_in_chunks), by log-sum-exp or a
/// floating product into its fixed blocks (reduce_run_in_blocks), several runs into one output by runs
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
                    output[nest.offsets[0]] = r.finish(reduce_run_in_blocks(&exec, input + nest.offsets[1], nest.sizes[0], r), count, r.identity());
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
