// tensorops/ops/detail/reduce/outer.hpp — the outer layout: the innermost dimension is kept and contiguous; vectorised
// across it, the group's rows streamed into rows of accumulators in L1 (a three-level cascade of rows).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <type_traits>

#include "../../../iter/nd_loop.hpp"
#include "../../../iter/plan.hpp"
#include "../../../simd/pack.hpp"
#include "../../../simd/prefetch.hpp"
#include "../reduce_nest.hpp"
#include "../row_walk.hpp"
#include "../tuning.hpp"
#include "few_rows.hpp"
#include "row_units.hpp"

namespace tensorops::detail {

// ---------------------------------------------------------------------------------------------
// Outer: the innermost dimension is kept and contiguous; vectorise across it, streaming whole rows.
//
// Algorithm. Call a "row" the stretch of the innermost kept dimension at one element of the group. The
// group's rows are walked in the nest's order, one at a time, and combined lane-wise into a row of accumulators
// that stays in L1 (a load and a store of the accumulator per input vector, which L1 serves many times faster than
// memory), so memory is read row after row as it lies: one stream, which the hardware prefetchers follow. (Walking
// a narrow tile of columns down all the rows with the accumulators in registers, cutting rows into 256-lane panels,
// and four rows at a time combined with each other before the accumulator — four pages read at once — all measured
// slower than one row at a time: not kept.) One refinement: the rows of a long line are folded two at a time, one
// accumulator load and store for both — a row of one block with the same row of the block far_pair_bytes or more
// after it, two streams far apart (row_units); neighbouring rows read that way are slower from memory (the figures of this
// paragraph: bench/journal/notes-reduce-and-log-sum-exp.md). Rows wider than a panel — what fits in
// outer_row_budget bytes of accumulator rows — are cut into panels, each walked over all the rows; for a group of one
// line (functions with row blocks), such wide rows are walked in stretches of outer_stretch_bytes with the running row
// in L2 and unpaired rows folded a few at a time (reduce_wide_rows), and lines of at most few_rows_max rows a strip of
// columns at a time in registers (few_rows.hpp): both keep each lane's order of operations. No horizontal step at
// all; row ends narrower than a vector use partial loads.
// Three rows of accumulators: the running row takes cascade_block input rows and then joins the block row,
// which takes cascade_block such blocks and then joins the total row — a three-level cascade whose error grows
// like (2·cascade_block + n / cascade_block²)·ε rather than n·ε for sums. Every function with R::row_blocks keeps
// this structure (for max, min and integer products it costs one row combination per 128 rows): it fixes the
// order of operations in blocks of cascade_block rows (row_units: for a group of one line, a unit is a block, or two
// blocks far apart whose rows are folded in pairs), so reduce_rows_in_bands can give the units to several threads and
// combine their running rows exactly as here. Floating products keep one running row (restarting
// from 1 every block takes data in [0, 1) through subnormals again each time: measured slower, not kept).

/// Calls visit(row, lanes, ahead) for the group's rows from `base` in order, one at a time: each row is `fuse`
/// back-to-back rows of `width` (lanes = fuse · width) while whole ones remain in the line, then single rows
/// (lanes = width); `ahead` is what to prefetch, simd::rows_ahead_bytes of the line's pitch.
template <class T, class Visit>
void for_each_row(const T* base, const iter::loop_nest<2>& group, std::size_t width, std::size_t fuse, Visit&& visit) {
    for_each_group_line(base, group, [&](const T* line, std::size_t length, std::ptrdiff_t step) {
        const std::size_t wide = fuse * width;
        const std::ptrdiff_t wide_step = static_cast<std::ptrdiff_t>(fuse) * step;
        const std::ptrdiff_t wide_ahead = simd::rows_ahead_bytes<T>(wide_step), ahead = simd::rows_ahead_bytes<T>(step);
        std::size_t i = 0;
        for (; i + fuse <= length; i += fuse, line += wide_step) visit(line, wide, wide_ahead);
        for (; i < length; ++i, line += step) visit(line, width, ahead);
    });
}

/// y[j] = finish(the fuse segments of `total`, `w` lanes each, combined), j < w.
template <class T, class R>
void finish_segments(simd::compute_t<T>* total, std::size_t w, std::size_t fuse, T* y, std::size_t count, const R& r) {
    using C = simd::compute_t<T>;
    using P = simd::pack<T>;
    for (std::size_t segment = 1; segment < fuse; ++segment) combine_rows<T>(total, total + segment * w, w, r);
    for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        store(y + j, r.finish_lanes(load(total + j), count, P(C(0))));
    });
}

