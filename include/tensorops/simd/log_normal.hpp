// tensorops/simd/log_normal.hpp — ln x per lane for x known to be a positive normal number (the sums of a
// log-sum-exp's terms once its maximum is finite), inlined, without the special cases of simd::log.
//
// Algorithm (float lanes): x = 2^k · m with m in [2/3, 4/3): k = (bits(x) − bits(2/3)) >> 23 (arithmetic shift: the
// exponent of x relative to 2/3's), m's bits = bits(x) − k · 2^23 (its exponent field moved by −k). f = m − 1 is exact
// (m lies within a factor of 2 of 1), |f| ≤ 1/3, and ln m = ln(1 + f) = f + f² · (−½ + f · Q(f)), Q of degree 6
// fitted for least maximum relative error of ln(1 + f) on [−1/3, 1/3] (3.7·10⁻⁸; about 1 ulp in float with the
// rounding of its evaluation). ln x = k · ln 2 + ln m in one fused multiply-add with ln 2 rounded to float: its
// error, |k| · 1.9·10⁻⁹, stays below a tenth of an ulp of ln x for every k. Sixteen vector instructions, against a
// call (the registers spilled around it) and xsimd's range checks in simd::log.
// Nothing in it can be contracted differently by a compiler in different inlined copies or with a caller's sum: its
// products feed fused multiply-adds as multiplicands, and it ends in one (see simd::exp_shifted's comment in
// math.hpp). Double lanes and builds without xsimd take simd::log.
// Built from xsimd's operations and simd::log only: no instruction-set code of its own.
#pragma once

#include <cstdint>
#include <type_traits>

#include "math.hpp"
#include "pack.hpp"
#include "warnings.hpp"

TENSOROPS_SIMD_WARNINGS_BEGIN  // simd/warnings.hpp
namespace tensorops::simd {

/// ln x per lane for x positive, finite and normal (at least the type's smallest normal): about 1 ulp in float lanes.
/// Other x give unspecified values (0, subnormals, infinities, NaN, negative numbers: no special cases), without
/// undefined behaviour. Double lanes: simd::log.
template <class P>
[[nodiscard, gnu::always_inline]] inline P log_of_normal(const P& x) noexcept {
#if TENSOROPS_HAS_XSIMD
    if constexpr (std::is_same_v<typename P::value_type, float>) {
        using I = xsimd::as_integer_t<P>;
        constexpr std::int32_t two_thirds = 0x3F2AAAAB;  // the bits of 2/3 rounded to float
        const I bits = xsimd_compat::bitwise_cast<I>(x);
        const I k = (bits - I(two_thirds)) >> 23;
        const P f = xsimd_compat::bitwise_cast<P>(bits - (k << 23)) - P(1.0f);
        // Q by Estrin's scheme (pairs, then pairs of pairs with f², f⁴: four multiply-adds deep, not seven), its
        // coefficients the fit above rounded to float, the constant first.
        const P f2 = f * f, f4 = f2 * f2;
        const auto pair = [&](float low, float high) { return xsimd::fma(P(high), f, P(low)); };
        const P q01 = pair(0x1.555528p-2f, -0x1.000b1cp-2f), q23 = pair(0x1.99c31ep-3f, -0x1.515a6ap-3f),
                q45 = pair(0x1.1f963cp-3f, -0x1.35b3e6p-3f);
        const P q = xsimd::fma(xsimd::fma(P(0x1.1b0962p-3f), f2, q45), f4, xsimd::fma(q23, f2, q01));
        const P high = xsimd::fma(f, q, P(-0.5f));
        const P ln_m = xsimd::fma(f2, high, f);
        return xsimd::fma(xsimd::to_float(k), P(ln2_float), ln_m);
    } else {
        return simd::log(x);
    }
#else
    return simd::log(x);
#endif
}

/// base + ln(1 + u) per float lane for 0 ≤ u ≤ 1/4 (a little beyond costs accuracy): ln(1 + u) = u · (1 + u · R(u)),
/// R of degree 5 fitted for least maximum error relative to u on [0, 1/4] (5·10⁻¹⁰), added to `base` in the last
/// fused multiply-add — one rounding of the sum; the polynomial's own roundings stay below u · 2^−23. For the logarithm
/// of s + L with L small next to s, whose ln s is known: ln s + ln(1 + L/s). Seven multiply-adds, nothing a compiler
/// could contract with a caller's sum (the last one takes it).
template <class P>
[[nodiscard, gnu::always_inline]] inline P add_log1p_small(const P& base, const P& u) noexcept {
    using C = typename P::value_type;
    static_assert(std::is_same_v<C, float>, "float coefficients: accurate to float only");
    // R by Horner's rule from the highest degree down: r · u + c as fms(r, u, −c).
    P r(0x1.252158p-4f);
    r = simd::fms(r, u, P(0x1.2b32a2p-3f));
    r = simd::fms(r, u, P(-0x1.9326b0p-3f));
    r = simd::fms(r, u, P(0x1.ff7c56p-3f));
    r = simd::fms(r, u, P(-0x1.5552e2p-2f));
    r = simd::fms(r, u, P(0x1.fffff8p-2f));
    const P h = simd::fms(u, r, P(-1.0f));  // 1 + u · R
    return simd::fms(u, h, -base);
}

}  // namespace tensorops::simd
TENSOROPS_SIMD_WARNINGS_END
