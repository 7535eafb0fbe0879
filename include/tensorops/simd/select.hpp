// tensorops/simd/select.hpp — lane-wise selection and tests of packs (select, by a constant pattern too, masks,
// is_nan, any): part of pack.hpp's vocabulary, include pack.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "pack.hpp"

namespace tensorops::simd {

// ---------------------------------------------------------------------------------------------
// Lane-wise selection and tests.

/// Lane i is a[i] where condition[i], else b[i].
template <class P>
[[nodiscard, gnu::always_inline]] inline P select(const mask_of<P>& condition, const P& a, const P& b) noexcept {
#if TENSOROPS_HAS_XSIMD
    return xsimd::select(condition, a, b);
#else
    return condition.value ? a : b;
#endif
}

namespace detail {
/// The unsigned integer of `Bytes` bytes.
template <std::size_t Bytes>
struct unsigned_of_size;
template <> struct unsigned_of_size<1> { using type = std::uint8_t; };
template <> struct unsigned_of_size<2> { using type = std::uint16_t; };
template <> struct unsigned_of_size<4> { using type = std::uint32_t; };
template <> struct unsigned_of_size<8> { using type = std::uint64_t; };

/// The immediate of an x86 blend whose elements are `Element` bytes wide (the blend instruction's granule) for the
/// lanes of P that Pattern selects: bit e set where element e lies in a selected lane.
template <class Pattern, class P, std::size_t Element>
inline constexpr int blend_immediate = [] {
    constexpr std::size_t lane = sizeof(typename P::value_type), per_lane = lane / Element;
    int bits = 0;
    for (std::size_t i = 0; i < P::size; ++i)
        if (Pattern::get(static_cast<unsigned>(i), P::size))
            for (std::size_t e = 0; e < per_lane; ++e) bits |= 1 << (i * per_lane + e);
    return bits;
}();
}  // namespace detail

/// Lane i is a[i] where Pattern::get(i, P::size), else b[i]: a mask fixed at compile time.
/// x86 applies it as an immediate blend where one exists for the lanes: AVX2 registers of 32- or 64-bit lanes
/// (vpblendd), SSE4.1 registers of 16-bit lanes or wider (pblendw) — written here with intrinsics, one instruction
/// that is always inlined: xsimd 8.1's select of a constant mask is an ordinary function, which GCC 12 -O2 left out
/// of line in large kernels (the narrow-row argmax: a call per blend).
/// Elsewhere, with a vector mask (not AVX-512's k registers), the mask comes from a constant in memory: one load and a
/// variable blend (or, without SSE4.1, and / and-not / or) — xsimd builds one from a bool a lane at run time for byte
/// and 16-bit integer lanes, a call that GCC 12 -O2 leaves out of line (in the loop of an int8 SUM over rows, among
/// others). With AVX-512 masks, byte and 16-bit lanes get their mask as an immediate; other lanes xsimd's select.
template <class Pattern, class P>
[[nodiscard, gnu::always_inline]] inline P select_constant(const P& a, const P& b) noexcept {
#if TENSOROPS_HAS_XSIMD
    using V = typename P::value_type;
    constexpr bool vector_mask = sizeof(mask_of<P>) == sizeof(P);  // a mask in a vector register (not AVX-512's k)
#if TENSOROPS_X86_INTRINSICS && defined(__AVX2__)
    constexpr bool blend_dwords = detail::is_avx2_register<P> && sizeof(V) >= 4;
#else
    constexpr bool blend_dwords = false;
#endif
#if TENSOROPS_X86_INTRINSICS && defined(__SSE4_1__)
    constexpr bool blend_words = detail::is_sse2_register<P> && sizeof(V) >= 2;
#else
    constexpr bool blend_words = false;
#endif
    if constexpr (blend_dwords) {
#if TENSOROPS_X86_INTRINSICS && defined(__AVX2__)
        constexpr int immediate = detail::blend_immediate<Pattern, P, 4>;  // named: clang's intrinsics are macros
        return detail::from_bytes<P>(_mm256_blend_epi32(detail::as_bytes(b), detail::as_bytes(a), immediate));
#endif
    } else if constexpr (blend_words) {
#if TENSOROPS_X86_INTRINSICS && defined(__SSE4_1__)
        constexpr int immediate = detail::blend_immediate<Pattern, P, 2>;
        return detail::from_bytes<P>(_mm_blend_epi16(detail::as_bytes(b), detail::as_bytes(a), immediate));
#endif
    } else if constexpr (vector_mask) {
        using U = typename detail::unsigned_of_size<sizeof(V)>::type;
        alignas(64) static constexpr std::array<U, P::size> lanes = [] {
            std::array<U, P::size> values{};
            for (std::size_t i = 0; i < P::size; ++i) values[i] = Pattern::get(static_cast<unsigned>(i), P::size) ? static_cast<U>(~U(0)) : U(0);
            return values;
        }();
        const P bits = xsimd::bitwise_cast<P>(xsimd::batch<U, typename P::arch_type>::load_aligned(lanes.data()));
        return xsimd::select(mask_of<P>(static_cast<typename P::register_type>(bits)), a, b);
    } else if constexpr (std::is_integral_v<V> && sizeof(V) <= 2) {
        // AVX-512 with byte or 16-bit lanes: xsimd builds the mask register from bools too; give it as an immediate.
        constexpr std::uint64_t bits = [] {
            std::uint64_t set = 0;
            for (std::size_t i = 0; i < P::size; ++i)
                if (Pattern::get(static_cast<unsigned>(i), P::size)) set |= std::uint64_t{1} << i;
            return set;
        }();
        return xsimd::select(mask_of<P>(static_cast<typename mask_of<P>::register_type>(bits)), a, b);
    } else {
        return xsimd::select(xsimd::make_batch_bool_constant<P, Pattern>(), a, b);
    }
#else
    return Pattern::get(0, 1) ? a : b;
#endif
}

/// Lanes holding NaN (none for integer registers). (xsimd's `!=` on floats is an ordered compare, false
/// for NaN, so `x != x` cannot be used to find NaN.)
template <class P>
[[nodiscard, gnu::always_inline]] inline mask_of<P> is_nan(const P& value) noexcept {
    if constexpr (!std::is_floating_point_v<typename P::value_type>) return mask_of<P>(false);
#if TENSOROPS_HAS_XSIMD
    else return xsimd::isnan(value);
#else
    else return scalar_mask{value.value != value.value};
#endif
}

namespace detail {
template <class P>
struct lane_index_of {
#if TENSOROPS_HAS_XSIMD
    using type = xsimd::batch<typename unsigned_of_size<sizeof(typename P::value_type)>::type, typename P::arch_type>;
#else
    using type = scalar_pack<typename unsigned_of_size<sizeof(typename P::value_type)>::type>;
#endif
};
}  // namespace detail

/// An unsigned integer register with the lanes of P (same count, same width): what per-lane positions are
/// kept in beside a register of values.
template <class P>
using lane_index_pack = typename detail::lane_index_of<P>::type;

/// Lane i is a[i] where condition[i], else b[i], for a register Q whose lanes line up with the mask's
/// register P (same lane width).
template <class P, class Q>
    requires(sizeof(typename P::value_type) == sizeof(typename Q::value_type) && P::size == Q::size)
[[nodiscard, gnu::always_inline]] inline Q select_lanes(const mask_of<P>& condition, const Q& a, const Q& b) noexcept {
#if TENSOROPS_HAS_XSIMD
    return xsimd::bitwise_cast<Q>(xsimd::select(condition, xsimd::bitwise_cast<P>(a), xsimd::bitwise_cast<P>(b)));
#else
    return condition.value ? a : b;
#endif
}

/// Lanes set in `a` and not in `b`. On x86 one and-not instruction: xsimd 8.1's `!` and `~` of an AVX2 float mask
/// compare its two halves with zero (four instructions), its bitwise_andnot puts the complement on `a` for vector
/// registers and on `b` for AVX-512 bit masks, and its `^` of AVX-512 masks is an or — none of them is used here.
template <class M>
[[nodiscard, gnu::always_inline]] inline M and_not(const M& a, const M& b) noexcept {
#if TENSOROPS_HAS_XSIMD
#if TENSOROPS_X86_INTRINSICS
    // Dispatch on the mask's size and lane type (vector register types as template arguments lose their attributes).
    using lane = typename M::batch_type::value_type;
    constexpr bool is_float = std::is_same_v<lane, float>, is_double = std::is_same_v<lane, double>;
    if constexpr (sizeof(M) <= 8) {  // an AVX-512 bit mask
        using bits = std::remove_cvref_t<decltype(a.data)>;
        return M(static_cast<bits>(a.data & ~b.data));
    } else if constexpr (sizeof(M) == 16) {
        if constexpr (is_float) return M(_mm_andnot_ps(b, a));
        else if constexpr (is_double) return M(_mm_andnot_pd(b, a));
        else return M(_mm_andnot_si128(b, a));
    }
#if defined(__AVX2__)
    else if constexpr (sizeof(M) == 32) {
        if constexpr (is_float) return M(_mm256_andnot_ps(b, a));
        else if constexpr (is_double) return M(_mm256_andnot_pd(b, a));
        else return M(_mm256_andnot_si256(b, a));
    }
#endif
    else return a & !b;
#else
    return a & !b;
#endif
#else
    return {a.value && !b.value};
#endif
}

/// True when any lane of the mask is set.
template <class M>
[[nodiscard, gnu::always_inline]] inline bool any(const M& condition) noexcept {
#if TENSOROPS_HAS_XSIMD
    return xsimd::any(condition);
#else
    return condition.value;
#endif
}

/// The lanes set in `mask` as the low bits of an integer, lane i at bit i (every register has at most 64 lanes). x86
/// vector masks (float lanes' in float registers, double lanes' in double registers, integer lanes' in integer ones)
/// in one movemask — of their floats or doubles for 4- and 8-byte lanes, of their bytes for 1-byte lanes,
/// of their 2-byte lanes packed to bytes first — and AVX-512's mask registers as they are; other masks lane by lane.
/// For a kernel that wants the first or last lane set among several vectors (locate_in_short_row), or the few set
/// lanes of one (for_each_set_lane).
template <class M>
[[nodiscard, gnu::always_inline]] inline std::uint64_t lane_bits(const M& mask) noexcept {
#if TENSOROPS_HAS_XSIMD
    using P = typename M::batch_type;
    using lane = typename P::value_type;
#if TENSOROPS_X86_INTRINSICS
    using R = typename M::register_type;
    constexpr bool mask_register = detail::is_avx512_register<P> && sizeof(M) != sizeof(P);  // a bit a lane
    if constexpr (mask_register || detail::is_avx2_register<P> || detail::is_sse2_register<P>) {
        const R bits = static_cast<R>(mask);
        if constexpr (mask_register) {
            return static_cast<std::uint64_t>(bits);
        } else if constexpr (sizeof(R) == 32) {
            if constexpr (std::is_same_v<lane, float>) return static_cast<std::uint32_t>(_mm256_movemask_ps(bits));
            else if constexpr (std::is_same_v<lane, double>) return static_cast<std::uint32_t>(_mm256_movemask_pd(bits));
            else if constexpr (sizeof(lane) == 4) return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(bits)));
            else if constexpr (sizeof(lane) == 8) return static_cast<std::uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(bits)));
            else if constexpr (sizeof(lane) == 1) return static_cast<std::uint32_t>(_mm256_movemask_epi8(bits));
            else {  // 2-byte lanes: packed to bytes within each 128-bit half, [lanes 0–7, again, lanes 8–15, again]
                const auto bytes = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_packs_epi16(bits, bits)));
                return (bytes & 0xFFu) | ((bytes >> 8) & 0xFF00u);
            }
        } else {
            if constexpr (std::is_same_v<lane, float>) return static_cast<std::uint32_t>(_mm_movemask_ps(bits));
            else if constexpr (std::is_same_v<lane, double>) return static_cast<std::uint32_t>(_mm_movemask_pd(bits));
            else if constexpr (sizeof(lane) == 4) return static_cast<std::uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(bits)));
            else if constexpr (sizeof(lane) == 8) return static_cast<std::uint32_t>(_mm_movemask_pd(_mm_castsi128_pd(bits)));
            else if constexpr (sizeof(lane) == 1) return static_cast<std::uint32_t>(_mm_movemask_epi8(bits));
            else return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(bits, bits))) & 0xFFu;
        }
    }
