// tensorops/simd/horizontal.hpp — combining the lanes of one register into one value.
//
// Lanes combine as a balanced tree (lane i with lane i + W/2, then the halves again), so a float sum of
// the lanes has the error of a pairwise sum and the result does not depend on how the lanes were filled.
// Integer sums and products wrap (computed in the unsigned type). These run once per output, not per
// element, so they favour clarity over shuffles.
#pragma once

#include <cstddef>
#include <type_traits>

#include "minmax.hpp"
#include "pack.hpp"

namespace tensorops::simd {

namespace detail {
template <class P, class Combine>
[[nodiscard]] typename P::value_type reduce_lanes(const P& value, Combine combine) noexcept {
    auto lanes_values = to_array(value);
    for (std::size_t half = P::size / 2; half >= 1; half /= 2)
        for (std::size_t i = 0; i < half; ++i) lanes_values[i] = combine(lanes_values[i], lanes_values[i + half]);
    return lanes_values[0];
}

template <class C, class Op>
[[nodiscard]] constexpr C wrapping(C a, C b, Op op) noexcept {
    return from_accumulator<C>(op(to_accumulator(a), to_accumulator(b)));  // integers: unsigned, no overflow
}
}  // namespace detail

/// Sum of all lanes (pairwise; integers wrap).
template <class P>
[[nodiscard]] typename P::value_type reduce_add(const P& value) noexcept {
    return detail::reduce_lanes(value, [](auto a, auto b) { return detail::wrapping(a, b, [](auto x, auto y) { return x + y; }); });
}

/// Product of all lanes (pairwise; integers wrap).
template <class P>
[[nodiscard]] typename P::value_type reduce_mul(const P& value) noexcept {
    return detail::reduce_lanes(value, [](auto a, auto b) { return detail::wrapping(a, b, [](auto x, auto y) { return x * y; }); });
}

/// Largest lane; NaN if any lane is NaN.
template <class P>
[[nodiscard]] typename P::value_type reduce_max(const P& value) noexcept {
    return detail::reduce_lanes(value, [](auto a, auto b) { return max_propagate_nan(a, b); });
}

/// Smallest lane; NaN if any lane is NaN.
template <class P>
[[nodiscard]] typename P::value_type reduce_min(const P& value) noexcept {
    return detail::reduce_lanes(value, [](auto a, auto b) { return min_propagate_nan(a, b); });
}

}  // namespace tensorops::simd
