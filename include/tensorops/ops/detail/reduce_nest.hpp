// tensorops/ops/detail/reduce_nest.hpp — a planned reduce nest cut into its kept dimensions and the group of reduced
// ones, the walk of a group's lines, and the dimensions along which a reduction may be cut into independent pieces.
// Shared by reduce and argmax/argmin.
#pragma once

#include <array>
#include <cstddef>

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

}  // namespace tensorops::detail
