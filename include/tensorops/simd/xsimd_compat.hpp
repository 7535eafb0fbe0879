// tensorops/simd/xsimd_compat.hpp — the one place that includes xsimd and names the parts of it that differ between
// its versions.
//
// xsimd is used when its header is reachable and the consumer has not defined TENSOROPS_NO_XSIMD; without it every
// register is one lane wide (scalar.hpp) and the same kernels run as scalar code. The register width is whatever the
// consumer's compiler targets (-march): the library never forces an instruction set.
//
// Versions: xsimd 8.1 to 14 (tested: 8.1, 9, 10, 11, 12, 13, 14 — the README's compatibility section); an older xsimd
// stops the build with an #error (define TENSOROPS_NO_XSIMD to build without it), a newer one is taken as 14.
//
// What this file vouches for, and the rest of simd/ relies on, unchanged from 8.1 to 14: xsimd's batch and batch_bool
// with their arch_type, register_type and batch_bool_type, construction from and conversion to the raw register,
// the mask's `data` member, load/store_(un)aligned, their arithmetic, comparisons and shifts, as_integer_t, and the
// functions simd/ calls by name (select of a mask, isnan, any, max, min, abs, sqrt, fma, fms, fnma, nearbyint,
// to_float, bitwise_or). What changed between versions is mapped here, keyed on XSIMD_VERSION_MAJOR, and
// simd/ reaches it only through this file:
//   bitwise_cast       8–10 take the target batch type, 11 on the target lane type  -> xsimd_compat::bitwise_cast<P>
//   make_batch_bool_constant  8–12 <batch, generator>, 13 <lane, arch, generator>, 14 <lane, generator, arch>
//                                                                                   -> xsimd_compat::constant_mask<P, G>
//   max, min (x86)     8–13 maxps(a, b), 14 maxps(b, a): which operand a NaN or a tie of zeros yields
//                                                                -> xsimd_compat::max_or_second, min_or_second
//   architectures      12 adds AVX-512 VNNI/VBMI/IFMA architectures, 14 avx512vl and narrow AVX2 / AVX-512VL registers
//                      (avx2_128, avx512vl_128, avx512vl_256) and renames `generic` to `common` (not named here).
//                      The registers are always xsimd's default architecture (batch<T>), the best of its list that the
//                      compiler targets: at x86-64, x86-64-v3 and x86-64-v4 it is sse2, fma3<avx2> and avx512bw in
//                      every version (the narrow ones only come first for none of those), so the tags below are the
//                      same everywhere.
// xsimd's math library (exp, log, exp2), whose float results changed in 10.0 and 11.2, is not used: the library's own
// (generic_math.hpp) gives every version the same bits, which tools/test-xsimd.sh's output digest checks.
#pragma once

#include <cstddef>
#include <type_traits>

#include "../core/inline.hpp"
#include "isa.hpp"
#include "warnings.hpp"

TENSOROPS_SIMD_WARNINGS_BEGIN  // simd/warnings.hpp
#if !defined(TENSOROPS_NO_XSIMD) && __has_include(<xsimd/xsimd.hpp>)
#include <xsimd/xsimd.hpp>

#if !defined(XSIMD_VERSION_MAJOR) || XSIMD_VERSION_MAJOR < 8 || (XSIMD_VERSION_MAJOR == 8 && XSIMD_VERSION_MINOR < 1)
#error "tensorops needs xsimd 8.1 or later (or define TENSOROPS_NO_XSIMD to build its scalar paths without xsimd)"
#define TENSOROPS_HAS_XSIMD 0  // the rest compiles as scalar code: the error above is the only one
#else
#define TENSOROPS_HAS_XSIMD 1