/// reduce_rows for a group of several lines (and for functions without row blocks): its rows in the nest's order,
/// fused as reduce_rows fuses them, into a running row that joins the block row every cascade_block rows (fused or
/// not), the block row joining the total row every cascade_block blocks.
template <class T, class R>
void reduce_rows_of_group(const T* x, T* y, std::size_t width, const iter::loop_nest<2>& group, std::size_t count, const R& r) {
    using C = simd::compute_t<T>;
    constexpr std::size_t levels = R::row_blocks ? 3 : 1;  // running, blocks, total
    accumulator_rows<C, levels> rows;
    const C identity = static_cast<C>(r.identity());
    const std::size_t fuse = group.rank == 0 ? 1 : fused_rows<T>(width, group.strides[1][group.rank - 1], rows.panel);
    for (std::size_t start = 0; start < width; start += rows.panel) {
        const std::size_t w = std::min(rows.panel, width - start);
        const std::size_t lanes = fuse * w;
        for (std::size_t k = 0; k < levels; ++k) fill_row(rows.row(k), lanes, identity);
        C* running = rows.row(0);
        std::size_t rows_in_block = 0, blocks = 0;
        for_each_row(x + start, group, w, fuse, [&](const T* row, std::size_t row_lanes, std::ptrdiff_t ahead) {
            fold_row(row, running, row_lanes, r, ahead);
            if constexpr (R::row_blocks) {
                if (++rows_in_block < cascade_block) return;
                combine_rows<T>(rows.row(1), running, lanes, r);
                fill_row(running, lanes, identity);
                rows_in_block = 0;
                if (++blocks < cascade_block) return;
                combine_rows<T>(rows.row(2), rows.row(1), lanes, r);
                fill_row(rows.row(1), lanes, identity);
                blocks = 0;
            }
        });
        if constexpr (R::row_blocks) {
            combine_rows<T>(rows.row(1), running, lanes, r);
            combine_rows<T>(rows.row(2), rows.row(1), lanes, r);
        }
        finish_segments(rows.row(levels - 1), w, fuse, y + start, count, r);
    }
}

/// Rows of T that reduce_wide_rows folds into its running row in one pass (fold_rows_in_turn): as many as make the
/// input's bytes per lane of the pass equal to the running row's load and store (2 · sizeof(C)): two f32 rows, four
/// float16 ones. Its running row lives in L2, which serves the accumulator's traffic less easily than L1 does.
template <class T>
inline constexpr std::size_t rows_in_turn = std::max<std::size_t>(1, 2 * sizeof(simd::compute_t<T>) / sizeof(T));

/// running ∘= unit `unit` of `plan` (row_units) of the line of rows from x, `lanes` lanes of each (fused) row. `in_turn`:
/// the rows that are not paired rows_in_turn at a time (fold_rows_in_turn: the same operations in the same order, for
/// one load and store of the accumulator per group; the groups' rows lie a row apart, so only for wide rows — neighbouring
/// narrow rows read together are slower, see row_units). `origin`: x points at the line's element `origin`, not its
/// first (a piece of the line holding the unit's rows: visit i at x + i · visit_step − origin).
template <class T, class R>
void fold_unit(const T* x, std::size_t lanes, const row_units& plan, std::size_t unit, simd::compute_t<T>* running,
               const R& r, bool in_turn = false, std::ptrdiff_t origin = 0) {
    const std::ptrdiff_t step = plan.visit_step;
    const std::ptrdiff_t ahead = simd::rows_ahead_bytes<T>(step);
    const std::size_t first = plan.first_block(unit) * cascade_block,
                      end = std::min(plan.visits, first + cascade_block);
    const T* row = x + (static_cast<std::ptrdiff_t>(first) * step - origin);
    std::size_t i = first;
    if (const std::size_t partner = plan.partner_block(unit) * cascade_block; partner < plan.visits) {
        const std::size_t pairs = std::min(plan.visits, partner + cascade_block) - partner;
        const T* other = x + (static_cast<std::ptrdiff_t>(partner) * step - origin);
        for (std::size_t k = 0; k < pairs; ++k, ++i, row += step, other += step) fold_row_pair(row, other, running, lanes, r, ahead);
    }
    if (in_turn) {
        constexpr std::size_t G = rows_in_turn<T>;
        const std::ptrdiff_t ahead_of_group = simd::rows_ahead_bytes<T>(static_cast<std::ptrdiff_t>(G) * step);
        for (; i + G <= end; i += G, row += static_cast<std::ptrdiff_t>(G) * step) {
            std::array<const T*, G> group;
            for (std::size_t g = 0; g < G; ++g) group[g] = row + static_cast<std::ptrdiff_t>(g) * step;
            fold_rows_in_turn<G>(group, running, lanes, r, ahead_of_group);
        }
    }
    for (; i < end; ++i, row += step) fold_row(row, running, lanes, r, ahead);
}

