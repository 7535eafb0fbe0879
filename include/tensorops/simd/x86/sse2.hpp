// tensorops/simd/x86/sse2.hpp — the implementations of the vocabulary for x86 registers (isa::x86) and for 16-byte ones
// (isa::sse2): what every x86-64 CPU runs. Compiled where the build targets x86 and has xsimd.
//
// Integer products (multiply_integers) with vector instructions, modulo 2^N (the low half of each product is the same
// for signed and unsigned operands; xsimd 8.1 multiplies these lanes one at a time in the signed element type:
// signed overflow, and slow):
//   16-bit  pmullw;
//   32-bit  two pmuludq on even and odd lanes;
//   64-bit  lo·lo + ((lo·hi + hi·lo) << 32) from three pmuludq;
//   8-bit   pmullw on the even bytes and on the odd bytes shifted down, recombined.
// And 8- and 16-bit integers loaded widened to 32-bit lanes with SSE2 alone (unpacks; x86/sse41.hpp has pmovsx/pmovzx),
// a few bytes at a time composed in general registers (detail::load_low_bytes, which the wider registers use too).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../core/inline.hpp"
#include "../generic.hpp"
#include "../isa.hpp"
#include "../register.hpp"
#include "../warnings.hpp"

TENSOROPS_SIMD_WARNINGS_BEGIN  // simd/warnings.hpp
#if TENSOROPS_HAS_XSIMD && (defined(__x86_64__) || defined(_M_X64) || defined(__i386__))
#include <immintrin.h>

namespace tensorops::simd {

namespace detail {
/// The raw integer register (__m128i / __m256i / __m512i) of any x86 pack, and back: free reinterpretations
/// for the intrinsics that only exist on integer registers (byte shifts, shuffles, integer multiplies).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline auto as_bytes(const P& value) noexcept {
    using bytes = xsimd::batch<std::uint8_t, typename P::arch_type>;
    return static_cast<typename bytes::register_type>(xsimd_compat::bitwise_cast<bytes>(value));
}
template <class P, class Register>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P from_bytes(Register bits) noexcept {
    using bytes = xsimd::batch<std::uint8_t, typename P::arch_type>;
    return xsimd_compat::bitwise_cast<P>(bytes(bits));
}

/// The `Bytes` (4, 8 or 16) bytes at source in the low bytes of a register, zero above.
template <std::size_t Bytes>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline __m128i load_low(const void* source) noexcept {
    if constexpr (Bytes == 4) {
        int word;
        std::memcpy(&word, source, 4);
        return _mm_cvtsi32_si128(word);
    } else if constexpr (Bytes == 8) {
        return _mm_loadl_epi64(static_cast<const __m128i*>(source));
    } else {
        static_assert(Bytes == 16);
        return _mm_loadu_si128(static_cast<const __m128i*>(source));
    }
}

/// Stores the low `bytes` (≤ 16) bytes of `value` at destination; writes nothing past them. Plain stores, as
/// load_low_bytes composes its loads: the low 8 bytes if 8 remain (the high 8 then take their place), then one 4-, one
/// 2- and one 1-byte store as `bytes` has those bits — no masked store (slow on some x86 cores) and no array (a
/// compiler turns a copy loop into a call of memcpy).
[[TENSOROPS_ALWAYS_INLINE]] inline void store_low_bytes(void* destination, __m128i value, std::size_t bytes) noexcept {
    auto* at = static_cast<unsigned char*>(destination);
    if (bytes == 16) {
        _mm_storeu_si128(static_cast<__m128i*>(destination), value);
        return;
    }
    auto word = static_cast<std::uint64_t>(_mm_cvtsi128_si64(value));
    if (bytes >= 8) {
        std::memcpy(at, &word, 8);
        at += 8;
        bytes -= 8;
        word = static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(value, value)));
    }
    if (bytes & 4) {
        const auto four = static_cast<std::uint32_t>(word);
        std::memcpy(at, &four, 4);
        at += 4;
        word >>= 32;
    }
    if (bytes & 2) {
        const auto two = static_cast<std::uint16_t>(word);
        std::memcpy(at, &two, 2);
        at += 2;
        word >>= 16;
    }
    if (bytes & 1) *at = static_cast<unsigned char>(word);
}

