// tensorops/ops/detail/arg_reduce/contiguous.hpp — the extreme of a contiguous stretch and where it first (last)
// occurs, in one pass: per lane the best value and the step that reached it, then the winning step searched again.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "../../../iter/unroll.hpp"
#include "../../../simd/cpu_profile.hpp"
#include "../../../simd/horizontal.hpp"
#include "../../../simd/pack.hpp"
#include "../../../simd/prefetch.hpp"
#include "../stream_hints.hpp"
#include "../tuning.hpp"
#include "policy.hpp"

namespace tensorops::detail {

// ---------------------------------------------------------------------------------------------
// Finding a value again.

/// Lanes of v that equal `target` — or, when the target is NaN, that are NaN (target_nan: all-true lanes where
/// the target is NaN).
template <class P>
[[nodiscard]] simd::mask_of<P> matches(const P& v, const P& target, const simd::mask_of<P>& target_nan) {
    if constexpr (std::is_floating_point_v<typename P::value_type>) return (v == target) | (target_nan & simd::is_nan(v));
    else return v == target;
}

/// Position of the first (Last: the last) of the `count` elements at x that equal `target` (or are NaN, when the
/// target is NaN). The elements must hold one. A site of exactly one step (four vectors: what locate_extreme
/// returns, but for a row's tail) is searched without a branch: each lane's position where it matches, else a
/// sentinel, and the smallest (Last: largest) of them — a loop that stops at the hit mispredicts once per output,
/// at a random trip count. Longer stretches: four vectors per step with one test of the or-ed masks, and only the
/// step holding the hit is looked into element by element.
template <bool Last, class T>
[[nodiscard]] std::size_t find_in_block(const T* x, std::size_t count, simd::compute_t<T> target) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    constexpr std::size_t W = P::size, step = 4 * W;
    const P target_lanes(target);
    const bool target_is_nan = is_nan_value(target);
    if (count == step) {
        using Q = simd::lane_index_pack<P>;
        using L = typename Q::value_type;
        static_assert(step - 1 <= std::numeric_limits<L>::max(), "positions in a step must fit in the index lanes");
        // The sentinel may equal a real position (255 in a step of 256 bytes): it then stands for that position,
        // which is also the answer whenever no other lane matches.
        const Q none(Last ? L(0) : std::numeric_limits<L>::max());
        const Q lane_numbers = [] {
            std::array<L, W> numbers{};
            for (std::size_t i = 0; i < W; ++i) numbers[i] = static_cast<L>(i);
            return simd::from_array<Q>(numbers);
        }();
        Q position = none;
        iter::unrolled<4>([&](auto k) {
            const P v = simd::load(x + k * W);
            const auto hit = target_is_nan ? simd::is_nan(v) : v == target_lanes;
            const Q here = simd::select_lanes<P>(hit, lane_numbers + Q(static_cast<L>(k * W)), none);
            position = Last ? simd::max_propagate_nan(position, here) : simd::min_propagate_nan(position, here);
        });
        return static_cast<std::size_t>(Last ? simd::reduce_max(position) : simd::reduce_min(position));
    }
    const auto hits = [&](const T* at) {  // any of the 4W elements at `at` a match?
        simd::mask_of<P> any_lane = simd::mask_of<P>(false);
        iter::unrolled<4>([&](auto k) {
            const P v = simd::load(at + k * W);
            any_lane = any_lane | (target_is_nan ? simd::is_nan(v) : v == target_lanes);
        });
        return simd::any(any_lane);
    };
    const auto hit = [&](std::size_t j) {
        const C v = static_cast<C>(x[j]);
        return target_is_nan ? is_nan_value(v) : v == target;
    };
    if constexpr (!Last) {
        std::size_t j = 0;
        while (j + step <= count && !hits(x + j)) j += step;
        for (; j < count; ++j)
            if (hit(j)) return j;
    } else {
        std::size_t end = count;  // still to search: [0, end)
        for (const std::size_t full = count - count % step; end > full; --end)
            if (hit(end - 1)) return end - 1;
        while (end >= step && !hits(x + end - step)) end -= step;
        for (; end > 0; --end)
            if (hit(end - 1)) return end - 1;
    }
    return 0;  // not reached when the elements hold the target
}

// ---------------------------------------------------------------------------------------------
// Inner: per lane, the best value and the step that reached it; one short search at the end.
//
// Algorithm (locate_extreme). A stretch is read in steps of four vectors. Per lane, a register keeps the best
// value met so far and the number of the step where it was first (Last: last) reached: each step's lane-wise
// extreme (NaN-propagating) is compared with the best and replaces it, with its step number, where `replaces`
// holds lane-wise. Two such pairs of registers take the even and the odd steps, so two dependency chains
// overlap. At the end, the extreme of all lanes is found, and among the lanes holding it the smallest (Last:
// largest) step number: that step — 4W elements — holds the extreme's first (last) occurrence. Per step that is
// four loads, three max/min, a compare and two selects, in one pass: no block is read twice. A stretch is at
// most arg_block elements, so step numbers fit in lanes as wide as the values (8 bits for int8).

