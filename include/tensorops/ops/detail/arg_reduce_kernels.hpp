// tensorops/ops/detail/arg_reduce_kernels.hpp — the kernels behind argmax / argmin.
//
// The nest has three operands: 0 = output (index type, stride 0 on reduced dimensions), 1 = input,
// 2 = the flat-index pseudo-operand (row-major strides over the reduced axes, 0 on kept ones), so a walk knows
// each element's flat index. The reduced dimensions are planned `ordered`: a group is walked in increasing
// flat index, so "first" is a strict comparison and "last" a non-strict one. NaN counts as the extreme: the
// first (or last) NaN wins over every number. Layouts:
//   inner    (the innermost reduced dimension is contiguous): the group is cut into blocks; in a block, per lane,
//            the best value and the step (four vectors) that reached it (locate_extreme); blocks are compared
//            as scalars, and only the winning step is searched again for the position — one pass over memory;
//   outer    (a kept dimension is contiguous): lanes of 32 or 64 bits keep, per lane, the best value and its flat
//            index, compared with each row in walk order and updated (with selects) only where it changes; 8- and
//            16-bit lanes, too narrow for an index, find each column's extreme, then walk the rows again to where
//            it first (last) occurs (arg_reduce_rows_by_extreme);
//   strided  every other case and user types: scalar, ties broken by flat index, so it does not depend on the walk
//            order.
// The kernels write through an `index_output`, which sees the output's storage as unsigned integers of its width:
// they are compiled once per element type, not once per element type × index type.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "../../core/element.hpp"
#include "../../exec/executor.hpp"
#include "../../exec/split.hpp"
#include "../../iter/nd_loop.hpp"
#include "../../iter/unroll.hpp"
#include "../../simd/pack.hpp"
#include "reduce_kernels.hpp"

namespace tensorops::detail {

/// The output of argmax / argmin: index-typed storage addressed in elements. Every answer is a non-negative flat
/// index that the index type can hold (checked before a kernel runs), so it is written through the unsigned type
/// of the same width — which may access an object of the signed type too ([basic.lval]).
class index_output {
public:
    template <index_element I>
    explicit index_output(I* data) : data_(data), wide_(sizeof(I) == 8) {}

    /// Writes `value` to the element at `offset`.
    void put(std::ptrdiff_t offset, std::ptrdiff_t value) const {
        if (wide_) static_cast<std::uint64_t*>(data_)[offset] = static_cast<std::uint64_t>(value);
        else static_cast<std::uint32_t*>(data_)[offset] = static_cast<std::uint32_t>(value);
    }

    /// Writes values[0..count) to the contiguous elements from `offset` on. Inlined: where count is a constant (the
    /// narrow-row kernel's W answers at once) the copy becomes a few vector stores, widened or narrowed to the index type.
    template <class L>
    [[gnu::always_inline]] void put_contiguous(std::ptrdiff_t offset, const L* values, std::size_t count) const {
        if (wide_) std::copy_n(values, count, static_cast<std::uint64_t*>(data_) + offset);
        else std::copy_n(values, count, static_cast<std::uint32_t*>(data_) + offset);
    }

    /// The output seen from element `offset` on.
    [[nodiscard]] index_output shifted(std::ptrdiff_t offset) const {
        index_output moved = *this;
        moved.data_ = wide_ ? static_cast<void*>(static_cast<std::uint64_t*>(data_) + offset)
                            : static_cast<void*>(static_cast<std::uint32_t*>(data_) + offset);
        return moved;
    }

private:
    void* data_;
    bool wide_;
};

/// Is v a NaN (never, for types without one)?
template <class V>
[[nodiscard]] constexpr bool is_nan_value(const V& v) {
    if constexpr (std::is_floating_point_v<V>) return v != v;
    else return false;
}

template <bool Maximum, bool Last, class T>
void arg_reduce_strided(const T* input, const index_output& output, const iter::loop_nest<3>& nest, iter::axis_set reduced,
                        std::ptrdiff_t index_base = 0) {
    using V = accumulator_t<T, accumulation::ordering>;
    const auto parts = split_reduce_nest(nest, reduced);
    iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 3>& at) {
        const T* base = input + at[1];
        V best{};
        std::ptrdiff_t best_index = -1;
        bool best_is_nan = false;
        iter::for_each_element(parts.group, [&](const std::array<std::ptrdiff_t, 3>& element) {
            const auto value = static_cast<V>(base[element[1]]);
            const std::ptrdiff_t index = index_base + at[2] + element[2];  // the group's base plus the walk
            const bool value_is_nan = is_nan_value(value);
            bool take;
            if (best_index < 0) take = true;
            else if (value_is_nan || best_is_nan) take = value_is_nan && (!best_is_nan || (Last ? index > best_index : index < best_index));
            else if (Maximum ? best < value : value < best) take = true;
            else if (Maximum ? value < best : best < value) take = false;
            else take = Last ? index > best_index : index < best_index;  // equal values
            if (take) {
                best = value;
                best_index = index;
                best_is_nan = value_is_nan;
            }
        });
        output.put(at[0], best_index);
    });
}

// ---------------------------------------------------------------------------------------------
// Shared comparison rule.


/// Does `candidate` replace `best`, given the walk meets candidate after best? NaN is the extreme.
template <bool Maximum, bool Last, class V>
[[nodiscard]] constexpr bool replaces(const V& candidate, bool candidate_is_nan, const V& best, bool best_is_nan) {
    if (candidate_is_nan || best_is_nan) return candidate_is_nan && (Last || !best_is_nan);
    if constexpr (Last) return Maximum ? !(candidate < best) : !(best < candidate);
    else return Maximum ? best < candidate : candidate < best;
}

/// `replaces` for two values whose NaN-ness is not tracked separately.
template <bool Maximum, bool Last, class V>
[[nodiscard]] constexpr bool replaces_value(const V& candidate, const V& best) {
    return replaces<Maximum, Last>(candidate, is_nan_value(candidate), best, is_nan_value(best));
}

/// Lanes where `candidate` (met later in the walk) replaces `best` — `replaces`, lane-wise. Floating lanes, first
/// extreme: "not (candidate ≤ best)" holds where candidate > best or either is NaN, and "best = best" where best is
/// not NaN — together exactly `replaces`, in two compares (the outer kernel tests this for every vector it reads).
template <bool Maximum, bool Last, class P>
[[nodiscard]] simd::mask_of<P> replaces_lanes(const P& candidate, const P& best) {
    if constexpr (!std::is_floating_point_v<typename P::value_type>)
        return Maximum ? (Last ? candidate >= best : candidate > best) : (Last ? candidate <= best : candidate < best);
    else if constexpr (Last)
        return (Maximum ? candidate >= best : candidate <= best) | simd::is_nan(candidate);
    else
        return simd::and_not(best == best, Maximum ? candidate <= best : candidate >= best);  // ordered compares: false at NaN
}

