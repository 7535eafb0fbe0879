// src/routes.hpp — the definitions of the routes the public headers declare (ops/detail/compiled.hpp): each calls the
// same detail:: function as a header-only build, through the kernel table of the level in use (dispatch.hpp).
// Compiled for the baseline; instantiated for every built type by the generated routes.cpp.
#pragma once

#include <tuple>

#include "dispatch.hpp"

namespace tensorops::compiled {

/// T's kernels in the level in use (routes are instantiated only for the types the build holds: never null).
template <class T>
const element_kernels<T>& active_kernels() {
    return *std::get<const element_kernels<T>*>(active_kernel_table().elements);
}

/// T's kernels with index type I in the level in use.
template <class T, class I>
const index_kernels<T, I>& active_kernels() {
    return std::get<index_kernels<T, I>>(active_kernels<T>().indexed);
}

}  // namespace tensorops::compiled

namespace tensorops::detail {

template <class T>
void compiled_reduce<T>::values(const executor_ref& exec, const tensor_view<const T>& input, const tensor_view<T>& output,
                                reduce_function function, std::span<const std::size_t> axes) {
    compiled::active_kernels<T>().reduce(exec, input, output, function, axes);
}

template <class T, class I>
void compiled_arg_reduce<T, I>::run(const executor_ref& exec, std::string_view operation, bool maximum, const tensor_view<const T>& input,
                                    const tensor_view<I>& output, std::span<const std::size_t> axes, axis_direction direction) {
    compiled::active_kernels<T, I>().arg_reduce(exec, operation, maximum, input, output, axes, direction);
}

template <class T>
void compiled_cumulative<T>::sum(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input,
                                 const tensor_view<T>& output, const scan_options& options) {
    compiled::active_kernels<T>().cumulative_sum(exec, operation, input, output, options);
}

template <class T>
void compiled_cumulative<T>::product(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input,
                                     const tensor_view<T>& output, const scan_options& options) {
    compiled::active_kernels<T>().cumulative_product(exec, operation, input, output, options);
}

template <class T>
void compiled_cumulative_extreme<T>::maximum(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input,
                                             const tensor_view<T>& output, const scan_options& options) {
    compiled::active_kernels<T>().cumulative_max(exec, operation, input, output, options, extreme_scan<T, true>{});
}

template <class T>
void compiled_cumulative_extreme<T>::minimum(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input,
                                             const tensor_view<T>& output, const scan_options& options) {
    compiled::active_kernels<T>().cumulative_min(exec, operation, input, output, options, extreme_scan<T, false>{});
}

template <class T>
void compiled_cumulative_extreme<T>::log_sum_exp(const executor_ref& exec, const tensor_view<const T>& input, const tensor_view<T>& output,
                                                 const scan_options& options) {
    // Null for integers, whose public entry point does not compile: never reached for them.
    if constexpr (builtin_floating<T>) compiled::active_kernels<T>().cumulative_log_sum_exp(exec, input, output, options);
}

template <class T, class I>
void compiled_cumulative_extreme_with_indices<T, I>::maximum(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input,
                                                             const tensor_view<T>& values, const tensor_view<I>& indices, const scan_options& options) {
    compiled::active_kernels<T, I>().cumulative_max(exec, operation, input, values, indices, options);
}

template <class T, class I>
void compiled_cumulative_extreme_with_indices<T, I>::minimum(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input,
                                                             const tensor_view<T>& values, const tensor_view<I>& indices, const scan_options& options) {
    compiled::active_kernels<T, I>().cumulative_min(exec, operation, input, values, indices, options);
}

template <class T, class I>
void compiled_scatter<T, I>::run(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input,
                                 const tensor_view<const I>& indices, const tensor_view<const T>& updates, const tensor_view<T>& output,
                                 scatter_reduction reduction) {
    compiled::active_kernels<T, I>().scatter(exec, operation, input, indices, updates, output, reduction);
}

template <class T, class I>
void compiled_gather<T, I>::run(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input,
                                const tensor_view<const I>& indices, const tensor_view<T>& output, std::size_t batch_dims) {
    compiled::active_kernels<T, I>().gather(exec, operation, input, indices, output, batch_dims);
}

}  // namespace tensorops::detail
