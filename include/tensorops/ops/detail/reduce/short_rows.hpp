// tensorops/ops/detail/reduce/short_rows.hpp — reduce's kernel for groups that are one short contiguous run (at most
// short_row_limit elements): eight rows at a time, their horizontal steps folded into one register.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "../../../iter/nd_loop.hpp"
#include "../../../iter/plan.hpp"
#include "../../../iter/unroll.hpp"
#include "../../../simd/horizontal.hpp"
#include "../../../simd/pack.hpp"
#include "../../../simd/prefetch.hpp"
#include "../cascade.hpp"
#include "../log_sum_exp/short_rows.hpp"
#include "../reductions.hpp"
#include "../stream_hints.hpp"
#include "../tuning.hpp"
#include "narrow_rows.hpp"

namespace tensorops::detail {

// ---------------------------------------------------------------------------------------------
// Short rows: the group is one contiguous run of at most short_row_elements elements (2 KiB of floats).
//
// Algorithm. Per output, the general inner kernel sets up inner_accumulators accumulators, combines them and takes
// one horizontal step, and runs shorter than a vector went to the scalar kernel: for runs of a few vectors that
// costs more than reading them (64 MiB of f32 rows of 8 elements: SUM 38.8 ms, MAX 83.8 ms, where one read takes
// 2.3–5 ms; rows of 3: SUM 66 ms). Here the rows are taken short_row_group at a time: each row's vectors are
// combined in order into one accumulator (longer rows: in several, below) — its last, partial vector read as the
// row's last W elements with the lanes already counted set to the identity, a run shorter than a vector as one vector
// with the lanes past it set to the identity (read whole where the rows after it are the input's, else by a partial load) — and the group's
// accumulators are folded into one register by simd::reduce_lanes_of_rows, lane p holding row p's combination,
// which is finished lane-wise and written. Each row hints the pages simd::page_prefetch_distance past it (the rows to
// come, when they lie back to back; 64 MiB of f32 rows of 256 and 64, SUM 11–12 → 13–13.5 and 13.5–14 → 18–21 GB/s
// against a hint per line 4 KiB ahead, Zen 5 guest in 4 KiB pages). A row's arithmetic does not depend on its group (a short group repeats
// its last row), so pieces of the outputs on any executor compute what the whole does. Log-sum-exp takes rows of two
// registers or more in one pass, each row's terms over a reference from its first vector
// (log_sum_exp_short_rows_one_pass), and shorter rows, or rows that reference does not serve, in two: the group's
// maxima, then the sums of e^(x − shift) (from L1); groups are finished (the logarithm) in batches (reduce_short_rows). Float sums: one accumulator of ≤ 64
// elements per lane, then the lanes pairwise (the general kernel sums up to cascade_block = 128 per lane).
// Rows of short_rows_one_by_one_vectors vectors and short_rows_one_by_one_bytes bytes or more (other than
// log-sum-exp's) are read one after the other instead, not side by side (combine_row_alone): each in short_row_chains
// accumulators (after the first vector, vectors 1, 5, 9, … join the first, 2, 6, 10, … the second, …; whole vectors
// left over and the last, partial one join the first), combined pairwise at the row's end — so a float lane's chain
// sums at most 20 elements, not 64. Read side by side — the group's eight rows a vector each at a time — rows of
// 64–512 floats came from memory at half the speed or less on an AMD Zen 4 guest (f32 SUM of 64 MiB, ns a vector of 8,
// side by side → one by one: rows of 48 1.42 → 0.95, 64 1.60 → 0.95, 128 2.52 → 0.93, 256 2.20 → 0.90, 512 1.68 →
// 0.84; 1 MiB in L2: 0.51 → 0.50, 0.48 → 0.47, 0.41 → 0.39, 0.38 → 0.37, 0.43 → 0.42; rows of 16 and 32 floats ran
// 5–50 % slower one by one, 40 alike). Hints a line 16 KiB ahead did not help the side-by-side reads (slower), nor did
// two rows side by side (as slow as eight).

/// Rows of at most this many elements take the short-row kernel: short_row_elements, or for log-sum-exp a quarter of
/// it (128 floats with AVX2); longer log-sum-exp rows go to the inner kernel, one pass each (log_sum_exp_one_pass)
/// with its horizontal steps per row. The short-row kernel's one pass (log_sum_exp_short_rows_one_pass) is faster in
/// cache up to 512 floats, but slower from memory beyond 128 (f32, AVX2, Zen 5, ns a vector of 8, short-row against
/// inner: 512 KiB rows of 136 1.52 / 2.59, 256 1.33 / 1.85, 512 1.24 / 1.47; 64 MiB rows of 192 3.18 / 2.29, 256 2.97 /
/// 2.05, 512 2.57 / 1.70 — not understood: line hints each line once, or 8 or 32 KiB ahead, did not change it).
template <class T, class R>
inline constexpr std::size_t short_row_limit = R::shifted ? short_row_elements<T> / 4 : short_row_elements<T>;

/// Whether the short-row kernel reads rows of `length` elements of T, `lanes` a vector, one after the other
/// (combine_row_alone) rather than side by side: rows of short_rows_one_by_one_vectors vectors and
/// short_rows_one_by_one_bytes bytes or more, but for log-sum-exp's.
template <class R, class T>
[[nodiscard]] constexpr bool reads_rows_one_by_one(std::size_t length, std::size_t lanes) noexcept {
    return !R::shifted && length >= short_rows_one_by_one_vectors * lanes && length * sizeof(T) >= short_rows_one_by_one_bytes;
}

/// The lanes of r's combination of the `length` (≥ W) contiguous elements at `row`, lifted with `shift`, in lanes of U
/// (as combine_short_rows): short_row_chains accumulators along the row (from the second vector on, vector i joins chain
/// (i − 1) mod short_row_chains; the first vector, whole vectors left over and the last, partial one, the first chain),
/// combined pairwise at its end.
template <class U, class T, class R, class Shift>
[[gnu::always_inline]] inline simd::pack<U> combine_row_alone(const T* row, std::size_t length, const R& r, const Shift& shift) {
    using P = simd::pack<U>;
    using C = simd::compute_t<U>;
    constexpr std::size_t W = P::size, Q = short_row_chains;
    const P identity(static_cast<C>(r.identity()));
    simd::prefetch_stream_ahead(row, length * sizeof(T));
    std::array<P, Q> chain;
    chain[0] = r.lift_lanes(simd::load_as<U>(row), shift);
    iter::unrolled<Q - 1>([&](auto q) TENSOROPS_INLINE_STEP { chain[q + 1] = identity; });
    std::size_t j = W;
    for (; j + Q * W <= length; j += Q * W)
        iter::unrolled<Q>([&](auto q) TENSOROPS_INLINE_STEP { chain[q] = r.combine_lanes(chain[q], r.lift_lanes(simd::load_as<U>(row + j + q * W), shift)); });
    for (; j + W <= length; j += W) chain[0] = r.combine_lanes(chain[0], r.lift_lanes(simd::load_as<U>(row + j), shift));
    if (j < length) {  // the last W elements, of which the first W − (length − j) were counted already
        const auto counted = simd::detail::lanes_below<P>(W - (length - j));
        chain[0] = r.combine_lanes(chain[0], simd::select(counted, identity, r.lift_lanes(simd::load_as<U>(row + length - W), shift)));
    }
    return combine_all(chain, [&](const P& a, const P& b) { return r.combine_lanes(a, b); });
}

/// Lane p (p < G) = r's combination of the `length` (≥ 1) contiguous elements at rows[p], lifted with
/// shift_of(p) (a register; ignored by reductions that are not shifted). Rows shorter than a register are one
/// vector each, its lanes from `length` on set to the identity: read whole where `whole` (the caller knows that W
/// elements from each row's start are input elements: the rows after it), else by a partial load. The lanes that
/// count are the same either way, and so is the value. In lanes of U: T's own, or the 32-bit lanes 8- and 16-bit
/// integers widen to (simd::load_as; r is then the reduction over U).
template <class U, class T, class R, std::size_t G, class Shift>
[[gnu::always_inline]] inline simd::pack<U> combine_short_rows(const std::array<const T*, G>& rows, std::size_t length, const R& r,
                                                                  const Shift& shift_of, bool whole = false) {
    using P = simd::pack<U>;
    using C = simd::compute_t<U>;
    constexpr std::size_t W = P::size;
    const P identity(static_cast<C>(r.identity()));
    std::array<P, G> acc;
    if (length < W) {  // one vector per row
        const auto valid = simd::detail::lanes_below<P>(length);
        if (whole)
            iter::unrolled<G>([&](auto k) TENSOROPS_INLINE_STEP { acc[k] = simd::select(valid, r.lift_lanes(simd::load_as<U>(rows[k]), shift_of(k)), identity); });
        else
            iter::unrolled<G>([&](auto k) TENSOROPS_INLINE_STEP {
                acc[k] = simd::select(valid, r.lift_lanes(simd::load_partial_as<U>(rows[k], length), shift_of(k)), identity);
            });
    } else if (reads_rows_one_by_one<R, T>(length, W)) {
        iter::unrolled<G>([&](auto k) TENSOROPS_INLINE_STEP { acc[k] = combine_row_alone<U>(rows[k], length, r, shift_of(k)); });
    } else {
        // Rows S at a time: log-sum-exp's terms take enough constants that eight accumulators spilled (f32, 512 KiB, ns
        // a row, eight → four at a time: rows of 8 5.8 → 5.3, of 16 7.8 → 7.3, of 64 20.3 → 20.0).
        constexpr std::size_t S = R::shifted ? std::min<std::size_t>(G, 4) : G;
        iter::unrolled<G / S>([&](auto half) TENSOROPS_INLINE_STEP {
            constexpr std::size_t first = half * S;
            iter::unrolled<S>([&](auto i) TENSOROPS_INLINE_STEP {
                constexpr std::size_t k = first + i;
                simd::prefetch_stream_ahead(rows[k], length * sizeof(T));
                acc[k] = r.lift_lanes(simd::load_as<U>(rows[k]), shift_of(k));
            });
            std::size_t j = W;
            for (; j + W <= length; j += W)
                iter::unrolled<S>([&](auto i) TENSOROPS_INLINE_STEP {
                    constexpr std::size_t k = first + i;
                    acc[k] = r.combine_lanes(acc[k], r.lift_lanes(simd::load_as<U>(rows[k] + j), shift_of(k)));
                });
            if (j < length) {  // the last W elements, of which the first W − (length − j) were counted already
                const auto counted = simd::detail::lanes_below<P>(W - (length - j));
                iter::unrolled<S>([&](auto i) TENSOROPS_INLINE_STEP {
                    constexpr std::size_t k = first + i;
                    acc[k] = r.combine_lanes(acc[k], simd::select(counted, identity, r.lift_lanes(simd::load_as<U>(rows[k] + length - W), shift_of(k))));
                });
            }
        });
    }
    return simd::reduce_lanes_of_rows(acc, [&](const P& a, const P& b) { return r.combine_lanes(a, b); });
}

/// The short-row kernel (see above) for rows of `length` elements, 1 ≤ length ≤ short_row_limit<T, R>, in lanes of U
/// (T's own, or for 8- and 16-bit integers the 32-bit lanes of narrow_row_lane_t, R rebound to them).
/// Groups are accumulated one after the other (for log-sum-exp in one pass, or its maxima, then its terms, while the
/// group is in L1)
/// and finished short_row_batch at a time after them: the finish of log-sum-exp and LOG_SUM is a logarithm, a call
/// across which every live vector register is spilled, and whose latency, at the end of each group's chain of
/// dependent steps, the next group's loads had waited behind. f32 [rows, L], one thread, ns a row, one group at a time
/// → finished in batches (with the max combine and log-sum-exp's shift helpers always inline, which GCC had left calls
/// in the batched loop): log-sum-exp, 512 KiB, rows of 8 / 16 / 64 6.8 / 8.8 / 21.7 → 5.5 / 7.6 / 20.7; LOG_SUM of 64
/// 6.4 → 3.8; 64 MiB from memory, rows of 8 7.0 → 5.8. (Taking every group's maxima first, then every group's terms,
/// was faster in cache but left the memory stream idle through the terms: log-sum-exp of 64 MiB of rows of 64 33.8 →
/// 51.4 ns a row.)
template <class U, class T, class R>
void reduce_short_rows_in(const T* input, T* output, const iter::loop_nest<2>& kept, std::size_t length, const R& r) {
    using P = simd::pack<U>;
    using C = simd::compute_t<U>;
    constexpr std::size_t G = short_row_group<U>;
    constexpr std::size_t B = short_row_batch;
    const auto no_shift = [](std::size_t) { return P(C(0)); };
    // The rows along the innermost kept dimension are taken G at a time with their pointers stepped here: a closure
    // call and a nest step per row cost more than a row of a few elements (SUM of rows of 3 floats: 64 instructions
    // per row that way). A line's last group repeats its last row.
    const std::size_t inner = kept.rank == 0 ? 0 : kept.rank - 1;
    const std::size_t n = kept.rank == 0 ? 1 : kept.sizes[inner];
    const std::ptrdiff_t in_step = kept.rank == 0 ? 0 : kept.strides[1][inner];
    const std::ptrdiff_t out_step = kept.rank == 0 ? 0 : kept.strides[0][inner];
    const bool back_to_back = in_step == static_cast<std::ptrdiff_t>(length);
    const bool narrow = std::is_same_v<U, T> && takes_narrow_row_kernel<T>(kept, length);
    // Log-sum-exp of rows of two registers or more in one pass (log_sum_exp_short_rows_one_pass); shorter rows take
    // the two passes — as the narrow-row kernel does, whatever their layout —, where the one pass's reference per row
    // cost more than the second pass from L1 saves (f32, 512 KiB, ns a row, two passes / one pass: rows of 9 7.16 /
    // 7.34, of 12 5.34 / 5.47, of 16 7.55 / 7.58; of 24 9.80 / 9.12).
    const bool one_pass = short_rows_in_one_pass<R, U> && length >= 2 * P::size;
    const bool hint_lines = hints_lines(kept.element_count() * length * sizeof(T));
    iter::for_each_outer_index(kept, inner, [&](const std::array<std::ptrdiff_t, 2>& line) {
        const T* x = input + line[1];
        T* y = output + line[0];
        if constexpr (std::is_same_v<U, T> && has_narrow_reduce_kernel<T>) {
            if (narrow) return reduce_narrow_rows(x, y, n, out_step, length, r);
        }
        // The G rows from row `first`, whose first is at `at` (a pointer stepped group by group: computed from `first`
        // for every group, SUM of f32 rows of 8 and 16 ran 0.1–0.15 ns a row slower), the last row repeated past the
        // line's end.
        const auto group_rows = [&](const T* at, std::size_t first) TENSOROPS_INLINE_STEP {
            std::array<const T*, G> rows;
            if (first + G <= n) iter::unrolled<G>([&](auto k) { rows[k] = at + static_cast<std::ptrdiff_t>(k) * in_step; });
            else iter::unrolled<G>([&](auto k) { rows[k] = x + static_cast<std::ptrdiff_t>(std::min<std::size_t>(first + k, n - 1)) * in_step; });
            return rows;
        };
        // Whether the rows of the group from row `first`, shorter than a register, may be read a whole register each:
        // where the line's rows lie back to back and W elements from the group's last row end within the line, they
        // are the input's own elements (nothing past the line is read: it may be another tensor's, or unmapped). A
        // partial load of 8- and 16-bit lanes had gone through memory (int8 rows of 5: 19 ns a row that way, 1.8 read
        // whole).
        const auto whole_rows = [&](std::size_t first) TENSOROPS_INLINE_STEP {
            return length < P::size && back_to_back && (std::min(first + G, n) - 1) * length + P::size <= n * length;
        };
        // Row `row` … of the group: lane k's value to its output.
        const auto write = [&](std::size_t row, const P& finished) TENSOROPS_INLINE_STEP {
            const auto values = simd::to_array(finished);
            const std::size_t here = std::min(G, n - row);
            T* out = y + static_cast<std::ptrdiff_t>(row) * out_step;
            if (here == G) iter::unrolled<G>([&](auto k) { out[static_cast<std::ptrdiff_t>(k) * out_step] = static_cast<T>(values[k]); });
            else for (std::size_t k = 0; k < here; ++k) out[static_cast<std::ptrdiff_t>(k) * out_step] = static_cast<T>(values[k]);
        };
        const std::ptrdiff_t group_step = static_cast<std::ptrdiff_t>(G) * in_step;
        const T* at = x;
        for (std::size_t first = 0; first < n; first += G * B) {
            const std::size_t groups = std::min(B, (n - first + G - 1) / G);
            // Per group: the lanes to finish (log-sum-exp in one pass: its sums, and references in `shifts`), or
            // `written` already.
            std::array<P, B> totals, shifts;
            std::array<bool, B> written{};
            for (std::size_t b = 0; b < groups; ++b, at += group_step) {
                const std::size_t row = first + b * G;
                const auto rows = group_rows(at, row);
                const bool whole = whole_rows(row);
                if constexpr (R::shifted) {  // log-sum-exp: one pass, or the maxima, then Σ e^(x − shift) where the maximum is finite
                    struct total_and_shift {
                        P total, shift;
                    };
                    const auto two_passes = [&]() TENSOROPS_INLINE_STEP {
                        const P top = combine_short_rows<U>(rows, length, extreme_reduction<U, true>{}, no_shift, whole);
                        const P shift = R::shift_for_lanes(top);
                        const auto shift_lanes = simd::to_array(shift);
                        return total_and_shift{R::sum_for_non_finite_lanes(top, combine_short_rows<U>(rows, length, r, [&](std::size_t k) { return P(shift_lanes[k]); }, whole)), shift};
                    };
                    if constexpr (short_rows_in_one_pass<R, U>) {
                        if (one_pass) {
                            const auto one = log_sum_exp_short_rows_one_pass(rows, length, hint_lines);
                            const auto served = (simd::abs(one.sum) < P(std::numeric_limits<C>::infinity())) & R::reference_serves(one.top, one.reference);
                            totals[b] = one.sum;
                            shifts[b] = one.reference;
                            if (simd::any((!served) & simd::detail::lanes_below<P>(G))) {  // rows the reference does not serve: two passes
                                const auto two = two_passes();
                                write(row, simd::select(served, R::finish_from_reference_lanes(one.sum, one.reference), r.finish_lanes(two.total, length, two.shift)));
                                written[b] = true;
                            }
                            continue;
                        }
                    }
                    const auto two = two_passes();
                    totals[b] = two.total;
                    shifts[b] = two.shift;
                } else {
                    totals[b] = combine_short_rows<U>(rows, length, r, no_shift, whole);
                }
            }
            for (std::size_t b = 0; b < groups; ++b) {
                if (written[b]) continue;
                const std::size_t row = first + b * G;
                if constexpr (short_rows_in_one_pass<R, U>) {
                    if (one_pass) {
                        write(row, R::finish_from_reference_lanes(totals[b], shifts[b]));
                        continue;
                    }
                }
                write(row, r.finish_lanes(totals[b], length, R::shifted ? shifts[b] : P(C(0))));
            }
        }
    });
}

/// The short-row kernel for rows of `length` elements, 1 ≤ length ≤ short_row_limit<T, R>: rows of up to a 32-bit
/// register's lanes of 8- and 16-bit integers in those lanes (widened on load, simd::load_as; R rebound as the
/// narrow-row kernel's: sums and products keep their value modulo 2^n, max and min are exact, so the truncated values
/// are the same bits) — a row is one vector of 8 lanes instead of 32 or 16, and eight rows fold in three butterfly
/// levels instead of five or four —, other rows in T's lanes. Back-to-back rows of up to narrow_reduce_row_max take
/// the narrow-row kernel either way.
template <class T, class R>
void reduce_short_rows(const T* input, T* output, const iter::loop_nest<2>& kept, std::size_t length, const R& r) {
    if constexpr (has_narrow_reduce_kernel<T> && !std::is_same_v<narrow_row_lane_t<T>, T>) {
        using U = narrow_row_lane_t<T>;
        if (length <= simd::lanes<U> && !takes_narrow_row_kernel<T>(kept, length)) return reduce_short_rows_in<U>(input, output, kept, length, rebind_reduction_t<R, U>{});
    }
    reduce_short_rows_in<T>(input, output, kept, length, r);
}

}  // namespace tensorops::detail
