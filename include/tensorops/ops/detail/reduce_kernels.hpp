// tensorops/ops/detail/reduce_kernels.hpp — the kernels behind reduce (every function but argmax/argmin).
//
// Kernels never validate and never throw. They receive a planned nest (operand 0 = output, with stride 0 on
// the reduced dimensions; operand 1 = input), the set of planned dimensions that are reduced, and a policy
// (reductions.hpp). Layouts:
//   inner    the innermost dimension is reduced and contiguous in the input: for each output, several vector
//            accumulators run along the contiguous runs of its group; one horizontal step per output;
//   outer    the innermost dimension is kept and contiguous in input and output: vectorise across it, a
//            register tile of 4 vectors accumulating while the walk goes over the reduced dimensions; no
//            horizontal step at all;
//   strided  anything else, and user-defined element types: one scalar accumulator per output.
// Float sums are accumulated in blocks and the blocks combined pairwise (the cascade below), so the error
// grows like log(n) rather than n, whatever the layout.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "../../iter/nd_loop.hpp"
#include "../../iter/plan.hpp"
#include "../../simd/pack.hpp"
#include "reductions.hpp"

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
        std::size_t level = 0;
        for (; level + 1 < levels && (occupied_ >> level & 1u); ++level) {
            block = combine(levels_[level], block);
            occupied_ &= ~(std::uint64_t{1} << level);
        }
        if (occupied_ >> level & 1u) block = combine(levels_[level], block);  // the top level absorbs (2^40 blocks)
        levels_[level] = block;
        occupied_ |= std::uint64_t{1} << level;
    }
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
// by the other reduced dimensions. Four vector accumulators take 4W elements per step, so four independent
// dependency chains hide the latency of the combining instruction; run ends narrower than a vector go to a
// scalar accumulator. For pairwise reductions the four accumulators are folded into a block total every
// cascade_block elements per lane and the blocks summed pairwise. One horizontal step per output.

template <class T, class R>
typename R::accumulator accumulate_runs(const T* base, const iter::loop_nest<2>& runs, std::size_t length, const R& r,
                                        const typename R::accumulator& shift) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    using A = typename R::accumulator;
    constexpr std::size_t W = P::size;
    const P identity(static_cast<C>(r.identity()));
    const P shift_lanes(static_cast<C>(shift));
    const auto combine = [&](const P& a, const P& b) { return r.combine_lanes(a, b); };
    const auto combine_scalars = [&](const A& a, const A& b) { return r.combine(a, b); };
    cascade<P> blocks;
    cascade<A> scalar_blocks;
    P acc0 = identity, acc1 = identity, acc2 = identity, acc3 = identity;
    A rest = r.identity();
    std::size_t in_block = 0, rest_in_block = 0;  // elements per lane since the last push
    iter::for_each_element(runs, [&](const std::array<std::ptrdiff_t, 2>& at) {
        const T* x = base + at[1];
        P a0 = acc0, a1 = acc1, a2 = acc2, a3 = acc3;  // in registers along the run
        std::size_t j = 0;
        for (; j + 4 * W <= length; j += 4 * W) {
            a0 = combine(a0, r.lift_lanes(simd::load(x + j), shift_lanes));
            a1 = combine(a1, r.lift_lanes(simd::load(x + j + W), shift_lanes));
            a2 = combine(a2, r.lift_lanes(simd::load(x + j + 2 * W), shift_lanes));
            a3 = combine(a3, r.lift_lanes(simd::load(x + j + 3 * W), shift_lanes));
            if constexpr (R::pairwise) {
                if (++in_block == cascade_block) {
                    blocks.push(combine(combine(a0, a1), combine(a2, a3)), combine);
                    a0 = a1 = a2 = a3 = identity;
                    in_block = 0;
                }
            }
        }
        for (; j + W <= length; j += W) {
            a0 = combine(a0, r.lift_lanes(simd::load(x + j), shift_lanes));
            if constexpr (R::pairwise) {
                if (++in_block == cascade_block) {
                    blocks.push(combine(combine(a0, a1), combine(a2, a3)), combine);
                    a0 = a1 = a2 = a3 = identity;
                    in_block = 0;
                }
            }
        }
        acc0 = a0;
        acc1 = a1;
        acc2 = a2;
        acc3 = a3;
        A tail = rest;
        for (; j < length; ++j) {
            tail = r.combine(tail, r.lift(x[j], shift));
            if constexpr (R::pairwise) {
                if (++rest_in_block == cascade_block) {
                    scalar_blocks.push(tail, combine_scalars);
                    tail = r.identity();
                    rest_in_block = 0;
                }
            }
        }
        rest = tail;
    });
    const P lanes = blocks.total(combine(combine(acc0, acc1), combine(acc2, acc3)), combine);
    return r.combine(r.reduce_lanes(lanes), scalar_blocks.total(rest, combine_scalars));
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
    const auto shift_of = [](const A& m) { return isinf(m) ? A(0) : m; };
    const A maximum = simd::max_propagate_nan(a.maximum, b.maximum);
    const A shift = shift_of(maximum);
    const auto rescaled = [&](const log_sum_exp_state<A>& part) {
        // An empty or all −inf part adds nothing (and must not turn 0 · e^big into NaN).
        return part.sum == A(0) ? A(0) : part.sum * exp(shift_of(part.maximum) - shift);
    };
    return {maximum, rescaled(a) + rescaled(b)};
}

