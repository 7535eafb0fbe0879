// tensorops/simd/log_normal.hpp — ln x per lane for x known to be a positive normal number (the sums of a
// log-sum-exp's terms once its maximum is finite), inlined, without the special cases of simd::log.
//
// Algorithm (float lanes): detail::log_float_parts (generic_math.hpp: x = 2^k · m, m in [2/3, 4/3), ln m by a
// polynomial in m − 1), then ln x = k · ln 2 + ln m in one fused multiply-add with ln 2 rounded to float: its error,
// |k| · 1.9·10⁻⁹, stays below a tenth of an ulp of ln x for every k. Sixteen vector instructions, against a call (the
// registers spilled around it) and the special cases of simd::log.
// Nothing in it can be contracted differently by a compiler in different inlined copies or with a caller's sum: its
// products feed fused multiply-adds as multiplicands, and it ends in one (see simd::exp_shifted's comment in
// math.hpp). Double lanes and builds without xsimd take simd::log.
// Built from detail::log_float_parts, detail::multiply_add and simd::log only: no instruction-set code of its own.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../core/inline.hpp"
#include "math.hpp"
#include "pack.hpp"
#include "warnings.hpp"

TENSOROPS_SIMD_WARNINGS_BEGIN  // simd/warnings.hpp
namespace tensorops::simd {

/// ln x per lane for x positive, finite and normal (at least the type's smallest normal): about 1 ulp in float lanes.
/// Other x give unspecified values (0, subnormals, infinities, NaN, negative numbers: no special cases), without
/// undefined behaviour. Double lanes: simd::log.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P log_of_normal(const P& x) noexcept {
#if TENSOROPS_HAS_XSIMD
    if constexpr (std::is_same_v<typename P::value_type, float>) {
        const auto parts = detail::log_float_parts(x);
        return detail::multiply_add(parts.exponent, P(ln2_float), parts.log_mantissa);
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
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P add_log1p_small(const P& base, const P& u) noexcept {
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
