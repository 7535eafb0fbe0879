// tensorops/ops/detail/scan/extreme.hpp — the running maximum and minimum: a scan operation for the scan family's
// kernels (policy.hpp), and the pass that writes the index of the running extreme from the running values.
//
// The operation. running ∘ next = next where next *beats* running, else running: for the maximum, next is strictly
// larger, or next is NaN and running is not (the minimum: strictly smaller, or the first NaN). It selects one of its
// operands, so it is exact and associative bit for bit — a scan of it gives the same bits in any grouping (the fixed
// blocks of long scans, any thread count, any kernel) — and the running value is always an element of the line: the
// first of the extreme values met in traversal order (zeros of either sign are equal: the first one stays), or the
// first NaN met. It is not commutative (which of two equal values is kept depends on their order), so the in-register
// scan keeps every operand in order (simd::scan_lanes_idempotent, which also uses max(a, a) = a), not simd::scan_lanes.
//
// The indices. The running values of a line change exactly where an element beats the running value before it — and
// then to that element — so the index of the running extreme is the last traversal position at or before this one
// (exclusive: before it) where the running value changed, and the first position itself. write_extreme_indices reads
// the running values back (already written to `values`, perhaps in place over the input) and writes those indices:
// one pass over the lines, or, across rows, one pass over the rows that compares each row with the one before it.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "../../../core/element.hpp"
#include "../../../core/inline.hpp"
#include "../../../iter/nd_loop.hpp"
#include "../../../iter/plan.hpp"
#include "../../../simd/minmax.hpp"
#include "../../../simd/ordered_scan.hpp"
#include "../../../simd/pack.hpp"
#include "../../../simd/select.hpp"

namespace tensorops::detail {

/// Whether `candidate` replaces `running` as the running maximum (Maximum) or minimum: strictly larger (smaller), or,
/// for floating types, NaN where `running` is not. Only `<` for other types.
template <bool Maximum, class A>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] constexpr bool beats(const A& candidate, const A& running) {
    if constexpr (std::is_floating_point_v<A>) {
        // !(candidate <= running) holds where candidate is larger or either is NaN; a NaN running value is never beaten.
        if constexpr (Maximum) return running == running && !(candidate <= running);
        else return running == running && !(candidate >= running);
    } else if constexpr (Maximum) {
        return running < candidate;
    } else {
        return candidate < running;
    }
}

/// beats, lane by lane.
template <bool Maximum, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline simd::mask_of<P> beats_lanes(const P& candidate,
                                                                           const P& running) noexcept {
    if constexpr (std::is_floating_point_v<typename P::value_type>) {
        if constexpr (Maximum) return simd::and_not(running == running, candidate <= running);
        else return simd::and_not(running == running, candidate >= running);
    } else if constexpr (Maximum) {
        return running < candidate;
    } else {
        return candidate < running;
    }
}

/// The running maximum (Maximum) or minimum as a scan operation (policy.hpp). float16, bfloat16 are compared as float (exact);
/// integers in their own type; other types with their `<` and element_identity's max_identity / min_identity.
template <class T, bool Maximum>
struct extreme_scan {
    using accumulator = accumulator_t<T, accumulation::ordering>;
    static constexpr bool vectorizable = builtin_element<T>;
    [[nodiscard]] accumulator identity() const {
        if constexpr (Maximum) return element_identity<accumulator>::max_identity();
        else return element_identity<accumulator>::min_identity();
    }
    [[nodiscard]] accumulator operator()(const accumulator& running, const accumulator& next) const {
        return beats<Maximum>(next, running) ? next : running;
    }
    template <class P>
    [[nodiscard, TENSOROPS_ALWAYS_INLINE]] P lanes(const P& running, const P& next) const {
        if constexpr (std::is_integral_v<typename P::value_type>)  // equal integers are the same bits: a plain max / min
            return Maximum ? simd::max_propagate_nan(running, next) : simd::min_propagate_nan(running, next);
        else
            return simd::select(beats_lanes<Maximum>(next, running), next, running);
    }
    template <bool Backward, class P>
    [[nodiscard, TENSOROPS_ALWAYS_INLINE]] P in_register(const P& value, typename P::value_type identity) const {
        return simd::scan_lanes_idempotent<Backward>(value, [this](const P& a, const P& b) { return lanes(a, b); }, identity);
    }
    /// Whether `running` (the same value in every lane) ∘ x = running for every lane x of a and of b: no lane beats
    /// it (or it is NaN). Then a scan of a and b from it writes `running` everywhere and leaves it the running value —
    /// on data whose running extreme is rarely beaten (most vectors past a line's first few) the kernels skip the
    /// in-register scans (contiguous.hpp).
    template <class P>
    [[nodiscard, TENSOROPS_ALWAYS_INLINE]] bool absorbs(const P& running, const P& a, const P& b) const {
        if constexpr (std::is_floating_point_v<typename P::value_type>) {
            // A lane beats where running is not NaN and the lane is not ≤ (≥) it: none such.
            if constexpr (Maximum) return !simd::any_and_not(running == running, (a <= running) & (b <= running));
            else return !simd::any_and_not(running == running, (a >= running) & (b >= running));
        } else if constexpr (Maximum) {
            return !simd::any((running < a) | (running < b));
        } else {
            return !simd::any((a < running) | (b < running));
        }
    }
};

