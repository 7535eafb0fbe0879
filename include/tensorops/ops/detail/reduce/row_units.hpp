// tensorops/ops/detail/reduce/row_units.hpp — how the outer kernel plans a line of rows: which back-to-back narrow rows it
// fuses, and the units of rows whose order of operations every walk of the line (reduce_rows, reduce_few_rows,
// reduce_rows_in_bands) keeps, so that they give the same bits.
#pragma once

#include <algorithm>
#include <cstddef>

#include "../../../simd/pack.hpp"
#include "../row_walk.hpp"
#include "../tuning.hpp"

namespace tensorops::detail {

/// Lanes of accumulators of type C in a stretch of outer_stretch_bytes (rows wider than the L1 panel are walked a stretch
/// at a time).
template <class C>
inline constexpr std::size_t stretch_lanes = outer_stretch_bytes / sizeof(C);

/// How the outer kernel walks one line of `visits` rows (each `visit_step` elements after the one before) for functions
/// with row blocks: in units, each folded into a running row of its own, the running rows then combined in order
/// (unit_combiner) — whether one thread does it all (reduce_rows) or several share the units out
/// (reduce_rows_in_bands), so the results are the same bit for bit. The line's blocks are its runs of cascade_block
/// rows, block b the rows [b · cascade_block, (b + 1) · cascade_block). Unpaired, unit u is block u, folded one row at a
/// time. Paired, the blocks are taken in windows of 2 · distance: in each, block j (j < distance) beside block
/// j + distance, row i of one with row i of the other (fold_row_pair: one load and store of the accumulator for the two
/// rows' vectors), the rows of a block that have no partner one at a time; unit u is the window u / distance's pair
/// u mod distance. `distance` is the fewest blocks that lie far_pair_bytes apart: two streams far apart read as fast as
/// a plain sum of the same bytes, and the nearer they lie the slower they read — near streams are slow here, which is
/// why paired rows are not neighbours. In L2 the pairs save accumulator loads and stores, so that a float16 walk costs
/// its conversions alone. Paired at first for float16 only (whose lanes are wider than its elements); f32 pairs too
/// since the page hints are counted (for_each_row_vector_prefetching): measured faster on one thread and on two (the
/// figures: bench/journal/notes-reduce-and-log-sum-exp.md).
/// Why windows and not the line's two halves: a unit's rows then lie within 2 · distance blocks of each other (a few
/// MiB, whatever the line's length), so the units of a piece of the line — a rank's shard of a tensor sharded along the
/// reduced axis (tensorops/mpi) — are the piece's own but for the windows its two ends cut.
/// of_line plans a line of `n` rows of `width` lanes, `step` elements apart: rows fused `fuse` at a time (fused_rows,
/// for the accumulator rows' panel) make `visits` rows of fuse · width lanes, `visit_step` apart, and the n mod fuse
/// rows left over go to the last unit (fold_rows_left_over). What reduce_rows and reduce_rows_in_bands must agree on.
struct row_units {
    std::size_t fuse = 1;
    std::ptrdiff_t visit_step = 0;
    std::size_t visits = 0;
    std::size_t units = 0;
    std::size_t blocks = 0;
    std::size_t distance = 0;  // paired blocks' distance in blocks; 0: unpaired

    [[nodiscard]] bool paired() const noexcept { return distance != 0; }
    /// The first block of unit u.
    [[nodiscard]] std::size_t first_block(std::size_t unit) const noexcept {
        return paired() ? unit / distance * 2 * distance + unit % distance : unit;
    }
    /// The block paired with unit u's first, or `blocks` where it has none.
    [[nodiscard]] std::size_t partner_block(std::size_t unit) const noexcept {
        return paired() ? std::min(blocks, first_block(unit) + distance) : blocks;
    }

    template <class T>
    [[nodiscard]] static row_units of_line(std::size_t width, std::size_t n, std::ptrdiff_t step) noexcept {
        const std::size_t fuse = fused_rows<T>(width, step, accumulator_rows<simd::compute_t<T>, 3>::panel);
        const std::ptrdiff_t visit_step = static_cast<std::ptrdiff_t>(fuse) * step;
        const std::size_t visits = n / fuse;
        const std::size_t blocks = (visits + cascade_block - 1) / cascade_block;
        const std::size_t block_bytes = cascade_block * pitch_bytes<T>(visit_step);
        const std::size_t distance = block_bytes == 0 ? 0 : (far_pair_bytes + block_bytes - 1) / block_bytes;
        if (distance == 0 || blocks <= distance) return {fuse, visit_step, visits, blocks, blocks, 0};
        // Windows of 2 · distance blocks hold `distance` units each; the last one's blocks past `distance` pair with
        // its first ones, and those with no partner are units alone.
        const std::size_t window = 2 * distance, tail = blocks % window;
        const std::size_t units = blocks / window * distance + std::min(tail, distance);
        return {fuse, visit_step, visits, units, blocks, distance};
    }
};

}  // namespace tensorops::detail
