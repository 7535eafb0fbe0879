// tensorops/ops/detail/log_sum_exp/short_rows.hpp — log-sum-exp of a group of short rows in one pass, each row's
// terms over a reference from its own first vector (the short-row kernel's float path).
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "../../../iter/unroll.hpp"
#include "../../../simd/horizontal.hpp"
#include "../../../simd/pack.hpp"
#include "../../../simd/prefetch.hpp"
#include "../reductions.hpp"
#include "../stream_hints.hpp"

namespace tensorops::detail {

/// Whether log-sum-exp rows of two registers or more take one pass in the short-row kernel (reduce_short_rows): for
/// float lanes (float and float16 data). Double lanes' term is e^(x − reference), as costly as the second pass's
/// e^(x − shift): one pass ran 4–7 % slower for rows of 8 and 16 doubles, and as fast for rows of 64.
template <class R, class T>
inline constexpr bool short_rows_in_one_pass = [] {
    if constexpr (R::shifted && R::vectorizable) return std::is_same_v<simd::compute_t<T>, float>;
    else return false;
}();

/// What the one pass over a group of short rows gives, lane p for row p (log_sum_exp_short_rows_one_pass).
template <class P>
struct short_rows_terms {
    P top;        ///< the row's maximum, blind to NaN
    P reference;  ///< log_sum_exp_reduction::reference_for_lanes of the maximum of the row's first vector
    P sum;        ///< Σ term_lanes(x, reference) over the row
};

/// Log-sum-exp of G short rows (lane p: rows[p], `length` ≥ one register's lanes of contiguous elements each) in one
/// pass: each row's terms over a reference from its own first vector.
///
/// Algorithm: the rows' first vectors are folded into one register by reduce_lanes_of_rows, whose lane p, row p's
/// first maximum, gives its reference (reference_for_lanes: an integer k, the terms e^x / 2^k by
/// exp_over_power_of_two, as the long rows' log_sum_exp_one_pass); then each row is walked once, S rows at a time,
/// taking top = max(top, x) and sum += term(x) (the last W elements of a row with the lanes counted already adding
/// 0), and the G tops and sums are folded as the references were. Where the reference serves the row's top and the sum is finite (the caller checks: reference_serves), ln(2^k · sum) is the
/// row's value (finish_from_reference_lanes); elsewhere — a NaN or ±inf element, a top far above the first vector —
/// the caller takes the two passes. With `hint_lines`, each step hints the line inner_lines_ahead past it, as the
/// inner kernel's one pass does (64 MiB of rows of 128 floats: 4.4 → 3.0 ns a vector of 8).
/// Against the two passes (the maxima, then e^(x − shift) from L1), f32 rows, one thread, AVX2, Zen 5, ns a vector of
/// 8: in cache (512 KiB) rows of 24 3.27 → 3.04, 33 3.50 → 3.00, 64 2.57 → 1.89, 100 2.51 → 1.74, 128 2.34 → 1.49;
/// 64 MiB from memory rows of 64 2.79 → 2.28, 128 4.66 → 3.04. Two rows at a time (S): four ran 3–8 % slower.
template <class T, std::size_t G>
[[gnu::always_inline]] inline short_rows_terms<simd::pack<T>> log_sum_exp_short_rows_one_pass(const std::array<const T*, G>& rows,
                                                                                               std::size_t length, bool hint_lines) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    using lse = log_sum_exp_reduction<T>;
    static_assert(std::is_same_v<C, float>);  // short_rows_in_one_pass
    constexpr std::size_t W = P::size;
    const P zero(C(0));
    const auto maximum = [](const P& a, const P& b) { return simd::max_ignoring_nan(a, b); };
    std::array<P, G> firsts;
    iter::unrolled<G>([&](auto k) TENSOROPS_INLINE_STEP { firsts[k] = simd::load(rows[k]); });
    const P reference = lse::reference_for_lanes(simd::reduce_lanes_of_rows(firsts, maximum));
    const auto term_reference = lse::term_reference_lanes(reference);
    // Each row's term reference (simd::power_of_two_reference) in every lane.
    std::array<simd::power_of_two_reference<P>, G> row_reference;
    const auto lowest_lanes = simd::to_array(term_reference.lowest), k_lanes = simd::to_array(term_reference.k_less_rounding);
    iter::unrolled<G>([&](auto k) TENSOROPS_INLINE_STEP { row_reference[k] = {P(lowest_lanes[k]), P(k_lanes[k])}; });
    std::array<P, G> tops, sums;
    constexpr std::size_t S = std::min<std::size_t>(G, 2);  // four rows at a time ran 3–8 % slower (rows of 16–128)
    iter::unrolled<G / S>([&](auto part) TENSOROPS_INLINE_STEP {
        constexpr std::size_t first = part * S;
        iter::unrolled<S>([&](auto i) TENSOROPS_INLINE_STEP {
            constexpr std::size_t k = first + i;
            simd::prefetch_stream_ahead(rows[k], length * sizeof(T));  // as combine_short_rows
            const P x = simd::load(rows[k]);
            tops[k] = x;
            sums[k] = lse::term_lanes(x, row_reference[k]);
        });
        std::size_t j = W;
        for (; j + W <= length; j += W)
            iter::unrolled<S>([&](auto i) TENSOROPS_INLINE_STEP {
                constexpr std::size_t k = first + i;
                if (hint_lines) simd::prefetch_ahead(rows[k] + j, inner_lines_ahead, W * sizeof(T));
                const P x = simd::load(rows[k] + j);
                tops[k] = maximum(tops[k], x);
                sums[k] = lse::add_term_lanes(sums[k], x, row_reference[k]);
            });
        if (j < length) {  // the last W elements, of which the first W − (length − j) were counted already
            const auto counted = simd::detail::lanes_below<P>(W - (length - j));
            iter::unrolled<S>([&](auto i) TENSOROPS_INLINE_STEP {
                constexpr std::size_t k = first + i;
                const P x = simd::load(rows[k] + length - W);
                tops[k] = maximum(tops[k], x);
                sums[k] = sums[k] + simd::select(counted, zero, lse::term_lanes(x, row_reference[k]));
            });
        }
    });
    return {simd::reduce_lanes_of_rows(tops, maximum), reference, simd::reduce_lanes_of_rows(sums, [](const P& a, const P& b) { return a + b; })};
}

}  // namespace tensorops::detail
