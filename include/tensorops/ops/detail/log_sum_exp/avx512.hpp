// tensorops/ops/detail/log_sum_exp/avx512.hpp — log-sum-exp's two term loops (the outer kernel's rows of a block, the
// inner kernel's one pass) on 512-bit registers, for builds whose registers are AVX2's, run where the CPU has AVX-512F
// (simd::avx512_kernels_run). They give the AVX2 loops' bits exactly.
//
// Why: at AVX2 these loops are bound by their arithmetic, not by memory — twelve vector instructions per eight floats,
// each vector's long dependency chain (load, clamp, two fused multiply-subtracts, polynomial, table, product) more than
// the out-of-order window overlaps — and stay below the two-thread read limit. The same loops on 512-bit registers
// take half the instructions for the same floats, even where the CPU runs each as two 256-bit halves (the figures:
// bench/journal/notes-reduce-and-log-sum-exp.md). The library never forces an instruction set on its consumers: these
// functions carry the target attribute of the 512-bit primitives they call (simd/x86/avx512_on_avx2.hpp) and run only
// after a CPUID check, so a build for x86-64-v3 stays correct on any CPU that runs x86-64-v3.
//
// Same bits: every lane does the AVX2 loop's operations on the same values in the same order — the term of
// simd::add_exp_over_power_of_two with its eighths table, the reference rows the generic code computed, the maxima with
// the same operand order. The outer loop's lanes are the row's lanes, 16 at a time instead of 8. The one pass's AVX2
// walk keeps two pairs of accumulators, vector 2i joining the first and 2i + 1 the second: a 512-bit register holds
// both (its low half the first), and its 16 consecutive floats are those two vectors; the vectors left over join the
// low half alone (a merge-masked step), and the caller combines the halves as the AVX2 walk combines its pairs. A test
// (test_parallel_reduce.cpp, "AVX-512 kernels: …") compares the two bit for bit.
//
// Built where simd/x86/avx512_on_avx2.hpp is (TENSOROPS_AVX512_KERNELS: the translation unit targets AVX2 with FMA and
// not AVX-512, on x86-64 with GCC or Clang), for float data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../../../simd/cpu_profile.hpp"
#include "../../../simd/math.hpp"
#include "../../../simd/prefetch.hpp"
#include "../../../simd/x86/avx512_on_avx2.hpp"
#include "../stream_hints.hpp"

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
namespace avx512 {

static_assert(simd::lanes<float> == 8, "the 512-bit loops stand for loops over 8-lane float registers");

namespace wide = simd::avx512_on_avx2;

/// 16 lanes at p, or the lanes of `mask` (the others 0) where Partial.
template <bool Partial>
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline wide::floats load(const float* p, wide::lane_mask mask) noexcept {
    if constexpr (Partial) return wide::load(p, mask);
    else return wide::load(p);
}
template <bool Partial>
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline void store(float* p, wide::floats v, wide::lane_mask mask) noexcept {
    if constexpr (Partial) wide::store(p, v, mask);
    else wide::store(p, v);
}

/// One step of log_sum_exp_block_rows: lanes [j, j + 16) (those of `mask` where Partial) of the Rows rows.
template <std::size_t Rows, bool Partial>
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline void block_rows_step(const float* const* rows, const float* const* next,
                                                                            std::size_t j, wide::lane_mask mask, const float* lowest_row,
                                                                            const float* k_row, float* top, float* sums,
                                                                            const wide::term_constants& c) noexcept {
    if (next != nullptr)
        for (std::size_t k = 0; k < Rows; ++k) simd::prefetch_line_to_l2(next[k] + j);
    const wide::floats lowest = load<Partial>(lowest_row + j, mask), k_less_rounding = load<Partial>(k_row + j, mask);
    wide::floats t = load<Partial>(top + j, mask), sum = load<Partial>(sums + j, mask);
#pragma GCC unroll 8
    for (std::size_t k = 0; k < Rows; ++k) {
        const wide::floats x = load<Partial>(rows[k] + j, mask);
        t = wide::maximum(t, x);  // simd::max_ignoring_nan(t, x)
        sum = wide::add_exp_over_power_of_two(sum, x, lowest, k_less_rounding, c);
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
                                                                       const wide::term_constants& c) noexcept {
    static_assert(row_touch_offset<float> % 16 == 0, "the touch goes with a step");
    std::size_t j = 0;
    for (; j + 16 <= w; j += 16) {
        if (touched != nullptr && j == row_touch_offset<float>) touch_rows(touched, Rows);
        block_rows_step<Rows, false>(rows, next, j, wide::all_lanes, lowest_row, k_row, top, sums, c);
    }
    if (j < w)
        block_rows_step<Rows, true>(rows, next, j, static_cast<wide::lane_mask>((1u << (w - j)) - 1), lowest_row, k_row, top, sums, c);
}

/// log_sum_exp_block's row loop on 512-bit registers: the `count` rows at `block`, lanes [0, w), folded in order into
/// top (the maximum, blind to NaN) and sums (Σ e^x / 2^k, the reference's lanes in lowest_row and k_row), Group rows at
/// a time and the rest one by one, each group hinting the next group's lines into L2 — as the AVX2 loop does, lane for
/// lane the same operations (and the same touch of the group after the next, stream_hints.hpp).
template <std::size_t Group>
[[TENSOROPS_AVX512_TARGET]] inline void log_sum_exp_block_rows(const float* const* block, std::size_t count, std::size_t w,
                                                               const float* lowest_row, const float* k_row, float* top,
                                                               float* sums) noexcept {
    const wide::term_constants c = wide::make_term_constants();
    std::size_t i = 0;
    for (; i + Group <= count; i += Group) {
        const float* const* next = i + 2 * Group <= count ? block + i + Group : nullptr;
        block_rows<Group>(block + i, next, rows_to_touch(block, i, Group, count), w, lowest_row, k_row, top, sums, c);
    }
    for (; i < count; ++i) block_rows<1>(block + i, nullptr, nullptr, w, lowest_row, k_row, top, sums, c);
}

/// sum and top of the lanes of the low half updated with v (the others kept): a vector the AVX2 walk adds to its first
/// pair alone.
[[TENSOROPS_AVX512_TARGET, gnu::always_inline]] inline void add_to_first_pair(wide::floats& top, wide::floats& sum, wide::floats v,
                                                                              wide::floats lowest, wide::floats k_less_rounding,
                                                                              const wide::term_constants& c) noexcept {
    constexpr wide::lane_mask low_half = 0x00FF;
    top = wide::maximum(top, v, low_half);
    sum = wide::blend(low_half, wide::add_exp_over_power_of_two(sum, v, lowest, k_less_rounding, c), sum);
}

/// log_sum_exp_one_pass's walk on 512-bit registers: the `full` + `tail` (< 8) floats at x into the AVX2 walk's two
/// pairs of accumulators (see above), for the reference's `lowest` and `k_less_rounding` (the same in every lane); with
/// the same hints (hint_stream_step every 32 floats, then the rest's pages).
[[TENSOROPS_AVX512_TARGET]] inline void log_sum_exp_walk(const float* x, std::size_t full, std::size_t tail, float lowest,
                                                         float k_less_rounding, bool hint_lines, log_sum_exp_walk_lanes& out) noexcept {
    const wide::term_constants c = wide::make_term_constants();
    const wide::floats lowest_lanes = wide::broadcast(lowest), k_lanes = wide::broadcast(k_less_rounding);
    const wide::floats minus_infinity = wide::broadcast(-std::numeric_limits<float>::infinity());
    wide::floats top = minus_infinity, sum = wide::zero();
    std::size_t j = 0;
    for (; j + 32 <= full; j += 32) {
        hint_stream_step(x + j, 32 * sizeof(float), hint_lines);
        const wide::floats first = wide::load(x + j), second = wide::load(x + j + 16);
        top = wide::maximum(top, first);
        sum = wide::add_exp_over_power_of_two(sum, first, lowest_lanes, k_lanes, c);
        top = wide::maximum(top, second);
        sum = wide::add_exp_over_power_of_two(sum, second, lowest_lanes, k_lanes, c);
    }
    if (j < full + tail) simd::prefetch_stream_ahead(x + j, (full + tail - j) * sizeof(float));
    for (; j < full; j += 8) add_to_first_pair(top, sum, wide::load(x + j, 0x00FF), lowest_lanes, k_lanes, c);
    if (tail != 0)  // the missing lanes −inf, as simd::load_partial(…, −inf)
        add_to_first_pair(top, sum, wide::load(x + full, static_cast<wide::lane_mask>((1u << tail) - 1), minus_infinity), lowest_lanes,
                          k_lanes, c);
    wide::store_aligned(out.top, top);
    wide::store_aligned(out.sum, sum);
}

}  // namespace avx512
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
