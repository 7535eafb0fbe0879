// tensorops/simd/x86/avx512_on_avx2.hpp — 16 float lanes in a 512-bit register for builds whose registers are AVX2's:
// the primitives of log-sum-exp's 512-bit term loops (ops/detail/log_sum_exp/avx512.hpp), which run only where the CPU
// has AVX-512F (simd::avx512_kernels_run, cpu_profile.hpp). The library never forces an instruction set on its
// consumers: every function here carries its own target attribute (TENSOROPS_AVX512_TARGET, which the loops that call
// them carry too), so a build for x86-64-v3 stays correct on any CPU that runs x86-64-v3.
//
// Compiled (TENSOROPS_AVX512_KERNELS) where the translation unit targets AVX2 with FMA and not AVX-512 (there the
// generic kernels already run on 512-bit registers), on x86-64 with GCC or Clang (the target attribute).
//
// The maximum, shift and permute below are written as their merge-masked forms with every lane selected (the same
// instructions): GCC 12's unmasked forms pass _mm512_undefined_*() through, which -Wmaybe-uninitialized reports once
// they are inlined (GCC bug 105593).
#pragma once

#include <cstdint>

#include "../math_constants.hpp"
#include "../warnings.hpp"
#include "../xsimd_compat.hpp"

TENSOROPS_SIMD_WARNINGS_BEGIN  // simd/warnings.hpp
#if TENSOROPS_HAS_XSIMD && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(__AVX2__) && defined(__FMA__) && \
    !defined(__AVX512F__)
#include <immintrin.h>
#define TENSOROPS_AVX512_KERNELS 1
// The instruction set of every function here and of the loops that call them (with AVX2 and FMA, which the build has).
#define TENSOROPS_AVX512_TARGET gnu::target("avx512f,avx2,fma")

namespace tensorops::simd::avx512_on_avx2 {

/// 16 float lanes.
struct floats {
    __m512 lanes;
};

/// Which of 16 lanes: a bit a lane, lane 0 the lowest.
using lane_mask = std::uint16_t;

inline constexpr lane_mask all_lanes = 0xFFFF;

/// The constants of the term (add_exp_over_power_of_two), in 16 lanes.
struct term_constants {
    __m512 scaled_log2e;    // 8 · log2 e (float), exact
    __m512 coefficient[4];  // simd::detail::exp2_eighth_coefficients
    __m512i table;          // simd::detail::eighth_table_entry(j mod 8) in lane j: vpermd's index is the low 4 bits
};

[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline term_constants make_term_constants() noexcept {
    using simd::detail::eighth_table_entry;
    term_constants c;
    c.scaled_log2e = _mm512_set1_ps(8.0f * simd::log2e_float);
    for (int k = 0; k < 4; ++k) c.coefficient[k] = _mm512_set1_ps(simd::detail::exp2_eighth_coefficients[k]);
    c.table = _mm512_setr_epi32(eighth_table_entry(0), eighth_table_entry(1), eighth_table_entry(2), eighth_table_entry(3),
                                eighth_table_entry(4), eighth_table_entry(5), eighth_table_entry(6), eighth_table_entry(7),
                                eighth_table_entry(0), eighth_table_entry(1), eighth_table_entry(2), eighth_table_entry(3),
                                eighth_table_entry(4), eighth_table_entry(5), eighth_table_entry(6), eighth_table_entry(7));
    return c;
}

/// Every lane `value`.
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline floats broadcast(float value) noexcept { return {_mm512_set1_ps(value)}; }

/// Every lane +0.
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline floats zero() noexcept { return {_mm512_setzero_ps()}; }

/// The 16 floats at p (any alignment).
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline floats load(const float* p) noexcept { return {_mm512_loadu_ps(p)}; }

/// The lanes of `mask` from p, +0 in the others; reads nothing of the others.
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline floats load(const float* p, lane_mask mask) noexcept {
    return {_mm512_maskz_loadu_ps(mask, p)};
}

/// The lanes of `mask` from p, `fill`'s in the others; reads nothing of the others.
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline floats load(const float* p, lane_mask mask, floats fill) noexcept {
    return {_mm512_mask_loadu_ps(fill.lanes, mask, p)};
}

/// Stores the 16 lanes at p (any alignment).
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline void store(float* p, floats v) noexcept { _mm512_storeu_ps(p, v.lanes); }

/// Stores the lanes of `mask` at p; writes nothing of the others.
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline void store(float* p, floats v, lane_mask mask) noexcept {
    _mm512_mask_storeu_ps(p, mask, v.lanes);
}

/// Stores the 16 lanes at p, 64-byte aligned.
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline void store_aligned(float* p, floats v) noexcept { _mm512_store_ps(p, v.lanes); }

/// max(a, b) per lane of `mask`, b where either is NaN (vmaxps, as simd::max_ignoring_nan(a, b)); a in the other lanes.
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline floats maximum(floats a, floats b, lane_mask mask = all_lanes) noexcept {
    return {_mm512_mask_max_ps(a.lanes, mask, a.lanes, b.lanes)};
}

/// `set` in the lanes of `mask`, `other` in the others.
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline floats blend(lane_mask mask, floats set, floats other) noexcept {
    return {_mm512_mask_mov_ps(other.lanes, mask, set.lanes)};
}

/// sum + e^x / 2^k per lane, for the reference's lanes `lowest` and `k_less_rounding` (simd::power_of_two_reference):
/// simd::add_exp_over_power_of_two's operations with its eighths table, one for one (see its algorithm), so that every
/// lane gives the bits of the AVX2 loop's lane.
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline floats add_exp_over_power_of_two(floats sum, floats x, floats lowest, floats k_less_rounding,
                                                                                         const term_constants& c) noexcept {
    const __m512 clamped = maximum(lowest, x).lanes;  // simd::clamp_below_keeping_nan: x wins where NaN
    const __m512 biased = _mm512_fmsub_ps(clamped, c.scaled_log2e, k_less_rounding.lanes);
    const __m512 f = _mm512_fmsub_ps(clamped, c.scaled_log2e, _mm512_add_ps(biased, k_less_rounding.lanes));
    __m512 p = _mm512_fmadd_ps(c.coefficient[0], f, c.coefficient[1]);  // Horner, as simd::detail::horner
    p = _mm512_fmadd_ps(p, f, c.coefficient[2]);
    p = _mm512_fmadd_ps(p, f, c.coefficient[3]);
    const __m512i bits = _mm512_castps_si512(biased);
    const __m512i entry = _mm512_mask_permutexvar_epi32(c.table, all_lanes, bits, c.table);
    const __m512 power = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_mask_slli_epi32(bits, all_lanes, bits, 20), entry));
    return {_mm512_fmadd_ps(p, power, sum.lanes)};
}

}  // namespace tensorops::simd::avx512_on_avx2
#else
#define TENSOROPS_AVX512_KERNELS 0
#endif
TENSOROPS_SIMD_WARNINGS_END
