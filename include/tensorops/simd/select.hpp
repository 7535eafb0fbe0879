// tensorops/simd/select.hpp — lane-wise selection and tests of packs (select, by a constant pattern too, masks,
// is_nan, any): part of pack.hpp's vocabulary, include pack.hpp.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../core/inline.hpp"
#include "implementations.hpp"
#include "pack.hpp"

namespace tensorops::simd {

/// Lane i is a[i] where condition[i], else b[i].
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P select(const mask_of<P>& condition, const P& a, const P& b) noexcept {
    return kernel::select<P>(condition, a, b, isa_of<P>{});
}

/// Lane i is a[i] where Pattern::get(i, P::size), else b[i]: a mask fixed at compile time.
/// x86 applies it as an immediate blend where one exists for the lanes: AVX2 registers of 32- or 64-bit lanes
/// (vpblendd), SSE4.1 registers of 16-bit lanes or wider (pblendw) — one instruction that is always inlined: xsimd
/// 8.1's select of a constant mask is an ordinary function, which GCC 12 -O2 left out of line in large kernels (the
/// narrow-row argmax: a call per blend). Elsewhere, with a vector mask (not AVX-512's k registers), the mask comes from
/// a constant in memory: one load and a variable blend (generic.hpp). With AVX-512, the mask register is loaded from
/// an immediate, for every lane type, and one masked blend applies it (x86/avx512.hpp).
template <class Pattern, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P select_constant(const P& a, const P& b) noexcept {
    return kernel::select_constant<Pattern>(a, b, isa_of<P>{});
}

/// Lanes holding NaN (none for integer registers). (xsimd's `!=` on floats is an ordered compare, false
/// for NaN, so `x != x` cannot be used to find NaN.)
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline mask_of<P> is_nan(const P& value) noexcept {
    if constexpr (!std::is_floating_point_v<typename P::value_type>) return mask_of<P>(false);
    else return kernel::is_nan(value, isa_of<P>{});
}

/// Lane i is a[i] where condition[i], else b[i], for a register Q whose lanes line up with the mask's
/// register P (same lane width).
template <class P, class Q>
    requires(sizeof(typename P::value_type) == sizeof(typename Q::value_type) && P::size == Q::size)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline Q select_lanes(const mask_of<P>& condition, const Q& a,
                                                             const Q& b) noexcept {
    return kernel::select_lanes<P>(condition, a, b, isa_of<P>{});
}

/// Lanes set in `a` and not in `b`. On x86 one and-not instruction: xsimd 8.1's `!` and `~` of an AVX2 float mask
/// compare its two halves with zero (four instructions), its bitwise_andnot puts the complement on `a` for vector
/// registers and on `b` for AVX-512 bit masks, and its `^` of AVX-512 masks is an or — none of them is used there.
template <class M>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline M and_not(const M& a, const M& b) noexcept {
    return kernel::and_not(a, b, mask_isa_of<M>{});
}

/// True when any lane of the mask is set.
template <class M>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline bool any(const M& condition) noexcept {
    return kernel::any(condition, mask_isa_of<M>{});
}

/// The lanes set in `mask` as the low bits of an integer, lane i at bit i (every register has at most 64 lanes). x86
/// vector masks (float lanes' in float registers, double lanes' in double registers, integer lanes' in integer ones)
/// in one movemask — of their floats or doubles for 4- and 8-byte lanes, of their bytes for 1-byte lanes,
/// of their 2-byte lanes packed to bytes first — and AVX-512's mask registers as they are; other masks lane by lane.
/// For a kernel that wants the first or last lane set among several vectors (locate_in_short_row), or the few set
/// lanes of one (for_each_set_lane).
template <class M>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline std::uint64_t lane_bits(const M& mask) noexcept {
    return kernel::lane_bits(mask, mask_isa_of<M>{});
}

/// Calls f(i) for every lane i set in `mask`, in increasing order: the set bits of lane_bits(mask). For a kernel that
/// looks into the few lanes of a vector that matched (arg_reduce_rows_by_extreme): the work follows the set lanes, not
/// the register's width (32 lanes of int8 at AVX2).
template <class M, class F>
[[TENSOROPS_ALWAYS_INLINE]] inline void for_each_set_lane(const M& mask, F&& f) {
    for (std::uint64_t bits = simd::lane_bits(mask); bits != 0; bits &= bits - 1) f(static_cast<std::size_t>(std::countr_zero(bits)));
}

namespace kernel {
/// any(and_not(a, b)): every register without a test instruction for it.
template <class M>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline bool any_and_not(const M& a, const M& b, isa::portable) noexcept {
    return simd::any(simd::and_not(a, b));
}
}  // namespace kernel

/// True when some lane is set in `a` and not in `b`: any(and_not(a, b)), in one instruction where masks are vector
/// registers of floats or doubles and AVX2 is there (vtestps / vtestpd: their carry flag tests b's complement and a).
template <class M>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline bool any_and_not(const M& a, const M& b) noexcept {
    return kernel::any_and_not(a, b, mask_isa_of<M>{});
}

}  // namespace tensorops::simd