/// simd::any(replaces_lanes(candidate, best)), the test the outer kernel makes of every vector it reads: for the
/// first extreme of floating lanes the and-not of its two compares is left to the test instruction (any_and_not).
template <bool Maximum, bool Last, class P>
[[nodiscard]] bool any_replaces(const P& candidate, const P& best) {
    if constexpr (std::is_floating_point_v<typename P::value_type> && !Last)
        return simd::any_and_not(best == best, Maximum ? candidate <= best : candidate >= best);
    else
        return simd::any(replaces_lanes<Maximum, Last>(candidate, best));
}

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

inline constexpr std::size_t arg_block = 2048;

/// How far ahead (bytes) locate_extreme hints every cache line of a stretch of at least arg_lines_min_bytes as it reads
/// the stretch: the rows a few on, for back-to-back rows. Between the end of one stretch and the start of the next,
/// the horizontal reductions and the search of the winning site leave the hardware prefetchers idle, and they start
/// each page over: argmax of 64 MiB of f32 rows (AMD Zen 5 guest, best of 10, alternated, the page hints alone → with these)
/// of 512 floats 5.9–6.0 → 2.6 ms, of 1024 (a 4 KiB page each) 3.6–4.8 → 2.2–2.5 (SUM of the same bytes 1.4–2.0),
/// of 4096 2.9–3.1 → 2.2–2.5, one line of 16M 2.3–6.6 → 1.6–2.4 (4, 8 or 16 KiB ahead alike). Rows of 256 floats
/// ran ~10 % slower with them: below arg_lines_min_bytes the page hints alone. The hints go with the steps that are
/// arg_lines_ahead bytes before their lines (four a pair of steps), not all at the stretch's start: a loop of one hint
/// a line there had taken a quarter of the instructions of a row of 1024 floats. In L2 (256 KiB of such rows, AMD Zen
/// 5 guest) 47–49 → 54 GB/s; 64 MiB on a two-thread pool, median against a two-thread read probe after each call
/// (binaries alternated, 15 rounds of 150 calls): 0.65–0.85 → 0.69–0.86, above in 11 of the 15. 16 KiB ahead, not 4:
/// with both threads reading, a line takes longer to arrive. Two-thread pool, 64 MiB of f32 rows, median of 80 calls
/// (alternated, five rounds), 4 / 8 / 16 / 32 KiB ahead: rows of 1024, op 1.06–1.33 / 0.85–0.96 / 0.85–0.97 /
/// 0.91–0.98 ms, against the probe 0.87–0.98 / 0.93–1.08 / 1.04–1.16 / 0.92–0.96; rows of 512 1.04–1.07 → 0.99–1.01
/// ms, of 4096 0.85–0.89 → 0.75–0.77, one line of 16 Mi 0.83–0.84 either; one thread, rows of 1024 0.80–0.87 →
/// 1.11–1.14 of its probe. All on Zen 5: on a Zen 4 the hints made rows of 1024 7–9 % slower on one thread, equal on
/// two; they are given where simd::line_hints_pay says so.
inline constexpr std::ptrdiff_t arg_lines_ahead = 16384;
inline constexpr std::size_t arg_lines_min_bytes = 2048;

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
    // step and the tail.
    const bool line_hints = count * sizeof(T) >= arg_lines_min_bytes && simd::line_hints_pay();
    const auto hint_lines = [&](const T* at, std::size_t bytes) {
        if (line_hints) simd::prefetch_ahead(at, arg_lines_ahead, bytes);
    };
    hint_lines(x, std::min(count, 2 * S) * sizeof(T));
    simd::prefetch_stream_ahead(x, std::min(count, 2 * S) * sizeof(T));
    if (steps > 0) {
        // Two chains (even and odd steps), each a best value, the step that reached it and the step now: named
        // registers, not arrays indexed in the update — GCC 12 -O2 kept arrays of them on the stack, a store and a
        // reload on every step's dependency chain (f32 in L2, AMD Zen 5: rows of 1024 34 → 48 GB/s, of 32768 43 → 66).
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

/// Elements a row of the short-row argmax (locate_in_short_row) may have: eight vectors, and at most 64 (lane_bits).
template <class T>
inline constexpr std::size_t short_arg_row = std::min<std::size_t>(64, 8 * simd::lanes<T>);

/// Position of the first (Last: the last) extreme of the `count` contiguous elements at x, 1 ≤ count ≤
/// short_arg_row<T> (NaN is the extreme): the whole argmax of a short row, such as a row of class scores.
/// `whole_tail`: the vector that holds the row's end may be read whole (the elements past the row are the input's
/// own: see arg_reduce_inner).
/// Algorithm: the row in ⌈count / W⌉ vectors, the last with the extreme's identity in the lanes past the row (−inf
/// for a maximum of floats: read whole and those lanes replaced, or read in part — AVX2's masked loads took 13–19 ns
/// a row of 2–5 floats, where the whole vector and a blend take ~5); their lane-wise extreme (NaN-propagating) and
/// its horizontal extreme are the target; each vector's lanes that match it (equal, or NaN for a NaN target) become
/// bits of one integer (simd::lane_bits), the bits past the row cleared (an identity lane may equal the target: a row
/// of −inf), and the lowest (Last: highest) set bit is the answer. One pass, the full vectors read again from L1; the
/// only branch on the data is whether the target is NaN.
/// Rows narrower than a step of locate_extreme (four vectors) had gone through its scalar tail and find_in_block's
/// element loop: f32 rows of 3 to 31 elements took 36–90 ns each (AVX2, AMD Zen 5), 0.2–1.4 GB/s.
template <bool Maximum, bool Last, class T>
[[nodiscard]] std::size_t locate_in_short_row(const T* x, std::size_t count, bool whole_tail) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    constexpr std::size_t W = P::size;
    const extreme_reduction<T, Maximum> extreme;
    const std::size_t full = count / W, tail = count % W;
    const C identity = static_cast<C>(extreme.identity());
    const P last = tail == 0   ? simd::load(x + (full - 1) * W)
                   : whole_tail ? simd::select(simd::detail::lanes_below<P>(tail), simd::load(x + full * W), P(identity))
                                : simd::load_partial(x + full * W, tail, identity);
    const std::size_t loaded = tail != 0 ? full : full - 1;  // full vectors before `last`
    P m = last;
    for (std::size_t k = 0; k < loaded; ++k) m = extreme.combine_lanes(m, simd::load(x + k * W));
    const C value = static_cast<C>(extreme.reduce_lanes(m));
    const auto bits_where = [&](const auto& hit) TENSOROPS_INLINE_STEP {  // the lanes of the row where hit(vector) holds
        std::uint64_t bits = simd::lane_bits(hit(last)) << (loaded * W);
        for (std::size_t k = 0; k < loaded; ++k) bits |= simd::lane_bits(hit(simd::load(x + k * W))) << (k * W);
        return count < 64 ? bits & ((std::uint64_t{1} << count) - 1) : bits;
    };
    const P target(value);
    const std::uint64_t bits = is_nan_value(value) ? bits_where([](const P& v) { return simd::is_nan(v); })
                                                   : bits_where([&](const P& v) { return v == target; });
    return Last ? static_cast<std::size_t>(63 - std::countl_zero(bits)) : static_cast<std::size_t>(std::countr_zero(bits));
}

