// tensorops/ops/detail/arg_reduce/outer.hpp — the outer layout with lanes of 32 or 64 bits: per column the best value
// and its flat index, each row compared in walk order and updated only where it changes.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "../../../core/inline.hpp"
#include "../../../iter/nd_loop.hpp"
#include "../../../iter/unroll.hpp"
#include "../../../simd/pack.hpp"
#include "../../../simd/prefetch.hpp"
#include "../reduce_nest.hpp"
#include "../row_walk.hpp"
#include "../tuning.hpp"
#include "policy.hpp"

namespace tensorops::detail {

// ---------------------------------------------------------------------------------------------
// Outer: per column, the best value and its flat index, one row at a time.
//
// Algorithm. A "row" is the stretch of the contiguous kept dimension at one element of the group; rows are
// taken in walk order (increasing flat index), one at a time, so memory is read as one stream wherever the rows
// lie back to back. For each vector of columns the row is compared with the running best (`replaces`,
// lane-wise); only where some lane is replaced are the best value and index stored. On most data the running best
// soon stops changing: per row and vector that is two loads and a compare, and no store — less than the plain MAX
// kernel, which stores its accumulator. On adversarial data (increasing rows, or many ties with Last) every row
// stores. Rows of a few KiB are taken one at a time (or in far-apart pairs): one stream, the running best in L1.
// Wide rows (arg_grouped_row_bytes apart, two groups or more) are taken arg_group_rows at a time, in turn, per load
// of the running best (arg_update_rows_in_turn): a running best as wide as such rows no longer fits L1 beside them,
// and cut into panels that do, each row would be read in short pieces, its stream restarting at every piece; in
// groups the running best can be as wide as the rows (or a panel of arg_heap_panel_bytes), read from L2 once per
// group.

/// How the outer walk updates a running best: `branching` stores only where some lane of a vector is replaced (one
/// test a vector, a mispredicted branch at each replacement); `branchless` stores both selects always. On random
/// rows, row i of a fresh walk replaces some lane of a vector with probability ~W / i: the first arg_branchless_rows
/// rows of a walk that starts from nothing take the branchless update (see arg_walk_rows).
enum class arg_update { branching, branchless };

/// The running best (value, flat index) of one vector of columns, at best / best_index, against `candidate` of the
/// row whose flat index is row_index (rows come in walk order, see above): stored only where some lane is replaced
/// (Update: branching), or always with the lanes selected (branchless) — the same values either way.
template <bool Maximum, bool Last, arg_update Update, class P, class C, class L, class Q, class Load, class Store>
[[TENSOROPS_ALWAYS_INLINE]] inline void arg_update_lanes(const P& candidate, const Q& row_index, C* best, L* best_index,
                                                         const Load& load, const Store& store) {
    const P current = load(best);
    if constexpr (Update == arg_update::branching)
        if (!any_replaces<Maximum, Last>(candidate, current)) [[likely]]
            return;
    const auto replace = replaces_lanes<Maximum, Last>(candidate, current);
    store(best, simd::select(replace, candidate, current));
    store(best_index, simd::select_lanes<P>(replace, row_index, Q(load(best_index))));
}

/// The running best (value, flat index) of `width` columns against one more row, the flat index of each vector's
/// lanes lane_index(j, load) for the vector at column j (rows come in walk order, see above), updated as Update says.
/// `first`: there is no running best yet, the row and its indices become it. Hints the row `ahead` bytes on
/// (simd::rows_ahead_bytes).
template <bool Maximum, bool Last, arg_update Update, class T, class C, class L, class LaneIndex>
[[TENSOROPS_ALWAYS_INLINE]] inline void arg_update_row_lanes(const T* row, const LaneIndex& lane_index, C* best, L* best_index,
                                                             std::size_t width, bool first, std::ptrdiff_t ahead) {
    using P = simd::pack<T>;
    for_each_row_vector_prefetching<T>(row, nullptr, ahead, width, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        const P candidate = load(row + j);
        if (first) {
            store(best + j, candidate);
            store(best_index + j, lane_index(j, load));
            return;
        }
        arg_update_lanes<Maximum, Last, Update>(candidate, lane_index(j, load), best + j, best_index + j, load, store);
    });
}

