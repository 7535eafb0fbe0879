// tensorops/simd/arithmetic.hpp — lane-wise arithmetic whose xsimd form is unsafe or slow.
//
// xsimd 8.1 multiplies 8-bit lanes (AVX2), 64-bit lanes (AVX2) and every integer lane (SSE2) one lane at a time
// in the signed element type: signed overflow, i.e. undefined behaviour, and slow. `simd::mul` multiplies
// integer lanes modulo 2^N with vector instructions instead (the low half of each product is the same for
// signed and unsigned operands):
//   16-bit  pmullw;
//   32-bit  pmulld (AVX2), or two pmuludq on even and odd lanes (SSE2);
//   64-bit  lo·lo + ((lo·hi + hi·lo) << 32) from three pmuludq;
//   8-bit   pmullw on the even bytes and on the odd bytes shifted down, recombined.
// Floating lanes use the ordinary multiply. Other architectures multiply lane by lane in unsigned arithmetic.
#pragma once

#include <cstddef>
#include <type_traits>

#include "pack.hpp"

namespace tensorops::simd {

namespace detail {
#if TENSOROPS_X86_INTRINSICS
template <std::size_t LaneBytes>
[[nodiscard, gnu::always_inline]] inline __m128i multiply_lanes(__m128i a, __m128i b) noexcept {
    if constexpr (LaneBytes == 2) {
        return _mm_mullo_epi16(a, b);
    } else if constexpr (LaneBytes == 4) {
        const __m128i even = _mm_mul_epu32(a, b);
        const __m128i odd = _mm_mul_epu32(_mm_srli_epi64(a, 32), _mm_srli_epi64(b, 32));
        return _mm_unpacklo_epi32(_mm_shuffle_epi32(even, 0x08), _mm_shuffle_epi32(odd, 0x08));
    } else if constexpr (LaneBytes == 8) {
        const __m128i low = _mm_mul_epu32(a, b);
        const __m128i cross = _mm_add_epi64(_mm_mul_epu32(a, _mm_srli_epi64(b, 32)), _mm_mul_epu32(_mm_srli_epi64(a, 32), b));
        return _mm_add_epi64(low, _mm_slli_epi64(cross, 32));
    } else {
        const __m128i low_bytes = _mm_set1_epi16(0x00FF);
        const __m128i even = _mm_mullo_epi16(a, b);
        const __m128i odd = _mm_mullo_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8));
        return _mm_or_si128(_mm_and_si128(even, low_bytes), _mm_slli_epi16(odd, 8));
    }
}

#if defined(__AVX2__)
template <std::size_t LaneBytes>
[[nodiscard, gnu::always_inline]] inline __m256i multiply_lanes(__m256i a, __m256i b) noexcept {
    if constexpr (LaneBytes == 2) {
        return _mm256_mullo_epi16(a, b);
    } else if constexpr (LaneBytes == 4) {
        return _mm256_mullo_epi32(a, b);
    } else if constexpr (LaneBytes == 8) {
        const __m256i low = _mm256_mul_epu32(a, b);
        const __m256i cross =
            _mm256_add_epi64(_mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)), _mm256_mul_epu32(_mm256_srli_epi64(a, 32), b));
        return _mm256_add_epi64(low, _mm256_slli_epi64(cross, 32));
    } else {
        const __m256i low_bytes = _mm256_set1_epi16(0x00FF);
        const __m256i even = _mm256_mullo_epi16(a, b);
        const __m256i odd = _mm256_mullo_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8));
        return _mm256_or_si256(_mm256_and_si256(even, low_bytes), _mm256_slli_epi16(odd, 8));
    }
}
#endif
#endif
}  // namespace detail

/// Lane-wise product; integer lanes wrap modulo 2^N (no undefined behaviour on any path).
template <class P>
[[nodiscard, gnu::always_inline]] inline P mul(const P& a, const P& b) noexcept {
    using C = typename P::value_type;
    if constexpr (std::is_floating_point_v<C> || P::size == 1) {
        return a * b;  // scalar_pack wraps integers itself
    } else {
#if TENSOROPS_X86_INTRINSICS
        constexpr std::size_t register_bytes = sizeof(typename P::register_type);
        if constexpr (register_bytes == 16 || (register_bytes == 32 && std::is_base_of_v<xsimd::avx2, typename P::arch_type>)) {
            return detail::from_bytes<P>(detail::multiply_lanes<sizeof(C)>(detail::as_bytes(a), detail::as_bytes(b)));
        }
#endif
        const auto left = to_array(a), right = to_array(b);
        std::array<C, P::size> product;
        for (std::size_t i = 0; i < P::size; ++i)
            product[i] = from_accumulator<C>(to_accumulator(left[i]) * to_accumulator(right[i]));
        return from_array<P>(product);
    }
}

/// Lane-wise a + b. For float lanes on targets with FMA this is computed as fma(a, 1, b), which is
/// bit-identical (a·1 is exact, so one rounding of a + b) but may issue on the multiply-add ports as well as
/// the add ports: in shuffle-heavy kernels (in-register scans) the add ports are the bottleneck.
template <class P>
[[nodiscard, gnu::always_inline]] inline P add(const P& a, const P& b) noexcept {
#if TENSOROPS_HAS_XSIMD && defined(__FMA__)
    if constexpr (std::is_floating_point_v<typename P::value_type> && P::size > 1)
        return xsimd::fma(a, P(typename P::value_type(1)), b);
    else
        return a + b;
#else
    return a + b;
#endif
}

}  // namespace tensorops::simd