/// running ∘= the rows of a line of `n` rows (`step` apart, `w` lanes each) that fusing them `fuse` at a time left
/// over: the last n mod fuse rows, one at a time into the running row's first w lanes. `origin` as fold_unit's.
template <class T, class R>
void fold_rows_left_over(const T* x, std::size_t n, std::ptrdiff_t step, std::size_t fuse, std::size_t w,
                         simd::compute_t<T>* running, const R& r, std::ptrdiff_t origin = 0) {
    const T* row = x + (static_cast<std::ptrdiff_t>(n - n % fuse) * step - origin);
    for (std::size_t i = n - n % fuse; i < n; ++i, row += step) fold_row(row, running, w, r, simd::rows_ahead_bytes<T>(step));
}

/// The outer kernel's last two levels: running rows added in order to a block row, which joins the total row every
/// cascade_block of them (reduce_rows' comment). `block` and `total` are rows of `lanes` lanes, set to the identity;
/// `in_block` the running rows already in `block` (a combination continued from where another left it: tensorops::mpi).
template <class T, class R>
struct unit_combiner {
    using C = simd::compute_t<T>;
    C* block;
    C* total;
    std::size_t lanes;
    const R& r;
    std::size_t in_block = 0;

    void add(const C* running) {
        combine_rows<T>(block, running, lanes, r);
        if (++in_block < cascade_block) return;
        combine_rows<T>(total, block, lanes, r);
        fill_row(block, lanes, static_cast<C>(r.identity()));
        in_block = 0;
    }
    /// The total row, the block row joined to it.
    [[nodiscard]] C* finish() {
        combine_rows<T>(total, block, lanes, r);
        return total;
    }
};

/// reduce_rows for a line of more than few_rows_max rows wider than the L1 panel of its three rows of accumulators (so
/// never fused): y[j], j < width, with the same order of operations per lane as reduce_rows.
/// Algorithm. The walk of reduce_rows, in stretches of outer_stretch_bytes of accumulators instead of L1 panels: each
/// row is read in long stretches (in L1 panels, 8 KiB of f32 per row at a time, every row's stream restarted every two
/// pages), and the running row lives in L2; to keep its traffic to L2 within the input's, the rows that are not paired
/// are folded rows_in_turn at a time (fold_unit). The three rows of accumulators are on the heap (one allocation a call).
template <class T, class R>
void reduce_wide_rows(const T* x, T* y, std::size_t width, const row_units& plan, std::size_t count, const R& r) {
    using C = simd::compute_t<T>;
    const C identity = static_cast<C>(r.identity());
    const std::size_t panel = std::min(width, stretch_lanes<C>);
    const auto rows = std::make_unique_for_overwrite<C[]>(3 * panel);  // running, block, total
    C* const running = rows.get();
    C* const block = running + panel;
    C* const total = block + panel;
    for (std::size_t start = 0; start < width; start += panel) {
        const std::size_t w = std::min(panel, width - start);
        fill_row(running, w, identity);
        fill_row(block, w, identity);
        fill_row(total, w, identity);
        unit_combiner<T, R> combiner{block, total, w, r};
        const std::size_t units = std::max<std::size_t>(plan.units, 1);
        for (std::size_t u = 0; u < units; ++u) {
            if (u != 0) fill_row(running, w, identity);
            if (u < plan.units) fold_unit(x + start, w, plan, u, running, r, true);
            combiner.add(running);
        }
        finish_segments(combiner.finish(), w, 1, y + start, count, r);
    }
}

