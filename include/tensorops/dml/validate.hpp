// tensorops/dml/validate.hpp — buffer sizes and every rule of SEMANTICS.md §0–§3 for the runtime-typed layer.
//
// Nothing here reads a data buffer. A descriptor that passes proves, for the tensor it describes, that every
// element offset Σ index[d]·stride[d] lies inside a buffer of total_tensor_size_in_bytes bytes: strides are
// unsigned, so the lowest offset is 0 and the highest is dot(sizes − 1, strides), and the size rule demands
// (that + 1)·element size bytes at least. execute.hpp then only has to check the bound pointers themselves.
//
// Every error is a tensorops::error whose operator is "dml::<operator>" and whose argument names the
// descriptor field at fault ("input_tensor.sizes", "axes", "indices_dimension_count", …).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "../core/error.hpp"
#include "../core/tensor_view.hpp"
#include "../ops/arguments.hpp"
#include "../ops/reduce.hpp"
#include "descriptors.hpp"

namespace tensorops::dml {

/// The most elements a DirectML tensor may have, and the most elements its strided span may cover: 2^32 − 1
/// (DirectML indexes elements with 32-bit unsigned integers).
inline constexpr std::uint64_t max_element_count = std::numeric_limits<std::uint32_t>::max();

namespace detail {

inline constexpr std::uint64_t saturated = std::numeric_limits<std::uint64_t>::max();

constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept { return a > saturated - b ? saturated : a + b; }
constexpr std::uint64_t saturating_multiply(std::uint64_t a, std::uint64_t b) noexcept {
    return a != 0 && b > saturated / a ? saturated : a * b;
}

/// Product of the sizes, saturated at 2^64 − 1.
inline std::uint64_t element_count_of(std::span<const std::uint32_t> sizes) noexcept {
    std::uint64_t count = 1;
    for (std::uint32_t size : sizes) count = saturating_multiply(count, size);
    return count;
}

/// dot(sizes − 1, strides), the offset of the last element, saturated at 2^64 − 1. Sizes must be ≥ 1.
inline std::uint64_t last_element_offset(std::span<const std::uint32_t> sizes, const std::uint32_t* strides) noexcept {
    std::uint64_t offset = 0;
    for (std::size_t d = 0; d < sizes.size(); ++d) offset = saturating_add(offset, saturating_multiply(sizes[d] - 1u, strides[d]));
    return offset;
}

}  // namespace detail

/// DMLCalcBufferTensorSize computed in 64-bit arithmetic: the fewest bytes a buffer bound to `desc` may have,
///   packed (strides null):  (Π sizes) · element size
///   strided:                (dot(sizes − 1, strides) + 1) · element size
/// rounded up to a multiple of 4. Returns 0 when a size is 0 (nothing is addressed). Never overflows: a value
/// that does not fit in 64 bits (possible only for descriptors the other rules reject) is returned as
/// 2^64 − 1. Reads `desc.sizes` and `desc.strides` (dimension_count entries each), nothing else.
/// dimension_count 0 (a rank-0 tensor, one element: an extension for reductions, as ONNX has) needs one element's bytes,
/// rounded up likewise; its sizes and strides may be null.
/// Errors (tensorops::error, operator "dml::calc_buffer_tensor_size"): data_type unknown, dimension_count
/// above 8, sizes null for a dimension_count of 1 or more.
inline std::uint64_t calc_buffer_tensor_size(const buffer_tensor_desc& desc) {
    constexpr std::string_view operation = "dml::calc_buffer_tensor_size";
    const std::uint64_t element_bytes = element_size(desc.data_type);
    if (element_bytes == 0)
        throw error(operation, "data_type", "is " + std::to_string(static_cast<std::uint32_t>(desc.data_type)) + ", not a known tensor_data_type");
    if (desc.dimension_count > max_rank)
        throw error(operation, "dimension_count", "is " + std::to_string(desc.dimension_count) + "; it must be in 0..8");
    if (desc.sizes == nullptr && desc.dimension_count > 0) throw error(operation, "sizes", "is null; it must point to dimension_count sizes");
    const std::span<const std::uint32_t> sizes(desc.sizes, desc.dimension_count);
    if (std::find(sizes.begin(), sizes.end(), 0u) != sizes.end()) return 0;
    const std::uint64_t elements = desc.strides == nullptr ? detail::element_count_of(sizes)
                                                           : detail::saturating_add(detail::last_element_offset(sizes, desc.strides), 1);
    const std::uint64_t bytes = detail::saturating_multiply(elements, element_bytes);
    return bytes > detail::saturated - 3 ? detail::saturated : (bytes + 3) & ~std::uint64_t{3};
}

namespace detail {

/// Whether a tensor is read or written: outputs may not broadcast or otherwise give two coordinates one element.
enum class tensor_role { input, output };

/// A buffer tensor descriptor that passed check_tensor, in the forms a tensor_view takes. Strides are the
/// effective ones (packed row-major when the descriptor has none).
struct checked_tensor {
    tensor_data_type data_type = tensor_data_type::unknown;
    std::size_t rank = 0;
    std::array<std::size_t, max_rank> sizes{};
    std::array<std::ptrdiff_t, max_rank> strides{};
    std::uint64_t element_count = 0;
    std::uint32_t alignment = 0;  // guaranteed_base_offset_alignment