// Narrow rows back to back: rows of L elements, 2 ≤ L ≤ narrow_arg_row_max<T> (a register's W lanes at most), each
// right after the previous one, in registers of 32- or 64-bit lanes — the class scores of a few classes.
//
// Algorithm. W rows are L whole registers; the reduce kernel's narrow_rows::components turns them into L registers,
// component s holding element s of row p in lane p (constant blends and permutes: see reduce_kernels.hpp). Then the
// W rows are walked at once, element by element in row order: best = component 0, position 0; for s = 1 … L − 1,
// the lanes where component s replaces the best (replaces_lanes: strictly better, or a tie with Last; NaN is the
// extreme) take its value and position s. That is the walk's own rule, so a lane ends with its row's first (last)
// extreme: the same answer as locate_in_short_row, which takes the rows after the last whole W. Where the answers
// are the positions themselves, written back to back (one reduced axis, a dense output), the W go out at once; else
// one row at a time. f32 rows, AVX2, AMD Zen 5, ns a row against locate_in_short_row's ~5: L = 2: 0.25, 3: 0.29,
// 4: 0.49, 5: 0.64, 6: 0.94, 7: 1.1, 8: 1.5.

/// The longest rows (in elements) the narrow-row argmax takes: a register's lanes. Its blends grow as L² (L(L − 1)
/// for W rows), but even at L = W they cost less than locate_in_short_row's pass over each row (see above).
template <class T>
inline constexpr std::size_t narrow_arg_row_max = has_narrow_row_kernel<T> ? simd::lanes<T> : 0;

/// The positions in their rows of the first (Last: last) extremes of the W rows of L elements held back to back in
/// v (lane p: row p's; NaN is the extreme).
template <bool Maximum, bool Last, std::size_t L, class P>
[[nodiscard, gnu::always_inline]] inline simd::lane_index_pack<P> narrow_row_positions(const std::array<P, L>& v) {
    using Q = simd::lane_index_pack<P>;
    using I = typename Q::value_type;
    const std::array<P, L> component = narrow_rows::components(v);
    P best = component[0];
    Q position(I(0));
    iter::unrolled<L - 1>([&](auto k) TENSOROPS_INLINE_STEP {
        const P& candidate = component[k + 1];
        const auto replace = replaces_lanes<Maximum, Last>(candidate, best);
        best = simd::select(replace, candidate, best);
        position = simd::select_lanes<P>(replace, Q(static_cast<I>(k + 1)), position);
    });
    return position;
}

/// Argmax / argmin of the `n` rows of L elements back to back at x (narrow-row algorithm above): row i's answer, flat
/// index `flat` + i · flat_step + position · index_step, to output element y + i · y_step. The rows after the last
/// whole W go through locate_in_short_row (their last vector read in part).
template <bool Maximum, bool Last, std::size_t L, class T>
void locate_in_narrow_rows(const T* x, std::size_t n, const index_output& output, std::ptrdiff_t y, std::ptrdiff_t y_step, std::ptrdiff_t flat,
                           std::ptrdiff_t flat_step, std::ptrdiff_t index_step) {
    using P = simd::pack<T>;
    constexpr std::size_t W = P::size;
    static_assert(L >= 2 && L <= W);
    const auto put = [&](std::size_t i, std::size_t position) TENSOROPS_INLINE_STEP {
        const auto k = static_cast<std::ptrdiff_t>(i);
        output.put(y + k * y_step, flat + k * flat_step + static_cast<std::ptrdiff_t>(position) * index_step);
    };
    // The usual case — one reduced axis of unit index step, outputs back to back — writes W answers at once (the
    // positions themselves), not row by row: f32 rows of 2, 1.4 → 0.25 ns a row.
    const bool positions_are_answers = flat == 0 && flat_step == 0 && index_step == 1 && y_step == 1;
    std::size_t i = 0;
    for (; i + W <= n; i += W, x += W * L) {
        std::array<P, L> v;
        iter::unrolled<L>([&](auto s) { v[s] = simd::load(x + s * W); });
        const auto positions = simd::to_array(narrow_row_positions<Maximum, Last>(v));
        if (positions_are_answers) output.put_contiguous(y + static_cast<std::ptrdiff_t>(i), positions.data(), W);
        else for (std::size_t p = 0; p < W; ++p) put(i + p, positions[p]);
    }
    for (; i < n; ++i, x += L) put(i, locate_in_short_row<Maximum, Last>(x, L, false));
}

/// locate_in_narrow_rows for the row length `length` (2 ≤ length ≤ narrow_arg_row_max<T>).
template <bool Maximum, bool Last, class T>
void locate_in_narrow_rows(const T* x, std::size_t length, std::size_t n, const index_output& output, std::ptrdiff_t y, std::ptrdiff_t y_step,
                           std::ptrdiff_t flat, std::ptrdiff_t flat_step, std::ptrdiff_t index_step) {
    iter::unrolled<narrow_arg_row_max<T> - 1>([&](auto k) {
        constexpr std::size_t L = k + 2;
        if (length == L) locate_in_narrow_rows<Maximum, Last, L>(x, n, output, y, y_step, flat, flat_step, index_step);
    });
}