/// arg_update_row_lanes for a row whose every lane has the flat index `index`.
template <bool Maximum, bool Last, arg_update Update, class T, class C, class L>
void arg_update_row(const T* row, std::ptrdiff_t index, C* best, L* best_index, std::size_t width, bool first, std::ptrdiff_t ahead) {
    using Q = simd::lane_index_pack<simd::pack<T>>;
    const Q row_index(static_cast<L>(index));
    arg_update_row_lanes<Maximum, Last, Update>(
        row, [&](std::size_t, const auto&) TENSOROPS_INLINE_STEP { return row_index; }, best, best_index, width, first, ahead);
}

/// arg_update_row for two rows read in the same steps, each against a running best of its own: `row` (flat index
/// `index`) against best / best_index, `other` (other_index) against other_best / other_best_index. Both bests exist.
template <bool Maximum, bool Last, arg_update Update, class T, class C, class L>
void arg_update_row_pair(const T* row, std::ptrdiff_t index, C* best, L* best_index, const T* other, std::ptrdiff_t other_index, C* other_best,
                         L* other_best_index, std::size_t width, std::ptrdiff_t ahead) {
    using P = simd::pack<T>;
    using Q = simd::lane_index_pack<P>;
    const Q row_index(static_cast<L>(index)), other_row_index(static_cast<L>(other_index));
    for_each_row_vector_prefetching<T>(row, other, ahead, width, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        arg_update_lanes<Maximum, Last, Update>(P(load(row + j)), row_index, best + j, best_index + j, load, store);
        arg_update_lanes<Maximum, Last, Update>(P(load(other + j)), other_row_index, other_best + j, other_best_index + j, load, store);
    });
}

/// arg_update_row for G rows read in the same steps (rows[g] at flat index index[g], in walk order) against one running
/// best: each vector of it is loaded once, taken through the G rows in turn in registers (the selects of G calls of
/// arg_update_row, in the same order: the same values) and stored where some row replaced a lane (Update: branching;
/// no row of the group can replace a lane that none replaces at the group's start, as the best only improves) or
/// always (branchless). One load and store of the best per G rows, where a row at a time reloads it from L2 once the
/// rows are wider than L1 holds (arg_walks_groups).
template <bool Maximum, bool Last, arg_update Update, std::size_t G, class T, class C, class L>
void arg_update_rows_in_turn(const std::array<const T*, G>& rows, const std::array<std::ptrdiff_t, G>& index, C* best,
                             L* best_index, std::size_t width, std::ptrdiff_t ahead) {
    using P = simd::pack<T>;
    using Q = simd::lane_index_pack<P>;
    std::array<Q, G> row_index;
    iter::unrolled<G>([&](auto g) { row_index[g] = Q(static_cast<L>(index[g])); });
    for_each_row_vector_prefetching_rows<G>(rows, ahead, width,
                                            [&](std::size_t j, const auto& load, const auto& store)
                                                TENSOROPS_INLINE_STEP {
        std::array<P, G> candidate;
        iter::unrolled<G>([&](auto g) { candidate[g] = P(load(rows[g] + j)); });
        P current = load(best + j);
        if constexpr (Update == arg_update::branching)
            if (!any_replaces_any<Maximum, Last>(candidate, current)) [[likely]]
                return;
        Q current_index = Q(load(best_index + j));
        iter::unrolled<G>([&](auto g) {
            const auto replace = replaces_lanes<Maximum, Last>(candidate[g], current);
            current = simd::select(replace, candidate[g], current);
            current_index = simd::select_lanes<P>(replace, row_index[g], current_index);
        });
        store(best + j, current);
        store(best_index + j, current_index);
    });
}

/// Folds a running best of rows that may come later in the walk (other, other_index) into (best, best_index), `width`
/// columns: the other replaces where it is better or, with Last, ties at a later index (a tie from an earlier row —
/// which both may have seen — loses). Exact: the result is the first (last) extreme of every row either has seen.
template <bool Maximum, bool Last, class C, class L>
void arg_merge_rows(C* best, L* best_index, const C* other, const L* other_index, std::size_t width) {
    for (std::size_t j = 0; j < width; ++j) {
        const bool later = !Last || other_index[j] > best_index[j];
        if (later && replaces_value<Maximum, Last>(other[j], best[j])) {
            best[j] = other[j];
            best_index[j] = other_index[j];
        }
    }
}