/// reduce_rows for one line of `n` rows of `width` lanes by a function with row blocks, walked by `plan`: the line's
/// own (row_units::of_line), or — for a stretch of the line's columns laid out as rows of their own (tensorops::mpi:
/// a shard of the columns) — the whole line's plan with visit_step set to the stretch's: each lane's operations
/// depend on the plan alone (every step is lane-wise, row ends use partial loads), so a stretch of columns gets the
/// bits the whole line gives them.
template <class T, class R>
void reduce_rows_by_plan(const T* x, T* y, std::size_t width, std::size_t n, const row_units& plan, std::size_t count,
                         const R& r) {
    using C = simd::compute_t<T>;
    if (plan.fuse == 1 && n <= few_rows_max) return reduce_few_rows(x, y, width, plan, count, r);
    if (width > accumulator_rows<C, 3>::panel) return reduce_wide_rows(x, y, width, plan, count, r);
    const std::size_t fuse = plan.fuse;
    const std::ptrdiff_t step = plan.visit_step / static_cast<std::ptrdiff_t>(fuse);
    const C identity = static_cast<C>(r.identity());
    accumulator_rows<C, 3> rows;  // running, block, total
    for (std::size_t start = 0; start < width; start += rows.panel) {
        const std::size_t w = std::min(rows.panel, width - start);
        const std::size_t lanes = fuse * w;
        for (std::size_t k = 0; k < 3; ++k) fill_row(rows.row(k), lanes, identity);
        unit_combiner<T, R> combiner{rows.row(1), rows.row(2), lanes, r};
        C* running = rows.row(0);
        const std::size_t units = std::max<std::size_t>(plan.units, 1);
        for (std::size_t u = 0; u < units; ++u) {
            if (u != 0) fill_row(running, lanes, identity);
            if (u < plan.units) fold_unit(x + start, lanes, plan, u, running, r);
            if (u + 1 == units) fold_rows_left_over(x + start, n, step, fuse, w, running, r);
            combiner.add(running);
        }
        finish_segments(combiner.finish(), w, fuse, y + start, count, r);
    }
}

/// The outer kernel for one stretch of `width` contiguous outputs y (every function but log-sum-exp).
/// Narrow rows that lie back to back ([n, w] reduced over n, w · sizeof(T) < 4 KiB) are fused k at a time into
/// rows of k · w lanes, whose k segments are combined at the end: per-row overhead and, more important, several
/// row streams inside one 4 KiB page (which the hardware prefetchers follow badly) are avoided (unfused, such rows
/// measured slower than rows of 4 KiB: bench/journal/notes-reduce-and-log-sum-exp.md).
/// A group of one line (the common case: [n, w] over n) is walked in row_units by functions with row blocks; the
/// rows left over after the fused ones go to the last unit's running row. Such a line of at most few_rows_max unfused
/// rows goes to reduce_few_rows, one of rows wider than the L1 panel to reduce_wide_rows: the same bits.
template <class T, class R>
void reduce_rows(const T* x, T* y, std::size_t width, const iter::loop_nest<2>& group, std::size_t count, const R& r) {
    if constexpr (R::row_blocks) {
        if (group.rank == 1) {
            const std::size_t n = group.sizes[0];
            return reduce_rows_by_plan(x, y, width, n, row_units::of_line<T>(width, n, group.strides[1][0]), count, r);
        }
    }
    reduce_rows_of_group(x, y, width, group, count, r);
}

/// The outer kernel (every function but log-sum-exp's: log_sum_exp/outer.hpp): reduce_rows for each stretch of the
/// innermost kept dimension.
template <class T, class R>
void reduce_outer(const T* input, T* output, const reduce_nests<>& parts, std::size_t count, const R& r) {
    for_each_kept_stretch(parts, [&](std::ptrdiff_t output_offset, std::ptrdiff_t input_offset, std::size_t columns) {
        reduce_rows(input + input_offset, output + output_offset, columns, parts.group, count, r);
    });
}

}  // namespace tensorops::detail
