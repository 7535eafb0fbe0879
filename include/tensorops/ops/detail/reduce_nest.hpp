// tensorops/ops/detail/reduce_nest.hpp — a planned reduce nest cut into its kept dimensions and the group of reduced
// ones, the walk of a group's lines, and the dimensions along which a reduction may be cut into independent pieces.
// Shared by reduce and argmax/argmin.
#pragma once

#include <array>
#include <cstddef>

#include "../../exec/executor.hpp"
#include "../../exec/split.hpp"
#include "../../iter/nd_loop.hpp"
#include "../../iter/plan.hpp"
#include "tuning.hpp"

namespace tensorops::detail {

/// Splits a reduce nest into the kept dimensions (walked by the odometer, with the nest's base offsets) and
/// the group of reduced dimensions (walked for each output, offsets relative to the group's first element).
template <std::size_t Operands = 2>
struct reduce_nests {
    iter::loop_nest<Operands> kept;
    iter::loop_nest<Operands> group;
};

template <std::size_t Operands>
reduce_nests<Operands> split_reduce_nest(const iter::loop_nest<Operands>& nest, iter::axis_set reduced) {
    iter::axis_set kept_positions;
    for (std::size_t d = 0; d < nest.rank; ++d)
        if (!reduced.test(d)) kept_positions.set(d);
    reduce_nests<Operands> parts{iter::remove_dimensions(nest, reduced), iter::remove_dimensions(nest, kept_positions)};
    parts.group.offsets = {};
    return parts;
}

/// Calls run(pointer, length, step) for every line of the group along its innermost dimension (a group of
/// rank 0 is one line of length 1), so kernels can keep their accumulators in registers along a line.
template <class T, std::size_t Operands, class Run>
void for_each_group_line(const T* base, const iter::loop_nest<Operands>& group, Run&& run) {
    if (group.rank == 0) {
        run(base, std::size_t{1}, std::ptrdiff_t{1});
        return;
    }
    const std::size_t last = group.rank - 1;
    iter::for_each_outer_index(group, last, [&](const std::array<std::ptrdiff_t, Operands>& at) {
        run(base + at[1], group.sizes[last], group.strides[1][last]);
    });
}

/// The dimensions along which a reduce nest may be cut into pieces that compute every output exactly as the whole
/// does (exec/split.hpp): the kept ones — but not the innermost when its rows are narrow enough for the outer
/// kernel to fuse back-to-back rows, since a piece's part of a row is not back to back with the next.
template <class T, std::size_t Operands>
[[nodiscard]] iter::axis_set independent_dimensions(const iter::loop_nest<Operands>& nest, iter::axis_set reduced) {
    iter::axis_set kept;
    for (std::size_t d = 0; d < nest.rank; ++d)
        if (!reduced.test(d)) kept.set(d);
    if (nest.rank > 0 && nest.sizes[nest.rank - 1] * sizeof(T) < narrow_row_bytes) kept.reset(nest.rank - 1);
    return kept;
}

/// A group whose innermost dimension is contiguous, as runs: `length` contiguous elements each, placed by `runs` (the
/// group without its innermost dimension; rank 0: one run per group, at runs.offsets).
struct group_runs {
    std::size_t length;
    iter::loop_nest<2> runs;
};
[[nodiscard]] inline group_runs runs_of_group(const iter::loop_nest<2>& group) {
    iter::axis_set innermost;
    innermost.set(group.rank - 1);
    return {group.sizes[group.rank - 1], iter::remove_dimensions(group, innermost)};
}

/// The layouts a reduce nest's vectorised kernels are written for (reduce/dispatch.hpp describes them).
enum class reduce_layout { short_rows, inner, outer, strided };

/// The layout of a planned nest reduced over `reduced` (parts: the nest split), for vectors of `lanes` elements and
/// a short-row kernel that takes rows of up to `short_row_limit` elements:
///   short_rows  the innermost dimension is reduced and contiguous and is the whole group, at most short_row_limit long;
///   inner       the innermost dimension is reduced, contiguous and at least a vector long;
///   outer       the innermost dimension is kept and contiguous in input and output, the group not empty, and either
///               at least a vector wide or its rows back to back (the outer kernel fuses them into wide rows);
///   strided     anything else.
[[nodiscard]] inline reduce_layout layout_of(const iter::loop_nest<2>& nest, iter::axis_set reduced, const reduce_nests<>& parts,
                                             std::size_t lanes, std::size_t short_row_limit) noexcept {
    if (nest.rank == 0) return reduce_layout::strided;
    const std::size_t last = nest.rank - 1;
    if (reduced.test(last) && nest.strides[1][last] == 1) {
        if (parts.group.rank == 1 && nest.sizes[last] <= short_row_limit) return reduce_layout::short_rows;
        if (nest.sizes[last] >= lanes) return reduce_layout::inner;
    }
    if (!reduced.test(last) && nest.inner_is_contiguous({0, 1}) && parts.group.rank > 0 &&
        (nest.sizes[last] >= lanes || parts.group.strides[1][parts.group.rank - 1] == static_cast<std::ptrdiff_t>(nest.sizes[last])))
        return reduce_layout::outer;
    return reduce_layout::strided;
}

/// Whether the nest is one contiguous line of at least `lanes` elements reduced into one output.
[[nodiscard]] inline bool is_one_contiguous_line(const iter::loop_nest<2>& nest, iter::axis_set reduced, std::size_t lanes) noexcept {
    return nest.rank == 1 && reduced.test(0) && nest.strides[1][0] == 1 && nest.sizes[0] >= lanes;
}

/// Whether the nest is [n rows, w columns] reduced over its rows, the columns contiguous in input and output and at
/// least `lanes` wide (the outer layout with nothing else kept: what the band kernels cut).
[[nodiscard]] inline bool is_rows_over_columns(const iter::loop_nest<2>& nest, iter::axis_set reduced, std::size_t lanes) noexcept {
    return nest.rank == 2 && reduced.test(0) && !reduced.test(1) && nest.inner_is_contiguous({0, 1}) && nest.sizes[1] >= lanes;
}

/// Whether every dimension is reduced, there are several runs, and the innermost dimension is contiguous and at least
/// `lanes` long: one output over several contiguous runs (what the run kernels cut into chunks on an executor).
[[nodiscard]] inline bool is_one_output_of_runs(const iter::loop_nest<2>& nest, iter::axis_set reduced, std::size_t lanes) noexcept {
    return nest.rank >= 2 && reduced.count() == nest.rank && nest.strides[1][nest.rank - 1] == 1 && nest.sizes[nest.rank - 1] >= lanes;
}

/// For the outer layout: calls stretch(output offset, input offset, columns) for each stretch of the innermost kept
/// dimension (`columns` contiguous outputs), the other kept dimensions walked by the odometer.
template <class Stretch>
void for_each_kept_stretch(const reduce_nests<>& parts, Stretch&& stretch) {
    const std::size_t last = parts.kept.rank - 1;
    const std::size_t columns = parts.kept.sizes[last];
    iter::axis_set innermost;
    innermost.set(last);
    iter::for_each_element(iter::remove_dimensions(parts.kept, innermost),
                           [&](const std::array<std::ptrdiff_t, 2>& at) { stretch(at[0], at[1], columns); });
}

/// One output over several contiguous runs (is_one_output_of_runs, runs of at least `lanes` elements) that the executor
/// wants cut into two pieces or more: calls one(output offset, input offset, its runs, the pieces wanted) and returns
/// true; anything else: false, having done nothing.
template <class T, class One>
bool for_the_output_of_runs(const executor_ref& exec, const iter::loop_nest<2>& nest, iter::axis_set reduced, std::size_t lanes, One&& one) {
    if (!is_one_output_of_runs(nest, reduced, lanes)) return false;
    const std::size_t wanted = wanted_pieces(exec, nest.element_count() * sizeof(T));
    if (wanted < 2) return false;
    const auto parts = split_reduce_nest(nest, reduced);
    const group_runs grouped = runs_of_group(parts.group);
    iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 2>& at) { one(at[0], at[1], grouped, wanted); });
    return true;
}

}  // namespace tensorops::detail
