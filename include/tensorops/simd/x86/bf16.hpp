// tensorops/simd/x86/bf16.hpp — bfloat16 loads and stores of x86 registers: the isa::sse2, isa::sse41, isa::avx2 and
// isa::avx512 overloads of load_halves, store_halves and load_halves_partial (pack.hpp's simd::load, simd::store and
// simd::load_partial of bfloat16). Each part compiles where the build targets its instruction set.
//
// Widening is exact and needs no conversion instruction: a bfloat16 is the top half of a float, so each 16-bit element
// is zero-extended to a 32-bit lane and shifted up by 16 (SSE2: interleaved below zeros).
//
// Narrowing rounds to nearest even by integer arithmetic on the float's bits, the formula of the scalar conversion
// (core/bfloat16.hpp, float_to_bfloat16_bits, whose comment explains it): add 0x7FFF plus the lowest kept bit, keep the
// top half; NaN lanes instead keep their top half with the quiet bit 0x0040 set. The top halves are then gathered into
// 16-bit elements: on SSE2 an arithmetic shift and a signed saturating pack (the sign-extended halves fit int16
// exactly), on AVX2 a byte shuffle and a permute (one instruction fewer than shift, extract and pack), on AVX-512 a
// shift and a truncating vpmovdw.
//
// Where the build targets AVX-512 BF16, 512-bit stores round by vcvtneps2bf16 — one instruction for the arithmetic,
// the same rounding and the same NaN rule — except that it flushes subnormal floats to zero, where bfloat16 keeps
// them (SEMANTICS.md §4): a register with a nonzero subnormal lane (rare: below 2^−126) takes the shift path, so the
// bits are the shift path's in every case.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "../../core/bfloat16.hpp"
#include "../../core/inline.hpp"
#include "../isa.hpp"
#include "../register.hpp"
#include "../warnings.hpp"
#include "avx2.hpp"
#include "sse2.hpp"
#include "sse41.hpp"

TENSOROPS_SIMD_WARNINGS_BEGIN  // simd/warnings.hpp
#if TENSOROPS_HAS_XSIMD && (defined(__x86_64__) || defined(_M_X64) || defined(__i386__))
namespace tensorops::simd {

namespace detail {
/// The bfloat16 bits of each float lane, sign-extended to 32 bits (rounded as above).
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline __m128i bfloat16_lanes(__m128 value) noexcept {
    const __m128i bits = _mm_castps_si128(value);
    const __m128i lowest_kept = _mm_and_si128(_mm_srli_epi32(bits, 16), _mm_set1_epi32(1));
    const __m128i rounded = _mm_add_epi32(bits, _mm_add_epi32(lowest_kept, _mm_set1_epi32(0x7FFF)));
    const __m128i quiet = _mm_or_si128(bits, _mm_set1_epi32(0x00400000));
    const __m128i nan = _mm_castps_si128(_mm_cmpunord_ps(value, value));
    return _mm_srai_epi32(_mm_or_si128(_mm_and_si128(nan, quiet), _mm_andnot_si128(nan, rounded)), 16);
}
}  // namespace detail

namespace kernel {

/// Four bfloat16 interleaved below four zero halves: the floats.
template <class P>
    requires(P::size == 4)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_halves(const bfloat16* source, isa::sse2) noexcept {
    const __m128i elements = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(source));
    return P(_mm_castsi128_ps(_mm_unpacklo_epi16(_mm_setzero_si128(), elements)));
}

template <class P>
    requires(P::size == 4)
[[TENSOROPS_ALWAYS_INLINE]] inline void store_halves(bfloat16* destination, const P& value, isa::sse2) noexcept {
    const __m128i lanes_out = detail::bfloat16_lanes(value);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(destination), _mm_packs_epi32(lanes_out, lanes_out));
}

}  // namespace kernel
}  // namespace tensorops::simd
#endif

#if TENSOROPS_HAS_XSIMD && defined(__SSE4_1__)
namespace tensorops::simd::kernel {

/// The elements' bytes composed in general registers (detail::load_low_bytes), widened; the fill blended in above.
template <class P>
    requires(P::size == 4)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_halves_partial(const bfloat16* source, std::size_t count,
                                                                    float fill, isa::sse41) noexcept {
    const __m128i elements = detail::load_low_bytes(source, count * sizeof(bfloat16));
    const P widened(_mm_castsi128_ps(_mm_unpacklo_epi16(_mm_setzero_si128(), elements)));
    if (fill == 0.0f) return widened;  // the lanes above read as +0.0
    return xsimd::select(detail::lanes_below<P>(count), widened, P(fill));
}

}  // namespace tensorops::simd::kernel
#endif

#if TENSOROPS_HAS_XSIMD && defined(__AVX2__)
namespace tensorops::simd {

namespace detail {
/// Eight bfloat16 (the low 16 bytes of `elements`) widened to floats: vpmovzxwd, then a shift by 16.
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline __m256 widen_bfloat16(__m128i elements) noexcept {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(elements), 16));
}