/// arg_update_row for a running best that has seen `seen` rows since it started from nothing (a best that started from
/// another's answer: arg_branchless_rows or more): branchless for its first arg_branchless_rows rows, then branching.
template <bool Maximum, bool Last, class T, class C, class L>
void arg_update_row_after(std::size_t seen, const T* row, std::ptrdiff_t index, C* best, L* best_index, std::size_t width, bool first,
                          std::ptrdiff_t ahead) {
    if (seen < arg_branchless_rows) arg_update_row<Maximum, Last, arg_update::branchless>(row, index, best, best_index, width, first, ahead);
    else arg_update_row<Maximum, Last, arg_update::branching>(row, index, best, best_index, width, first, ahead);
}

/// Whether arg_walk_rows walks `count` rows `pitch` bytes apart in groups (arg_update_rows_in_turn): rows of
/// arg_grouped_row_bytes or more, at least two groups of them (fewer rows pay for a running best as wide as the rows,
/// stored whole by the first row, more than the groups save).
[[nodiscard]] constexpr bool arg_walks_groups(std::size_t count, std::size_t pitch) noexcept {
    return pitch >= arg_grouped_row_bytes && count >= 2 * arg_group_rows;
}

/// Whether arg_walk_rows walks `count` rows `pitch` bytes apart in far-apart pairs.
[[nodiscard]] constexpr bool arg_walks_pairs(std::size_t count, std::size_t pitch) noexcept {
    return count >= 2 * arg_warm_rows && (count + 1) / 2 * pitch >= far_pair_bytes;
}

