// tensorops/ops/detail/tuples/offsets.hpp — pass 2's arithmetic: the coordinates of a tuple, normalised, become the
// element offset of its slice in the indexed tensor — for a chunk of tuples (fill_positions), or for the tuples
// one piece of a parallel scatter owns (tuple_owner, fill_owned_positions). No checks: pass 1 proved every
// coordinate in range.
#pragma once

#include <cstddef>

#include "../../../core/element.hpp"
#include "../tuning.hpp"
#include "plan.hpp"

namespace tensorops::detail {

/// Coordinate c of the tuple at `tuple`, normalised (in range: pass 1 checked it).
template <index_element I>
[[nodiscard]] std::ptrdiff_t coordinate_of(const I* tuple, std::size_t c, const tuple_plan& plan) noexcept {
    return normalised(tuple[static_cast<std::ptrdiff_t>(c) * plan.coordinate_stride], plan.extents[c]);
}

/// Σ_c coordinate_of(tuple, c) · plan.strides[c]: where, in the indexed tensor, the tuple's slice starts.
template <index_element I>
[[nodiscard]] std::ptrdiff_t tuple_offset(const I* tuple, const tuple_plan& plan) noexcept {
    std::ptrdiff_t offset = 0;
    for (std::size_t c = 0; c < plan.k; ++c) offset += coordinate_of(tuple, c, plan) * plan.strides[c];
    return offset;
}

/// positions[i] = base + i · base_stride + Σ_c normalised(coordinate c of tuple i) · plan.strides[c] for the
/// `count` tuples at indices + first + i · tuple_stride (all in range: pass 1 checked them).
template <index_element I>
void fill_positions(const void* indices, std::ptrdiff_t first, std::ptrdiff_t tuple_stride, std::size_t count, const tuple_plan& plan,
                    std::ptrdiff_t base, std::ptrdiff_t base_stride, std::ptrdiff_t* positions) {
    const I* tuples = static_cast<const I*>(indices) + first;
    if (plan.k == 1) {
        const std::size_t extent = plan.extents[0];
        const std::ptrdiff_t stride = plan.strides[0];
        if (tuple_stride == 1 && base_stride == 0) {  // the common case, kept to a few instructions per tuple
            for (std::size_t i = 0; i < count; ++i) positions[i] = base + normalised(tuples[i], extent) * stride;
            return;
        }
        for (std::size_t i = 0; i < count; ++i) {
            const auto step = static_cast<std::ptrdiff_t>(i);
            positions[i] = base + step * base_stride + normalised(tuples[step * tuple_stride], extent) * stride;
        }
    } else {
        for (std::size_t i = 0; i < count; ++i) {
            const auto step = static_cast<std::ptrdiff_t>(i);
            positions[i] = base + step * base_stride + tuple_offset(tuples + step * tuple_stride, plan);
        }
    }
}

/// The tuples one piece of a parallel scatter applies: those whose coordinate `coordinate`, normalised, lies in
/// [begin, end). Tuples that differ in one coordinate select disjoint slices, and the output's layout is unique, so
/// pieces with disjoint ranges write disjoint elements — and each piece applies its tuples in row-major order, so
/// every element sees the same updates in the same order as sequentially, duplicates and reductions included.
struct tuple_owner {
    std::size_t coordinate = 0;
    std::size_t begin = 0;
    std::size_t end = 0;
};

/// Like fill_positions, for the tuples a piece owns only: the tuples whose coordinate owner.coordinate lies in
/// [owner.begin, owner.end) are packed, in order, into positions[] and data_offsets[] (tuple i's slice in the data
/// tensor at data + i · data_stride); returns how many. Branch-free (every tuple is written, the count advances
/// only for the owned ones): which tuples a piece owns is as unpredictable as the indices.
template <index_element I>
[[nodiscard]] std::size_t fill_owned_positions(const void* indices, std::ptrdiff_t first, std::ptrdiff_t tuple_stride, std::size_t count,
                                               const tuple_plan& plan, std::ptrdiff_t data, std::ptrdiff_t data_stride,
                                               const tuple_owner& owner, std::ptrdiff_t* positions, std::ptrdiff_t* data_offsets) {
    const I* tuples = static_cast<const I*>(indices) + first;
    const std::size_t width = owner.end - owner.begin;
    std::size_t kept = 0;
    if (plan.k == 1) {
        const std::size_t extent = plan.extents[0];
        const std::ptrdiff_t stride = plan.strides[0];
        for (std::size_t i = 0; i < count; ++i) {
            const auto step = static_cast<std::ptrdiff_t>(i);
            const std::ptrdiff_t coordinate = normalised(tuples[step * tuple_stride], extent);
            positions[kept] = coordinate * stride;
            data_offsets[kept] = data + step * data_stride;
            kept += static_cast<std::size_t>(static_cast<std::size_t>(coordinate) - owner.begin < width);
        }
        return kept;
    }
    for (std::size_t i = 0; i < count; ++i) {
        const auto step = static_cast<std::ptrdiff_t>(i);
        const I* tuple = tuples + step * tuple_stride;
        positions[kept] = tuple_offset(tuple, plan);
        data_offsets[kept] = data + step * data_stride;
        kept += static_cast<std::size_t>(static_cast<std::size_t>(coordinate_of(tuple, owner.coordinate, plan)) - owner.begin < width);
    }
    return kept;
}

}  // namespace tensorops::detail
