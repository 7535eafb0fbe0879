// tensorops/ops/detail/arg_reduce/outer_by_extreme.hpp — the outer layout with 8- and 16-bit lanes, too narrow for an
// index: each column's extreme first, then the rows walked again to where it first (last) occurs.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "../../../iter/nd_loop.hpp"
#include "../../../simd/pack.hpp"
#include "../reduce_nest.hpp"
#include "../row_walk.hpp"
#include "../tuning.hpp"
#include "outer.hpp"

namespace tensorops::detail {

// ---------------------------------------------------------------------------------------------
// Outer, 8- and 16-bit lanes: each column's extreme first, then where it is.
//
// Algorithm (arg_reduce_rows_by_extreme). The outer kernel above keeps each column's flat index in a lane as wide as
// the value, which 8 or 16 bits cannot hold. For these types a panel of columns is read twice instead: first each
// column's extreme (a max or min over the rows, a vector of W lanes at a time, as the outer reduce kernel folds its
// rows), then the rows again in walk order (Last: in reverse walk order) until every column has met its extreme —
// each vector compared with the extremes and with the columns already found, and only the lanes of a new match
// visited (simd::for_each_set_lane; each column is recorded once). Exact like any other argmax: the answer is the first
// (last) flat index holding the extreme. The second pass stops at the row where the last column finds its extreme:
// on random data most of the rows, so about two passes over memory — vector passes, where these types would otherwise
// take the scalar strided kernel.

/// A line of rows of a group, for arg_find_extremes: its offset in elements of the input and in flat indices.
struct row_line {
    std::ptrdiff_t element, index;
};

/// The algorithm above for `w` ≤ arg_extreme_panel columns from x: over the rows of `lines` (in that order; each
/// `length` rows, `step` elements and `index_step` flat indices apart), each column's extreme in extreme[j] and the
/// first (Last: last) flat index index_base + … that holds it in answer[j].
template <bool Maximum, bool Last, class T>
void arg_find_extremes(const T* x, std::span<const row_line> lines, std::size_t length, std::ptrdiff_t step, std::ptrdiff_t index_step,
                       std::ptrdiff_t index_base, std::size_t w, T* extreme, std::int64_t* answer) {
    using P = simd::pack<T>;
    const extreme_reduction<T, Maximum> extreme_of;
    const std::ptrdiff_t ahead = simd::rows_ahead_bytes<T>(step);
    fill_row(extreme, w, extreme_of.identity());
    for (const row_line& line : lines)
        for (std::size_t i = 0; i < length; ++i) fold_row(x + line.element + static_cast<std::ptrdiff_t>(i) * step, extreme, w, extreme_of, ahead);
    alignas(64) T found[arg_extreme_panel];  // all ones where the column's extreme has been met
    fill_row(found, w, T(0));
    std::size_t missing = w;
    const auto look = [&](const T* row, std::ptrdiff_t index) {
        for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto&) TENSOROPS_INLINE_STEP {
            const auto fresh = (P(load(row + j)) == P(load(extreme + j))) & (P(load(found + j)) == P(T(0)));
            if (!simd::any(fresh)) [[likely]]
                return;
            simd::for_each_set_lane(fresh, [&](std::size_t lane) {
                if (j + lane >= w) return;  // a partial vector's lanes past the row
                found[j + lane] = static_cast<T>(~T(0));
                answer[j + lane] = index;
                --missing;
            });
        });
    };
    for (std::size_t l = 0; l < lines.size() && missing != 0; ++l) {
        const row_line& line = lines[Last ? lines.size() - 1 - l : l];
        for (std::size_t r = 0; r < length && missing != 0; ++r) {
            const auto i = static_cast<std::ptrdiff_t>(Last ? length - 1 - r : r);
            look(x + line.element + i * step, index_base + line.index + i * index_step);
        }
    }
}

/// The outer kernel for 8- and 16-bit lanes (see the algorithm above): argmax / argmin over the rows of `group` of
/// `width` contiguous columns from x, flat indices index_base + the group's index offsets, written to y[0, width).
template <bool Maximum, bool Last, class T>
void arg_reduce_rows_by_extreme(const T* x, const index_output& y, std::size_t width, const iter::loop_nest<3>& group, std::ptrdiff_t index_base) {
    const std::size_t last = group.rank - 1;
    std::vector<row_line> lines;  // the group's lines in walk order
    iter::for_each_outer_index(group, last, [&](const std::array<std::ptrdiff_t, 3>& line) { lines.push_back({line[1], line[2]}); });
    alignas(64) T extreme[arg_extreme_panel];
    std::int64_t answer[arg_extreme_panel];
    for (std::size_t start = 0; start < width; start += arg_extreme_panel) {
        const std::size_t w = std::min(arg_extreme_panel, width - start);
        arg_find_extremes<Maximum, Last>(x + start, lines, group.sizes[last], group.strides[1][last], group.strides[2][last], index_base, w,
                                         extreme, answer);
        y.put_contiguous(static_cast<std::ptrdiff_t>(start), answer, w);
    }
}

}  // namespace tensorops::detail