namespace tensorops::simd::xsimd_compat {

/// The bits of register `from` as register To, a batch of the same width and architecture: no instruction, no
/// rounding, any lane type to any other (float lanes keep NaN payloads and signs).
template <class To, class From>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline To bitwise_cast(const From& from) noexcept {
#if XSIMD_VERSION_MAJOR >= 11
    return xsimd::bitwise_cast<typename To::value_type>(from);
#else
    return xsimd::bitwise_cast<To>(from);
#endif
}

/// xsimd's compile-time mask for register P whose lane i is Pattern::get(i, P::size) (a type with a static constexpr
/// `get(unsigned, std::size_t)`): an object convertible to P's batch_bool that xsimd::select takes as a constant.
template <class P, class Pattern>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] constexpr auto constant_mask() noexcept {
#if XSIMD_VERSION_MAJOR >= 14
    return xsimd::make_batch_bool_constant<typename P::value_type, Pattern, typename P::arch_type>();
#elif XSIMD_VERSION_MAJOR == 13
    return xsimd::make_batch_bool_constant<typename P::value_type, typename P::arch_type, Pattern>();
#else
    return xsimd::make_batch_bool_constant<P, Pattern>();
#endif
}

/// Whether xsimd architecture A is an x86 one (8.1 to 14: every x86 architecture derives from sse2, avx or avx512f).
template <class A>
inline constexpr bool is_x86 =
    std::is_base_of_v<xsimd::sse2, A> || std::is_base_of_v<xsimd::avx, A> || std::is_base_of_v<xsimd::avx512f, A>;

/// Lane-wise a where a > b, else b: on x86 floating lanes one maxps with the operands in this order — b where either is
/// NaN, b of two zeros — which kernels rely on to let a NaN through a clamp (clamp_below_keeping_nan, exp_shifted) and
/// to match their AVX-512 forms bit for bit (max_ignoring_nan). xsimd 8–13's max(a, b) is maxps(a, b); 14 swapped the
/// operands of its x86 max and min (maxps(b, a): a where either is NaN), so there the call is max(b, a). Other
/// architectures and integer lanes: xsimd's max(a, b).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P max_or_second(const P& a, const P& b) noexcept {
#if XSIMD_VERSION_MAJOR >= 14
    if constexpr (is_x86<typename P::arch_type>) return xsimd::max(b, a);
    else return xsimd::max(a, b);
#else
    return xsimd::max(a, b);
#endif
}

/// Lane-wise a where a < b, else b: min's counterpart of max_or_second (minps with these operands on x86 floating lanes:
/// b where either is NaN, b of two zeros), whatever the xsimd version.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P min_or_second(const P& a, const P& b) noexcept {
#if XSIMD_VERSION_MAJOR >= 14
    if constexpr (is_x86<typename P::arch_type>) return xsimd::min(b, a);
    else return xsimd::min(a, b);
#else
    return xsimd::min(a, b);
#endif
}

/// The tag (isa.hpp) of xsimd register P: by its width and the architecture it was built for.
template <class P, class A = typename P::arch_type, std::size_t Bytes = sizeof(typename P::register_type)>
using register_isa = std::conditional_t<
    Bytes == 64 && std::is_base_of_v<xsimd::avx512bw, A>, isa::avx512bw,
    std::conditional_t<
        Bytes == 64 && std::is_base_of_v<xsimd::avx512f, A>, isa::avx512,
        std::conditional_t<Bytes == 32 && std::is_base_of_v<xsimd::avx2, A>, isa::avx2,
                           std::conditional_t<Bytes == 16 && std::is_base_of_v<xsimd::sse4_1, A>, isa::sse41,
                                              std::conditional_t<Bytes == 16 && std::is_base_of_v<xsimd::sse2, A>, isa::sse2,
                                                                 std::conditional_t<is_x86<A>, isa::x86, isa::generic>>>>>>;

/// Whether xsimd's fma and fms on register P are one instruction, rounded once: x86 with FMA (the fma3
/// architectures; AVX-512F has it) and 64-bit Arm.
template <class P, class A = typename P::arch_type>
inline constexpr bool fuses_multiply_add =
    std::is_base_of_v<xsimd::fma3<xsimd::sse4_2>, A> || std::is_base_of_v<xsimd::fma3<xsimd::avx>, A> ||
    std::is_base_of_v<xsimd::fma3<xsimd::avx2>, A> || std::is_base_of_v<xsimd::avx512f, A> || std::is_base_of_v<xsimd::neon64, A>;

}  // namespace tensorops::simd::xsimd_compat
#endif  // xsimd 8.1 or later
#else
#define TENSOROPS_HAS_XSIMD 0
#endif
TENSOROPS_SIMD_WARNINGS_END
