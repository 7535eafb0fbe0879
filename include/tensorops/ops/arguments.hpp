// tensorops/ops/arguments.hpp — the argument vocabulary shared by the operators, and the checks every
// operator makes before it touches memory. Each check throws tensorops::error naming the operator, the
// argument and the rule, with the offending values.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "../core/error.hpp"
#include "../core/tensor_view.hpp"

namespace tensorops {

/// Which end of an axis comes first (DML_AXIS_DIRECTION: INCREASING = 0, DECREASING = 1).
enum class axis_direction { increasing, decreasing };

namespace detail {

template <class Integer>
std::string describe(std::span<const Integer> values) {
    std::string text = "{";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) text += ", ";
        text += std::to_string(values[i]);
    }
    return text + "}";
}

template <class T>
std::string describe_layout(const tensor_view<T>& view) {
    return "sizes " + describe(view.sizes()) + " and strides " + describe(view.strides());
}

/// `second` must have the rank and sizes of `first`.
template <class T, class U>
void require_same_sizes(std::string_view operation, std::string_view first_name, const tensor_view<T>& first,
                        std::string_view second_name, const tensor_view<U>& second) {
    bool same = first.rank() == second.rank();
    for (std::size_t d = 0; same && d < first.rank(); ++d) same = first.size(d) == second.size(d);
    if (!same)
        throw error(operation, second_name,
                    "has sizes " + describe(second.sizes()) + " but " + std::string(first_name) + " has sizes " +
                        describe(first.sizes()) + "; they must be equal");
}

/// `axis` must name a dimension of a tensor of rank `rank` (a rank-0 tensor has none: an operation along an axis
/// rejects it).
inline void require_axis(std::string_view operation, std::string_view name, std::size_t axis, std::size_t rank) {
    if (rank == 0)
        throw error(operation, name, "is " + std::to_string(axis) + " but the tensor has rank 0: a rank-0 tensor (one element) has no axis to go along");
    if (axis >= rank)
        throw error(operation, name,
                    "is " + std::to_string(axis) + " but the tensor has rank " + std::to_string(rank) +
                        "; it must be below the rank");
}

/// `direction` must be one of axis_direction's two values (a cast can make an enum hold any other).
inline void require_direction(std::string_view operation, std::string_view name, axis_direction direction) {
    if (direction != axis_direction::increasing && direction != axis_direction::decreasing)
        throw error(operation, name,
                    "is " + std::to_string(static_cast<int>(direction)) +
                        ", not an axis_direction: increasing (0) or decreasing (1)");
}

/// An output must give every coordinate its own element, provably (tensor_view::uniqueness: decided by rule, or
/// by listing at most unique_enumeration_limit offsets; a layout past that which no rule settles is refused).
template <class T>
void require_unique(std::string_view operation, std::string_view name, const tensor_view<T>& output) {
    switch (output.uniqueness()) {
        case layout_uniqueness::unique: return;
        case layout_uniqueness::shared:
            throw error(operation, name,
                        "has " + describe_layout(output) +
                            ", which make two coordinates share one element; an output needs one element per coordinate");
        case layout_uniqueness::unproven: break;
    }
    throw error(operation, name,
                "has " + describe_layout(output) +
                    ", which could not be proven to give each coordinate its own element: a dimension is neither nested over the "
                    "smaller ones (|stride| above their reach) nor kept apart from them by the two-dimension or tiling rules, and "
                    "the offsets below it are more than " + std::to_string(unique_enumeration_limit) +
                    ", the most checked one by one (tensor_view::uniqueness); an output needs one element per coordinate");
}

/// An output may alias an input only exactly (same data, sizes and strides: in place). Returns whether it does.
template <class T, class U>
bool require_exact_alias_or_disjoint(std::string_view operation, std::string_view output_name, const tensor_view<T>& output,
                                     std::string_view input_name, const tensor_view<U>& input) {
    const overlap relation = memory_overlap(output, input);
    if (relation == overlap::partial)
        throw error(operation, output_name,
                    "overlaps " + std::string(input_name) + " without being the same view (" + describe_layout(output) +
                        " vs " + describe_layout(input) +
                        "); it may share memory with it only exactly (same data pointer, sizes and strides)");
    return relation == overlap::exact;
}

/// An output must not share memory with the argument at all.
template <class T, class U>
void require_disjoint(std::string_view operation, std::string_view output_name, const tensor_view<T>& output,
                      std::string_view other_name, const tensor_view<U>& other) {
    if (memory_overlap(output, other) != overlap::none)
        throw error(operation, output_name, "shares memory with " + std::string(other_name) + "; it must not");
}

}  // namespace detail
}  // namespace tensorops
