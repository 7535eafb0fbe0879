// tensorops/ops/detail/log_sum_exp/short_rows.hpp — log-sum-exp's kernel for groups that are one short contiguous run
// (at most log_sum_exp_short_row_elements): rows of two registers or more of floats in one pass, each row's terms over
// a reference from its own first vector; shorter rows, double rows and rows that reference does not serve in two
// passes (the maxima, then Σ e^(x − shift) from L1); back-to-back rows of 2 to narrow_row_max elements in registers
// of components (narrow_rows.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "../../../core/inline.hpp"
#include "../../../iter/plan.hpp"
#include "../../../iter/unroll.hpp"
#include "../../../simd/horizontal.hpp"
#include "../../../simd/pack.hpp"
#include "../../../simd/prefetch.hpp"
#include "../narrow_rows.hpp"
#include "../reductions.hpp"
#include "../short_rows.hpp"
#include "../stream_hints.hpp"
#include "../tuning.hpp"

namespace tensorops::detail {

/// Whether log-sum-exp rows of two registers or more take one pass in the short-row kernel
/// (reduce_short_rows_log_sum_exp): for float lanes (float and float16 data). Double lanes' term is e^(x − reference),
/// as costly as the second pass's e^(x − shift), so the one pass saves them nothing.
template <class T>
inline constexpr bool short_rows_in_one_pass = [] {
    if constexpr (log_sum_exp_reduction<T>::vectorizable) return std::is_same_v<simd::compute_t<T>, float>;
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
/// inner kernel's one pass does.
/// Against the two passes (the maxima, then e^(x − shift) from L1) the one pass measured faster in cache and from
/// memory, and the hints faster from memory. Two rows at a time (S): four measured slower, not kept (the figures:
/// bench/journal/notes-reduce-and-log-sum-exp.md).
template <class T, std::size_t G>
[[TENSOROPS_ALWAYS_INLINE]] inline short_rows_terms<simd::pack<T>> log_sum_exp_short_rows_one_pass(
    const std::array<const T*, G>& rows, std::size_t length, bool hint_lines) {
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
    constexpr std::size_t S = std::min<std::size_t>(G, 2);  // four rows at a time measured slower (see above)
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

/// The narrow-row kernel (reduce/narrow_rows.hpp) for log-sum-exp: n back-to-back rows of L elements at x, row k's value to
/// y[k · out_step]; each row's maximum, then Σ e^(x − shift) over the row where the maximum is finite — per lane what
/// the short-row kernel's two passes give a row shorter than a register, bit for bit.
template <std::size_t L, class T>
void log_sum_exp_narrow_rows(const T* x, T* y, std::size_t n, std::ptrdiff_t out_step) {
    using R = log_sum_exp_reduction<T>;
    using P = simd::pack<T>;
    constexpr std::size_t W = P::size;
    const R r{};
    walk_narrow_rows<L>(x, y, n, out_step, [&](const std::array<P, L>& v) TENSOROPS_INLINE_STEP {
        std::array<P, L> lifted;
        const P top = narrow_rows::fold_rows<W>(narrow_rows::components(v), extreme_reduction<T, true>{});
        const P shift = R::shift_for_lanes(top);
        // The shift of row p (lane p) spread to the loaded registers' layout, where row p's elements lie.
        iter::unrolled<L>([&](auto s) { lifted[s] = r.lift_lanes(v[s], simd::permute_constant<narrow_rows::row_of_lane<L, s>>(shift)); });
        return r.finish_lanes(R::sum_for_non_finite_lanes(top, narrow_rows::fold_rows<W>(narrow_rows::components(lifted), r)), L, shift);
    });
}

/// Log-sum-exp of the rows of `kept`, each `length` contiguous elements, 1 ≤ length ≤ log_sum_exp_short_row_elements<T>
/// (see the file's comment): groups walked by walk_short_row_groups, finished (a logarithm) a batch at a time.
template <class T>
void reduce_short_rows_log_sum_exp(const T* input, T* output, const iter::loop_nest<2>& kept, std::size_t length) {
    using R = log_sum_exp_reduction<T>;
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    constexpr std::size_t G = short_row_group<T>;
    const R r{};
    const auto no_shift = [](std::size_t) { return P(C(0)); };
    // What a group leaves to finish: its sums over `shift` (the two passes' shifts, or the one pass's references), or
    // nothing where it was written already.
    struct pending {
        P total, shift;
        bool written;
    };
    const bool narrow = takes_narrow_row_kernel<T>(kept, length);
    // Rows of two registers or more in one pass (log_sum_exp_short_rows_one_pass); shorter rows take the two passes —
    // as the narrow-row kernel does, whatever their layout —, where the one pass's reference per row costs more than
    // the second pass from L1 saves.
    const bool one_pass = short_rows_in_one_pass<T> && length >= 2 * P::size;
    const bool hint_lines = hints_lines(kept.element_count() * length * sizeof(T));
    walk_short_row_groups<T, pending>(
        input, output, kept, length,
        [&](const T* x, T* y, std::size_t n, std::ptrdiff_t out_step) TENSOROPS_INLINE_STEP {
            if constexpr (has_narrow_reduce_kernel<T>) {
                if (narrow) {
                    with_narrow_row_length<T>(length, [&](auto l) { log_sum_exp_narrow_rows<decltype(l)::value>(x, y, n, out_step); });
                    return true;
                }
            }
            return false;
        },
        [&](const std::array<const T*, G>& rows, bool whole, const auto& write_now) TENSOROPS_INLINE_STEP {
            // The maxima, then Σ e^(x − shift) where the maximum is finite; the terms' reduction reads four rows at a
            // time, each in order (its lift holds many constants).
            const auto two_passes = [&]() TENSOROPS_INLINE_STEP {
                const P top = combine_short_rows<T>(rows, length, extreme_reduction<T, true>{}, no_shift, whole);
                const P shift = R::shift_for_lanes(top);
                const auto shift_lanes = simd::to_array(shift);
                const P sums = combine_short_rows<T, 4, false>(rows, length, r, [&](std::size_t k) { return P(shift_lanes[k]); }, whole);
                return pending{R::sum_for_non_finite_lanes(top, sums), shift, false};
            };
            if constexpr (short_rows_in_one_pass<T>) {
                if (one_pass) {
                    const auto one = log_sum_exp_short_rows_one_pass(rows, length, hint_lines);
                    const auto served = (simd::abs(one.sum) < P(std::numeric_limits<C>::infinity())) & R::reference_serves(one.top, one.reference);
                    if (simd::any((!served) & simd::detail::lanes_below<P>(G))) {  // rows the reference does not serve: two passes
                        const auto two = two_passes();
                        write_now(simd::select(served, R::finish_from_reference_lanes(one.sum, one.reference), r.finish_lanes(two.total, length, two.shift)));
                        return pending{one.sum, one.reference, true};
                    }
                    return pending{one.sum, one.reference, false};
                }
            }
            return two_passes();
        },
        [&](const pending& group, const auto& write) TENSOROPS_INLINE_STEP {
            if (group.written) return;
            if constexpr (short_rows_in_one_pass<T>) {
                if (one_pass) return write(R::finish_from_reference_lanes(group.total, group.shift));
            }
            write(r.finish_lanes(group.total, length, group.shift));
        });
}

}  // namespace tensorops::detail