template <bool Maximum, bool Last, class T>
void arg_reduce_inner(const T* input, const index_output& output, const reduce_nests<3>& parts) {
    using C = simd::compute_t<T>;
    const std::size_t last = parts.group.rank - 1;
    const std::size_t length = parts.group.sizes[last];
    const std::ptrdiff_t index_step = parts.group.strides[2][last];
    if (parts.group.rank == 1 && length <= short_arg_row<T>) {  // one short row per output
        const std::ptrdiff_t row_offset = parts.group.offsets[1], index_offset = parts.group.offsets[2];
        const auto one_row = [&](std::ptrdiff_t x_offset, std::ptrdiff_t y_offset, std::ptrdiff_t flat_index, bool whole_tail) {
            const std::size_t position = locate_in_short_row<Maximum, Last>(input + x_offset + row_offset, length, whole_tail);
            output.put(y_offset, flat_index + index_offset + static_cast<std::ptrdiff_t>(position) * index_step);
        };
        if (parts.kept.rank == 0) {
            one_row(parts.kept.offsets[1], parts.kept.offsets[0], parts.kept.offsets[2], false);
            return;
        }
        // The innermost kept dimension as a plain loop. Where its rows lie back to back, row i's last vector may be
        // read whole when it ends within rows i … (the dimension's last): the input's own elements, which nothing
        // writes during the call (the output may share no memory with the input). Elsewhere it is read in part.
        const std::size_t inner = parts.kept.rank - 1, rows = parts.kept.sizes[inner];
        const std::ptrdiff_t x_step = parts.kept.strides[1][inner], y_step = parts.kept.strides[0][inner], i_step = parts.kept.strides[2][inner];
        const bool back_to_back = x_step == static_cast<std::ptrdiff_t>(length);
        const std::size_t vector_end = length / simd::lanes<T> * simd::lanes<T> + simd::lanes<T>;  // past a row's start
        const bool narrow = back_to_back && length >= 2 && length <= narrow_arg_row_max<T>;
        iter::for_each_outer_index(parts.kept, inner, [&](const std::array<std::ptrdiff_t, 3>& line) {
            if constexpr (narrow_arg_row_max<T> >= 2) {
                if (narrow)
                    return locate_in_narrow_rows<Maximum, Last>(input + line[1] + row_offset, length, rows, output, line[0], y_step,
                                                                line[2] + index_offset, i_step, index_step);
            }
            for (std::size_t i = 0; i < rows; ++i) {
                const auto k = static_cast<std::ptrdiff_t>(i);
                one_row(line[1] + k * x_step, line[0] + k * y_step, line[2] + k * i_step, back_to_back && vector_end <= (rows - i) * length);
            }
        });
        return;
    }
    iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 3>& at) {
        const T* base = input + at[1];
        extreme_site<C> best{};
        bool found = false;
        const T* best_site = nullptr;       // the winner's site in memory
        std::ptrdiff_t best_site_index = 0;  // and the flat index of its first element
        iter::for_each_outer_index(parts.group, last, [&](const std::array<std::ptrdiff_t, 3>& line) {
            const T* x = base + line[1];
            for (std::size_t start = 0; start < length; start += arg_block) {
                const auto site = locate_extreme<Maximum, Last>(x + start, std::min(arg_block, length - start));
                if (!found || replaces_value<Maximum, Last>(site.value, best.value)) {
                    found = true;
                    best = site;
                    best_site = x + start + site.start;
                    best_site_index = at[2] + line[2] + static_cast<std::ptrdiff_t>(start + site.start) * index_step;
                }
            }
        });
        // The winning site holds the extreme; its first (or last) occurrence is the answer.
        const std::size_t position = find_in_block<Last>(best_site, best.length, best.value);
        output.put(at[0], best_site_index + static_cast<std::ptrdiff_t>(position) * index_step);
    });
}

// ---------------------------------------------------------------------------------------------
// Outer: per column, the best value and its flat index, one row at a time.
//
// Algorithm. A "row" is the stretch of the contiguous kept dimension at one element of the group; rows are
// taken in walk order (increasing flat index), one at a time, so memory is read as one stream wherever the rows
// lie back to back. For each vector of columns the row is compared with the running best (`replaces`,
// lane-wise); only where some lane is replaced are the best value and index stored. On most data the running best
// soon stops changing: per row and vector that is two loads and a compare, and no store — less than the plain MAX
// kernel, which stores its accumulator. On adversarial data (increasing rows, or many ties with Last) every row
// stores. (Four rows at a time, their extreme first, read four pages at once: on an AMD Zen 5 that ran at 0.45×
// the speed of one row at a time, 64 MiB of f32 rows of 4 KiB.)

/// How the outer walk updates a running best: `branching` stores only where some lane of a vector is replaced (one
/// test a vector, a mispredicted branch at each replacement); `branchless` stores both selects always. On random
/// rows, row i of a fresh walk replaces some lane of a vector with probability ~W / i: the first arg_branchless_rows
/// rows of a walk that starts from nothing take the branchless update (see arg_walk_rows).
enum class arg_update { branching, branchless };

/// The running best (value, flat index) of one vector of columns, at best / best_index, against `candidate` of the
/// row whose flat index is row_index (rows come in walk order, see above): stored only where some lane is replaced
/// (Update: branching), or always with the lanes selected (branchless) — the same values either way.
template <bool Maximum, bool Last, arg_update Update, class P, class C, class L, class Q, class Load, class Store>
[[gnu::always_inline]] inline void arg_update_lanes(const P& candidate, const Q& row_index, C* best, L* best_index, const Load& load,
                                                    const Store& store) {
    const P current = load(best);
    if constexpr (Update == arg_update::branching)
        if (!any_replaces<Maximum, Last>(candidate, current)) [[likely]]
            return;
    const auto replace = replaces_lanes<Maximum, Last>(candidate, current);
    store(best, simd::select(replace, candidate, current));
    store(best_index, simd::select_lanes<P>(replace, row_index, Q(load(best_index))));
}

/// The running best (value, flat index) of `width` columns against one more row, `index` its flat index (rows
/// come in walk order, see above), updated as Update says. `first`: there is no running best yet, the row and its
/// index become it. Hints the row `ahead` bytes on (simd::rows_ahead_bytes).
template <bool Maximum, bool Last, arg_update Update, class T, class C, class L>
void arg_update_row(const T* row, std::ptrdiff_t index, C* best, L* best_index, std::size_t width, bool first, std::ptrdiff_t ahead) {
    using P = simd::pack<T>;
    using Q = simd::lane_index_pack<P>;
    const Q row_index(static_cast<L>(index));
    for_each_row_vector_prefetching<T>(row, nullptr, ahead, width, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        const P candidate = load(row + j);
        if (first) {
            store(best + j, candidate);
            store(best_index + j, row_index);
            return;
        }
        arg_update_lanes<Maximum, Last, Update>(candidate, row_index, best + j, best_index + j, load, store);
    });
}

