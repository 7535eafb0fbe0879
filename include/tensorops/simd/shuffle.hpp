// tensorops/simd/shuffle.hpp — moving lanes within a register: shifts by whole lanes and broadcasting the
// last lane (the building blocks of in-register prefix scans and of their carries), and permutations fixed at
// compile time (the narrow-row reduce kernel's regrouping of back-to-back rows).
//
// On x86 the shifts are byte shifts of the whole register, the same instructions for every element type:
// SSE2 `pslldq`/`psrldq`; AVX2 shifts within each 128-bit half and takes the bytes that cross the middle from
// a half-swapped copy (`vperm2i128` + `vpalignr`), which is cheaper than a general permute. Other
// architectures go through memory (correct, slower).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "pack.hpp"

namespace tensorops::simd {

namespace detail {

#if TENSOROPS_X86_INTRINSICS
/// The register shifted towards higher lanes by Bytes bytes, zeros entering at the bottom.
template <std::size_t Bytes, class P>
[[nodiscard, gnu::always_inline]] inline P shift_bytes_up(const P& value) noexcept {
    if constexpr (is_avx512_register<P>) {
        static_assert(Bytes % 4 == 0 && Bytes < 64, "64-byte registers shift by whole 32-bit words");
        return from_bytes<P>(_mm512_alignr_epi32(as_bytes(value), _mm512_setzero_si512(), 16 - Bytes / 4));
    } else if constexpr (is_avx2_register<P>) {
        const __m256i bits = as_bytes(value);
        const __m256i low_to_high = _mm256_permute2x128_si256(bits, bits, 0x08);  // [0, low half]
        if constexpr (Bytes < 16) return from_bytes<P>(_mm256_alignr_epi8(bits, low_to_high, 16 - Bytes));
        else if constexpr (Bytes == 16) return from_bytes<P>(low_to_high);
        else return from_bytes<P>(_mm256_slli_si256(low_to_high, Bytes - 16));
    } else {
        static_assert(is_sse2_register<P>);
        return from_bytes<P>(_mm_slli_si128(as_bytes(value), Bytes));
    }
}

/// Calls f(std::integral_constant<int, bytes>) for bytes = LaneBytes, 2·LaneBytes, … below 16: the shift
/// distances of a scan inside one 128-bit half.
template <std::size_t LaneBytes, int Bytes = static_cast<int>(LaneBytes), class F>
[[gnu::always_inline]] inline void for_each_in_half_step(F&& f) {
    if constexpr (Bytes < 16) {
        f(std::integral_constant<int, Bytes>{});
        for_each_in_half_step<LaneBytes, Bytes * 2>(f);
    }
}

/// The register shifted towards lower lanes by Bytes bytes, zeros entering at the top.
template <std::size_t Bytes, class P>
[[nodiscard, gnu::always_inline]] inline P shift_bytes_down(const P& value) noexcept {
    if constexpr (is_avx512_register<P>) {
        static_assert(Bytes % 4 == 0 && Bytes < 64, "64-byte registers shift by whole 32-bit words");
        return from_bytes<P>(_mm512_alignr_epi32(_mm512_setzero_si512(), as_bytes(value), Bytes / 4));
    } else if constexpr (is_avx2_register<P>) {
        const __m256i bits = as_bytes(value);
        const __m256i high_to_low = _mm256_permute2x128_si256(bits, bits, 0x81);  // [high half, 0]
        if constexpr (Bytes < 16) return from_bytes<P>(_mm256_alignr_epi8(high_to_low, bits, Bytes));
        else if constexpr (Bytes == 16) return from_bytes<P>(high_to_low);
        else return from_bytes<P>(_mm256_srli_si256(high_to_low, Bytes - 16));
    } else {
        static_assert(is_sse2_register<P>);
        return from_bytes<P>(_mm_srli_si128(as_bytes(value), Bytes));
    }
}
#else
// Declared so that the discarded branches below name something; never instantiated without x86.
template <std::size_t Bytes, class P>
P shift_bytes_up(const P& value) noexcept;
template <std::size_t Bytes, class P>
P shift_bytes_down(const P& value) noexcept;
#endif

/// Whether shift_bytes_up/down shift P by Bytes in registers: SSE2 and AVX2 registers by any byte count, 64-byte
/// registers by whole 32-bit words (valignd). Other shifts go through memory — a store-forwarding stall per shift,
/// which a short-row kernel's horizontal step pays once per row (for 64-byte registers: shifts by part of a word).
template <class P, std::size_t Bytes>
inline constexpr bool has_byte_shifts =
#if TENSOROPS_X86_INTRINSICS
    is_avx2_register<P> || is_sse2_register<P> || (is_avx512_register<P> && Bytes % 4 == 0);
#else
    false;
#endif

}  // namespace detail

/// Lane i of the result is lane i − K of `value` for i ≥ K, and `fill` for i < K (0 < K < P::size).
template <std::size_t K, class P>
    requires(K > 0 && K < P::size)
[[nodiscard, gnu::always_inline]] inline P shift_lanes_up(const P& value, typename P::value_type fill) noexcept {
    using C = typename P::value_type;
    if constexpr (detail::has_byte_shifts<P, K * sizeof(C)>) {
        const P shifted = detail::shift_bytes_up<K * sizeof(C)>(value);
        if (fill == C(0)) return shifted;
        return simd::select(detail::lanes_below<P>(K), P(fill), shifted);
    } else {
        const auto in = to_array(value);
        std::array<C, P::size> out;
        for (std::size_t i = 0; i < P::size; ++i) out[i] = i < K ? fill : in[i - K];
        return from_array<P>(out);
    }
}

/// Lane i of the result is lane i + K of `value` for i < P::size − K, and `fill` above (0 < K < P::size).
template <std::size_t K, class P>
    requires(K > 0 && K < P::size)
[[nodiscard, gnu::always_inline]] inline P shift_lanes_down(const P& value, typename P::value_type fill) noexcept {
    using C = typename P::value_type;
    if constexpr (detail::has_byte_shifts<P, K * sizeof(C)>) {
        const P shifted = detail::shift_bytes_down<K * sizeof(C)>(value);
        if (fill == C(0)) return shifted;
        return simd::select(detail::lanes_below<P>(P::size - K), shifted, P(fill));
    } else {
        const auto in = to_array(value);
        std::array<C, P::size> out;
        for (std::size_t i = 0; i < P::size; ++i) out[i] = i + K < P::size ? in[i + K] : fill;
        return from_array<P>(out);
    }
}

/// Every lane set to the last (highest) lane of `value`.
template <class P>
[[nodiscard, gnu::always_inline]] inline P broadcast_last(const P& value) noexcept {
#if TENSOROPS_X86_INTRINSICS
    using C = typename P::value_type;
    if constexpr (detail::is_avx2_register<P>) {
        const __m256i bits = detail::as_bytes(value);
        if constexpr (sizeof(C) == 4) {
            return detail::from_bytes<P>(_mm256_permutevar8x32_epi32(bits, _mm256_set1_epi32(7)));
        } else if constexpr (sizeof(C) == 8) {
            return detail::from_bytes<P>(_mm256_permute4x64_epi64(bits, 0xFF));
        } else {
            const __m256i high = _mm256_permute2x128_si256(bits, bits, 0x11);  // [high half, high half]
            const __m256i last_bytes = sizeof(C) == 2 ? _mm256_set1_epi16(0x0F0E) : _mm256_set1_epi8(15);
            return detail::from_bytes<P>(_mm256_shuffle_epi8(high, last_bytes));
        }
    } else if constexpr (detail::is_sse2_register<P>) {
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
#endif
    return P(to_array(value)[P::size - 1]);
}

/// Every lane set to the first (lowest) lane of `value`.
template <class P>
[[nodiscard, gnu::always_inline]] inline P broadcast_first(const P& value) noexcept {
#if TENSOROPS_X86_INTRINSICS
    using C = typename P::value_type;
    if constexpr (detail::is_avx2_register<P>) {
        const __m128i low = _mm256_castsi256_si128(detail::as_bytes(value));
        if constexpr (sizeof(C) == 1) return detail::from_bytes<P>(_mm256_broadcastb_epi8(low));
        else if constexpr (sizeof(C) == 2) return detail::from_bytes<P>(_mm256_broadcastw_epi16(low));
        else if constexpr (sizeof(C) == 4) return detail::from_bytes<P>(_mm256_broadcastd_epi32(low));
        else return detail::from_bytes<P>(_mm256_broadcastq_epi64(low));
    } else if constexpr (detail::is_sse2_register<P>) {
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
#endif
    return P(to_array(value)[0]);
}

/// Lane i of the result is lane Pattern::get(i, P::size) of `value` (< P::size): a permutation fixed at compile time,
/// for registers of 32- or 64-bit lanes one instruction on x86 (SSE2 `pshufd`, AVX2 `vpermd` / `vpermq`, AVX-512
/// `vpermd` / `vpermq` with a constant index register); other registers go through memory (correct, slower).
template <class Pattern, class P>
[[nodiscard, gnu::always_inline]] inline P permute_constant(const P& value) noexcept {
    using C = typename P::value_type;
    constexpr std::size_t W = P::size;
    if constexpr (W == 1) {
        return value;
    } else {
#if TENSOROPS_X86_INTRINSICS
        constexpr auto source = [](std::size_t lane) { return static_cast<int>(Pattern::get(static_cast<unsigned>(lane), static_cast<unsigned>(W))); };
        if constexpr (detail::is_avx2_register<P> && sizeof(C) == 4) {
            const __m256i lanes = _mm256_setr_epi32(source(0), source(1), source(2), source(3), source(4), source(5), source(6), source(7));
            return detail::from_bytes<P>(_mm256_permutevar8x32_epi32(detail::as_bytes(value), lanes));
        } else if constexpr (detail::is_avx2_register<P> && sizeof(C) == 8) {
            constexpr int order = source(0) | source(1) << 2 | source(2) << 4 | source(3) << 6;
            return detail::from_bytes<P>(_mm256_permute4x64_epi64(detail::as_bytes(value), order));
        } else if constexpr (detail::is_sse2_register<P> && sizeof(C) == 4) {
            constexpr int order = source(0) | source(1) << 2 | source(2) << 4 | source(3) << 6;
            return detail::from_bytes<P>(_mm_shuffle_epi32(detail::as_bytes(value), order));
        } else if constexpr (detail::is_sse2_register<P> && sizeof(C) == 8) {  // a 64-bit lane is two 32-bit words
            constexpr int order = 2 * source(0) | (2 * source(0) + 1) << 2 | 2 * source(1) << 4 | (2 * source(1) + 1) << 6;
            return detail::from_bytes<P>(_mm_shuffle_epi32(detail::as_bytes(value), order));
        }
#if defined(__AVX512F__)
        else if constexpr (detail::is_avx512_register<P> && sizeof(C) == 4) {
            const __m512i lanes = _mm512_setr_epi32(source(0), source(1), source(2), source(3), source(4), source(5), source(6), source(7), source(8),
                                                    source(9), source(10), source(11), source(12), source(13), source(14), source(15));
            return detail::from_bytes<P>(_mm512_permutexvar_epi32(lanes, detail::as_bytes(value)));
        } else if constexpr (detail::is_avx512_register<P> && sizeof(C) == 8) {
            const __m512i lanes = _mm512_setr_epi64(source(0), source(1), source(2), source(3), source(4), source(5), source(6), source(7));
            return detail::from_bytes<P>(_mm512_permutexvar_epi64(lanes, detail::as_bytes(value)));
        }
#endif
        else
#endif
        {
            const auto in = to_array(value);
            std::array<C, W> out;
            for (std::size_t i = 0; i < W; ++i) out[i] = in[Pattern::get(static_cast<unsigned>(i), static_cast<unsigned>(W))];
            return from_array<P>(out);
        }
    }
}

}  // namespace tensorops::simd