/// Log-sum-exp state of `count` contiguous elements (read twice: the stretch is short enough to stay in L1).
template <class T>
log_sum_exp_state<accumulator_t<T>> log_sum_exp_stretch(const T* x, std::size_t count) {
    using P = simd::pack<T>;
    using A = accumulator_t<T>;
    using C = simd::compute_t<T>;
    constexpr std::size_t W = P::size;
    const extreme_reduction<T, true> maximum;
    const log_sum_exp_reduction<T> lse;
    P m0(static_cast<C>(maximum.identity())), m1 = m0;
    std::size_t j = 0;
    for (; j + 2 * W <= count; j += 2 * W) {
        m0 = maximum.combine_lanes(m0, simd::load(x + j));
        m1 = maximum.combine_lanes(m1, simd::load(x + j + W));
    }
    for (; j + W <= count; j += W) m0 = maximum.combine_lanes(m0, simd::load(x + j));
    A top = maximum.reduce_lanes(maximum.combine_lanes(m0, m1));
    for (; j < count; ++j) top = maximum.combine(top, static_cast<A>(x[j]));
    const A shift = log_sum_exp_reduction<T>::shift_for(top);
    const P shift_lanes(static_cast<C>(shift));
    P s0(C(0)), s1(C(0));
    j = 0;
    for (; j + 2 * W <= count; j += 2 * W) {
        s0 = s0 + lse.lift_lanes(simd::load(x + j), shift_lanes);
        s1 = s1 + lse.lift_lanes(simd::load(x + j + W), shift_lanes);
    }
    for (; j + W <= count; j += W) s0 = s0 + lse.lift_lanes(simd::load(x + j), shift_lanes);
    A sum = lse.reduce_lanes(s0 + s1);
    for (; j < count; ++j) sum += lse.lift(x[j], shift);
    return {top, sum};
}

template <class T, class R>
void reduce_inner(const T* input, T* output, const reduce_nests<>& parts, std::size_t count, const R& r) {
    if constexpr (R::shifted) {  // log-sum-exp: one pass, stretch by stretch (see log_sum_exp_state)
        using A = typename R::accumulator;
        constexpr std::size_t stretch = 2048;
        const std::size_t last = parts.group.rank - 1;
        const std::size_t length = parts.group.sizes[last];
        iter::axis_set innermost;
        innermost.set(last);
        const auto runs = iter::remove_dimensions(parts.group, innermost);
        iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 2>& at) {
            log_sum_exp_state<A> state{-std::numeric_limits<A>::infinity(), A(0)};
            iter::for_each_element(runs, [&](const std::array<std::ptrdiff_t, 2>& run) {
                for (std::size_t start = 0; start < length; start += stretch)
                    state = merge(state, log_sum_exp_stretch(input + at[1] + run[1] + start, std::min(stretch, length - start)));
            });
            const A shift = R::shift_for(state.maximum);
            output[at[0]] = r.finish(state.sum, count, shift);
        });
        return;
    }
    const std::size_t last = parts.group.rank - 1;
    const std::size_t length = parts.group.sizes[last];
    iter::axis_set innermost;
    innermost.set(last);
    const auto runs = iter::remove_dimensions(parts.group, innermost);
    iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 2>& at) {
        const T* base = input + at[1];
        typename R::accumulator shift = r.identity();
        if constexpr (R::shifted) shift = R::shift_for(accumulate_runs(base, runs, length, extreme_reduction<T, true>{}, {}));
        output[at[0]] = r.finish(accumulate_runs(base, runs, length, r, shift), count, shift);
    });
}

// ---------------------------------------------------------------------------------------------
// Outer: the innermost dimension is kept and contiguous; vectorise across it.
//
// Algorithm. Outputs are produced in tiles of 4 vectors (4W consecutive outputs). For a tile, the walk goes
// over every element of the group (the reduced dimensions, in any order) and each step adds 4 vectors loaded
// from the contiguous kept dimension into 4 register accumulators: 4W independent groups at once, no
// horizontal step, and each input row is read once per tile as a contiguous 4W-element chunk. Pairwise
// reductions push the tile into per-vector cascades every cascade_block steps. Columns left over after the
// tiles go one vector at a time, then one scalar group at a time.

