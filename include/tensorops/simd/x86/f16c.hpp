// tensorops/simd/x86/f16c.hpp — float ↔ IEEE binary16 conversions by F16C, for one value (core/float16.hpp) and for
// eight (x86/f16c_packs.hpp). Compiled where the build targets F16C (-march=x86-64-v3); includes nothing of the library,
// so that core/ can use it. Both directions are exact or rounded once to nearest even: the same bits as the portable
// routines of core/float16.hpp.
#pragma once

#include <cstdint>
#include "../../core/inline.hpp"
#include "../warnings.hpp"

TENSOROPS_SIMD_WARNINGS_BEGIN  // simd/warnings.hpp
#if defined(__F16C__)
#include <immintrin.h>

namespace tensorops::simd::f16c {

/// Whether the build targets F16C: the conversions below exist.
inline constexpr bool targeted = true;

/// float → half bits, rounded to nearest even. (The vector forms: clang's scalar `_cvtss_sh` macro trips -Wpedantic,
/// a compound literal.)
[[nodiscard]] inline std::uint16_t float_to_half_bits(float value) noexcept {
    const __m128i halves = _mm_cvtps_ph(_mm_set_ss(value), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return static_cast<std::uint16_t>(_mm_cvtsi128_si32(halves));
}

/// half bits → float, exact (a signalling NaN comes back quiet).
[[nodiscard]] inline float half_bits_to_float(std::uint16_t half) noexcept {
    return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(half)));
}

/// The eight halves in `halves` widened to floats, exactly.
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline __m256 widen(__m128i halves) noexcept { return _mm256_cvtph_ps(halves); }

/// The eight halves at `source` (any alignment) widened to floats, exactly.
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline __m256 load(const void* source) noexcept {
    return _mm256_cvtph_ps(_mm_loadu_si128(static_cast<const __m128i*>(source)));
}

/// The eight floats of `value` rounded to halves, to nearest even, stored at `destination` (any alignment).
[[TENSOROPS_ALWAYS_INLINE]] inline void store(void* destination, __m256 value) noexcept {
    _mm_storeu_si128(static_cast<__m128i*>(destination), _mm256_cvtps_ph(value, _MM_FROUND_TO_NEAREST_INT));
}

}  // namespace tensorops::simd::f16c
#else
namespace tensorops::simd::f16c {

inline constexpr bool targeted = false;

// Declared only, never called: where `targeted` is false, the callers' branches are discarded.
std::uint16_t float_to_half_bits(float value) noexcept;
float half_bits_to_float(std::uint16_t half) noexcept;

}  // namespace tensorops::simd::f16c
#endif
TENSOROPS_SIMD_WARNINGS_END