/// The running best (values, indices: `width` columns) of rows [first_row, end) of a line of rows `step` apart, row i
/// at flat index index_base + i · index_step, walked in order on top of the running best given (`fresh`: none yet,
/// the first row becomes it). Where the two halves of the rows lie at least far_pair_bytes apart (two streams far
/// apart, as the outer reduce kernel pairs its rows: row_units), the second half is walked beside the first, row i of
/// one with row i of the other, into a running best of its own (other_values, other_indices: `width` columns of
/// scratch), started as a copy of the first's after its first arg_warm_rows rows and merged into it at the end
/// (arg_merge_rows) — the same answer, since each half is walked in order and the merge is exact. One running best per
/// row keeps the rule simple (a pair's rows do not need comparing with each other and with the best by index).
/// Why pairs: with threads sharing memory, one stream a thread leaves part of its share of the bandwidth unused; two
/// streams far apart keep more lines in flight (the figures: bench/journal/notes-reduce-shared-and-argmax.md).
template <bool Maximum, bool Last, class T, class C, class L>
void arg_walk_rows(const T* x, std::ptrdiff_t step, std::ptrdiff_t index_base, std::ptrdiff_t index_step, std::size_t first_row, std::size_t end,
                   C* values, L* indices, C* other_values, L* other_indices, std::size_t width, bool fresh) {
    const std::ptrdiff_t ahead = simd::rows_ahead_bytes<T>(step);
    const auto row_at = [&](std::size_t i) { return x + static_cast<std::ptrdiff_t>(i) * step; };
    const auto index_at = [&](std::size_t i) { return index_base + static_cast<std::ptrdiff_t>(i) * index_step; };
    // A walk that starts from nothing updates branchlessly while its running bests have seen few rows (arg_update):
    // both of them have seen `seen` rows when the walk is at row first_row + seen or at its pair.
    const bool started_fresh = fresh;
    const auto seen_at = [&](std::size_t i) { return started_fresh ? i - first_row : arg_branchless_rows; };
    const auto walk_alone = [&](std::size_t from, std::size_t to, C* best, L* best_index) {
        for (std::size_t i = from; i < to; ++i) {
            arg_update_row_after<Maximum, Last>(seen_at(i), row_at(i), index_at(i), best, best_index, width, fresh, ahead);
            fresh = false;
        }
    };
    const std::size_t count = end - first_row, half = (count + 1) / 2;
    if (arg_walks_groups(count, pitch_bytes<T>(step))) {
        // Wide rows: groups of arg_group_rows rows per pass over the running best, the first row of a fresh walk alone.
        // Each row hints the one a group or more on (rows_ahead rows of a group's width would fall in the group
        // itself).
        constexpr std::size_t G = arg_group_rows;
        const std::ptrdiff_t group_ahead = static_cast<std::ptrdiff_t>(std::max(simd::rows_ahead<T>(step), G)) * step *
                                           static_cast<std::ptrdiff_t>(sizeof(T));
        std::size_t i = first_row;
        if (fresh) {  // its first row alone (there are at least two groups of rows)
            walk_alone(i, i + 1, values, indices);
            ++i;
        }
        const auto walk_groups = [&]<arg_update Update>(std::size_t to) {
            for (; i + G <= to; i += G) {
                std::array<const T*, G> rows;
                std::array<std::ptrdiff_t, G> index;
                iter::unrolled<G>([&](auto g) {
                    rows[g] = row_at(i + g);
                    index[g] = index_at(i + g);
                });
                arg_update_rows_in_turn<Maximum, Last, Update>(rows, index, values, indices, width, group_ahead);
            }
        };
        const std::size_t branchless_end = started_fresh ? std::min(end, first_row + arg_branchless_rows) : first_row;
        walk_groups.template operator()<arg_update::branchless>(branchless_end);
        walk_groups.template operator()<arg_update::branching>(end);
        walk_alone(i, end, values, indices);
        return;
    }
    if (!arg_walks_pairs(count, pitch_bytes<T>(step))) {
        walk_alone(first_row, end, values, indices);
        return;
    }
    const std::size_t second = first_row + half, warm_end = first_row + arg_warm_rows;
    walk_alone(first_row, warm_end, values, indices);
    std::copy_n(values, width, other_values);
    std::copy_n(indices, width, other_indices);
    const std::size_t pairs = std::min(second - warm_end, end - second);
    const auto walk_pairs = [&]<arg_update Update>(std::size_t from, std::size_t to) {
        for (std::size_t k = from; k < to; ++k)
            arg_update_row_pair<Maximum, Last, Update>(row_at(warm_end + k), index_at(warm_end + k), values, indices, row_at(second + k),
                                                       index_at(second + k), other_values, other_indices, width, ahead);
    };
    const std::size_t branchless_pairs = started_fresh ? std::min(pairs, arg_branchless_rows - arg_warm_rows) : 0;
    walk_pairs.template operator()<arg_update::branchless>(0, branchless_pairs);
    walk_pairs.template operator()<arg_update::branching>(branchless_pairs, pairs);
    walk_alone(warm_end + pairs, second, values, indices);
    walk_alone(second + pairs, end, other_values, other_indices);
    arg_merge_rows<Maximum, Last>(values, indices, other_values, other_indices, width);
}

// ---------------------------------------------------------------------------------------------
// Narrow rows back to back, fused.
//
// Algorithm. A line of n rows of `width` columns that lie back to back ([n, width] over its rows), narrower than
// arg_fused_row_bytes, is walked `fuse` rows at a time as one row of fuse · width lanes (fused_rows, as the outer reduce
// kernel fuses them): lane p of group g holds row g · fuse + p / width, column p mod width, and its flat index is the
// group's plus a constant offset, (p / width) · index_step (segment_offsets). Each lane still meets its rows in walk
// order, so segment s of the running best holds the first (last) extreme of the rows ≡ s (mod fuse) and its index;
// the n mod fuse rows left over, later than all of them, go to segment 0; per column the segments are then compared
// by value and, where equal (or both NaN), by index (arg_finish_fused_rows) — exact. Row by row, each row of a vector or
// two paid a walk's setup and its hints, and rows narrower than a vector took the scalar strided kernel.

/// offsets[p] = (p / width) · index_step for p < fuse · width: the flat index of a fused row's lane p past its group's.
template <class L>
void segment_offsets(L* offsets, std::size_t width, std::size_t fuse, std::ptrdiff_t index_step) {
    for (std::size_t p = 0; p < fuse * width; ++p) offsets[p] = static_cast<L>(static_cast<std::ptrdiff_t>(p / width) * index_step);
}

