// tensorops/simd/horizontal.hpp — combining the lanes of one register into one value.
//
// Lanes combine as a balanced tree (lane i with lane i + W/2, then the halves again), so a float sum of
// the lanes has the error of a pairwise sum and the result does not depend on how the lanes were filled.
// Integer sums and products wrap (as the vector instructions do). The tree is built from lane shifts, in
// the register: it runs once per output, which for outputs of a few hundred elements is a visible share.
#pragma once

#include <cstddef>
#include <type_traits>

#include "arithmetic.hpp"
#include "minmax.hpp"
#include "pack.hpp"
#include "shuffle.hpp"

namespace tensorops::simd {

namespace detail {

/// Lane 0 after K, K/2, …, 1-lane steps of lane i ∘= lane i + K, in the register (lane shifts: one or two
/// shuffles each): the balanced tree above, without leaving the vector unit.
template <std::size_t K, class P, class Combine>
[[nodiscard]] P fold_lanes(const P& value, Combine combine) noexcept {
    const P folded = combine(value, shift_lanes_down<K>(value, typename P::value_type(0)));
    if constexpr (K > 1) return fold_lanes<K / 2>(folded, combine);
    else return folded;
}

template <class P, class Combine>
[[nodiscard]] typename P::value_type reduce_lanes(const P& value, Combine combine) noexcept {
    if constexpr (P::size == 1) return to_array(value)[0];
    else return to_array(fold_lanes<P::size / 2>(value, combine))[0];
}

}  // namespace detail

/// Sum of all lanes (pairwise; integers wrap).
template <class P>
[[nodiscard]] typename P::value_type reduce_add(const P& value) noexcept {
    return detail::reduce_lanes(value, [](const P& a, const P& b) { return a + b; });  // vector lanes wrap
}

/// Product of all lanes (pairwise; integers wrap).
template <class P>
[[nodiscard]] typename P::value_type reduce_mul(const P& value) noexcept {
    return detail::reduce_lanes(value, [](const P& a, const P& b) { return simd::mul(a, b); });
}

/// Largest lane; NaN if any lane is NaN.
template <class P>
[[nodiscard]] typename P::value_type reduce_max(const P& value) noexcept {
    return detail::reduce_lanes(value, [](const P& a, const P& b) { return max_propagate_nan(a, b); });
}

/// Smallest lane; NaN if any lane is NaN.
template <class P>
[[nodiscard]] typename P::value_type reduce_min(const P& value) noexcept {
    return detail::reduce_lanes(value, [](const P& a, const P& b) { return min_propagate_nan(a, b); });
}

}  // namespace tensorops::simd
