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

/// e^(x − shift) per lane, the term of a log-sum-exp whose shift is the group's maximum: for a finite `shift`
/// not below any lane of x (x = −inf allowed). Other inputs give unspecified values — a log-sum-exp whose
/// maximum is ±inf or NaN has a known sum (e^maximum) and must not call this.
///
/// Algorithm (float lanes): t = x·log2(e) − shift·log2(e) is one fused multiply-subtract, clamped below at −125;
/// adding 1.5·2^23 rounds it to an integer n held in the low mantissa bits (no conversion instruction), so
/// f = t − n ∈ [−½, ½]; 2^f is a degree-5 polynomial (fitted for least maximum relative error: 1.8·10⁻⁷, about
/// 1.5 ulp, evaluated in float) and 2^n is added to its exponent field as an integer: eleven vector instructions,
/// about half of xsimd's exp with its range checks. (Degree 6 would be 1 ulp for one more fused multiply-add on
/// the ports log-sum-exp is bound by: 6–8 % slower in cache.)
/// Accuracy: a few ulp of e^(x − shift), plus a relative error of at most |shift|·2^−23 common to every term of
/// a group (from rounding shift·log2(e) once), which moves shift + ln Σ by about an ulp of the shift. Terms
/// below 2^−125 come out as 2^−125·2^f instead of their value (−inf too): next to the group's own e^0 = 1 they
/// are below half an ulp of any sum. Other lane types (double) compute exp(x − shift).
template <class P>
[[nodiscard]] P exp_shifted(const P& x, const P& shift) noexcept {
#if TENSOROPS_HAS_XSIMD
    if constexpr (std::is_same_v<typename P::value_type, float>) {
        using I = xsimd::as_integer_t<P>;
        const P log2e(1.44269504088896341f);
        const P t = xsimd::max(P(-125.0f), xsimd::fms(x, log2e, shift * log2e));
        const P round_to_integer(12582912.0f);  // 1.5 · 2^23
        const P biased = t + round_to_integer;
        const P f = t - (biased - round_to_integer);
        P p(0x1.5ce202p-10f);
        p = xsimd::fma(p, f, P(0x1.3cea90p-7f));
        p = xsimd::fma(p, f, P(0x1.c6b426p-5f));
        p = xsimd::fma(p, f, P(0x1.ebf9bcp-3f));
        p = xsimd::fma(p, f, P(0x1.62e42cp-1f));
        p = xsimd::fma(p, f, P(1.0f));
        const I exponent = xsimd::bitwise_cast<I>(biased) << 23;  // n · 2^23: the low bits of biased hold 2^22 + n
        return xsimd::bitwise_cast<P>(xsimd::bitwise_cast<I>(p) + exponent);
    } else {
        return simd::exp(x - shift);
    }
#else
    return simd::exp(x - shift);
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