/// Whether some lane of `candidate` beats the same lane of `running` (any of beats_lanes): one and-not test for
/// floating lanes.
template <bool Maximum, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline bool any_beats(const P& candidate, const P& running) noexcept {
    if constexpr (std::is_floating_point_v<typename P::value_type>) {
        if constexpr (Maximum) return simd::any_and_not(running == running, candidate <= running);
        else return simd::any_and_not(running == running, candidate >= running);
    } else {
        return simd::any(beats_lanes<Maximum>(candidate, running));
    }
}

/// `value` into the W indices from `out`: in vectors of indices where they divide W.
template <std::size_t W, class I>
[[TENSOROPS_ALWAYS_INLINE]] inline void fill_indices(I* out, I value) noexcept {
    if constexpr (W % simd::lanes<I> == 0) {
        const simd::pack<I> lanes(value);
        for (std::size_t k = 0; k < W; k += simd::lanes<I>) simd::store(out + k, lanes);
    } else {
        for (std::size_t k = 0; k < W; ++k) out[k] = value;
    }
}

/// The W indices from `from` into the W from `out` (disjoint): in vectors of indices where they divide W.
template <std::size_t W, class I>
[[TENSOROPS_ALWAYS_INLINE]] inline void copy_indices(I* out, const I* from) noexcept {
    if constexpr (W % simd::lanes<I> == 0) {
        for (std::size_t k = 0; k < W; k += simd::lanes<I>) simd::store(out + k, simd::load(from + k));
    } else {
        for (std::size_t k = 0; k < W; ++k) out[k] = from[k];
    }
}

/// The indices of one contiguous line of n running values at `values` (and of indices at `indices`), walked forward
/// or, when Backward, down from there (traversal position t at −t): position 0 gets `first`, and each later one the
/// index before it or, where its running value beats the one before it, changed_at(t). In vectors of W positions:
/// where no value in one beats the value one position earlier (a running extreme is rarely beaten after a line's
/// first few elements), the index before is stored W times; else the W positions one at a time.
template <bool Maximum, bool Backward, class T, class I, class ChangedAt>
void write_contiguous_line_indices(I* indices, const T* values, std::size_t n, I first, const ChangedAt& changed_at) {
    using accumulator = accumulator_t<T, accumulation::ordering>;
    using P = simd::pack<T>;
    constexpr std::size_t W = P::size;
    constexpr std::ptrdiff_t step = Backward ? -1 : 1;
    // Address of the W elements at traversal positions [t, t + W).
    const auto block = [](auto* base, std::size_t t) {
        if constexpr (Backward) return base - static_cast<std::ptrdiff_t>(t + W - 1);
        else return base + t;
    };
    const auto at = [](std::size_t t) { return step * static_cast<std::ptrdiff_t>(t); };
    I current = first;
    indices[0] = current;
    const auto one_position = [&](std::size_t t) {
        if (beats<Maximum>(static_cast<accumulator>(values[at(t)]), static_cast<accumulator>(values[at(t - 1)]))) current = changed_at(t);
        indices[at(t)] = current;
    };
    std::size_t t = 1;
    if constexpr (W > 1) {
        for (; t + W <= n; t += W) {
            if (any_beats<Maximum>(simd::load(block(values, t)), simd::load(block(values, t - 1)))) {
                for (std::size_t k = 0; k < W; ++k) one_position(t + k);
            } else {
                fill_indices<W>(block(indices, t), current);
            }
        }
    }
    for (; t < n; ++t) one_position(t);
}

