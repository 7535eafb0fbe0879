// tensorops/simd/math.hpp — lane-wise absolute value, square root, exponential and logarithm.
//
// Floating lanes use xsimd's vectorised functions (exp and log accurate to a few ulp in float); the one-lane
// fallback uses <cmath>. Integer absolute value wraps: |min| = min (SEMANTICS.md §4), computed as a
// select between x and 0 − x, which vector instructions evaluate modulo 2^N.
#pragma once

#include <cmath>
#include <type_traits>

#include "pack.hpp"

namespace tensorops::simd {

/// |x| per lane; for signed integers |min| wraps to min; unsigned lanes are returned unchanged.
template <class P>
[[nodiscard]] P abs(const P& value) noexcept {
    using C = typename P::value_type;
    if constexpr (std::is_unsigned_v<C>) {
        return value;
    } else if constexpr (std::is_integral_v<C>) {
        return simd::select(value < P(C(0)), P(C(0)) - value, value);
    } else {
#if TENSOROPS_HAS_XSIMD
        return xsimd::abs(value);
#else
        return P(std::fabs(value.value));
#endif
    }
}

/// √x per lane (floating lanes).
template <class P>
[[nodiscard]] P sqrt(const P& value) noexcept {
#if TENSOROPS_HAS_XSIMD
    return xsimd::sqrt(value);
#else
    return P(std::sqrt(value.value));
#endif
}

namespace detail {
/// Lane by lane through <cmath>. Used for double lanes: xsimd 8.1's double exp/log convert ±inf to a 64-bit
/// integer on AVX2 (undefined behaviour, caught by UBSan for log(0) and exp(−inf)).
template <class P, class F>
[[nodiscard]] P each_lane(const P& value, F f) noexcept {
    auto lanes = to_array(value);
    for (auto& lane : lanes) lane = f(lane);
    return from_array<P>(lanes);
}
}  // namespace detail

/// e^x per lane (floating lanes).
template <class P>
[[nodiscard]] P exp(const P& value) noexcept {
#if TENSOROPS_HAS_XSIMD
    if constexpr (std::is_same_v<typename P::value_type, double>)
        return detail::each_lane(value, [](double x) { return std::exp(x); });
    else
        return xsimd::exp(value);
#else
    return P(std::exp(value.value));
#endif
}

/// ln x per lane (floating lanes).
template <class P>
[[nodiscard]] P log(const P& value) noexcept {
#if TENSOROPS_HAS_XSIMD
    if constexpr (std::is_same_v<typename P::value_type, double>)
        return detail::each_lane(value, [](double x) { return std::log(x); });
    else
        return xsimd::log(value);
#else
    return P(std::log(value.value));
#endif
}

}  // namespace tensorops::simd