/// arg_update_row for two rows read in the same steps, each against a running best of its own: `row` (flat index
/// `index`) against best / best_index, `other` (other_index) against other_best / other_best_index. Both bests exist.
template <bool Maximum, bool Last, arg_update Update, class T, class C, class L>
void arg_update_row_pair(const T* row, std::ptrdiff_t index, C* best, L* best_index, const T* other, std::ptrdiff_t other_index, C* other_best,
                         L* other_best_index, std::size_t width, std::ptrdiff_t ahead) {
    using P = simd::pack<T>;
    using Q = simd::lane_index_pack<P>;
    const Q row_index(static_cast<L>(index)), other_row_index(static_cast<L>(other_index));
    for_each_row_vector_prefetching<T>(row, other, ahead, width, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        arg_update_lanes<Maximum, Last, Update>(P(load(row + j)), row_index, best + j, best_index + j, load, store);
        arg_update_lanes<Maximum, Last, Update>(P(load(other + j)), other_row_index, other_best + j, other_best_index + j, load, store);
    });
}

/// Folds a running best of rows that may come later in the walk (other, other_index) into (best, best_index), `width`
/// columns: the other replaces where it is better or, with Last, ties at a later index (a tie from an earlier row —
/// which both may have seen — loses). Exact: the result is the first (last) extreme of every row either has seen.
template <bool Maximum, bool Last, class C, class L>
void arg_merge_rows(C* best, L* best_index, const C* other, const L* other_index, std::size_t width) {
    for (std::size_t j = 0; j < width; ++j) {
        const bool later = !Last || other_index[j] > best_index[j];
        if (later && replaces_value<Maximum, Last>(other[j], best[j])) {
            best[j] = other[j];
            best_index[j] = other_index[j];
        }
    }
}

/// Rows the outer argmax kernel walks alone before it starts a second running best (arg_walk_rows): the second starts
/// as a copy of the first, so it does not begin by replacing lanes at most rows (see arg_reduce_rows_in_bands).
inline constexpr std::size_t arg_warm_rows = 64;

/// Rows a running best that started from nothing has seen before its walk takes the branching update (arg_update):
/// until then a replacement is likely enough (~W / i at row i on random rows) that a mispredicted branch costs
/// more than storing both selects every time; after it, the selects (0.70 ns a vector of 8 f32 in L2, against 0.45 for
/// the branching test: a fresh walk's rows stream from memory slower than a seeded one's) cost more than the
/// mispredicts. Measured on the AMD Zen 5 guest, f32 rows of 4 KiB on one thread from memory, a walk from nothing
/// against the same walk seeded with an answer (nine interleaved runs of 1024, 2048 and 4096 rows, best of 40 each):
/// the fresh walk's extra time summed 241 µs with 64 rows, 132 with 96, 270 with 128 and 382 with 256 (the value
/// before, chosen on 16 rows in cache, where every choice above 16 is the same); with no branchless rows 1.7–1.8× the
/// seeded time. A sequential argmax over 1024 such rows (4 MiB, from L3) 46–50 → 61 GB/s.
inline constexpr std::size_t arg_branchless_rows = 96;
static_assert(arg_branchless_rows > arg_warm_rows);

/// arg_update_row for a running best that has seen `seen` rows since it started from nothing (a best that started from
/// another's answer: arg_branchless_rows or more): branchless for its first arg_branchless_rows rows, then branching.
template <bool Maximum, bool Last, class T, class C, class L>
void arg_update_row_after(std::size_t seen, const T* row, std::ptrdiff_t index, C* best, L* best_index, std::size_t width, bool first,
                          std::ptrdiff_t ahead) {
    if (seen < arg_branchless_rows) arg_update_row<Maximum, Last, arg_update::branchless>(row, index, best, best_index, width, first, ahead);
    else arg_update_row<Maximum, Last, arg_update::branching>(row, index, best, best_index, width, first, ahead);
}

/// Whether arg_walk_rows walks `count` rows `pitch` bytes apart in far-apart pairs.
[[nodiscard]] constexpr bool arg_walks_pairs(std::size_t count, std::size_t pitch) noexcept {
    return count >= 2 * arg_warm_rows && (count + 1) / 2 * pitch >= far_pair_bytes;
}

/// The running best (values, indices: `width` columns) of rows [first_row, end) of a line of rows `step` apart, row i
/// at flat index index_base + i · index_step, walked in order on top of the running best given (`fresh`: none yet,
/// the first row becomes it). Where the two halves of the rows lie at least far_pair_bytes apart (two streams far
/// apart, as the outer reduce kernel pairs its rows: row_units), the second half is walked beside the first, row i of
/// one with row i of the other, into a running best of its own (other_values, other_indices: `width` columns of
/// scratch), started as a copy of the first's after its first arg_warm_rows rows and merged into it at the end
/// (arg_merge_rows) — the same answer, since each half is walked in order and the merge is exact. One running best per
/// row keeps the rule simple (a pair's rows do not need comparing with each other and with the best by index).
/// Measured (AMD Zen 5 guest, two threads each on its half of 64 MiB of f32 [16384, 1024], against a read probe of the
/// same halves; stand-alone loops in the kernel's pattern, median of 25 pairs, six rounds): one row at a time
/// 0.69–0.77, rows 16 MiB apart with a running best each 0.97–1.07.
template <bool Maximum, bool Last, class T, class C, class L>
void arg_walk_rows(const T* x, std::ptrdiff_t step, std::ptrdiff_t index_base, std::ptrdiff_t index_step, std::size_t first_row, std::size_t end,
                   C* values, L* indices, C* other_values, L* other_indices, std::size_t width, bool fresh) {
    const std::ptrdiff_t ahead = simd::rows_ahead_bytes<T>(step);
    const auto row_at = [&](std::size_t i) { return x + static_cast<std::ptrdiff_t>(i) * step; };
    const auto index_at = [&](std::size_t i) { return index_base + static_cast<std::ptrdiff_t>(i) * index_step; };
    // A walk that starts from nothing updates branchlessly while its running bests have seen few rows (arg_update):
    // both of them have seen `seen` rows when the walk is at row first_row + seen or at its pair.
    const bool started_fresh = fresh;
    const auto seen_at = [&](std::size_t i) { return started_fresh ? i - first_row : arg_branchless_rows; };
    const auto walk_alone = [&](std::size_t from, std::size_t to, C* best, L* best_index) {
        for (std::size_t i = from; i < to; ++i) {
            arg_update_row_after<Maximum, Last>(seen_at(i), row_at(i), index_at(i), best, best_index, width, fresh, ahead);
            fresh = false;
        }
    };
    const std::size_t count = end - first_row, half = (count + 1) / 2;
    if (!arg_walks_pairs(count, pitch_bytes<T>(step))) {
        walk_alone(first_row, end, values, indices);
        return;
    }
    const std::size_t second = first_row + half, warm_end = first_row + arg_warm_rows;
    walk_alone(first_row, warm_end, values, indices);
    std::copy_n(values, width, other_values);
    std::copy_n(indices, width, other_indices);
    const std::size_t pairs = std::min(second - warm_end, end - second);
    const auto walk_pairs = [&]<arg_update Update>(std::size_t from, std::size_t to) {
        for (std::size_t k = from; k < to; ++k)
            arg_update_row_pair<Maximum, Last, Update>(row_at(warm_end + k), index_at(warm_end + k), values, indices, row_at(second + k),
                                                       index_at(second + k), other_values, other_indices, width, ahead);
    };
    const std::size_t branchless_pairs = started_fresh ? std::min(pairs, arg_branchless_rows - arg_warm_rows) : 0;
    walk_pairs.template operator()<arg_update::branchless>(0, branchless_pairs);
    walk_pairs.template operator()<arg_update::branching>(branchless_pairs, pairs);
    walk_alone(warm_end + pairs, second, values, indices);
    walk_alone(second + pairs, end, other_values, other_indices);
    arg_merge_rows<Maximum, Last>(values, indices, other_values, other_indices, width);
}

