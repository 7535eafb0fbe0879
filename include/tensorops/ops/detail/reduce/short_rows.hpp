// tensorops/ops/detail/reduce/short_rows.hpp — reduce's kernel for groups that are one short contiguous run (at most
// short_row_elements elements): eight rows at a time, their horizontal steps folded into one register (short_rows.hpp).
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
#include "../narrow_rows.hpp"
#include "../reductions.hpp"
#include "../short_rows.hpp"
#include "../tuning.hpp"
#include "narrow_rows.hpp"

namespace tensorops::detail {

/// The short-row kernel (see short_rows.hpp) for rows of `length` elements, 1 ≤ length ≤ short_row_elements<T>, in lanes
/// of U (T's own, or for 8- and 16-bit integers the 32-bit lanes of narrow_row_lane_t, R rebound to them): each group's
/// rows combined into one register (combine_short_rows; rows read one by one from memory, where the CPU takes line
/// hints, by combine_rows_hinting_lines — the same lanes), finished lane-wise after its batch; back-to-back rows of up
/// to narrow_reduce_row_max elements go to the narrow-row kernel.
template <class U, class T, class R>
void reduce_short_rows_in(const T* input, T* output, const iter::loop_nest<2>& kept, std::size_t length, const R& r) {
    using P = simd::pack<U>;
    using C = simd::compute_t<U>;
    constexpr std::size_t G = short_row_group<U>;
    const auto no_shift = [](std::size_t) { return P(C(0)); };
    const auto finish_group = [&](const P& total, const auto& write) TENSOROPS_INLINE_STEP { write(r.finish_lanes(total, length, P(C(0)))); };
    if (hints_short_row_lines<T>(kept.element_count(), length, P::size)) {  // rows read one by one, hinting their lines
        walk_short_row_groups<U, P>(
            input, output, kept, length, [](const T*, T*, std::size_t, std::ptrdiff_t) { return false; },
            [&](const std::array<const T*, G>& rows, bool, const auto&) TENSOROPS_INLINE_STEP {
                return combine_rows_hinting_lines<U>(rows, length, r, no_shift);
            },
            finish_group);
        return;
    }
    const bool narrow = std::is_same_v<U, T> && takes_narrow_row_kernel<T>(kept, length);
    walk_short_row_groups<U, P>(
        input, output, kept, length,
        [&](const T* x, T* y, std::size_t n, std::ptrdiff_t out_step) TENSOROPS_INLINE_STEP {
            if constexpr (std::is_same_v<U, T> && has_narrow_reduce_kernel<T>) {
                if (narrow) {
                    reduce_narrow_rows(x, y, n, out_step, length, r);
                    return true;
                }
            }
            return false;
        },
        [&](const std::array<const T*, G>& rows, bool whole, const auto&) TENSOROPS_INLINE_STEP {
            return combine_short_rows<U>(rows, length, r, no_shift, whole);
        },
        finish_group);
}

/// The short-row kernel for rows of `length` elements, 1 ≤ length ≤ short_row_elements<T>: rows of up to a 32-bit
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