/// The `bytes` (≤ 16) bytes at source in the low bytes of a register, zero above; reads nothing past them. Plain
/// loads, never a masked one (a masked load that misses the cache stalls on some x86 cores, where a plain load's line
/// is prefetched): one 16-byte load for 16 bytes; else the low 8 bytes by one 8-byte vector load if 8 remain, and the
/// rest (< 8 bytes) by one 4-byte vector load if it is 4, or composed in a general register from one 4-, one 2- and one
/// 1-byte load as it has those bits (a row length fixed for a whole call: the branches are predicted).
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline __m128i load_low_bytes(const void* source, std::size_t bytes) noexcept {
    const auto* at = static_cast<const unsigned char*>(source);
    if (bytes == 16) return _mm_loadu_si128(static_cast<const __m128i*>(source));
    const auto below_eight = [](const unsigned char* from, std::size_t count) {  // count < 8 bytes
        if (count == 4) {
            std::uint32_t four;
            std::memcpy(&four, from, 4);
            return _mm_cvtsi32_si128(static_cast<int>(four));
        }
        std::uint64_t word = 0;
        unsigned shift = 0;
        if (count & 4) {
            std::uint32_t four;
            std::memcpy(&four, from, 4);
            word = four;
            from += 4;
            shift = 32;
        }
        if (count & 2) {
            std::uint16_t two;
            std::memcpy(&two, from, 2);
            word |= std::uint64_t{two} << shift;
            from += 2;
            shift += 16;
        }
        if (count & 1) word |= std::uint64_t{*from} << shift;
        return _mm_cvtsi64_si128(static_cast<long long>(word));
    };
    if (bytes < 8) return below_eight(at, bytes);
    const __m128i low = _mm_loadl_epi64(static_cast<const __m128i*>(source));
    if (bytes == 8) return low;
    return _mm_unpacklo_epi64(low, below_eight(at + 8, bytes - 8));
}

/// The 8- or 16-bit integers T in the low bytes of `in` sign-extended (signed T) or zero-extended to the four 32-bit
/// lanes of P, with SSE2 alone: interleaved with zeros (zero-extension), or with themselves and shifted down
/// arithmetically (sign-extension: the value's bits land in the lane's top, its sign fills the rest).
template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P widen_low_128_sse2(__m128i in) noexcept {
    if constexpr (std::is_signed_v<T>) {
        const __m128i words = sizeof(T) == 1 ? _mm_srai_epi16(_mm_unpacklo_epi8(in, in), 8) : in;
        return from_bytes<P>(_mm_srai_epi32(_mm_unpacklo_epi16(words, words), 16));
    } else {
        const __m128i zero = _mm_setzero_si128();
        const __m128i words = sizeof(T) == 1 ? _mm_unpacklo_epi8(in, zero) : in;
        return from_bytes<P>(_mm_unpacklo_epi16(words, zero));
    }
}
}  // namespace detail

namespace kernel {

// ---------------------------------------------------------------------------------------------
// Every x86 register.

/// x86 floats, in three instructions: xsimd's max/min are maxps/minps (and their pd / 256 / 512 forms), so of max(a, b)
/// and max(b, a) one gives a and the other b where either is NaN (which is which changed in xsimd 14: xsimd_compat.hpp),
/// and both give the same bits elsewhere (up to the sign of a zero). OR-ing the two therefore yields the maximum where neither is NaN, and where
/// one is, ORs a NaN (exponent all ones, mantissa non-zero) with something: still a NaN. This replaces two NaN tests,
/// an or, an add and a blend (generic.hpp's form).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P max_propagate_nan(const P& a, const P& b, isa::x86) noexcept {
    if constexpr (std::is_floating_point_v<typename P::value_type>)
        return xsimd::bitwise_or(xsimd::max(a, b), xsimd::max(b, a));
    else
        return xsimd::max(a, b);
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P min_propagate_nan(const P& a, const P& b, isa::x86) noexcept {
    if constexpr (std::is_floating_point_v<typename P::value_type>)
        return xsimd::bitwise_or(xsimd::min(a, b), xsimd::min(b, a));
    else
        return xsimd::min(a, b);
}

/// One maxps, whose second operand wins where either is NaN.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P clamp_below_keeping_nan(const P& x, const P& floor, isa::x86) noexcept {
    return xsimd_compat::max_or_second(floor, x);
}

// ---------------------------------------------------------------------------------------------
// 16-byte registers.