template <bool Maximum, bool Last, class T>
void arg_reduce_rows(const T* x, const index_output& y, std::size_t width, const iter::loop_nest<3>& group, std::ptrdiff_t index_base) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    using index_lane = typename simd::lane_index_pack<P>::value_type;
    accumulator_rows<C, 2, outer_row_budget / 2> values;  // the running best, and the second one of arg_walk_rows
    accumulator_rows<index_lane, 2, outer_row_budget / 2> indices;
    constexpr std::size_t panel = std::min(values.panel, indices.panel);
    for (std::size_t start = 0; start < width; start += panel) {
        const std::size_t w = std::min(panel, width - start);
        C* best = values.row(0);
        index_lane* best_index = indices.row(0);
        if (group.rank == 1) {  // one line of rows: maybe in far-apart pairs
            arg_walk_rows<Maximum, Last>(x + start, group.strides[1][0], index_base, group.strides[2][0], 0, group.sizes[0], best, best_index,
                                         values.row(1), indices.row(1), w, true);
            y.put_contiguous(static_cast<std::ptrdiff_t>(start), best_index, w);
            continue;
        }
        std::size_t seen = 0;  // rows walked (the first becomes the running best; the early ones update branchlessly)
        const std::size_t last = group.rank - 1;
        const std::ptrdiff_t ahead = simd::rows_ahead_bytes<T>(group.strides[1][last]);
        iter::for_each_outer_index(group, last, [&](const std::array<std::ptrdiff_t, 3>& line) {
            const T* row = x + start + line[1];
            std::ptrdiff_t index = index_base + line[2];
            for (std::size_t i = 0; i < group.sizes[last]; ++i, row += group.strides[1][last], index += group.strides[2][last], ++seen)
                arg_update_row_after<Maximum, Last>(seen, row, index, best, best_index, w, seen == 0, ahead);
        });
        y.put_contiguous(static_cast<std::ptrdiff_t>(start), best_index, w);
    }
}

// ---------------------------------------------------------------------------------------------
// Outer, 8- and 16-bit lanes: each column's extreme first, then where it is.
//
// Algorithm (arg_reduce_rows_by_extreme). The outer kernel above keeps each column's flat index in a lane as wide as
// the value, which 8 or 16 bits cannot hold. For these types a panel of columns is read twice instead: first each
// column's extreme (a max or min over the rows, a vector of W lanes at a time, as the outer reduce kernel folds its
// rows), then the rows again in walk order (Last: in reverse walk order) until every column has met its extreme —
// each vector compared with the extremes and with the columns already found, and only the lanes of a new match
// visited (simd::for_each_set_lane; each column is recorded once). Exact like any other argmax: the answer is the first
// (last) flat index holding the extreme. The second pass stops at the row where the last column finds its extreme:
// on random data most of the rows, so about two passes over memory; before, these types ran the scalar strided kernel
// (int8 [256, 1024]: 200–444 µs at -O3, now 14 at AVX2; bench/RESULTS.md 2026-11-27 10:26).

/// Columns per panel of arg_find_extremes (its rows: the extremes and the found flags in T, the answers in 64 bits:
/// 10 KiB).
inline constexpr std::size_t arg_extreme_panel = 1024;

/// A line of rows of a group, for arg_find_extremes: its offset in elements of the input and in flat indices.
struct row_line {
    std::ptrdiff_t element, index;
};

/// The algorithm above for `w` ≤ arg_extreme_panel columns from x: over the rows of `lines` (in that order; each
/// `length` rows, `step` elements and `index_step` flat indices apart), each column's extreme in extreme[j] and the
/// first (Last: last) flat index index_base + … that holds it in answer[j].
template <bool Maximum, bool Last, class T>
void arg_find_extremes(const T* x, std::span<const row_line> lines, std::size_t length, std::ptrdiff_t step, std::ptrdiff_t index_step,
                       std::ptrdiff_t index_base, std::size_t w, T* extreme, std::int64_t* answer) {
    using P = simd::pack<T>;
    const extreme_reduction<T, Maximum> extreme_of;
    const std::ptrdiff_t ahead = simd::rows_ahead_bytes<T>(step);
    fill_row(extreme, w, extreme_of.identity());
    for (const row_line& line : lines)
        for (std::size_t i = 0; i < length; ++i) fold_row(x + line.element + static_cast<std::ptrdiff_t>(i) * step, extreme, w, extreme_of, ahead);
    alignas(64) T found[arg_extreme_panel];  // all ones where the column's extreme has been met
    fill_row(found, w, T(0));
    std::size_t missing = w;
    const auto look = [&](const T* row, std::ptrdiff_t index) {
        for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto&) TENSOROPS_INLINE_STEP {
            const auto fresh = (P(load(row + j)) == P(load(extreme + j))) & (P(load(found + j)) == P(T(0)));
            if (!simd::any(fresh)) [[likely]]
                return;
            simd::for_each_set_lane(fresh, [&](std::size_t lane) {
                if (j + lane >= w) return;  // a partial vector's lanes past the row
                found[j + lane] = static_cast<T>(~T(0));
                answer[j + lane] = index;
                --missing;
            });
        });
    };
    for (std::size_t l = 0; l < lines.size() && missing != 0; ++l) {
        const row_line& line = lines[Last ? lines.size() - 1 - l : l];
        for (std::size_t r = 0; r < length && missing != 0; ++r) {
            const auto i = static_cast<std::ptrdiff_t>(Last ? length - 1 - r : r);
            look(x + line.element + i * step, index_base + line.index + i * index_step);
        }
    }
}

