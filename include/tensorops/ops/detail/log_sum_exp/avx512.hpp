// tensorops/ops/detail/log_sum_exp/avx512.hpp — log-sum-exp's two term loops (the outer kernel's rows of a block, the
// inner kernel's one pass) on 512-bit registers, for builds whose registers are AVX2's, run where the CPU has AVX-512F
// (simd::avx512_kernels_run). They give the AVX2 loops' bits exactly.
//
// Why: at AVX2 these loops are bound by their arithmetic, not by memory — twelve vector instructions per eight floats,
// each vector's long dependency chain (load, clamp, two fused multiply-subtracts, polynomial, table, product) more than
// the out-of-order window overlaps — and stay below the two-thread read limit. The same loops on 512-bit registers
// take half the instructions for the same floats, even where the CPU runs each as two 256-bit halves (the figures:
// bench/journal/notes-reduce-and-log-sum-exp.md). The library never forces an instruction set on its consumers
// (simd/config.hpp): these functions carry their own target attribute and run only after a CPUID check, so a build
// for x86-64-v3 stays correct on any CPU that runs x86-64-v3.
//
// Same bits: every lane does the AVX2 loop's operations on the same values in the same order — the term of
// simd::add_exp_over_power_of_two with its eighths table (vpermd's 8-entry table repeated for vpermd's 16), the
// reference rows the generic code computed, the maxima with the same operand order. The outer loop's lanes are the
// row's lanes, 16 at a time instead of 8. The one pass's AVX2 walk keeps two pairs of accumulators, vector 2i joining
// the first and 2i + 1 the second: a 512-bit register holds both (its low half the first), and its 16 consecutive
// floats are those two vectors; the vectors left over join the low half alone (a merge-masked step), and the caller
// combines the halves as the AVX2 walk combines its pairs. A test (test_parallel_reduce.cpp, "AVX-512 kernels: …")
// compares the two bit for bit.
//
// Built where the translation unit targets AVX2 with FMA and not AVX-512 (then the generic kernels already run on
// 512-bit registers), on x86-64 with GCC or Clang (the target attribute), for float data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../../../simd/config.hpp"
#include "../../../simd/cpu.hpp"
#include "../../../simd/math.hpp"
#include "../../../simd/prefetch.hpp"
#include "../stream_hints.hpp"

#if TENSOROPS_X86_INTRINSICS && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(__AVX2__) && \
    defined(__FMA__) && !defined(__AVX512F__)
#define TENSOROPS_AVX512_KERNELS 1
#else
#define TENSOROPS_AVX512_KERNELS 0
#endif

namespace tensorops::detail {

/// Whether log-sum-exp's term loops over T have a 512-bit version in this build (see above).
template <class T>
inline constexpr bool has_avx512_log_sum_exp = TENSOROPS_AVX512_KERNELS != 0 && std::is_same_v<T, float>;

/// What the one pass's 512-bit walk leaves: the AVX2 walk's two pairs of accumulators, lanes 0–7 the first pair's,
/// lanes 8–15 the second's.
struct log_sum_exp_walk_lanes {
    alignas(64) float top[16];
    alignas(64) float sum[16];
};

#if TENSOROPS_AVX512_KERNELS
// The instruction set of every function below, named once (with AVX2 and FMA, which the build has already).
#define TENSOROPS_AVX512_TARGET gnu::target("avx512f,avx2,fma")

namespace avx512 {

static_assert(simd::lanes<float> == 8, "the 512-bit loops stand for loops over 8-lane float registers");

/// The constants of the term (simd::add_exp_over_power_of_two with eighths), in 16 lanes.
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

// The maximum, shift and permute below are written as their merge-masked forms with every lane selected (the same
// instructions): GCC 12's unmasked forms pass _mm512_undefined_*() through, which -Wmaybe-uninitialized reports once
// they are inlined (GCC bug 105593).
constexpr __mmask16 all_lanes = 0xFFFF;

/// max(a, b) per lane, b where either is NaN (vmaxps, as simd::max_ignoring_nan(a, b)).
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline __m512 maximum(__m512 a, __m512 b) noexcept {
    return _mm512_mask_max_ps(a, all_lanes, a, b);
}

/// sum + e^x / 2^k per lane, for the reference's lanes `lowest` and `k_less_rounding` (simd::power_of_two_reference):
/// simd::add_exp_over_power_of_two's operations, one for one (see its algorithm).
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline __m512 add_term(__m512 sum, __m512 x, __m512 lowest, __m512 k_less_rounding,
                                                                       const term_constants& c) noexcept {
    const __m512 clamped = maximum(lowest, x);  // simd::clamp_below_keeping_nan: x wins where NaN
    const __m512 biased = _mm512_fmsub_ps(clamped, c.scaled_log2e, k_less_rounding);
    const __m512 f = _mm512_fmsub_ps(clamped, c.scaled_log2e, _mm512_add_ps(biased, k_less_rounding));
    __m512 p = _mm512_fmadd_ps(c.coefficient[0], f, c.coefficient[1]);  // Horner, as simd::detail::horner
    p = _mm512_fmadd_ps(p, f, c.coefficient[2]);
    p = _mm512_fmadd_ps(p, f, c.coefficient[3]);
    const __m512i bits = _mm512_castps_si512(biased);
    const __m512i entry = _mm512_mask_permutexvar_epi32(c.table, all_lanes, bits, c.table);
    const __m512 power = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_mask_slli_epi32(bits, all_lanes, bits, 20), entry));
    return _mm512_fmadd_ps(p, power, sum);
}