template <class M>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline M and_not(const M& a, const M& b, isa::sse2) noexcept {
    // Dispatch on the lane type (vector register types as template arguments lose their attributes).
    using lane = typename M::batch_type::value_type;
    if constexpr (std::is_same_v<lane, float>) return M(_mm_andnot_ps(b, a));
    else if constexpr (std::is_same_v<lane, double>) return M(_mm_andnot_pd(b, a));
    else return M(_mm_andnot_si128(b, a));
}

template <class M>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline std::uint64_t lane_bits(const M& mask, isa::sse2) noexcept {
    using lane = typename M::batch_type::value_type;
    const auto bits = static_cast<typename M::register_type>(mask);
    if constexpr (std::is_same_v<lane, float>) return static_cast<std::uint32_t>(_mm_movemask_ps(bits));
    else if constexpr (std::is_same_v<lane, double>) return static_cast<std::uint32_t>(_mm_movemask_pd(bits));
    else if constexpr (sizeof(lane) == 4) return static_cast<std::uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(bits)));
    else if constexpr (sizeof(lane) == 8) return static_cast<std::uint32_t>(_mm_movemask_pd(_mm_castsi128_pd(bits)));
    else if constexpr (sizeof(lane) == 1) return static_cast<std::uint32_t>(_mm_movemask_epi8(bits));
    else return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(bits, bits))) & 0xFFu;
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P multiply_integers(const P& a, const P& b, isa::sse2) noexcept {
    constexpr std::size_t lane_bytes = sizeof(typename P::value_type);
    const __m128i x = detail::as_bytes(a), y = detail::as_bytes(b);
    if constexpr (lane_bytes == 2) {
        return detail::from_bytes<P>(_mm_mullo_epi16(x, y));
    } else if constexpr (lane_bytes == 4) {
        const __m128i even = _mm_mul_epu32(x, y);
        const __m128i odd = _mm_mul_epu32(_mm_srli_epi64(x, 32), _mm_srli_epi64(y, 32));
        return detail::from_bytes<P>(_mm_unpacklo_epi32(_mm_shuffle_epi32(even, 0x08), _mm_shuffle_epi32(odd, 0x08)));
    } else if constexpr (lane_bytes == 8) {
        const __m128i low = _mm_mul_epu32(x, y);
        const __m128i cross = _mm_add_epi64(_mm_mul_epu32(x, _mm_srli_epi64(y, 32)), _mm_mul_epu32(_mm_srli_epi64(x, 32), y));
        return detail::from_bytes<P>(_mm_add_epi64(low, _mm_slli_epi64(cross, 32)));
    } else {
        const __m128i low_bytes = _mm_set1_epi16(0x00FF);
        const __m128i even = _mm_mullo_epi16(x, y);
        const __m128i odd = _mm_mullo_epi16(_mm_srli_epi16(x, 8), _mm_srli_epi16(y, 8));
        return detail::from_bytes<P>(_mm_or_si128(_mm_and_si128(even, low_bytes), _mm_slli_epi16(odd, 8)));
    }
}

/// simd::load_partial of 8-, 16- and 32-bit lanes (not float16's and bfloat16's): the count · sizeof(T) bytes composed
/// in general registers (detail::load_low_bytes: nothing past them read), zero above, the fill selected into the lanes
/// from count on where it is not zero — as x86/avx2.hpp's masked loads. Not through an array: a register read back
/// whole from smaller stores stalls on them (store-to-load forwarding fails), at every short row. 64-bit lanes (one
/// element at most) keep the portable form, which measured as fast or faster (bench/journal/2026-11-30-compiled-paired.md).
template <class P, class T>
    requires(sizeof(T) <= 4)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_partial(const T* source, std::size_t count,
                                                             typename P::value_type fill, isa::sse2) noexcept {
    using C = typename P::value_type;
    const P loaded = detail::from_bytes<P>(detail::load_low_bytes(source, count * sizeof(T)));
    if (fill == C(0)) return loaded;  // the lanes above read as zero
    return xsimd::select(detail::lanes_below<P>(count), loaded, P(fill));
}

/// simd::store_partial: the count · sizeof(T) low bytes by detail::store_low_bytes.
template <class P, class T>
[[TENSOROPS_ALWAYS_INLINE]] inline void store_partial(T* destination, const P& value, std::size_t count, isa::sse2) noexcept {
    detail::store_low_bytes(destination, detail::as_bytes(value), count * sizeof(T));
}