/// The outer kernel for 8- and 16-bit lanes (see the algorithm above): argmax / argmin over the rows of `group` of
/// `width` contiguous columns from x, flat indices index_base + the group's index offsets, written to y[0, width).
template <bool Maximum, bool Last, class T>
void arg_reduce_rows_by_extreme(const T* x, const index_output& y, std::size_t width, const iter::loop_nest<3>& group, std::ptrdiff_t index_base) {
    const std::size_t last = group.rank - 1;
    std::vector<row_line> lines;  // the group's lines in walk order
    iter::for_each_outer_index(group, last, [&](const std::array<std::ptrdiff_t, 3>& line) { lines.push_back({line[1], line[2]}); });
    alignas(64) T extreme[arg_extreme_panel];
    std::int64_t answer[arg_extreme_panel];
    for (std::size_t start = 0; start < width; start += arg_extreme_panel) {
        const std::size_t w = std::min(arg_extreme_panel, width - start);
        arg_find_extremes<Maximum, Last>(x + start, lines, group.sizes[last], group.strides[1][last], group.strides[2][last], index_base, w,
                                         extreme, answer);
        y.put_contiguous(static_cast<std::ptrdiff_t>(start), answer, w);
    }
}

template <bool Maximum, bool Last, class T>
void arg_reduce_outer(const T* input, const index_output& output, const reduce_nests<3>& parts) {
    const std::size_t last = parts.kept.rank - 1;
    const std::size_t columns = parts.kept.sizes[last];
    iter::axis_set innermost;
    innermost.set(last);
    iter::for_each_element(iter::remove_dimensions(parts.kept, innermost), [&](const std::array<std::ptrdiff_t, 3>& at) {
        if constexpr (sizeof(simd::compute_t<T>) >= 4) arg_reduce_rows<Maximum, Last>(input + at[1], output.shifted(at[0]), columns, parts.group, at[2]);
        else arg_reduce_rows_by_extreme<Maximum, Last>(input + at[1], output.shifted(at[0]), columns, parts.group, at[2]);
    });
}

// ---------------------------------------------------------------------------------------------
// Dispatch by layout.

template <bool Maximum, bool Last, class T>
void run_arg_reduce(const T* input, const index_output& output, const iter::loop_nest<3>& nest, iter::axis_set reduced) {
    if constexpr (builtin_element<T> && simd::vectorized) {
        constexpr std::size_t W = simd::lanes<T>;
        const auto parts = split_reduce_nest(nest, reduced);
        const std::size_t last = nest.rank - 1;
        // Rows narrower than a vector too, where each output has one (arg_reduce_inner: locate_in_short_row).
        if (nest.rank > 0 && reduced.test(last) && nest.strides[1][last] == 1 && (nest.sizes[last] >= W || parts.group.rank == 1)) {
            arg_reduce_inner<Maximum, Last>(input, output, parts);
            return;
        }
        if (nest.rank > 0 && !reduced.test(last) && nest.inner_is_contiguous({0, 1}) && nest.sizes[last] >= W && parts.group.rank > 0) {
            // 32- and 64-bit lanes hold the flat index in a lane of the same width (if it fits); narrower ones find
            // it again (arg_reduce_rows_by_extreme).
            bool index_fits = true;
            if constexpr (sizeof(simd::compute_t<T>) >= 4)
                index_fits = parts.group.element_count() <= std::numeric_limits<typename simd::lane_index_pack<simd::pack<T>>::value_type>::max();
            if (index_fits) {
                arg_reduce_outer<Maximum, Last>(input, output, parts);
                return;
            }
        }
    }
    arg_reduce_strided<Maximum, Last>(input, output, nest, reduced);
}

/// arg_reduce_rows_by_extreme for a group of one line of `n` rows (`step` apart, flat indices index_base + i ·
/// index_step) on an executor: bands of rows (guided pieces: piece_begin) each find every column's extreme and its
/// first (last) index within the band (arg_find_extremes); the calling thread merges the bands in walk order
/// (arg_merge_rows: a later band's tie wins only with Last) — exact, as every argmax. Cut into pieces of columns
/// instead (exec/split.hpp), each piece walked every row for a cache line of it: 64 MiB of int8 [65536, 1024] took
/// 1.84 ms on two threads against 1.75 on one (f32 [16384, 1024]: 1.18 against 1.63).
template <bool Maximum, bool Last, class T>
void arg_reduce_rows_by_extreme_in_bands(const executor_ref& exec, const T* x, const index_output& y, std::size_t width, std::size_t n,
                                         std::ptrdiff_t step, std::ptrdiff_t index_step, std::ptrdiff_t index_base) {
    const std::size_t bands = std::min(n / 4, wanted_pieces(exec, n * width * sizeof(T))), threads = exec.concurrency();
    const std::unique_ptr<T[]> extremes(new T[bands * width]);
    const std::unique_ptr<std::int64_t[]> answers(new std::int64_t[bands * width]);
    exec.parallel_for(bands, [&](std::size_t band) {
        const std::size_t first = piece_begin(band, bands, n, threads), end = piece_begin(band + 1, bands, n, threads);
        const row_line line{static_cast<std::ptrdiff_t>(first) * step, static_cast<std::ptrdiff_t>(first) * index_step};
        for (std::size_t start = 0; start < width; start += arg_extreme_panel)
            arg_find_extremes<Maximum, Last>(x + start, std::span<const row_line>(&line, 1), end - first, step, index_step, index_base,
                                             std::min(arg_extreme_panel, width - start), extremes.get() + band * width + start,
                                             answers.get() + band * width + start);
    });
    for (std::size_t band = 1; band < bands; ++band)
        arg_merge_rows<Maximum, Last>(extremes.get(), answers.get(), extremes.get() + band * width, answers.get() + band * width, width);
    y.put_contiguous(0, answers.get(), width);
}