/// How many rows the outer kernel fuses in a line of `n` rows of `width` columns `step` elements apart: for rows
/// narrower than arg_fused_row_bytes, fused_rows' count within the running best's stack panel (arg_reduce_rows), at
/// most n; 1 where it does not fuse them.
template <class T>
[[nodiscard]] std::size_t arg_fused_rows(std::size_t width, std::ptrdiff_t step, std::size_t n) {
    if (width == 0 || width * sizeof(T) >= arg_fused_row_bytes) return 1;
    using C = simd::compute_t<T>;
    using L = typename simd::lane_index_pack<simd::pack<T>>::value_type;
    constexpr std::size_t panel =
        std::min(accumulator_rows<C, 2, outer_row_budget / 2>::panel, accumulator_rows<L, 2, outer_row_budget / 2>::panel);
    return std::max<std::size_t>(1, std::min(fused_rows<T>(width, step, panel), n));
}

/// The running best (values, indices: fuse · width lanes) of the groups [from, to) of a line of back-to-back rows of
/// `width` columns at x fused `fuse` at a time (algorithm above; row i at flat index index_base + i · index_step,
/// `offsets` from segment_offsets), walked in order from nothing: branchless for the first arg_branchless_rows groups.
template <bool Maximum, bool Last, class T, class C, class L>
void arg_walk_fused_rows(const T* x, std::size_t width, std::size_t fuse, std::ptrdiff_t index_base, std::ptrdiff_t index_step,
                         std::size_t from, std::size_t to, C* values, L* indices, const L* offsets) {
    using Q = simd::lane_index_pack<simd::pack<T>>;
    const std::size_t lanes = fuse * width;
    const std::ptrdiff_t group_step = static_cast<std::ptrdiff_t>(lanes), ahead = simd::rows_ahead_bytes<T>(group_step);
    for (std::size_t g = from; g < to; ++g) {
        const Q group_index(static_cast<L>(index_base + static_cast<std::ptrdiff_t>(g * fuse) * index_step));
        const auto lane_index = [&](std::size_t j, const auto& load) TENSOROPS_INLINE_STEP {
            return Q(group_index + Q(load(offsets + j)));
        };
        const T* row = x + static_cast<std::ptrdiff_t>(g) * group_step;
        if (g - from < arg_branchless_rows)
            arg_update_row_lanes<Maximum, Last, arg_update::branchless>(row, lane_index, values, indices, lanes, g == from, ahead);
        else
            arg_update_row_lanes<Maximum, Last, arg_update::branching>(row, lane_index, values, indices, lanes, false, ahead);
    }
}

/// Completes the running best of a fused line of `n` rows (values, indices: its n / fuse ≥ 1 groups walked,
/// fuse · width lanes): the rows left over into segment 0, then the segments compared per column — by value, equal
/// values (or NaNs) by index, the smallest (Last: the largest) winning. The answers are in indices[0 … width).
template <bool Maximum, bool Last, class T, class C, class L>
void arg_finish_fused_rows(const T* x, std::size_t n, std::size_t width, std::size_t fuse, std::ptrdiff_t index_base,
                           std::ptrdiff_t index_step, C* values, L* indices) {
    const std::ptrdiff_t ahead = simd::rows_ahead_bytes<T>(static_cast<std::ptrdiff_t>(width));
    for (std::size_t i = n - n % fuse; i < n; ++i)
        arg_update_row<Maximum, Last, arg_update::branchless>(x + i * width, index_base + static_cast<std::ptrdiff_t>(i) * index_step,
                                                              values, indices, width, false, ahead);
    for (std::size_t s = 1; s < fuse; ++s) {
        for (std::size_t j = 0; j < width; ++j) {
            const C other = values[s * width + j], current = values[j];
            const L other_index = indices[s * width + j];
            const bool other_nan = is_nan_value(other), current_nan = is_nan_value(current);
            const bool tie = other_nan ? current_nan : !current_nan && other == current;
            const bool wins = tie ? (Last ? other_index > indices[j] : other_index < indices[j])
                                  : replaces<Maximum, false>(other, other_nan, current, current_nan);
            if (wins) {
                values[j] = other;
                indices[j] = other_index;
            }
        }
    }
}

