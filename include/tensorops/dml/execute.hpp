// tensorops/dml/execute.hpp — runs a DirectML operator descriptor on the CPU: validate everything
// (validate.hpp), check the bound pointers, map the run-time data type to a C++ type once
// (descriptors.hpp: visit_data_type), then call the typed operator of ops/.
//
// Buffers are bound at execution, as in DirectML: each pointer addresses a buffer of at least its descriptor's
// total_tensor_size_in_bytes bytes, and the validation proves that every element the operator touches lies
// inside it. Nothing is read or written before every check has passed, except that scatter-ND's index values
// are data and are checked by the typed scatter_nd itself — still before anything is written.
//
// Each execute has two overloads: with an executor first (exec/executor.hpp: a thread_pool, sequential, or any
// type the executor concept accepts, passed as an executor_ref), it runs the typed operator on that executor —
// the result bit-identical to the sequential one; without, on the calling thread.
//
// Each overload is a template over its descriptor type (std::same_as<the descriptor>, so it accepts exactly that
// type) rather than an ordinary inline function: its body instantiates the operator for every data type (and
// index type), and an ordinary inline function's body is instantiated in every translation unit that includes it,
// called or not — with g++ -O0 that made `#include <tensorops/tensorops.hpp>` alone cost ~13 s of compile time.
// As templates they are instantiated only where a program calls them.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "../core/error.hpp"
#include "../core/tensor_view.hpp"
#include "../exec/executor.hpp"
#include "../ops/cumulative.hpp"
#include "../ops/reduce.hpp"
#include "../ops/scatter.hpp"
#include "descriptors.hpp"
#include "validate.hpp"