/// The extreme of a stretch, and the part of it [start, start + length) that holds its first (Last: last)
/// occurrence.
template <class C>
struct extreme_site {
    C value;
    std::size_t start;
    std::size_t length;
};

/// The extreme of the `count` (1 ≤ count ≤ arg_block) contiguous elements at x and a site of at most 4W elements
/// holding its first (Last: last) occurrence (algorithm above; NaN is the extreme).
template <bool Maximum, bool Last, class T>
[[nodiscard]] extreme_site<simd::compute_t<T>> locate_extreme(const T* x, std::size_t count) {
    using P = simd::pack<T>;
    using Q = simd::lane_index_pack<P>;
    using L = typename Q::value_type;
    using C = simd::compute_t<T>;
    constexpr std::size_t W = P::size, S = 4 * W;
    static_assert(arg_block / S <= std::numeric_limits<L>::max(), "step numbers must fit in the index lanes");
    const extreme_reduction<T, Maximum> extreme;
    const auto step_extreme = [&](const T* at) {
        const P a = extreme.combine_lanes(simd::load(at), simd::load(at + W));
        const P b = extreme.combine_lanes(simd::load(at + 2 * W), simd::load(at + 3 * W));
        return extreme.combine_lanes(a, b);
    };
    const std::size_t steps = count / S;
    extreme_site<C> site{};
    // Every line of the stretch arg_lines_ahead bytes on (the rows a few on, for back-to-back rows), and the page
    // hints: both tile the block as its steps go — its first two steps, each pair of steps after them, the last odd
    // step and the tail — not all at the stretch's start, where a loop of one hint a line would take a quarter of the
    // instructions of a row of 1024 floats. The line hints only where simd::line_hints_pay says so.
    const bool line_hints = count * sizeof(T) >= arg_lines_min_bytes && simd::line_hints_pay();
    const auto hint_lines = [&](const T* at, std::size_t bytes) {
        if (line_hints) simd::prefetch_ahead(at, arg_lines_ahead, bytes);
    };
    hint_lines(x, std::min(count, 2 * S) * sizeof(T));
    simd::prefetch_stream_ahead(x, std::min(count, 2 * S) * sizeof(T));
    if (steps > 0) {
        // Two chains (even and odd steps), each a best value, the step that reached it and the step now: named
        // registers, not arrays indexed in the update — GCC 12 -O2 keeps arrays of them on the stack, a store and a
        // reload on every step's dependency chain.
        P best0 = step_extreme(x), best1 = steps > 1 ? step_extreme(x + S) : best0;
        Q step0(L(0)), step1(L(steps > 1 ? 1 : 0));
        Q now0 = step0, now1 = step1;
        const Q two(L(2));
        const auto update = [&](P& best, Q& step, Q& now, const T* at) TENSOROPS_INLINE_STEP {
            now += two;
            const P m = step_extreme(at);
            const auto replace = replaces_lanes<Maximum, Last>(m, best);
            best = simd::select(replace, m, best);
            step = simd::select_lanes<P>(replace, now, step);
        };
        std::size_t s = 2;
        for (; s + 2 <= steps; s += 2) {
            const T* at = x + s * S;
            simd::prefetch_stream_ahead(at, 2 * S * sizeof(T));
            hint_lines(at, 2 * S * sizeof(T));
            update(best0, step0, now0, at);
            update(best1, step1, now1, at + S);
        }
        if (s < steps) {
            simd::prefetch_stream_ahead(x + s * S, S * sizeof(T));
            hint_lines(x + s * S, S * sizeof(T));
            update(best0, step0, now0, x + s * S);
        }
        // The extreme, and the first (Last: last) step among the lanes that hold it.
        const C value = static_cast<C>(extreme.reduce_lanes(extreme.combine_lanes(best0, best1)));
        const P target(value);
        const auto target_nan = simd::mask_of<P>(is_nan_value(value));
        const Q none(Last ? L(0) : std::numeric_limits<L>::max());
        const Q candidate0 = simd::select_lanes<P>(matches(best0, target, target_nan), step0, none);
        const Q candidate1 = simd::select_lanes<P>(matches(best1, target, target_nan), step1, none);
        const std::size_t winner = Last ? simd::reduce_max(simd::max_propagate_nan(candidate0, candidate1))
                                        : simd::reduce_min(simd::min_propagate_nan(candidate0, candidate1));
        site = {value, winner * S, S};
    }
    if (const std::size_t done = steps * S; done < count) {  // the tail, narrower than a step: scalar
        if (steps >= 2) simd::prefetch_stream_ahead(x + done, (count - done) * sizeof(T));
        if (steps >= 2) hint_lines(x + done, (count - done) * sizeof(T));
        C m = static_cast<C>(x[done]);
        for (std::size_t j = done + 1; j < count; ++j) m = static_cast<C>(extreme.combine(m, static_cast<C>(x[j])));
        if (steps == 0 || replaces_value<Maximum, Last>(m, site.value)) site = {m, done, count - done};
    }
    return site;
}

}  // namespace tensorops::detail
