// tensorops/ops/detail/arg_reduce/narrow_rows.hpp — argmax/argmin of back-to-back rows narrower than a register, a
// register's lanes of rows at a time (the components of narrow_rows.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "../../../core/inline.hpp"
#include "../../../iter/unroll.hpp"
#include "../../../simd/pack.hpp"
#include "../narrow_rows.hpp"
#include "policy.hpp"
#include "short_rows.hpp"

namespace tensorops::detail {

// Narrow rows back to back: rows of L elements, 2 ≤ L ≤ narrow_arg_row_max<T> (a register's W lanes at most), each
// right after the previous one, in registers of 32- or 64-bit lanes — the class scores of a few classes.
//
// Algorithm. W rows are L whole registers; the reduce kernel's narrow_rows::components turns them into L registers,
// component s holding element s of row p in lane p (constant blends and permutes: see ../narrow_rows.hpp). Then the
// W rows are walked at once, element by element in row order: best = component 0, position 0; for s = 1 … L − 1,
// the lanes where component s replaces the best (replaces_lanes: strictly better, or a tie with Last; NaN is the
// extreme) take its value and position s. That is the walk's own rule, so a lane ends with its row's first (last)
// extreme: the same answer as locate_in_short_row, which takes the rows after the last whole W. Where the answers
// are the positions themselves, written back to back (one reduced axis, a dense output), the W go out at once; else
// one row at a time. Per row that is a W-th of the blends and compares, with no horizontal step, where
// locate_in_short_row takes a horizontal reduction, a mask extraction a vector and a bit scan for every row.

/// The longest rows (in elements) the narrow-row argmax takes: a register's lanes. Its blends grow as L² (L(L − 1)
/// for W rows), but even at L = W they cost less than locate_in_short_row's pass over each row (see above; the
/// figures: bench/journal/notes-reduce-shared-and-argmax.md).
template <class T>
inline constexpr std::size_t narrow_arg_row_max = has_narrow_row_kernel<T> ? simd::lanes<T> : 0;

/// The positions in their rows of the first (Last: last) extremes of the W rows of L elements held back to back in
/// v (lane p: row p's; NaN is the extreme).
template <bool Maximum, bool Last, std::size_t L, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline simd::lane_index_pack<P> narrow_row_positions(const std::array<P, L>& v) {
    using Q = simd::lane_index_pack<P>;
    using I = typename Q::value_type;
    const std::array<P, L> component = narrow_rows::components(v);
    P best = component[0];
    Q position(I(0));
    iter::unrolled<L - 1>([&](auto k) TENSOROPS_INLINE_STEP {
        const P& candidate = component[k + 1];
        const auto replace = replaces_lanes<Maximum, Last>(candidate, best);
        best = simd::select(replace, candidate, best);
        position = simd::select_lanes<P>(replace, Q(static_cast<I>(k + 1)), position);
    });
    return position;
}

/// Argmax / argmin of the `n` rows of L elements back to back at x (narrow-row algorithm above): row i's answer, flat
/// index `flat` + i · flat_step + position · index_step, to output element y + i · y_step. The rows after the last
/// whole W go through locate_in_short_row (their last vector read in part).
template <bool Maximum, bool Last, std::size_t L, class T>
void locate_in_narrow_rows(const T* x, std::size_t n, const index_output& output, std::ptrdiff_t y, std::ptrdiff_t y_step, std::ptrdiff_t flat,
                           std::ptrdiff_t flat_step, std::ptrdiff_t index_step) {
    using P = simd::pack<T>;
    constexpr std::size_t W = P::size;
    static_assert(L >= 2 && L <= W);
    const auto put = [&](std::size_t i, std::size_t position) TENSOROPS_INLINE_STEP {
        const auto k = static_cast<std::ptrdiff_t>(i);
        output.put(y + k * y_step, flat + k * flat_step + static_cast<std::ptrdiff_t>(position) * index_step);
    };
    // The usual case — one reduced axis of unit index step, outputs back to back — writes W answers at once (the
    // positions themselves), not row by row: one contiguous store where there would be W indexed writes.
    const bool positions_are_answers = flat == 0 && flat_step == 0 && index_step == 1 && y_step == 1;
    std::size_t i = 0;
    for (; i + W <= n; i += W, x += W * L) {
        std::array<P, L> v;
        iter::unrolled<L>([&](auto s) { v[s] = simd::load(x + s * W); });
        const auto positions = simd::to_array(narrow_row_positions<Maximum, Last>(v));
        if (positions_are_answers) output.put_contiguous(y + static_cast<std::ptrdiff_t>(i), positions.data(), W);
        else for (std::size_t p = 0; p < W; ++p) put(i + p, positions[p]);
    }
    for (; i < n; ++i, x += L) put(i, locate_in_short_row<Maximum, Last>(x, L, false));
}

/// locate_in_narrow_rows for the row length `length` (2 ≤ length ≤ narrow_arg_row_max<T>).
template <bool Maximum, bool Last, class T>
void locate_in_narrow_rows(const T* x, std::size_t length, std::size_t n, const index_output& output, std::ptrdiff_t y, std::ptrdiff_t y_step,
                           std::ptrdiff_t flat, std::ptrdiff_t flat_step, std::ptrdiff_t index_step) {
    iter::unrolled<narrow_arg_row_max<T> - 1>([&](auto k) {
        constexpr std::size_t L = k + 2;
        if (length == L) locate_in_narrow_rows<Maximum, Last, L>(x, n, output, y, y_step, flat, flat_step, index_step);
    });
}

}  // namespace tensorops::detail