/// 16 lanes at p, or the lanes of `mask` (the others 0) where Partial.
template <bool Partial>
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline __m512 load(const float* p, __mmask16 mask) noexcept {
    if constexpr (Partial) return _mm512_maskz_loadu_ps(mask, p);
    else return _mm512_loadu_ps(p);
}
template <bool Partial>
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline void store(float* p, __m512 v, __mmask16 mask) noexcept {
    if constexpr (Partial) _mm512_mask_storeu_ps(p, mask, v);
    else _mm512_storeu_ps(p, v);
}

/// One step of log_sum_exp_block_rows: lanes [j, j + 16) (those of `mask` where Partial) of the Rows rows.
template <std::size_t Rows, bool Partial>
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline void block_rows_step(const float* const* rows, const float* const* next,
                                                                            std::size_t j, __mmask16 mask, const float* lowest_row,
                                                                            const float* k_row, float* top, float* sums,
                                                                            const term_constants& c) noexcept {
    if (next != nullptr)
        for (std::size_t k = 0; k < Rows; ++k) simd::prefetch_line_to_l2(next[k] + j);
    const __m512 lowest = load<Partial>(lowest_row + j, mask), k_less_rounding = load<Partial>(k_row + j, mask);
    __m512 t = load<Partial>(top + j, mask), sum = load<Partial>(sums + j, mask);
#pragma GCC unroll 8
    for (std::size_t k = 0; k < Rows; ++k) {
        const __m512 x = load<Partial>(rows[k] + j, mask);
        t = maximum(t, x);  // simd::max_ignoring_nan(t, x)
        sum = add_term(sum, x, lowest, k_less_rounding, c);
    }
    store<Partial>(top + j, t, mask);
    store<Partial>(sums + j, sum, mask);
}

/// The Rows rows at `rows` folded into top and sums, lanes [0, w); the lines of the Rows rows at `next` (if not null)
/// hinted into L2 on the way, and the Rows rows at `touched` (if not null) touched (touch_rows) at lane
/// row_touch_offset.
template <std::size_t Rows>
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline void block_rows(const float* const* rows, const float* const* next,
                                                                       const float* const* touched, std::size_t w, const float* lowest_row,
                                                                       const float* k_row, float* top, float* sums,
                                                                       const term_constants& c) noexcept {
    static_assert(row_touch_offset<float> % 16 == 0, "the touch goes with a step");
    std::size_t j = 0;
    for (; j + 16 <= w; j += 16) {
        if (touched != nullptr && j == row_touch_offset<float>) touch_rows(touched, Rows);
        block_rows_step<Rows, false>(rows, next, j, 0xFFFF, lowest_row, k_row, top, sums, c);
    }
    if (j < w) block_rows_step<Rows, true>(rows, next, j, static_cast<__mmask16>((1u << (w - j)) - 1), lowest_row, k_row, top, sums, c);
}

