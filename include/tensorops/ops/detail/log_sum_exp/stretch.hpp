// tensorops/ops/detail/log_sum_exp/stretch.hpp — log-sum-exp of a contiguous stretch: its (maximum, sum) state, the
// merge of two states, the one pass over a reference and the two passes it falls back to.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

#include "../../../iter/unroll.hpp"
#include "../../../simd/cpu_profile.hpp"
#include "../../../simd/pack.hpp"
#include "../../../simd/prefetch.hpp"
#include "../cascade.hpp"
#include "../reductions.hpp"
#include "../stream_hints.hpp"
#include "../tuning.hpp"
#include "avx512.hpp"

namespace tensorops::detail {

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
/// The two passes it replaced (the maximum, then the terms over top's reference from L1) measured slower, and so did
/// one pair of accumulators, three, and four (which spill with the term's constants); two vectors a step measured as
/// fast as four (the figures: bench/journal/notes-reduce-and-log-sum-exp.md).
/// Where this build's registers are AVX2's and the CPU has AVX-512F, float stretches take the same walk on 512-bit
/// registers (avx512::log_sum_exp_walk, avx512.hpp): the same bits in half the instructions.
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
        if (simd::avx512_kernels_run()) {  // the same walk on 512-bit registers: the same bits (avx512.hpp)
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

/// Log-sum-exp state of the block of `count` contiguous elements at x: its stretches merged in order.
template <class T>
log_sum_exp_state<accumulator_t<T>> log_sum_exp_block(const T* x, std::size_t count) {
    using A = accumulator_t<T>;
    log_sum_exp_state<A> state{-std::numeric_limits<A>::infinity(), A(0)};
    for (std::size_t start = 0; start < count; start += lse_stretch)
        state = merge(state, log_sum_exp_stretch(x + start, std::min(lse_stretch, count - start)));
    return state;
}

}  // namespace tensorops::detail
