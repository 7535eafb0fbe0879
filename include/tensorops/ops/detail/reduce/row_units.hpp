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

/// How many back-to-back rows of `width` lanes, `step` elements apart, the outer kernel fuses into one wide row: 1
/// unless the rows are adjacent (step = width), narrower than narrow_row_bytes, and that many fit in a panel of `panel`
/// lanes.
template <class T>
[[nodiscard]] std::size_t fused_rows(std::size_t width, std::ptrdiff_t step, std::size_t panel) {
    if (width > panel || step != static_cast<std::ptrdiff_t>(width)) return 1;
    const std::size_t wanted = (narrow_row_bytes + width * sizeof(T) - 1) / (width * sizeof(T));
    return std::max<std::size_t>(1, std::min(wanted, panel / width));
}

/// How the outer kernel walks one line of `visits` rows (each `visit_step` elements after the one before) for functions
/// with row blocks: in units, each folded into a running row of its own, the running rows then combined in order
/// (unit_combiner) — whether one thread does it all (reduce_rows) or several share the units out
/// (reduce_rows_in_bands), so the results are the same bit for bit. Unit u is block u, rows
/// [u · cascade_block, (u + 1) · cascade_block), folded one row at a time — or, when `paired`, block u beside block
/// u + units (the second half of the line), row i of one with row i of the other (fold_row_pair: one load and store
/// of the accumulator for the two rows' vectors), the rows of block u that have no partner one at a time.
/// Pairs only where the halves lie at least far_pair_bytes apart: two streams far apart read as fast as a plain sum of
/// the same bytes, and the nearer they lie the slower they read — near streams are slow here, which is why the halves
/// of the line are paired and not neighbours. In L2 the pairs save accumulator loads and stores, so that a float16 walk
/// costs its conversions alone. Paired at first for float16 only (whose lanes are wider than its elements); f32 pairs
/// too since the page hints are counted (for_each_row_vector_prefetching): measured faster on one thread and on two
/// (the figures: bench/journal/notes-reduce-and-log-sum-exp.md).
/// of_line plans a line of `n` rows of `width` lanes, `step` elements apart: rows fused `fuse` at a time (fused_rows,
/// for the accumulator rows' panel) make `visits` rows of fuse · width lanes, `visit_step` apart, and the n mod fuse
/// rows left over go to the last unit (fold_rows_left_over). What reduce_rows and reduce_rows_in_bands must agree on.
struct row_units {
    std::size_t fuse = 1;
    std::ptrdiff_t visit_step = 0;
    std::size_t visits = 0;
    std::size_t units = 0;
    bool paired = false;

    template <class T>
    [[nodiscard]] static row_units of_line(std::size_t width, std::size_t n, std::ptrdiff_t step) noexcept {
        const std::size_t fuse = fused_rows<T>(width, step, accumulator_rows<simd::compute_t<T>, 3>::panel);
        const std::ptrdiff_t visit_step = static_cast<std::ptrdiff_t>(fuse) * step;
        const std::size_t visits = n / fuse;
        const std::size_t blocks = (visits + cascade_block - 1) / cascade_block;
        const std::size_t half = (blocks + 1) / 2;
        const std::size_t pitch = pitch_bytes<T>(visit_step);
        const bool paired = blocks >= 2 && half * cascade_block * pitch >= far_pair_bytes;
        return {fuse, visit_step, visits, paired ? half : blocks, paired};
    }
};

}  // namespace tensorops::detail
