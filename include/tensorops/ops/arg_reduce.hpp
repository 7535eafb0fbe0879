// tensorops/ops/arg_reduce.hpp — argmax / argmin over any set of axes (DML_ARGMAX/ARGMIN_OPERATOR_DESC;
// SEMANTICS.md §4).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "../core/element.hpp"
#include "../core/tensor_view.hpp"
#include "../exec/executor.hpp"
#include "arguments.hpp"
#include "detail/arg_reduce/dispatch.hpp"
#include "detail/compiled.hpp"
#include "detail/map_elements.hpp"
#include "reduce_plan.hpp"

namespace tensorops {

namespace detail {

template <class T, class I>
void arg_reduce(const executor_ref& exec, std::string_view operation, bool maximum, const tensor_view<const T>& input,
                const tensor_view<I>& output, std::span<const std::size_t> axes, axis_direction direction) {
    require_direction(operation, "direction", direction);
    const auto plan = plan_reduce<3>(operation, input, output, axes);
    if (output.empty()) return;
    if (axes.empty()) {  // every element a group of its own: index 0
        fill_with_zero(exec, output);
        return;
    }
    if (plan.count == 0) throw error(operation, "input", "has an empty reduced axis: an empty group has no index of an extreme");
    if (plan.count - 1 > static_cast<std::uint64_t>(std::numeric_limits<I>::max()))
        throw error(operation, "output",
                    "has an index type whose largest value " + std::to_string(std::numeric_limits<I>::max()) +
                        " cannot hold the last index " + std::to_string(plan.count - 1) + " of the reduced group");
    const bool last = direction == axis_direction::decreasing;
    const index_output indices(output.data());
    if (maximum && last) run_arg_reduce_on<true, true>(exec, input.data(), indices, plan.nest, plan.reduced);
    else if (maximum) run_arg_reduce_on<true, false>(exec, input.data(), indices, plan.nest, plan.reduced);
    else if (last) run_arg_reduce_on<false, true>(exec, input.data(), indices, plan.nest, plan.reduced);
    else run_arg_reduce_on<false, false>(exec, input.data(), indices, plan.nest, plan.reduced);
}

/// arg_reduce<T, I> through the compiled library (ops/detail/compiled.hpp): declared here, defined in src/routes.hpp.
template <class T, class I>
struct compiled_arg_reduce {
    static void run(const executor_ref& exec, std::string_view operation, bool maximum, const tensor_view<const T>& input,
                    const tensor_view<I>& output, std::span<const std::size_t> axes, axis_direction direction);
};

/// arg_reduce, through the compiled library where it holds T's kernels (compiled_element).
template <class T, class I>
void arg_reduce_routed(const executor_ref& exec, std::string_view operation, bool maximum, const tensor_view<const T>& input,
                       const tensor_view<I>& output, std::span<const std::size_t> axes, axis_direction direction) {
    if constexpr (compiled_element<T>) compiled_arg_reduce<T, I>::run(exec, operation, maximum, input, output, axes, direction);
    else arg_reduce(exec, operation, maximum, input, output, axes, direction);
}

}  // namespace detail

/// Index of the largest element of each group, row-major flattened over `axes` (in increasing axis order).
/// direction increasing: the first largest (ties resolve to the lowest index); decreasing: the last largest.
/// NaN counts as larger than everything: the first (or last) NaN wins. Output: int32/int64/uint32/uint64 with
/// size 1 on every reduced axis; N − 1 must fit the index type. No axes: every element its own group, index 0.
/// Errors as reduce(), plus an empty group and a
/// direction that is not an axis_direction ("direction"); failures (a user type's < or copy throwing) as reduce().
/// Executor: as reduce().
template <class E, class In, index_element I>
    requires executor<std::remove_reference_t<E>> && totally_ordered_element<std::remove_const_t<In>>
void argmax(E&& exec, tensor_view<In> input, tensor_view<I> output, std::span<const std::size_t> axes,
            axis_direction direction = axis_direction::increasing) {
    detail::arg_reduce_routed(exec, "argmax", true, tensor_view<const std::remove_const_t<In>>(input), output, axes, direction);
}
template <class E, class In, index_element I>
    requires executor<std::remove_reference_t<E>> && totally_ordered_element<std::remove_const_t<In>>
void argmax(E&& exec, tensor_view<In> input, tensor_view<I> output, std::initializer_list<std::size_t> axes,
            axis_direction direction = axis_direction::increasing) {
    argmax(exec, input, output, std::span<const std::size_t>(axes.begin(), axes.size()), direction);
}
template <class In, index_element I>
    requires totally_ordered_element<std::remove_const_t<In>>
void argmax(tensor_view<In> input, tensor_view<I> output, std::span<const std::size_t> axes,
            axis_direction direction = axis_direction::increasing) {
    argmax(sequential, input, output, axes, direction);
}
template <class In, index_element I>
    requires totally_ordered_element<std::remove_const_t<In>>
void argmax(tensor_view<In> input, tensor_view<I> output, std::initializer_list<std::size_t> axes,
            axis_direction direction = axis_direction::increasing) {
    argmax(sequential, input, output, std::span<const std::size_t>(axes.begin(), axes.size()), direction);
}

/// Index of the smallest element of each group; as argmax (errors and failures too), with NaN counting as smaller
/// than everything.
template <class E, class In, index_element I>
    requires executor<std::remove_reference_t<E>> && totally_ordered_element<std::remove_const_t<In>>
void argmin(E&& exec, tensor_view<In> input, tensor_view<I> output, std::span<const std::size_t> axes,
            axis_direction direction = axis_direction::increasing) {
    detail::arg_reduce_routed(exec, "argmin", false, tensor_view<const std::remove_const_t<In>>(input), output, axes, direction);
}
template <class E, class In, index_element I>
    requires executor<std::remove_reference_t<E>> && totally_ordered_element<std::remove_const_t<In>>
void argmin(E&& exec, tensor_view<In> input, tensor_view<I> output, std::initializer_list<std::size_t> axes,
            axis_direction direction = axis_direction::increasing) {
    argmin(exec, input, output, std::span<const std::size_t>(axes.begin(), axes.size()), direction);
}
template <class In, index_element I>
    requires totally_ordered_element<std::remove_const_t<In>>
void argmin(tensor_view<In> input, tensor_view<I> output, std::span<const std::size_t> axes,
            axis_direction direction = axis_direction::increasing) {
    argmin(sequential, input, output, axes, direction);
}
template <class In, index_element I>
    requires totally_ordered_element<std::remove_const_t<In>>
void argmin(tensor_view<In> input, tensor_view<I> output, std::initializer_list<std::size_t> axes,
            axis_direction direction = axis_direction::increasing) {
    argmin(sequential, input, output, std::span<const std::size_t>(axes.begin(), axes.size()), direction);
}

}  // namespace tensorops