/// The eight bfloat16 of `value` (rounded as above) as 16-bit elements: each 128-bit half's top halves of its words
/// gathered into its low 8 bytes by one byte shuffle, the two halves joined by one permute.
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline __m128i bfloat16_elements(__m256 value) noexcept {
    const __m256i bits = _mm256_castps_si256(value);
    const __m256i lowest_kept = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
    const __m256i rounded = _mm256_add_epi32(bits, _mm256_add_epi32(lowest_kept, _mm256_set1_epi32(0x7FFF)));
    const __m256i quiet = _mm256_or_si256(bits, _mm256_set1_epi32(0x00400000));
    const __m256 nan = _mm256_cmp_ps(value, value, _CMP_UNORD_Q);
    const __m256 chosen = _mm256_blendv_ps(_mm256_castsi256_ps(rounded), _mm256_castsi256_ps(quiet), nan);
    const __m256i top_halves = _mm256_setr_epi8(2, 3, 6, 7, 10, 11, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                                2, 3, 6, 7, 10, 11, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256i gathered = _mm256_shuffle_epi8(_mm256_castps_si256(chosen), top_halves);
    return _mm256_castsi256_si128(_mm256_permute4x64_epi64(gathered, 0x08));
}
}  // namespace detail

namespace kernel {

template <class P>
    requires(P::size == 8)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_halves(const bfloat16* source, isa::avx2) noexcept {
    return P(detail::widen_bfloat16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(source))));
}

template <class P>
    requires(P::size == 8)
[[TENSOROPS_ALWAYS_INLINE]] inline void store_halves(bfloat16* destination, const P& value, isa::avx2) noexcept {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(destination), detail::bfloat16_elements(value));
}

/// The elements' bytes by detail::load_bytes_partial, widened; the fill blended in above.
template <class P>
    requires(P::size == 8)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_halves_partial(const bfloat16* source, std::size_t count,
                                                                    float fill, isa::avx2) noexcept {
    const P widened(detail::widen_bfloat16(detail::load_bytes_partial<4>(source, count * sizeof(bfloat16))));
    if (fill == 0.0f) return widened;  // the lanes above read as +0.0
    return xsimd::select(detail::lanes_below<P>(count), widened, P(fill));
}

}  // namespace kernel
}  // namespace tensorops::simd
#endif

#if TENSOROPS_HAS_XSIMD && defined(__AVX512F__)
namespace tensorops::simd {

namespace detail {
/// Sixteen bfloat16 widened to floats: vpmovzxwd, then a shift by 16.
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline __m512 widen_bfloat16(__m256i elements) noexcept {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(elements), 16));
}

/// The sixteen bfloat16 of `value` by the shift path (rounded as above), as 16-bit elements.
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline __m256i bfloat16_elements_by_shifts(__m512 value) noexcept {
    const __m512i bits = _mm512_castps_si512(value);
    const __m512i lowest_kept = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
    const __m512i rounded = _mm512_add_epi32(bits, _mm512_add_epi32(lowest_kept, _mm512_set1_epi32(0x7FFF)));
    const __mmask16 nan = _mm512_cmp_ps_mask(value, value, _CMP_UNORD_Q);
    const __m512i chosen = _mm512_mask_or_epi32(rounded, nan, bits, _mm512_set1_epi32(0x00400000));
    return _mm512_cvtepi32_epi16(_mm512_srli_epi32(chosen, 16));
}

/// The sixteen bfloat16 of `value`, as 16-bit elements: vcvtneps2bf16 where the build targets AVX-512 BF16 and no
/// lane is a nonzero subnormal (|bits| − 1 < 0x7FFFFF, unsigned), else the shift path: the same bits either way.
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline __m256i bfloat16_elements(__m512 value) noexcept {
#if defined(__AVX512BF16__)
    const __m512i magnitude = _mm512_and_si512(_mm512_castps_si512(value), _mm512_set1_epi32(0x7FFFFFFF));
    const __mmask16 subnormal =
        _mm512_cmplt_epu32_mask(_mm512_sub_epi32(magnitude, _mm512_set1_epi32(1)), _mm512_set1_epi32(0x007FFFFF));
    if (subnormal == 0) [[likely]]
        return std::bit_cast<__m256i>(_mm512_cvtneps_pbh(value));
#endif
    return bfloat16_elements_by_shifts(value);
}
}  // namespace detail

namespace kernel {

template <class P>
    requires(P::size == 16)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_halves(const bfloat16* source, isa::avx512) noexcept {
    return P(detail::widen_bfloat16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(source))));
}

template <class P>
    requires(P::size == 16)
[[TENSOROPS_ALWAYS_INLINE]] inline void store_halves(bfloat16* destination, const P& value, isa::avx512) noexcept {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(destination), detail::bfloat16_elements(value));
}

/// The elements' bytes by detail::load_bytes_partial (AVX2), widened; the fill blended in above.
template <class P>
    requires(P::size == 16)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_halves_partial(const bfloat16* source, std::size_t count,
                                                                    float fill, isa::avx512) noexcept {
    const P widened(detail::widen_bfloat16(detail::load_bytes_partial<8>(source, count * sizeof(bfloat16))));
    if (fill == 0.0f) return widened;  // the lanes above read as +0.0
    return xsimd::select(detail::lanes_below<P>(count), widened, P(fill));
}

}  // namespace kernel
}  // namespace tensorops::simd
#endif
TENSOROPS_SIMD_WARNINGS_END