#endif
    alignas(64) bool set[P::size];
    mask.store_aligned(set);
    std::uint64_t bits = 0;
    for (std::size_t i = 0; i < P::size; ++i) bits |= static_cast<std::uint64_t>(set[i]) << i;
    return bits;
#else
    return mask.value ? 1u : 0u;
#endif
}

/// Calls f(i) for every lane i set in `mask`, in increasing order: the set bits of lane_bits(mask). For a kernel that
/// looks into the few lanes of a vector that matched (arg_reduce_rows_by_extreme): the work follows the set lanes, not
/// the register's width (32 lanes of int8 at AVX2).
template <class M, class F>
[[gnu::always_inline]] inline void for_each_set_lane(const M& mask, F&& f) {
    for (std::uint64_t bits = simd::lane_bits(mask); bits != 0; bits &= bits - 1) f(static_cast<std::size_t>(std::countr_zero(bits)));
}

/// True when some lane is set in `a` and not in `b`: any(and_not(a, b)), in one instruction where masks are vector
/// registers of floats or doubles and AVX is there (vtestps / vtestpd: their carry flag tests b's complement and a).
template <class M>
[[nodiscard, gnu::always_inline]] inline bool any_and_not(const M& a, const M& b) noexcept {
#if TENSOROPS_X86_INTRINSICS && defined(__AVX__)
    using lane = typename M::batch_type::value_type;  // masks of vector registers (AVX-512 has bit masks, of 1–8 bytes)
    constexpr bool is_float = std::is_same_v<lane, float>, is_double = std::is_same_v<lane, double>;
    if constexpr (sizeof(M) == 32 && is_float) return _mm256_testc_ps(b, a) == 0;
    else if constexpr (sizeof(M) == 32 && is_double) return _mm256_testc_pd(b, a) == 0;
    else if constexpr (sizeof(M) == 16 && is_float) return _mm_testc_ps(b, a) == 0;
    else if constexpr (sizeof(M) == 16 && is_double) return _mm_testc_pd(b, a) == 0;
    else return simd::any(simd::and_not(a, b));
#else
    return simd::any(simd::and_not(a, b));
#endif
}

}  // namespace tensorops::simd