    [[nodiscard]] std::span<const std::size_t> size_span(std::size_t first = 0) const { return {sizes.data() + first, rank - first}; }
    /// A view of dimensions [first, rank) over `data` (the dropped leading dimensions must have size 1).
    template <class T>
    [[nodiscard]] tensor_view<T> view(T* data, std::size_t first = 0) const {
        return tensor_view<T>(data, size_span(first), std::span<const std::ptrdiff_t>(strides.data() + first, rank - first));
    }
};

inline std::string field(std::string_view tensor, std::string_view member) {
    return std::string(tensor).append(".").append(member);
}

inline std::string describe_sizes(std::span<const std::uint32_t> sizes) { return tensorops::detail::describe(sizes); }

/// Checks one buffer tensor descriptor (SEMANTICS.md §0), in this order: present; data_type known;
/// dimension_count in 1..8 (0..8 where `rank_zero` allows a rank-0 tensor: the reductions' extension); sizes present and all ≥ 1; element count ≤ 2^32 − 1; strides (when present) keep
/// the last element's offset below 2^32 − 1; an output gives every coordinate its own element;
/// guaranteed_base_offset_alignment 0 or a power of two ≥ the element size; total_tensor_size_in_bytes at least
/// calc_buffer_tensor_size. `name` is the descriptor's field in the operator descriptor ("input_tensor").
/// Whether a tensor of an operator may have rank 0 (one element): the reductions' inputs and outputs may (an extension
/// for ONNX front-ends), every other tensor may not (DirectML's rule: 1..8).
enum class rank_zero { refused, allowed };

inline checked_tensor check_tensor(std::string_view operation, std::string_view name, const buffer_tensor_desc* desc, tensor_role role,
                                   rank_zero rank_zero_rule = rank_zero::refused) {
    if (desc == nullptr) throw error(operation, name, "is null; every tensor of the operator needs a buffer_tensor_desc");
    if (!is_known(desc->data_type))
        throw error(operation, field(name, "data_type"),
                    "is " + std::to_string(static_cast<std::uint32_t>(desc->data_type)) +
                        ", not a known tensor_data_type (FLOAT32 = 1 … INT64 = 11)");
    const std::uint32_t lowest_rank = rank_zero_rule == rank_zero::allowed ? 0 : 1;
    if (desc->dimension_count < lowest_rank || desc->dimension_count > max_rank)
        throw error(operation, field(name, "dimension_count"),
                    "is " + std::to_string(desc->dimension_count) + "; it must be in " + std::to_string(lowest_rank) + "..8" +
                        (lowest_rank == 1 ? " (rank 0 is an extension of the reductions only)" : ""));
    if (desc->sizes == nullptr && desc->dimension_count > 0)
        throw error(operation, field(name, "sizes"), "is null; it must point to dimension_count sizes");
    const std::span<const std::uint32_t> sizes(desc->sizes, desc->dimension_count);
    for (std::size_t d = 0; d < sizes.size(); ++d)
        if (sizes[d] == 0)
            throw error(operation, field(name, "sizes"),
                        "is " + describe_sizes(sizes) + ": size " + std::to_string(d) + " is 0; every size must be at least 1");
    const std::uint64_t count = element_count_of(sizes);
    if (count > max_element_count)
        throw error(operation, field(name, "sizes"),
                    "is " + describe_sizes(sizes) + ": " + (count == saturated ? std::string("more than 2^64") : std::to_string(count)) +
                        " elements; a tensor may have at most 2^32 - 1 = 4294967295");
    if (desc->strides != nullptr) {
        const std::uint64_t last = last_element_offset(sizes, desc->strides);
        if (last >= max_element_count)
            throw error(operation, field(name, "strides"),
                        "is " + describe_sizes(std::span<const std::uint32_t>(desc->strides, sizes.size())) + " for sizes " + describe_sizes(sizes) +
                            ": the last element is at offset " + (last == saturated ? std::string("2^64 or more") : std::to_string(last)) +
                            "; offsets must stay below 2^32 - 1 = 4294967295 elements");
    }

    checked_tensor tensor;
    tensor.data_type = desc->data_type;
    tensor.rank = desc->dimension_count;
    tensor.element_count = count;
    tensor.alignment = desc->guaranteed_base_offset_alignment;
    std::ptrdiff_t packed = 1;
    for (std::size_t d = tensor.rank; d-- > 0;) {
        tensor.sizes[d] = sizes[d];
        tensor.strides[d] = desc->strides != nullptr ? static_cast<std::ptrdiff_t>(desc->strides[d]) : packed;
        packed *= static_cast<std::ptrdiff_t>(sizes[d]);
    }
    if (role == tensor_role::output) {
        static constexpr unsigned char anchor = 0;  // a view is a description: its data is never touched here
        if (!tensor.view(&anchor).is_unique())
            throw error(operation, field(name, "strides"),
                        "is " + tensorops::detail::describe(std::span<const std::ptrdiff_t>(tensor.strides.data(), tensor.rank)) + " for sizes " +
                            describe_sizes(sizes) + ": two coordinates share one element (stride 0 on a size above 1, or overlapping strides), or this cannot "
                            "be proven otherwise; an output needs one element per coordinate");
    }
    const std::uint32_t alignment = desc->guaranteed_base_offset_alignment;
    if (alignment != 0 && ((alignment & (alignment - 1)) != 0 || alignment < element_size(desc->data_type)))
        throw error(operation, field(name, "guaranteed_base_offset_alignment"),
                    "is " + std::to_string(alignment) + "; it must be 0 or a power of two at least the element size (" +
                        std::to_string(element_size(desc->data_type)) + " bytes for " + std::string(data_type_name(desc->data_type)) + ")");
    const std::uint64_t needed = calc_buffer_tensor_size(*desc);
    if (desc->total_tensor_size_in_bytes < needed)
        throw error(operation, field(name, "total_tensor_size_in_bytes"),
                    "is " + std::to_string(desc->total_tensor_size_in_bytes) + " but the layout needs at least " + std::to_string(needed) +
                        " bytes ((dot(sizes - 1, strides) + 1) x element size, rounded up to a multiple of 4)");
    return tensor;
}

/// The tensor's data type must be in `allowed`; `table` names the table (e.g. "cumulative summation").
inline void require_type(std::string_view operation, std::string_view name, const checked_tensor& tensor, data_type_set allowed,
                         std::string_view table) {
    if (!allowed.contains(tensor.data_type))
        throw error(operation, field(name, "data_type"),
                    "is " + std::string(data_type_name(tensor.data_type)) + ", outside the data types of " + std::string(table) + " (" +
                        allowed.describe() + ")");
}

inline void require_same_type(std::string_view operation, std::string_view name, const checked_tensor& tensor, std::string_view other_name,
                              const checked_tensor& other) {
    if (tensor.data_type != other.data_type)
        throw error(operation, field(name, "data_type"),
                    "is " + std::string(data_type_name(tensor.data_type)) + " but " + std::string(other_name) + ".data_type is " +
                        std::string(data_type_name(other.data_type)) + "; they must be equal");
}

inline void require_same_rank(std::string_view operation, std::string_view name, const checked_tensor& tensor, std::string_view other_name,
                              const checked_tensor& other) {
    if (tensor.rank != other.rank)
        throw error(operation, field(name, "dimension_count"),
                    "is " + std::to_string(tensor.rank) + " but " + std::string(other_name) + ".dimension_count is " +
                        std::to_string(other.rank) + "; they must be equal");
}

inline void require_same_sizes(std::string_view operation, std::string_view name, const checked_tensor& tensor, std::string_view other_name,
                               const checked_tensor& other) {
    require_same_rank(operation, name, tensor, other_name, other);
    if (!std::equal(tensor.sizes.begin(), tensor.sizes.begin() + static_cast<std::ptrdiff_t>(tensor.rank), other.sizes.begin()))
        throw error(operation, field(name, "sizes"),
                    "is " + tensorops::detail::describe(tensor.size_span()) + " but " + std::string(other_name) + ".sizes is " +
                        tensorops::detail::describe(other.size_span()) + "; they must be equal");
}

inline void require_direction(std::string_view operation, axis_direction direction) {
    if (direction != axis_direction::increasing && direction != axis_direction::decreasing)
        throw error(operation, "direction",
                    "is " + std::to_string(static_cast<int>(direction)) + ", not INCREASING (0) or DECREASING (1)");
}

// ---------------------------------------------------------------------------------------------
// Operators.

/// Data types of the cumulative operators: DirectML's FLOAT32, FLOAT16, INT64, INT32, UINT64, UINT32, and as
/// extensions of tensorops FLOAT64, INT16, INT8, UINT16, UINT8 (SEMANTICS.md §1) and BFLOAT16.
inline constexpr data_type_set cumulative_types = types::all;

struct checked_cumulative {
    checked_tensor input, output;
    std::size_t axis = 0;
};

/// SEMANTICS.md §1: both tensors valid; input type in the table; output type and sizes equal to the input's;
/// axis < rank; direction 0 or 1.
inline checked_cumulative check_cumulative(std::string_view operation, const buffer_tensor_desc* input, const buffer_tensor_desc* output,
                                           std::uint32_t axis, axis_direction direction) {
    checked_cumulative checked;
    checked.input = check_tensor(operation, "input_tensor", input, tensor_role::input);
    checked.output = check_tensor(operation, "output_tensor", output, tensor_role::output);
    require_type(operation, "input_tensor", checked.input, cumulative_types, "the cumulative operators");
    require_same_type(operation, "output_tensor", checked.output, "input_tensor", checked.input);
    require_same_sizes(operation, "output_tensor", checked.output, "input_tensor", checked.input);
    if (axis >= checked.input.rank)
        throw error(operation, "axis",
                    "is " + std::to_string(axis) + " but input_tensor.dimension_count is " + std::to_string(checked.input.rank) +
                        "; it must be below it");
    require_direction(operation, direction);
    checked.axis = axis;
    return checked;
}

/// Input data types of each reduce function: DirectML's table (SEMANTICS.md §2) plus FLOAT64 everywhere, and BFLOAT16
/// wherever FLOAT16 is (extensions of tensorops). Indexed by DML_REDUCE_FUNCTION.
inline data_type_set reduce_input_types(reduce_function function) {
    using enum tensor_data_type;
    constexpr data_type_set ordered{float64, float32, float16, bfloat16, int64, int32, int16, int8, uint64, uint32, uint16, uint8};
    constexpr data_type_set floating{float64, float32, float16, bfloat16};
    constexpr data_type_set arithmetic{float64, float32, float16, bfloat16, int64, int32, uint64, uint32};
    switch (function) {
        case reduce_function::argmax:
        case reduce_function::argmin:
        case reduce_function::max:
        case reduce_function::min: return ordered;
        case reduce_function::average:
        case reduce_function::l2:
        case reduce_function::log_sum:
        case reduce_function::log_sum_exp: return floating;
        case reduce_function::l1:
        case reduce_function::sum_square:
        case reduce_function::multiply:
        case reduce_function::sum: return arithmetic;
    }
    return {};
}

struct checked_reduce {
    checked_tensor input, output;
    std::array<std::size_t, max_rank> axes{};
    std::size_t axis_count = 0;
    std::uint64_t group_size = 1;  // N, elements per output element
};

/// The axes and output sizes shared by reduce, argmax and argmin (SEMANTICS.md §2, §5): axis_count in 0..rank (0:
/// every element its own group, ONNX's noop_with_empty_axes — an extension), axes present when axis_count is not 0,
/// each below the rank, none repeated; output rank equal, size 1 on reduced axes, input sizes elsewhere.
inline void check_reduce_shape(std::string_view operation, checked_reduce& checked, std::uint32_t axis_count, const std::uint32_t* axes) {
    const std::size_t rank = checked.input.rank;
    if (axis_count > rank)
        throw error(operation, "axis_count",
                    "is " + std::to_string(axis_count) + "; it must be in 0.." + std::to_string(rank) + " (a rank-" + std::to_string(rank) +
                        " input has no more distinct axes)");
    if (axes == nullptr && axis_count > 0) throw error(operation, "axes", "is null; it must point to axis_count axes");
    std::array<bool, max_rank> reduced{};
    for (std::size_t i = 0; i < axis_count; ++i) {
        if (axes[i] >= rank)
            throw error(operation, "axes",
                        "entry " + std::to_string(i) + " is " + std::to_string(axes[i]) + " but input_tensor.dimension_count is " +
                            std::to_string(rank) + "; every axis must be below it");
        if (reduced[axes[i]]) throw error(operation, "axes", "names axis " + std::to_string(axes[i]) + " twice; axes must be distinct");
        reduced[axes[i]] = true;
        checked.axes[i] = axes[i];
        checked.group_size *= checked.input.sizes[axes[i]];
    }
    checked.axis_count = axis_count;
    require_same_rank(operation, "output_tensor", checked.output, "input_tensor", checked.input);
    std::array<std::size_t, max_rank> expected{};
    for (std::size_t d = 0; d < rank; ++d) expected[d] = reduced[d] ? 1 : checked.input.sizes[d];
    if (!std::equal(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(rank), checked.output.sizes.begin()))
        throw error(operation, "output_tensor.sizes",
                    "is " + tensorops::detail::describe(checked.output.size_span()) + " but reducing input_tensor.sizes " +
                        tensorops::detail::describe(checked.input.size_span()) + " over axes " +
                        tensorops::detail::describe(std::span<const std::size_t>(checked.axes.data(), checked.axis_count)) + " gives " +
                        tensorops::detail::describe(std::span<const std::size_t>(expected.data(), rank)) +
                        " (the rank is kept, reduced axes become 1)");
}

/// An index output of argmax/argmin: INT64, INT32, UINT64 or UINT32, able to hold N − 1.
inline void check_index_output(std::string_view operation, const checked_reduce& checked) {
    require_type(operation, "output_tensor", checked.output, types::index, "argmax/argmin outputs");
    const std::uint64_t largest = checked.output.data_type == tensor_data_type::int32 ? std::numeric_limits<std::int32_t>::max()
                                  : checked.output.data_type == tensor_data_type::uint32 ? std::numeric_limits<std::uint32_t>::max()
                                  : checked.output.data_type == tensor_data_type::int64 ? std::numeric_limits<std::int64_t>::max()
                                                                                         : std::numeric_limits<std::uint64_t>::max();
    if (checked.group_size - 1 > largest)
        throw error(operation, "output_tensor.data_type",
                    "is " + std::string(data_type_name(checked.output.data_type)) + ", which cannot hold the last index " +
                        std::to_string(checked.group_size - 1) + " of a reduced group of " + std::to_string(checked.group_size) + " elements");
}

/// SEMANTICS.md §2 for DML_REDUCE_OPERATOR_DESC: function in range; tensors valid; axes and output sizes; input
/// type in the function's table; output type equal to the input's, or an index type for ARGMAX/ARGMIN.
inline checked_reduce check_reduce(std::string_view operation, const reduce_operator_desc& desc) {
    const auto function_value = static_cast<std::uint32_t>(desc.function);
    if (function_value > static_cast<std::uint32_t>(reduce_function::sum_square))
        throw error(operation, "function", "is " + std::to_string(function_value) + ", not a DML_REDUCE_FUNCTION (0..11)");
    checked_reduce checked;
    checked.input = check_tensor(operation, "input_tensor", desc.input_tensor, tensor_role::input, rank_zero::allowed);
    checked.output = check_tensor(operation, "output_tensor", desc.output_tensor, tensor_role::output, rank_zero::allowed);
    check_reduce_shape(operation, checked, desc.axis_count, desc.axes);
    const std::string table = "reduce function " + std::string(tensorops::detail::function_name(desc.function));
    require_type(operation, "input_tensor", checked.input, reduce_input_types(desc.function), table);
    if (desc.function == reduce_function::argmax || desc.function == reduce_function::argmin) check_index_output(operation, checked);
    else require_same_type(operation, "output_tensor", checked.output, "input_tensor", checked.input);
    return checked;
}

/// SEMANTICS.md §2 for DML_ARGMAX/ARGMIN_OPERATOR_DESC: as check_reduce with the ARGMAX table, plus direction.
inline checked_reduce check_arg_reduce(std::string_view operation, const buffer_tensor_desc* input, const buffer_tensor_desc* output,
                                       std::uint32_t axis_count, const std::uint32_t* axes, axis_direction direction) {
    checked_reduce checked;
    checked.input = check_tensor(operation, "input_tensor", input, tensor_role::input, rank_zero::allowed);
    checked.output = check_tensor(operation, "output_tensor", output, tensor_role::output, rank_zero::allowed);
    check_reduce_shape(operation, checked, axis_count, axes);
    require_type(operation, "input_tensor", checked.input, reduce_input_types(reduce_function::argmax), "argmax/argmin inputs");
    check_index_output(operation, checked);
    require_direction(operation, direction);
    return checked;
}

/// Data types of scatter-ND's input, updates and output (DirectML's newest table: all eleven; and BFLOAT16, an
/// extension).
inline constexpr data_type_set scatter_types = types::all;

struct checked_scatter {
    checked_tensor input, indices, updates, output;
    std::size_t input_first = 0;    // D − m: the input's (and output's) leading size-1 dimensions
    std::size_t indices_first = 0;  // D − q
    std::size_t updates_first = 0;  // D − u, u = (q − 1) + (m − k)
};

/// SEMANTICS.md §3 for DML_SCATTER_ND_OPERATOR_DESC: four valid tensors of one rank D; m and q in [1, D];
/// input sizes before the last m and indices sizes before the last q are 1; k = last indices size in [1, m];
/// output sizes equal the input's; updates sizes = indices.sizes[D−q .. D−1) ++ input.sizes[D−m+k .. D),
/// right-aligned with leading 1s; input, updates and output of one type from the table; indices INT64, INT32,
/// UINT64 or UINT32.
inline checked_scatter check_scatter(std::string_view operation, const scatter_nd_operator_desc& desc) {
    checked_scatter checked;
    checked.input = check_tensor(operation, "input_tensor", desc.input_tensor, tensor_role::input);
    checked.indices = check_tensor(operation, "indices_tensor", desc.indices_tensor, tensor_role::input);
    checked.updates = check_tensor(operation, "updates_tensor", desc.updates_tensor, tensor_role::input);
    checked.output = check_tensor(operation, "output_tensor", desc.output_tensor, tensor_role::output);
    const std::size_t rank = checked.input.rank;
    require_same_rank(operation, "indices_tensor", checked.indices, "input_tensor", checked.input);
    require_same_rank(operation, "updates_tensor", checked.updates, "input_tensor", checked.input);
    require_same_rank(operation, "output_tensor", checked.output, "input_tensor", checked.input);
    const auto require_count = [&](std::string_view name, std::uint32_t count) {
        if (count < 1 || count > rank)
            throw error(operation, name,
                        "is " + std::to_string(count) + "; it must be in [1, " + std::to_string(rank) + "], the tensors' dimension_count");
    };
    require_count("input_dimension_count", desc.input_dimension_count);
    require_count("indices_dimension_count", desc.indices_dimension_count);
    const std::size_t m = desc.input_dimension_count, q = desc.indices_dimension_count;
    const auto require_leading_ones = [&](std::string_view name, const checked_tensor& tensor, std::size_t meaningful, std::string_view count_name) {
        for (std::size_t d = 0; d + meaningful < rank; ++d)
            if (tensor.sizes[d] != 1)
                throw error(operation, field(name, "sizes"),
                            "is " + tensorops::detail::describe(tensor.size_span()) + " with " + std::string(count_name) + " = " +
                                std::to_string(meaningful) + ": size " + std::to_string(d) + " is " + std::to_string(tensor.sizes[d]) +
                                " but the sizes before the last " + std::to_string(meaningful) + " must be 1");
    };
    require_leading_ones("input_tensor", checked.input, m, "input_dimension_count");
    require_leading_ones("indices_tensor", checked.indices, q, "indices_dimension_count");
    const std::size_t k = checked.indices.sizes[rank - 1];
    if (k > m)
        throw error(operation, "indices_tensor.sizes",
                    "is " + tensorops::detail::describe(checked.indices.size_span()) + ": its last size (coordinates per tuple) is " +
                        std::to_string(k) + " but must be in [1, " + std::to_string(m) + "], input_dimension_count");
    require_same_sizes(operation, "output_tensor", checked.output, "input_tensor", checked.input);

    std::array<std::size_t, 2 * max_rank> expected{};  // indices.sizes[D−q .. D−1) ++ input.sizes[D−m+k .. D)
    std::size_t u = 0;
    for (std::size_t d = rank - q; d + 1 < rank; ++d) expected[u++] = checked.indices.sizes[d];
    for (std::size_t d = rank - m + k; d < rank; ++d) expected[u++] = checked.input.sizes[d];
    const std::string expected_text = tensorops::detail::describe(std::span<const std::size_t>(expected.data(), u));
    bool match = u <= rank;
    for (std::size_t d = 0; match && d < rank; ++d)
        match = checked.updates.sizes[d] == (d + u < rank ? 1 : expected[d + u - rank]);
    if (!match)
        throw error(operation, "updates_tensor.sizes",
                    "is " + tensorops::detail::describe(checked.updates.size_span()) + " but indices_tensor.sizes[D-q .. D-1) ++ " +
                        "input_tensor.sizes[D-m+k .. D) is " + expected_text + " (D = " + std::to_string(rank) + ", m = " + std::to_string(m) +
                        ", q = " + std::to_string(q) + ", k = " + std::to_string(k) + "), which must fill the last " + std::to_string(u) +
                        " sizes, the ones before being 1" + (u > rank ? "; that is more than D dimensions" : ""));
    require_type(operation, "input_tensor", checked.input, scatter_types, "scatter-ND");
    require_same_type(operation, "updates_tensor", checked.updates, "input_tensor", checked.input);
    require_same_type(operation, "output_tensor", checked.output, "input_tensor", checked.input);
    require_type(operation, "indices_tensor", checked.indices, types::index, "scatter-ND indices");
    checked.input_first = rank - m;
    checked.indices_first = rank - q;
    checked.updates_first = rank - u;
    return checked;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Public validation (what DirectML checks when an operator is created): every rule that needs no buffer.

/// Checks a cumulative summation descriptor against SEMANTICS.md §0–§1 without running it. Returns normally
/// when valid; throws tensorops::error ("dml::cumulative_summation", the field at fault, the rule) otherwise.
inline void validate(const cumulative_summation_operator_desc& desc) {
    detail::check_cumulative("dml::cumulative_summation", desc.input_tensor, desc.output_tensor, desc.axis, desc.direction);
}
/// As validate(cumulative_summation_operator_desc) for cumulative product ("dml::cumulative_product").
inline void validate(const cumulative_product_operator_desc& desc) {
    detail::check_cumulative("dml::cumulative_product", desc.input_tensor, desc.output_tensor, desc.axis, desc.direction);
}
/// Checks a reduce descriptor against SEMANTICS.md §0, §2 ("dml::reduce"). Throws tensorops::error when invalid.
inline void validate(const reduce_operator_desc& desc) { detail::check_reduce("dml::reduce", desc); }
/// Checks an argmax descriptor against SEMANTICS.md §0, §2 ("dml::argmax"). Throws tensorops::error when invalid.
inline void validate(const argmax_operator_desc& desc) {
    detail::check_arg_reduce("dml::argmax", desc.input_tensor, desc.output_tensor, desc.axis_count, desc.axes, desc.direction);
}
/// Checks an argmin descriptor against SEMANTICS.md §0, §2 ("dml::argmin"). Throws tensorops::error when invalid.
inline void validate(const argmin_operator_desc& desc) {
    detail::check_arg_reduce("dml::argmin", desc.input_tensor, desc.output_tensor, desc.axis_count, desc.axes, desc.direction);
}
/// Checks a scatter-ND descriptor against SEMANTICS.md §0, §3 ("dml::scatter_nd"). Index values are data and are
/// checked by execute. Throws tensorops::error when invalid.
inline void validate(const scatter_nd_operator_desc& desc) { detail::check_scatter("dml::scatter_nd", desc); }

}  // namespace tensorops::dml