/// log_sum_exp_block's row loop on 512-bit registers: the `count` rows at `block`, lanes [0, w), folded in order into
/// top (the maximum, blind to NaN) and sums (Σ e^x / 2^k, the reference's lanes in lowest_row and k_row), Group rows at
/// a time and the rest one by one, each group hinting the next group's lines into L2 — as the AVX2 loop does, lane for
/// lane the same operations (and the same touch of the group after the next, stream_hints.hpp).
template <std::size_t Group>
[[TENSOROPS_AVX512_TARGET]] inline void log_sum_exp_block_rows(const float* const* block, std::size_t count, std::size_t w,
                                                               const float* lowest_row, const float* k_row, float* top,
                                                               float* sums) noexcept {
    const term_constants c = make_term_constants();
    std::size_t i = 0;
    for (; i + Group <= count; i += Group) {
        const float* const* next = i + 2 * Group <= count ? block + i + Group : nullptr;
        block_rows<Group>(block + i, next, rows_to_touch(block, i, Group, count), w, lowest_row, k_row, top, sums, c);
    }
    for (; i < count; ++i) block_rows<1>(block + i, nullptr, nullptr, w, lowest_row, k_row, top, sums, c);
}

/// sum and top of the lanes of `mask` in the low half updated with v (the others kept): a vector the AVX2 walk adds
/// to its first pair alone.
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline void add_to_first_pair(__m512& top, __m512& sum, __m512 v, __m512 lowest,
                                                                              __m512 k_less_rounding, const term_constants& c) noexcept {
    constexpr __mmask16 low_half = 0x00FF;
    top = _mm512_mask_max_ps(top, low_half, top, v);
    sum = _mm512_mask_mov_ps(sum, low_half, add_term(sum, v, lowest, k_less_rounding, c));
}

/// log_sum_exp_one_pass's walk on 512-bit registers: the `full` + `tail` (< 8) floats at x into the AVX2 walk's two
/// pairs of accumulators (see above), for the reference's `lowest` and `k_less_rounding` (the same in every lane); with
/// the same hints (hint_stream_step every 32 floats, then the rest's pages).
[[TENSOROPS_AVX512_TARGET]] inline void log_sum_exp_walk(const float* x, std::size_t full, std::size_t tail, float lowest,
                                                         float k_less_rounding, bool hint_lines, log_sum_exp_walk_lanes& out) noexcept {
    const term_constants c = make_term_constants();
    const __m512 lowest_lanes = _mm512_set1_ps(lowest), k_lanes = _mm512_set1_ps(k_less_rounding);
    const __m512 minus_infinity = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    __m512 top = minus_infinity, sum = _mm512_setzero_ps();
    std::size_t j = 0;
    for (; j + 32 <= full; j += 32) {
        hint_stream_step(x + j, 32 * sizeof(float), hint_lines);
        const __m512 first = _mm512_loadu_ps(x + j), second = _mm512_loadu_ps(x + j + 16);
        top = maximum(top, first);
        sum = add_term(sum, first, lowest_lanes, k_lanes, c);
        top = maximum(top, second);
        sum = add_term(sum, second, lowest_lanes, k_lanes, c);
    }
    if (j < full + tail) simd::prefetch_stream_ahead(x + j, (full + tail - j) * sizeof(float));
    for (; j < full; j += 8) add_to_first_pair(top, sum, _mm512_maskz_loadu_ps(0x00FF, x + j), lowest_lanes, k_lanes, c);
    if (tail != 0)  // the missing lanes −inf, as simd::load_partial(…, −inf)
        add_to_first_pair(top, sum, _mm512_mask_loadu_ps(minus_infinity, static_cast<__mmask16>((1u << tail) - 1), x + full), lowest_lanes,
                          k_lanes, c);
    _mm512_store_ps(out.top, top);
    _mm512_store_ps(out.sum, sum);
}

}  // namespace avx512
#undef TENSOROPS_AVX512_TARGET
#else
namespace avx512 {
// Declared only, never called (has_avx512_log_sum_exp is false: the callers' branches are discarded).
template <std::size_t Group>
void log_sum_exp_block_rows(const float* const* block, std::size_t count, std::size_t w, const float* lowest_row, const float* k_row,
                            float* top, float* sums) noexcept;
void log_sum_exp_walk(const float* x, std::size_t full, std::size_t tail, float lowest, float k_less_rounding, bool hint_lines,
                      log_sum_exp_walk_lanes& out) noexcept;
}  // namespace avx512
#endif

}  // namespace tensorops::detail