template <bool Maximum, bool Last, class T>
void arg_reduce_rows(const T* x, const index_output& y, std::size_t width, const iter::loop_nest<3>& group, std::ptrdiff_t index_base) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    using index_lane = typename simd::lane_index_pack<P>::value_type;
    accumulator_rows<C, 2, outer_row_budget / 2> values;  // the running best, and the second one of arg_walk_rows
    accumulator_rows<index_lane, 2, outer_row_budget / 2> indices;
    // A line of rows walked in groups (arg_walks_groups, the decision arg_walk_rows takes for it too) has no second
    // running best — values.row(1) goes unused — so its one row takes the storage of both, or, where its rows are wider
    // than that and the walk reads arg_heap_panel_min_bytes or more, a panel of arg_heap_panel_bytes allocated for the
    // call (the longer each row's piece, the fewer times its stream restarts).
    const bool grouped = group.rank == 1 && arg_walks_groups(group.sizes[0], pitch_bytes<T>(group.strides[1][0]));
    std::size_t panel =
        grouped ? std::min(values.whole_panel, indices.whole_panel) : std::min(values.panel, indices.panel);
    std::unique_ptr<C[]> heap_values;
    std::unique_ptr<index_lane[]> heap_indices;
    if (grouped && width > panel && group.sizes[0] * width * sizeof(T) >= arg_heap_panel_min_bytes) {
        panel = std::min(width, arg_heap_panel_bytes / (sizeof(C) + sizeof(index_lane)));
        heap_values = std::make_unique_for_overwrite<C[]>(panel);
        heap_indices = std::make_unique_for_overwrite<index_lane[]>(panel);
    }
    if (group.rank == 1) {  // narrow rows back to back: fused (arg_walk_fused_rows)
        const std::size_t n = group.sizes[0], fuse = arg_fused_rows<T>(width, group.strides[1][0], n);
        if (fuse > 1) {
            segment_offsets(indices.row(1), width, fuse, group.strides[2][0]);
            arg_walk_fused_rows<Maximum, Last>(x, width, fuse, index_base, group.strides[2][0], 0, n / fuse, values.row(0), indices.row(0),
                                               indices.row(1));
            arg_finish_fused_rows<Maximum, Last>(x, n, width, fuse, index_base, group.strides[2][0], values.row(0), indices.row(0));
            y.put_contiguous(0, indices.row(0), width);
            return;
        }
    }
    for (std::size_t start = 0; start < width; start += panel) {
        const std::size_t w = std::min(panel, width - start);
        C* best = heap_values ? heap_values.get() : grouped ? values.whole() : values.row(0);
        index_lane* best_index = heap_indices ? heap_indices.get() : grouped ? indices.whole() : indices.row(0);
        if (group.rank == 1) {  // one line of rows: maybe in far-apart pairs, or in groups
            arg_walk_rows<Maximum, Last>(x + start, group.strides[1][0], index_base, group.strides[2][0], 0, group.sizes[0], best, best_index,
                                         values.row(1), indices.row(1), w, true);
            y.put_contiguous(static_cast<std::ptrdiff_t>(start), best_index, w);
            continue;
        }
        std::size_t seen = 0;  // rows walked (the first becomes the running best; the early ones update branchlessly)
        const std::size_t last = group.rank - 1;
        const std::ptrdiff_t ahead = simd::rows_ahead_bytes<T>(group.strides[1][last]);
        iter::for_each_outer_index(group, last, [&](const std::array<std::ptrdiff_t, 3>& line) {
            const T* row = x + start + line[1];
            std::ptrdiff_t index = index_base + line[2];
            for (std::size_t i = 0; i < group.sizes[last]; ++i, row += group.strides[1][last], index += group.strides[2][last], ++seen)
                arg_update_row_after<Maximum, Last>(seen, row, index, best, best_index, w, seen == 0, ahead);
        });
        y.put_contiguous(static_cast<std::ptrdiff_t>(start), best_index, w);
    }
}

}  // namespace tensorops::detail
