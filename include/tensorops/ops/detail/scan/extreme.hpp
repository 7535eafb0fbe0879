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
[[nodiscard, gnu::always_inline]] constexpr bool beats(const A& candidate, const A& running) {
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
[[nodiscard, gnu::always_inline]] inline simd::mask_of<P> beats_lanes(const P& candidate, const P& running) noexcept {
    if constexpr (std::is_floating_point_v<typename P::value_type>) {
        if constexpr (Maximum) return simd::and_not(running == running, candidate <= running);
        else return simd::and_not(running == running, candidate >= running);
    } else if constexpr (Maximum) {
        return running < candidate;
    } else {
        return candidate < running;
    }
}

/// The running maximum (Maximum) or minimum as a scan operation (policy.hpp). float16 is compared as float (exact);
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
    [[nodiscard, gnu::always_inline]] P lanes(const P& running, const P& next) const {
        if constexpr (std::is_integral_v<typename P::value_type>)  // equal integers are the same bits: a plain max / min
            return Maximum ? simd::max_propagate_nan(running, next) : simd::min_propagate_nan(running, next);
        else
            return simd::select(beats_lanes<Maximum>(next, running), next, running);
    }
    template <bool Backward, class P>
    [[nodiscard, gnu::always_inline]] P in_register(const P& value, typename P::value_type identity) const {
        return simd::scan_lanes_idempotent<Backward>(value, [this](const P& a, const P& b) { return lanes(a, b); }, identity);
    }
};

/// The indices of the running extremes of `nest` (operand 0 the indices, operand 1 the running values just computed),
/// every line along `axis` walked forward (the nest is reversed already for a decreasing scan). Traversal position t
/// is written as the input coordinate: t, or n − 1 − t when `decreasing`. The first position of a line gets its own
/// coordinate; position t > 0 gets the coordinate of t (Exclusive: of t − 1) where the running value changed from
/// position t − 1, else the index of position t − 1.
template <bool Maximum, bool Exclusive, class T, class I>
void write_extreme_indices(I* indices, const T* values, const iter::loop_nest<2>& nest, std::size_t axis, bool decreasing) {
    using accumulator = accumulator_t<T, accumulation::ordering>;
    const std::size_t n = nest.sizes[axis], last = nest.rank - 1;
    const std::ptrdiff_t index_step = nest.strides[0][axis], value_step = nest.strides[1][axis];
    const auto coordinate = [&](std::size_t t) { return static_cast<I>(decreasing ? n - 1 - t : t); };
    const auto changed_at = [&](std::size_t t) { return coordinate(Exclusive ? t - 1 : t); };
    if (axis == last || nest.rank == 1) {
        // Lines: the running value in a register, the index of the last change beside it.
        iter::axis_set along;
        along.set(axis);
        iter::for_each_element(iter::remove_dimensions(nest, along), [&](const std::array<std::ptrdiff_t, 2>& line) {
            I* out = indices + line[0];
            const T* in = values + line[1];
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
    // Rows (the axis is an outer dimension): each row of indices from the row of values before it and its indices,
    // walking the innermost dimension — memory in order, the rows before still in cache.
    const std::size_t m = nest.sizes[last];
    const std::ptrdiff_t index_column = nest.strides[0][last], value_column = nest.strides[1][last];
    iter::axis_set handled;
    handled.set(axis);
    handled.set(last);
    iter::for_each_element(iter::remove_dimensions(nest, handled), [&](const std::array<std::ptrdiff_t, 2>& rows) {
        I* out = indices + rows[0];
        const T* in = values + rows[1];
        const I first = coordinate(0);
        for (std::size_t j = 0; j < m; ++j) out[static_cast<std::ptrdiff_t>(j) * index_column] = first;
        for (std::size_t t = 1; t < n; ++t) {
            const T* above = in;
            const I* above_index = out;
            in += value_step;
            out += index_step;
            const I here = changed_at(t);
            for (std::size_t j = 0; j < m; ++j) {
                const auto jj = static_cast<std::ptrdiff_t>(j);
                const auto value = static_cast<accumulator>(in[jj * value_column]);
                const auto previous = static_cast<accumulator>(above[jj * value_column]);
                out[jj * index_column] = beats<Maximum>(value, previous) ? here : above_index[jj * index_column];
            }
        }
    });
}

}  // namespace tensorops::detail
