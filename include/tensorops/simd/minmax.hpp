// tensorops/simd/minmax.hpp — minimum and maximum that propagate NaN, for lanes and for scalars.
//
// x86 `maxps`/`minps` return their second operand when either is NaN, so a raw vector max silently drops
// a NaN depending on lane order. These functions return NaN whenever either operand is NaN (SEMANTICS.md
// §4), in every lane, whatever the order. Which of two zeros (+0, −0) is returned is unspecified.
//
// x86 floats, in three instructions: xsimd's max/min are maxps/minps (and their pd / 256 / 512 forms) with the
// operands in order, so max(a, b) gives b and max(b, a) gives a where either is NaN, and both give the same
// bits elsewhere (up to the sign of a zero). OR-ing the two therefore yields the maximum where neither is
// NaN, and where one is, ORs a NaN (exponent all ones, mantissa non-zero) with something: still a NaN. This
// replaces two NaN tests, an or, an add and a blend (the portable form below, used off x86).
#pragma once

#include <type_traits>

#include "pack.hpp"

namespace tensorops::simd {

/// The larger of a and b; NaN if either is NaN.
template <class C>
    requires std::is_arithmetic_v<C>
[[nodiscard]] constexpr C max_propagate_nan(C a, C b) noexcept {
    if constexpr (std::is_floating_point_v<C>)
        if (a != a || b != b) return a + b;  // a NaN operand makes the sum NaN
    return a < b ? b : a;
}

/// The smaller of a and b; NaN if either is NaN.
template <class C>
    requires std::is_arithmetic_v<C>
[[nodiscard]] constexpr C min_propagate_nan(C a, C b) noexcept {
    if constexpr (std::is_floating_point_v<C>)
        if (a != a || b != b) return a + b;
    return b < a ? b : a;
}

/// Lane-wise larger of a and b; NaN in every lane where either is NaN.
template <class P>
    requires(!std::is_arithmetic_v<P>)
[[nodiscard, gnu::always_inline]] inline P max_propagate_nan(const P& a, const P& b) noexcept {
#if TENSOROPS_X86_INTRINSICS
    if constexpr (std::is_floating_point_v<typename P::value_type>)
        return xsimd::bitwise_or(xsimd::max(a, b), xsimd::max(b, a));  // see "x86 floats" above
    else
        return xsimd::max(a, b);
#elif TENSOROPS_HAS_XSIMD
    if constexpr (std::is_floating_point_v<typename P::value_type>)
        return simd::select(simd::is_nan(a) | simd::is_nan(b), a + b, xsimd::max(a, b));
    else
        return xsimd::max(a, b);
#else
    return P(max_propagate_nan(a.value, b.value));
#endif
}

/// Lane-wise smaller of a and b; NaN in every lane where either is NaN.
template <class P>
    requires(!std::is_arithmetic_v<P>)
[[nodiscard, gnu::always_inline]] inline P min_propagate_nan(const P& a, const P& b) noexcept {
#if TENSOROPS_X86_INTRINSICS
    if constexpr (std::is_floating_point_v<typename P::value_type>)
        return xsimd::bitwise_or(xsimd::min(a, b), xsimd::min(b, a));  // see "x86 floats" above
    else
        return xsimd::min(a, b);
#elif TENSOROPS_HAS_XSIMD
    if constexpr (std::is_floating_point_v<typename P::value_type>)
        return simd::select(simd::is_nan(a) | simd::is_nan(b), a + b, xsimd::min(a, b));
    else
        return xsimd::min(a, b);
#else
    return P(min_propagate_nan(a.value, b.value));
#endif
}

/// The larger of a and b per lane where neither is NaN; a or b, unspecified which, where one is: one maxps on x86,
/// for kernels that catch NaN some other way (the NaN-propagating max_propagate_nan costs three).
template <class P>
    requires(!std::is_arithmetic_v<P>)
[[nodiscard, gnu::always_inline]] inline P max_ignoring_nan(const P& a, const P& b) noexcept {
#if TENSOROPS_HAS_XSIMD
    return xsimd::max(a, b);
#else
    return P(a.value < b.value ? b.value : a.value);
#endif
}

/// x, or `floor` where x < floor, per floating lane; NaN where x is NaN (a clamp that lets a NaN through to
/// what follows, for kernels that detect it there). One maxps on x86, whose second operand wins where either is NaN.
template <class P>
    requires(!std::is_arithmetic_v<P>)
[[nodiscard, gnu::always_inline]] inline P clamp_below_keeping_nan(const P& x, const P& floor) noexcept {
#if TENSOROPS_X86_INTRINSICS
    return xsimd::max(floor, x);
#elif TENSOROPS_HAS_XSIMD
    return simd::select(x < floor, floor, x);
#else
    return P(x.value < floor.value ? floor.value : x.value);
#endif
}

}  // namespace tensorops::simd