template <std::size_t Vectors, class T, class R>
void reduce_tile(const T* x, T* y, const iter::loop_nest<2>& group, std::size_t count, const R& r) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    constexpr std::size_t W = P::size;
    const auto combine = [&](const P& a, const P& b) { return r.combine_lanes(a, b); };
    std::array<P, Vectors> shift;
    shift.fill(P(C(0)));
    if constexpr (R::shifted) {
        const extreme_reduction<T, true> maximum;
        std::array<P, Vectors> top;
        top.fill(P(static_cast<C>(maximum.identity())));
        for_each_group_line(x, group, [&](const T* line, std::size_t length, std::ptrdiff_t step) {
            std::array<P, Vectors> local = top;
            for (std::size_t i = 0; i < length; ++i, line += step)
                for (std::size_t k = 0; k < Vectors; ++k) local[k] = maximum.combine_lanes(local[k], simd::load(line + k * W));
            top = local;
        });
        for (std::size_t k = 0; k < Vectors; ++k) shift[k] = R::shift_for_lanes(top[k]);
    }
    const P identity(static_cast<C>(r.identity()));
    std::array<P, Vectors> acc;
    acc.fill(identity);
    std::array<cascade<P>, R::pairwise ? Vectors : 0> blocks;
    std::size_t in_block = 0;
    for_each_group_line(x, group, [&](const T* line, std::size_t length, std::ptrdiff_t step) {
        std::array<P, Vectors> local = acc;  // in registers along the line
        for (std::size_t i = 0; i < length; ++i, line += step) {
            for (std::size_t k = 0; k < Vectors; ++k) local[k] = combine(local[k], r.lift_lanes(simd::load(line + k * W), shift[k]));
            if constexpr (R::pairwise) {
                if (++in_block == cascade_block) {
                    for (std::size_t k = 0; k < Vectors; ++k) {
                        blocks[k].push(local[k], combine);
                        local[k] = identity;
                    }
                    in_block = 0;
                }
            }
        }
        acc = local;
    });
    if constexpr (R::pairwise)
        for (std::size_t k = 0; k < Vectors; ++k) acc[k] = blocks[k].total(acc[k], combine);
    for (std::size_t k = 0; k < Vectors; ++k) simd::store(y + k * W, r.finish_lanes(acc[k], count, shift[k]));
}

template <class T, class R>
void reduce_outer(const T* input, T* output, const reduce_nests<>& parts, std::size_t count, const R& r) {
    constexpr std::size_t W = simd::lanes<T>;
    const std::size_t last = parts.kept.rank - 1;
    const std::size_t columns = parts.kept.sizes[last];
    iter::axis_set innermost;
    innermost.set(last);
    iter::for_each_element(iter::remove_dimensions(parts.kept, innermost), [&](const std::array<std::ptrdiff_t, 2>& at) {
        const T* x = input + at[1];
        T* y = output + at[0];
        std::size_t j = 0;
        for (; j + 4 * W <= columns; j += 4 * W) reduce_tile<4>(x + j, y + j, parts.group, count, r);
        for (; j + W <= columns; j += W) reduce_tile<1>(x + j, y + j, parts.group, count, r);
        for (; j < columns; ++j) {
            const auto shift = group_shift(x + j, parts.group, r);
            y[j] = r.finish(accumulate_group(x + j, parts.group, r, shift), count, shift);
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Dispatch by layout.

/// Reduces over the planned dimensions in `reduced` (count = elements per group).
template <class T, class R>
void run_reduce(const T* input, T* output, const iter::loop_nest<2>& nest, iter::axis_set reduced, std::size_t count, const R& r) {
    const auto parts = split_reduce_nest(nest, reduced);
    if constexpr (R::vectorizable && simd::vectorized) {
        constexpr std::size_t W = simd::lanes<T>;
        const std::size_t last = nest.rank - 1;
        if (nest.rank > 0 && reduced.test(last) && nest.strides[1][last] == 1 && nest.sizes[last] >= W) {
            reduce_inner(input, output, parts, count, r);
            return;
        }
        if (nest.rank > 0 && !reduced.test(last) && nest.inner_is_contiguous({0, 1}) && nest.sizes[last] >= W &&
            parts.group.rank > 0) {
            reduce_outer(input, output, parts, count, r);
            return;
        }
    }
    reduce_strided(input, output, parts, count, r);
}

}  // namespace tensorops::detail