/// The outer kernel for a group of one line of `n` rows (`step` apart, flat indices index_base + i · index_step)
/// on an executor: bands of rows are shared out, each finds every column's best value and its index (arg_update_row,
/// one row at a time, in walk order), and the calling thread takes the bands in walk order.
///
/// Algorithm. A band that started from its own first row would replace its running best often at first (on random
/// data row i of a walk replaces some lane of a vector with probability ≈ W / i), and each replacement is a
/// mispredicted branch: eight bands mispredicted ~6× as often as the sequential walk, and one thread ran the bands
/// 1.2× slower than the sequential kernel (AMD Zen 5, 64 MiB of f32 rows of 4 KiB). So a band starts instead from
/// the answer of the latest band before it that has finished, when there is one (`finished`): its running best is
/// then already that of many rows. Its answer covers those earlier rows too, so the bands overlap; the calling
/// thread combines them in order, and a band's answer replaces the running one only where it is better or, with
/// Last, ties at a later index. That is exact whichever bands finished before which: the running answer after band
/// b is the first (last) extreme of every row up to b's end — an earlier row that b's answer came from is one of
/// them, and a tie with it keeps the running answer — so the answer is the sequential one.
template <bool Maximum, bool Last, class T>
void arg_reduce_rows_in_bands(const executor_ref& exec, const T* x, const index_output& y, std::size_t width, std::size_t n,
                              std::ptrdiff_t step, std::ptrdiff_t index_step, std::ptrdiff_t index_base) {
    using C = simd::compute_t<T>;
    using L = typename simd::lane_index_pack<simd::pack<T>>::value_type;
    const std::size_t bands = std::min(n / 4, wanted_pieces(exec, n * width * sizeof(T)));
    std::vector<C> best(bands * width);
    std::vector<L> best_index(bands * width);
    const std::unique_ptr<std::atomic<bool>[]> finished(new std::atomic<bool>[bands]());
    exec.parallel_for(bands, [&](std::size_t band) {
        const std::size_t first_row = band * n / bands, end = (band + 1) * n / bands;
        C* values = best.data() + band * width;
        L* indices = best_index.data() + band * width;
        bool fresh = true;
        for (std::size_t earlier = band; fresh && earlier-- > 0;) {
            if (!finished[earlier].load(std::memory_order_acquire)) continue;
            std::copy_n(best.data() + earlier * width, width, values);
            std::copy_n(best_index.data() + earlier * width, width, indices);
            fresh = false;
        }
        // arg_walk_rows' second running best, for the far-apart halves of a band that it walks in pairs.
        const bool pairs = arg_walks_pairs(end - first_row, pitch_bytes<T>(step));
        std::vector<C> other_values(pairs ? width : 0);
        std::vector<L> other_indices(pairs ? width : 0);
        arg_walk_rows<Maximum, Last>(x, step, index_base, index_step, first_row, end, values, indices, other_values.data(), other_indices.data(),
                                     width, fresh);
        finished[band].store(true, std::memory_order_release);
    });
    for (std::size_t band = 1; band < bands; ++band)  // see above: a tie from an earlier row loses
        arg_merge_rows<Maximum, Last>(best.data(), best_index.data(), best.data() + band * width, best_index.data() + band * width, width);
    y.put_contiguous(0, best_index.data(), width);
}

/// Argmax / argmin of one contiguous line of `length` elements (flat indices index_base + i) into output element 0,
/// on an executor: pieces of whole arg_blocks find their best site as arg_reduce_inner does (locate_extreme per
/// block, compared in order with `replaces`); the calling thread takes the pieces' winners in order with the same
/// rule and searches the winning site once. Comparisons are exact: the answer is the sequential one. Returns false
/// (nothing done) when the line is too short to be worth it.
template <bool Maximum, bool Last, class T>
bool arg_reduce_line_in_chunks(const executor_ref& exec, const T* x, const index_output& output, std::size_t length,
                               std::ptrdiff_t index_base) {
    using C = simd::compute_t<T>;
    const std::size_t blocks = (length + arg_block - 1) / arg_block;
    const std::size_t pieces = std::min(blocks / 2, wanted_pieces(exec, length * sizeof(T)));
    if (pieces < 2) return false;
    std::vector<extreme_site<C>> winners(pieces);  // sites with `start` relative to x
    exec.parallel_for(pieces, [&](std::size_t piece) {
        extreme_site<C> best{};
        for (std::size_t b = piece * blocks / pieces; b < (piece + 1) * blocks / pieces; ++b) {
            const std::size_t start = b * arg_block;
            auto site = locate_extreme<Maximum, Last>(x + start, std::min(arg_block, length - start));
            site.start += start;
            if (b == piece * blocks / pieces || replaces_value<Maximum, Last>(site.value, best.value)) best = site;
        }
        winners[piece] = best;
    });
    extreme_site<C> best = winners[0];
    for (std::size_t piece = 1; piece < pieces; ++piece)
        if (replaces_value<Maximum, Last>(winners[piece].value, best.value)) best = winners[piece];
    const std::size_t position = find_in_block<Last>(x + best.start, best.length, best.value);
    output.put(0, index_base + static_cast<std::ptrdiff_t>(best.start + position));
    return true;
}

/// run_arg_reduce on an executor, with the same answer: one contiguous line into chunks of whole blocks
/// (arg_reduce_line_in_chunks), an [n rows, w columns] nest reduced over its rows into bands of rows
/// (arg_reduce_rows_in_bands), anything else into pieces of independent outputs.
template <bool Maximum, bool Last, class T>
void run_arg_reduce_on(const executor_ref& exec, const T* input, const index_output& output, const iter::loop_nest<3>& nest,
                       iter::axis_set reduced) {
    const std::size_t bytes = nest.element_count() * sizeof(T);
    const bool rows_reduced = nest.rank == 2 && reduced.test(0) && !reduced.test(1) && nest.inner_is_contiguous({0, 1});
    if constexpr (builtin_element<T> && simd::vectorized && sizeof(simd::compute_t<T>) < 4) {  // 8- and 16-bit lanes
        if (rows_reduced && wanted_pieces(exec, bytes) > 1 && nest.sizes[1] >= simd::lanes<T> && nest.sizes[0] >= 8) {
            arg_reduce_rows_by_extreme_in_bands<Maximum, Last>(exec, input + nest.offsets[1], output.shifted(nest.offsets[0]), nest.sizes[1],
                                                               nest.sizes[0], nest.strides[1][0], nest.strides[2][0], nest.offsets[2]);
            return;
        }
    }
    if constexpr (builtin_element<T> && simd::vectorized && sizeof(simd::compute_t<T>) >= 4) {
        using L = typename simd::lane_index_pack<simd::pack<T>>::value_type;
        if (nest.rank == 1 && reduced.test(0) && nest.strides[1][0] == 1 && nest.strides[2][0] == 1 &&
            arg_reduce_line_in_chunks<Maximum, Last>(exec, input + nest.offsets[1], output.shifted(nest.offsets[0]), nest.sizes[0],
                                                     nest.offsets[2]))
            return;
        if (rows_reduced && wanted_pieces(exec, bytes) > 1 && nest.sizes[1] >= simd::lanes<T> &&
            nest.sizes[0] >= 8 && nest.sizes[0] <= std::numeric_limits<L>::max()) {
            arg_reduce_rows_in_bands<Maximum, Last>(exec, input + nest.offsets[1], output.shifted(nest.offsets[0]), nest.sizes[1], nest.sizes[0],
                                                    nest.strides[1][0], nest.strides[2][0], nest.offsets[2]);
            return;
        }
    }
    for_each_piece(exec, nest, independent_dimensions<T>(nest, reduced), bytes,
                   [&](const iter::loop_nest<3>& piece) { run_arg_reduce<Maximum, Last>(input, output, piece, reduced); });
}

}  // namespace tensorops::detail