namespace tensorops::dml {

namespace detail {

/// The pointer bound for a tensor, as T*: not null, aligned to the element type (alignof(T), which C++ needs to
/// read it) and to the descriptor's guaranteed_base_offset_alignment when that is not 0. `argument` names the
/// execute parameter ("input", "output", …).
template <class T, class Pointer>
T* bind_buffer(std::string_view operation, std::string_view argument, Pointer pointer, const checked_tensor& tensor) {
    if (pointer == nullptr) throw error(operation, argument, "is null; every tensor needs a buffer");
    const auto address = reinterpret_cast<std::uintptr_t>(pointer);
    if (address % alignof(T) != 0)
        throw error(operation, argument,
                    "is not a multiple of " + std::to_string(alignof(T)) + " bytes, the alignment of a " +
                        std::string(data_type_name(tensor.data_type)) + " element");
    if (tensor.alignment != 0 && address % tensor.alignment != 0)
        throw error(operation, argument,
                    "is not a multiple of " + std::to_string(tensor.alignment) + " bytes, the descriptor's guaranteed_base_offset_alignment");
    return static_cast<T*>(pointer);
}

/// An output may share memory with an input only exactly (same pointer, sizes and strides: in place).
template <class T, class U>
void require_in_place_or_disjoint(std::string_view operation, const tensor_view<T>& output, const tensor_view<U>& input,
                                  std::string_view input_name) {
    if (memory_overlap(output, input) == overlap::partial)
        throw error(operation, "output",
                    "overlaps " + std::string(input_name) +
                        " without being the same tensor (same pointer, sizes and strides, i.e. in place); any other overlap is an error");
}

/// An output must not share memory with an input at all.
template <class T, class U>
void require_disjoint(std::string_view operation, const tensor_view<T>& output, const tensor_view<U>& input, std::string_view input_name) {
    if (memory_overlap(output, input) != overlap::none)
        throw error(operation, "output", "shares memory with " + std::string(input_name) + "; it must not");
}

template <bool Product>
void run_cumulative(const executor_ref& exec, std::string_view operation, const checked_cumulative& checked, axis_direction direction,
                    bool exclusive, const void* input, void* output) {
    const scan_options options{checked.axis, direction, exclusive};
    visit_data_type(checked.input.data_type, [&]<class T>(std::type_identity<T>) {
        const tensor_view<const T> x = checked.input.view(bind_buffer<const T>(operation, "input", input, checked.input));
        const tensor_view<T> y = checked.output.view(bind_buffer<T>(operation, "output", output, checked.output));
        require_in_place_or_disjoint(operation, y, x, "input");
        if constexpr (Product) tensorops::cumulative_product<T>(exec, x, y, options);
        else tensorops::cumulative_sum<T>(exec, x, y, options);
    });
}

/// Argmax (Maximum) or argmin over the checked axes, for every input type × index type.
template <bool Maximum>
void run_arg_reduce(const executor_ref& exec, std::string_view operation, const checked_reduce& checked, axis_direction direction,
                    const void* input, void* output) {
    const std::span<const std::size_t> axes(checked.axes.data(), checked.axis_count);
    visit_data_type(checked.input.data_type, [&]<class T>(std::type_identity<T>) {
        const tensor_view<const T> x = checked.input.view(bind_buffer<const T>(operation, "input", input, checked.input));
        visit_index_type(checked.output.data_type, [&]<class I>(std::type_identity<I>) {
            const tensor_view<I> y = checked.output.view(bind_buffer<I>(operation, "output", output, checked.output));
            require_disjoint(operation, y, x, "input");
            if constexpr (Maximum) tensorops::argmax(exec, x, y, axes, direction);
            else tensorops::argmin(exec, x, y, axes, direction);
        });
    });
}

// The bodies of the execute overloads below. Header-only, each execute calls its execute_here, instantiated where the
// program calls it (for every data type the descriptor may name). Compiled (TENSOROPS_COMPILED), it calls
// compiled_execute instead: an ordinary function of the library (src/dml.cpp), which holds execute_here compiled once
// — a call site then compiles the call, not the layer.

template <std::same_as<cumulative_summation_operator_desc> Desc>
void execute_here(const executor_ref& exec, const Desc& desc, const void* input, void* output) {
    constexpr std::string_view operation = "dml::cumulative_summation";
    const auto checked = detail::check_cumulative(operation, desc.input_tensor, desc.output_tensor, desc.axis, desc.direction);
    detail::run_cumulative<false>(exec, operation, checked, desc.direction, desc.has_exclusive_sum, input, output);
}

template <std::same_as<cumulative_product_operator_desc> Desc>
void execute_here(const executor_ref& exec, const Desc& desc, const void* input, void* output) {
    constexpr std::string_view operation = "dml::cumulative_product";
    const auto checked = detail::check_cumulative(operation, desc.input_tensor, desc.output_tensor, desc.axis, desc.direction);
    detail::run_cumulative<true>(exec, operation, checked, desc.direction, desc.has_exclusive_product, input, output);
}

template <std::same_as<reduce_operator_desc> Desc>
void execute_here(const executor_ref& exec, const Desc& desc, const void* input, void* output) {
    constexpr std::string_view operation = "dml::reduce";
    const auto checked = detail::check_reduce(operation, desc);
    if (desc.function == reduce_function::argmax || desc.function == reduce_function::argmin) {
        const axis_direction first = axis_direction::increasing;
        if (desc.function == reduce_function::argmax) detail::run_arg_reduce<true>(exec, operation, checked, first, input, output);
        else detail::run_arg_reduce<false>(exec, operation, checked, first, input, output);
        return;
    }
    const std::span<const std::size_t> axes(checked.axes.data(), checked.axis_count);
    visit_data_type(checked.input.data_type, [&]<class T>(std::type_identity<T>) {
        const tensor_view<const T> x = checked.input.view(detail::bind_buffer<const T>(operation, "input", input, checked.input));
        const tensor_view<T> y = checked.output.view(detail::bind_buffer<T>(operation, "output", output, checked.output));
        detail::require_disjoint(operation, y, x, "input");
        tensorops::reduce(exec, x, y, desc.function, axes);
    });
}

template <std::same_as<argmax_operator_desc> Desc>
void execute_here(const executor_ref& exec, const Desc& desc, const void* input, void* output) {
    constexpr std::string_view operation = "dml::argmax";
    const auto checked = detail::check_arg_reduce(operation, desc.input_tensor, desc.output_tensor, desc.axis_count, desc.axes, desc.direction);
    detail::run_arg_reduce<true>(exec, operation, checked, desc.direction, input, output);
}

template <std::same_as<argmin_operator_desc> Desc>
void execute_here(const executor_ref& exec, const Desc& desc, const void* input, void* output) {
    constexpr std::string_view operation = "dml::argmin";
    const auto checked = detail::check_arg_reduce(operation, desc.input_tensor, desc.output_tensor, desc.axis_count, desc.axes, desc.direction);
    detail::run_arg_reduce<false>(exec, operation, checked, desc.direction, input, output);
}

template <std::same_as<scatter_nd_operator_desc> Desc>
void execute_here(const executor_ref& exec, const Desc& desc, const void* input, const void* indices, const void* updates,
                  void* output) {
    constexpr std::string_view operation = "dml::scatter_nd";
    const auto checked = detail::check_scatter(operation, desc);
    visit_data_type(checked.input.data_type, [&]<class T>(std::type_identity<T>) {
        visit_index_type(checked.indices.data_type, [&]<class I>(std::type_identity<I>) {
            const tensor_view<const T> x = checked.input.view(detail::bind_buffer<const T>(operation, "input", input, checked.input), checked.input_first);
            const tensor_view<const I> tuples =
                checked.indices.view(detail::bind_buffer<const I>(operation, "indices", indices, checked.indices), checked.indices_first);
            const tensor_view<const T> u =
                checked.updates.view(detail::bind_buffer<const T>(operation, "updates", updates, checked.updates), checked.updates_first);
            const tensor_view<T> y = checked.output.view(detail::bind_buffer<T>(operation, "output", output, checked.output), checked.input_first);
            detail::require_in_place_or_disjoint(operation, y, x, "input");
            detail::require_disjoint(operation, y, tuples, "indices");
            detail::require_disjoint(operation, y, u, "updates");
            try {
                tensorops::scatter_nd<T, I>(exec, x, tuples, u, y);
            } catch (const error& typed) {  // an index out of range: say which operator of this layer rejected it
                throw error(operation, typed.argument(), typed.rule());
            }
        });
    });
}

/// The execute overloads of tensorops::compiled (src/dml.cpp): execute_here, compiled once in the library.
void compiled_execute(const executor_ref& exec, const cumulative_summation_operator_desc& desc, const void* input, void* output);
void compiled_execute(const executor_ref& exec, const cumulative_product_operator_desc& desc, const void* input, void* output);
void compiled_execute(const executor_ref& exec, const reduce_operator_desc& desc, const void* input, void* output);
void compiled_execute(const executor_ref& exec, const argmax_operator_desc& desc, const void* input, void* output);
void compiled_execute(const executor_ref& exec, const argmin_operator_desc& desc, const void* input, void* output);
void compiled_execute(const executor_ref& exec, const scatter_nd_operator_desc& desc, const void* input, const void* indices, const void* updates,
                      void* output);

}  // namespace detail

/// Cumulative summation (SEMANTICS.md §1) of the tensor at `input` into the tensor at `output`, laid out as
/// desc.input_tensor and desc.output_tensor describe.
/// Returns when every output element is written. Data types: FLOAT32, FLOAT16, INT64, INT32, UINT64, UINT32 as in
/// DirectML, and FLOAT64, INT16, INT8, UINT16, UINT8, BFLOAT16 as extensions; integers wrap, FLOAT16 and BFLOAT16
/// carry a float.
/// Aliasing: `output` may be `input` exactly (same pointer and strides: in place); any other overlap is an error.
/// Buffers: each at least its descriptor's total_tensor_size_in_bytes; nothing outside the addressed elements is
/// read or written. Errors (tensorops::error, "dml::cumulative_summation", before anything is written): every
/// rule of validate(desc), a null or misaligned pointer, a partial overlap.
template <std::same_as<cumulative_summation_operator_desc> Desc>
void execute(const executor_ref& exec, const Desc& desc, const void* input, void* output) {
    if constexpr (TENSOROPS_COMPILED != 0) detail::compiled_execute(exec, desc, input, output);
    else detail::execute_here(exec, desc, input, output);
}
/// As above, on the calling thread (the sequential executor).
template <std::same_as<cumulative_summation_operator_desc> Desc>
void execute(const Desc& desc, const void* input, void* output) {
    execute(sequential, desc, input, output);
}

/// Cumulative product (SEMANTICS.md §1); identity 1 for the exclusive form. Types, aliasing, buffers and errors
/// as the cumulative summation overload ("dml::cumulative_product"); integer products wrap.
template <std::same_as<cumulative_product_operator_desc> Desc>
void execute(const executor_ref& exec, const Desc& desc, const void* input, void* output) {
    if constexpr (TENSOROPS_COMPILED != 0) detail::compiled_execute(exec, desc, input, output);
    else detail::execute_here(exec, desc, input, output);
}
/// As above, on the calling thread (the sequential executor).
template <std::same_as<cumulative_product_operator_desc> Desc>
void execute(const Desc& desc, const void* input, void* output) {
    execute(sequential, desc, input, output);
}

/// Reduce (SEMANTICS.md §2): desc.function over desc.axes, the rank kept. Data types per function: DirectML's
/// table plus FLOAT64 everywhere and BFLOAT16 wherever FLOAT16 is (extensions). ARGMAX/ARGMIN write the index of
/// the first extreme, row-major over the reduced axes, into an INT64/INT32/UINT64/UINT32 output. Extensions for ONNX front-ends: axis_count 0
/// maps every element to its own group (ONNX's noop_with_empty_axes; see tensorops::reduce), and input and output
/// may have dimension_count 0 (one element; sizes and strides may then be null). Aliasing: the output must not share memory
/// with the input. Buffers as for cumulative summation. Errors (tensorops::error, "dml::reduce", before anything
/// is written): every rule of validate(desc), a null or misaligned pointer, an overlap.
template <std::same_as<reduce_operator_desc> Desc>
void execute(const executor_ref& exec, const Desc& desc, const void* input, void* output) {
    if constexpr (TENSOROPS_COMPILED != 0) detail::compiled_execute(exec, desc, input, output);
    else detail::execute_here(exec, desc, input, output);
}
/// As above, on the calling thread (the sequential executor).
template <std::same_as<reduce_operator_desc> Desc>
void execute(const Desc& desc, const void* input, void* output) {
    execute(sequential, desc, input, output);
}

/// Argmax (DML_ARGMAX_OPERATOR_DESC): for each group over desc.axes the row-major flattened index of the first
/// (INCREASING) or last (DECREASING) largest element; NaN counts as the largest. Input types as reduce's ARGMAX
/// (plus FLOAT64, BFLOAT16), output INT64/INT32/UINT64/UINT32 able to hold N − 1. axis_count 0 and rank 0 as reduce (every
/// index 0). Aliasing, buffers and errors as reduce ("dml::argmax").
template <std::same_as<argmax_operator_desc> Desc>
void execute(const executor_ref& exec, const Desc& desc, const void* input, void* output) {
    if constexpr (TENSOROPS_COMPILED != 0) detail::compiled_execute(exec, desc, input, output);
    else detail::execute_here(exec, desc, input, output);
}
/// As above, on the calling thread (the sequential executor).
template <std::same_as<argmax_operator_desc> Desc>
void execute(const Desc& desc, const void* input, void* output) {
    execute(sequential, desc, input, output);
}

/// Argmin (DML_ARGMIN_OPERATOR_DESC): as argmax for the smallest element; NaN counts as the smallest ("dml::argmin").
template <std::same_as<argmin_operator_desc> Desc>
void execute(const executor_ref& exec, const Desc& desc, const void* input, void* output) {
    if constexpr (TENSOROPS_COMPILED != 0) detail::compiled_execute(exec, desc, input, output);
    else detail::execute_here(exec, desc, input, output);
}
/// As above, on the calling thread (the sequential executor).
template <std::same_as<argmin_operator_desc> Desc>
void execute(const Desc& desc, const void* input, void* output) {
    execute(sequential, desc, input, output);
}

/// Scatter-ND (SEMANTICS.md §3) in DirectML's padded form: output = input, then every index tuple of the last
/// indices_dimension_count dimensions of indices replaces a slice of the last input_dimension_count dimensions
/// with the matching updates; duplicates: the last tuple in row-major order wins. Signed indices may count from
/// the end (−1 = last). Data types: all eleven and BFLOAT16 for input/updates/output (one type), INT64/INT32/UINT64/UINT32
/// for indices. Aliasing: `output` may be `input` exactly (in place); any other overlap with input, and any
/// overlap with indices or updates, is an error. Buffers as for cumulative summation.
/// Errors (tensorops::error, "dml::scatter_nd"): every rule of validate(desc), a null or misaligned pointer, an
/// overlap, and an index out of range (argument "indices", naming the tuple) — all before anything is written.
template <std::same_as<scatter_nd_operator_desc> Desc>
void execute(const executor_ref& exec, const Desc& desc, const void* input, const void* indices, const void* updates,
             void* output) {
    if constexpr (TENSOROPS_COMPILED != 0) detail::compiled_execute(exec, desc, input, indices, updates, output);
    else detail::execute_here(exec, desc, input, indices, updates, output);
}
/// As above, on the calling thread (the sequential executor).
template <std::same_as<scatter_nd_operator_desc> Desc>
void execute(const Desc& desc, const void* input, const void* indices, const void* updates, void* output) {
    execute(sequential, desc, input, indices, updates, output);
}

}  // namespace tensorops::dml