/// Rows 1 … n − 1 of the indices of running values laid out in n rows of m columns (`out`, `in`: row 0, the steps
/// between rows and between columns), row 0's indices written already: each row's from the row of values before it
/// and its indices, walking the columns — memory in order, the rows before still in cache. Where both rows are
/// contiguous, W columns at a time: where no value beats the one above it, the W indices above are copied. Row t's
/// changes get changed_at(t).
template <bool Maximum, class T, class I, class ChangedAt>
void write_row_indices(I* out, const T* in, std::size_t n, std::size_t m, std::ptrdiff_t index_step,
                       std::ptrdiff_t value_step, std::ptrdiff_t index_column, std::ptrdiff_t value_column,
                       const ChangedAt& changed_at) {
    using accumulator = accumulator_t<T, accumulation::ordering>;
    constexpr bool vectors = builtin_element<T> && simd::vectorized;
    const bool contiguous_rows = vectors && index_column == 1 && value_column == 1;
    for (std::size_t t = 1; t < n; ++t) {
        const T* above = in;
        const I* above_index = out;
        in += value_step;
        out += index_step;
        const I here = changed_at(t);
        const auto one_column = [&](std::size_t j) {
            const auto jj = static_cast<std::ptrdiff_t>(j);
            const auto value = static_cast<accumulator>(in[jj * value_column]);
            const auto previous = static_cast<accumulator>(above[jj * value_column]);
            out[jj * index_column] = beats<Maximum>(value, previous) ? here : above_index[jj * index_column];
        };
        std::size_t j = 0;
        if constexpr (vectors) {
            constexpr std::size_t W = simd::lanes<T>;
            if (contiguous_rows) {
                for (; j + W <= m; j += W) {
                    if (any_beats<Maximum>(simd::load(in + j), simd::load(above + j))) {
                        for (std::size_t k = 0; k < W; ++k) one_column(j + k);
                    } else {
                        copy_indices<W>(out + j, above_index + j);
                    }
                }
            }
        }
        for (; j < m; ++j) one_column(j);
    }
}

/// The indices of the running extremes of `nest` (operand 0 the indices, operand 1 the running values just computed),
/// every line along `axis` walked forward (the nest is reversed already for a decreasing scan). Traversal position t
/// is written as the input coordinate: t, or n − 1 − t when `decreasing`. The first position of a line gets its own
/// coordinate; position t > 0 gets the coordinate of t (Exclusive: of t − 1) where the running value changed from
/// position t − 1, else the index of position t − 1.
template <bool Maximum, bool Exclusive, class T, class I>
void write_extreme_indices(I* indices, const T* values, const iter::loop_nest<2>& nest, std::size_t axis, bool decreasing) {
    using accumulator = accumulator_t<T, accumulation::ordering>;
    constexpr bool vectors = builtin_element<T> && simd::vectorized;
    const std::size_t n = nest.sizes[axis], last = nest.rank - 1;
    const std::ptrdiff_t index_step = nest.strides[0][axis], value_step = nest.strides[1][axis];
    const auto coordinate = [&](std::size_t t) { return static_cast<I>(decreasing ? n - 1 - t : t); };
    const auto changed_at = [&](std::size_t t) { return coordinate(Exclusive ? t - 1 : t); };
    if (axis == last || nest.rank == 1) {
        // Lines: the running value in a register, the index of the last change beside it (contiguous lines in vectors).
        iter::axis_set along;
        along.set(axis);
        iter::for_each_element(iter::remove_dimensions(nest, along), [&](const std::array<std::ptrdiff_t, 2>& line) {
            I* out = indices + line[0];
            const T* in = values + line[1];
            if constexpr (vectors) {
                if (index_step == value_step && (value_step == 1 || value_step == -1)) {
                    if (value_step == 1) write_contiguous_line_indices<Maximum, false>(out, in, n, coordinate(0), changed_at);
                    else write_contiguous_line_indices<Maximum, true>(out, in, n, coordinate(0), changed_at);
                    return;
                }
            }
            auto previous = static_cast<accumulator>(*in);
            I current = coordinate(0);
            *out = current;
            for (std::size_t t = 1; t < n; ++t) {
                in += value_step;
                out += index_step;
                const auto value = static_cast<accumulator>(*in);
                if (beats<Maximum>(value, previous)) current = changed_at(t);
                previous = value;
                *out = current;
            }
        });
        return;
    }
    // Rows (the axis is an outer dimension): the first row gets the first coordinate, the others write_row_indices.
    const std::size_t m = nest.sizes[last];
    const std::ptrdiff_t index_column = nest.strides[0][last], value_column = nest.strides[1][last];
    iter::axis_set handled;
    handled.set(axis);
    handled.set(last);
    iter::for_each_element(iter::remove_dimensions(nest, handled), [&](const std::array<std::ptrdiff_t, 2>& rows) {
        I* out = indices + rows[0];
        const I first = coordinate(0);
        for (std::size_t j = 0; j < m; ++j) out[static_cast<std::ptrdiff_t>(j) * index_column] = first;
        write_row_indices<Maximum>(out, values + rows[1], n, m, index_step, value_step, index_column, value_column,
                                   changed_at);
    });
}

}  // namespace tensorops::detail