/// 8- and 16-bit integers widened to 32-bit lanes (see simd::load_widened): the bytes loaded into the low bytes of a
/// register, widened by detail::widen_low_128_sse2 (x86/sse41.hpp: by one pmovsx/pmovzx where the build has SSE4.1).
template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_widened(const T* source, isa::sse2) noexcept {
    return detail::widen_low_128_sse2<P, T>(detail::load_low<P::size * sizeof(T)>(source));
}

/// load_widened of `count` elements, zero above: the bytes composed in general registers (detail::load_low_bytes).
template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_widened_partial(const T* source, std::size_t count,
                                                                     isa::sse2) noexcept {
    return detail::widen_low_128_sse2<P, T>(detail::load_low_bytes(source, count * sizeof(T)));
}

/// pslldq / psrldq: any byte count.
[[nodiscard]] constexpr bool shifts_bytes_in_register(isa::sse2, std::size_t) noexcept { return true; }

/// The register shifted towards higher lanes by Bytes bytes, zeros entering at the bottom.
template <std::size_t Bytes, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P shift_bytes_up(const P& value, isa::sse2) noexcept {
    return detail::from_bytes<P>(_mm_slli_si128(detail::as_bytes(value), Bytes));
}

/// The register shifted towards lower lanes by Bytes bytes, zeros entering at the top.
template <std::size_t Bytes, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P shift_bytes_down(const P& value, isa::sse2) noexcept {
    return detail::from_bytes<P>(_mm_srli_si128(detail::as_bytes(value), Bytes));
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P broadcast_last(const P& value, isa::sse2) noexcept {
    using C = typename P::value_type;
    const __m128i bits = detail::as_bytes(value);
    if constexpr (sizeof(C) == 4) {
        return detail::from_bytes<P>(_mm_shuffle_epi32(bits, 0xFF));
    } else if constexpr (sizeof(C) == 8) {
        return detail::from_bytes<P>(_mm_shuffle_epi32(bits, 0xEE));
    } else {
        // Bytes: pair byte 15 with itself first (it becomes word 7); words: copy word 7 to all.
        const __m128i words = sizeof(C) == 1 ? _mm_unpackhi_epi8(bits, bits) : bits;
        const __m128i high_words = _mm_shufflehi_epi16(words, 0xFF);
        return detail::from_bytes<P>(_mm_unpackhi_epi64(high_words, high_words));
    }
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P broadcast_first(const P& value, isa::sse2) noexcept {
    using C = typename P::value_type;
    const __m128i bits = detail::as_bytes(value);
    if constexpr (sizeof(C) == 4) {
        return detail::from_bytes<P>(_mm_shuffle_epi32(bits, 0x00));
    } else if constexpr (sizeof(C) == 8) {
        return detail::from_bytes<P>(_mm_shuffle_epi32(bits, 0x44));
    } else {
        // Bytes: pair byte 0 with itself first (it becomes word 0); words: copy word 0 to all.
        const __m128i words = sizeof(C) == 1 ? _mm_unpacklo_epi8(bits, bits) : bits;
        const __m128i low_words = _mm_shufflelo_epi16(words, 0x00);
        return detail::from_bytes<P>(_mm_unpacklo_epi64(low_words, low_words));
    }
}

/// pshufd: 32- and 64-bit lanes.
[[nodiscard]] constexpr bool permutes_in_register(isa::sse2, std::size_t lane_bytes) noexcept { return lane_bytes == 4 || lane_bytes == 8; }

/// pshufd for 32- and 64-bit lanes (a 64-bit lane is two 32-bit words).
template <class Pattern, class P>
    requires(sizeof(typename P::value_type) == 4 || sizeof(typename P::value_type) == 8)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P permute_constant(const P& value, isa::sse2) noexcept {
    constexpr auto source = [](std::size_t lane) { return static_cast<int>(Pattern::get(static_cast<unsigned>(lane), static_cast<unsigned>(P::size))); };
    if constexpr (sizeof(typename P::value_type) == 4) {
        constexpr int order = source(0) | source(1) << 2 | source(2) << 4 | source(3) << 6;
        return detail::from_bytes<P>(_mm_shuffle_epi32(detail::as_bytes(value), order));
    } else {
        constexpr int order = 2 * source(0) | (2 * source(0) + 1) << 2 | 2 * source(1) << 4 | (2 * source(1) + 1) << 6;
        return detail::from_bytes<P>(_mm_shuffle_epi32(detail::as_bytes(value), order));
    }
}

}  // namespace kernel
}  // namespace tensorops::simd
#endif
TENSOROPS_SIMD_WARNINGS_END
