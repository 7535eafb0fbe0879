// tensorops/ops/detail/tuples/validate.hpp — pass 1 over the index tuples: every coordinate checked, branch-free,
// before anything is written; only when one is out of range does a cold walk find the first bad tuple
// (row-major) and name it in the error, the same whatever the executor.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

#include "../../../core/element.hpp"
#include "../../../core/error.hpp"
#include "../../../core/tensor_view.hpp"
#include "../../../exec/executor.hpp"
#include "../../../exec/split.hpp"
#include "../../../iter/nd_loop.hpp"
#include "plan.hpp"

namespace tensorops::detail {

/// True when every coordinate of `count` tuples starting at `first` (tuple i at first + i · tuple_stride) is in range.
template <index_element I>
[[nodiscard]] bool line_in_range(const I* first, std::size_t count, std::ptrdiff_t tuple_stride, const tuple_plan& plan) noexcept {
    unsigned bad = 0;
    if (plan.k == 1) {
        const std::size_t extent = plan.extents[0];
        if (tuple_stride == 1) {
            for (std::size_t i = 0; i < count; ++i) bad |= static_cast<unsigned>(!in_range(first[i], extent));
        } else {
            for (std::size_t i = 0; i < count; ++i)
                bad |= static_cast<unsigned>(!in_range(first[static_cast<std::ptrdiff_t>(i) * tuple_stride], extent));
        }
    } else {
        for (std::size_t i = 0; i < count; ++i) {
            const I* tuple = first + static_cast<std::ptrdiff_t>(i) * tuple_stride;
            for (std::size_t c = 0; c < plan.k; ++c)
                bad |= static_cast<unsigned>(!in_range(tuple[static_cast<std::ptrdiff_t>(c) * plan.coordinate_stride], plan.extents[c]));
        }
    }
    return bad == 0;
}

/// True when every tuple of the plan is in range (the fast pass: no early exit, no error text).
template <index_element I>
[[nodiscard]] bool tuples_in_range(const I* indices, const tuple_plan& plan) noexcept {
    bool all = true;
    for_each_tuple_line(plan, [&](const std::array<std::ptrdiff_t, 3>& line, std::size_t length, const std::array<std::ptrdiff_t, 3>& strides) {
        all = line_in_range(indices + line[0], length, strides[0], plan) && all;
    });
    return all;
}

/// Finds the first tuple (row-major order of the index array) with a coordinate out of range and throws
/// tensorops::error naming its position, its value, the coordinate at fault and the valid range.
template <index_element I>
[[noreturn]] void throw_invalid_tuple(std::string_view operation, const tensor_view<const I>& indices, const tuple_plan& plan,
                                      std::string_view indexed_name) {
    const std::size_t tuple_rank = indices.rank() - 1;
    std::array<std::size_t, max_rank> position{};
    for (std::size_t n = 0; n < plan.count; ++n) {
        std::ptrdiff_t offset = 0;
        for (std::size_t d = 0; d < tuple_rank; ++d) offset += static_cast<std::ptrdiff_t>(position[d]) * indices.stride(d);
        const I* tuple = indices.data() + offset;
        const auto coordinate = [&](std::size_t c) { return tuple[static_cast<std::ptrdiff_t>(c) * plan.coordinate_stride]; };
        for (std::size_t c = 0; c < plan.k; ++c) {
            if (in_range(coordinate(c), plan.extents[c])) continue;
            std::string where = "indices[";
            for (std::size_t d = 0; d < tuple_rank; ++d) where += std::to_string(position[d]) + ", ";
            where += ":]";
            std::string value = "{";
            for (std::size_t i = 0; i < plan.k; ++i) value += (i ? ", " : "") + std::to_string(coordinate(i));
            value += "}";
            const std::size_t extent = plan.extents[c];
            const std::string dimension = "dimension " + std::to_string(plan.first_dimension + c) + " of " + std::string(indexed_name);
            std::string rule = "the index tuple " + where + " is " + value + ": coordinate " + std::to_string(c) + " (" +
                               std::to_string(coordinate(c)) + ") ";
            if (extent == 0) {
                rule += "indexes " + dimension + ", which has size 0 and so no valid index";
            } else {
                const std::string low = std::is_signed_v<I> ? "-" + std::to_string(extent) : std::string("0");
                rule += "is outside [" + low + ", " + std::to_string(extent - 1) + "], the valid range for " + dimension +
                        " (size " + std::to_string(extent) + ")";
            }
            throw error(operation, "indices", rule + "; nothing was written");
        }
        for (std::size_t d = tuple_rank; d-- > 0;) {
            if (++position[d] < indices.size(d)) break;
            position[d] = 0;
        }
    }
    throw error(operation, "indices", "holds an index out of range; nothing was written");  // not reached
}

/// Runs body(piece) for pieces of the plan's tuples (exec/split.hpp), each a plan of its own over a range of
/// tuples. `bytes_per_tuple`: memory traffic per tuple, to size the pieces.
template <class Body>
void for_each_tuple_piece(const executor_ref& exec, const tuple_plan& plan, std::size_t bytes_per_tuple, const Body& body) {
    iter::axis_set every;
    for (std::size_t d = 0; d < plan.walk.rank; ++d) every.set(d);
    for_each_piece(exec, plan.walk, every, plan.count * bytes_per_tuple, [&](const iter::loop_nest<3>& walk) {
        tuple_plan piece = plan;
        piece.walk = walk;
        piece.count = walk.element_count();
        body(piece);
    });
}

/// Pass 1: throws tensorops::error (argument "indices") unless every tuple is in range. The pieces only read and
/// report; the first bad tuple (row-major) is then found on the calling thread, so the error does not depend on
/// the executor.
template <index_element I>
void validate_tuples(const executor_ref& exec, std::string_view operation, const tensor_view<const I>& indices, const tuple_plan& plan,
                     std::string_view indexed_name) {
    std::atomic<bool> all{true};
    for_each_tuple_piece(exec, plan, plan.k * sizeof(I), [&](const tuple_plan& piece) {
        if (!tuples_in_range(indices.data(), piece)) all.store(false, std::memory_order_relaxed);
    });
    if (!all.load(std::memory_order_relaxed)) throw_invalid_tuple(operation, indices, plan, indexed_name);
}

}  // namespace tensorops::detail
