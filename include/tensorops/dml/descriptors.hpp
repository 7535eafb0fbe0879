// tensorops/dml/descriptors.hpp — the runtime-typed vocabulary of tensorops::dml: DirectML's data-type enum
// (same numeric values; plus bfloat16, an extension of tensorops outside DirectML's range), its buffer tensor and operator descriptors field for field (snake_case), and the one
// place where a run-time data type becomes a C++ type (visit_data_type / visit_index_type).
//
// The structures are plain aggregates: they hold pointers the caller owns (sizes, strides, axes, the nested
// descriptors) and are only read, never retained, by the functions that take them. Every field has a default,
// so designated initialisers may leave the optional ones out.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>

#include "../core/error.hpp"
#include "../core/bfloat16.hpp"
#include "../core/float16.hpp"
#include "../ops/arguments.hpp"
#include "../ops/detail/compiled.hpp"
#include "../ops/reduce.hpp"

namespace tensorops::dml {

// ---------------------------------------------------------------------------------------------
// Data types.

/// DML_TENSOR_DATA_TYPE, with DirectML's numeric values, and bfloat16, an extension of tensorops. `unknown` (0) and
/// any other value are invalid in every descriptor.
enum class tensor_data_type : std::uint32_t {
    unknown = 0,
    float32 = 1,
    float16 = 2,
    uint32 = 3,
    uint16 = 4,
    uint8 = 5,
    int32 = 6,
    int16 = 7,
    int8 = 8,
    float64 = 9,
    uint64 = 10,
    int64 = 11,
    /// bfloat16 (core/bfloat16.hpp): an extension of tensorops — DirectML has no such data type (its floating types
    /// stop at FLOAT16). The value has the top bit set, which DirectML's enumerators, numbered upward from 0, do not
    /// reach: it cannot collide with a type DirectML adds later. Accepted wherever FLOAT16 is.
    bfloat16 = 0x8000'0001,
};

/// One past DirectML's data types that tensorops knows (1 … 11; the extension bfloat16 lies outside this range).
inline constexpr std::uint32_t data_type_count = 12;

namespace detail {
/// The row of `type` in the tables below: DirectML's values as themselves (1 … 11), the extension after them
/// (bfloat16: 12); 0 for `unknown` and for values outside the enum.
[[nodiscard]] constexpr std::uint32_t data_type_row(tensor_data_type type) noexcept {
    const auto value = static_cast<std::uint32_t>(type);
    if (value < data_type_count) return value;
    return type == tensor_data_type::bfloat16 ? data_type_count : 0;
}
/// Rows of the tables: unknown, DirectML's eleven, bfloat16.
inline constexpr std::uint32_t data_type_rows = data_type_count + 1;
/// The data type of each row.
inline constexpr tensor_data_type data_type_of_row[data_type_rows] = {
    tensor_data_type::unknown, tensor_data_type::float32, tensor_data_type::float16, tensor_data_type::uint32, tensor_data_type::uint16,
    tensor_data_type::uint8,   tensor_data_type::int32,   tensor_data_type::int16,   tensor_data_type::int8,   tensor_data_type::float64,
    tensor_data_type::uint64,  tensor_data_type::int64,   tensor_data_type::bfloat16};
}  // namespace detail

/// True for float32 … int64 and bfloat16; false for `unknown` and for values outside the enum.
[[nodiscard]] constexpr bool is_known(tensor_data_type type) noexcept { return detail::data_type_row(type) != 0; }

/// Size in bytes of one element of `type`; 0 for `unknown` and for values outside the enum.
[[nodiscard]] constexpr std::uint32_t element_size(tensor_data_type type) noexcept {
    constexpr std::uint32_t sizes[detail::data_type_rows] = {0, 4, 2, 4, 2, 1, 4, 2, 1, 8, 8, 8, 2};
    return sizes[detail::data_type_row(type)];
}

/// DirectML's name of `type` without the prefix ("FLOAT32", "INT64", …), "BFLOAT16" for the extension; "UNKNOWN"
/// for 0, "INVALID" for values outside the enum.
[[nodiscard]] constexpr std::string_view data_type_name(tensor_data_type type) noexcept {
    constexpr std::string_view names[detail::data_type_rows] = {"UNKNOWN", "FLOAT32", "FLOAT16", "UINT32", "UINT16", "UINT8",   "INT32",
                                                                "INT16",   "INT8",    "FLOAT64", "UINT64", "INT64",  "BFLOAT16"};
    if (type == tensor_data_type::unknown) return names[0];
    return is_known(type) ? names[detail::data_type_row(type)] : "INVALID";
}

/// The data type of a built-in element type (float64/32/16, bfloat16 and the eight fixed-width integers).
template <class T>
inline constexpr tensor_data_type data_type_of = [] {
    if constexpr (std::is_same_v<T, double>) return tensor_data_type::float64;
    else if constexpr (std::is_same_v<T, float>) return tensor_data_type::float32;
    else if constexpr (std::is_same_v<T, tensorops::float16>) return tensor_data_type::float16;
    else if constexpr (std::is_same_v<T, tensorops::bfloat16>) return tensor_data_type::bfloat16;
    else if constexpr (std::is_same_v<T, std::int8_t>) return tensor_data_type::int8;
    else if constexpr (std::is_same_v<T, std::int16_t>) return tensor_data_type::int16;
    else if constexpr (std::is_same_v<T, std::int32_t>) return tensor_data_type::int32;
    else if constexpr (std::is_same_v<T, std::int64_t>) return tensor_data_type::int64;
    else if constexpr (std::is_same_v<T, std::uint8_t>) return tensor_data_type::uint8;
    else if constexpr (std::is_same_v<T, std::uint16_t>) return tensor_data_type::uint16;
    else if constexpr (std::is_same_v<T, std::uint32_t>) return tensor_data_type::uint32;
    else if constexpr (std::is_same_v<T, std::uint64_t>) return tensor_data_type::uint64;
    else return tensor_data_type::unknown;
}();

/// A set of data types, one bit per known data type (its row in descriptors.hpp's tables).
class data_type_set {
public:
    constexpr data_type_set() noexcept = default;
    constexpr data_type_set(std::initializer_list<tensor_data_type> types) noexcept {
        for (tensor_data_type type : types) bits_ |= bit(type);
    }
    [[nodiscard]] constexpr bool contains(tensor_data_type type) const noexcept { return is_known(type) && (bits_ & bit(type)) != 0; }
    [[nodiscard]] constexpr data_type_set operator|(data_type_set other) const noexcept {
        data_type_set out;
        out.bits_ = bits_ | other.bits_;
        return out;
    }
    /// "FLOAT32, FLOAT16, …" in enum order, the extension BFLOAT16 last.
    [[nodiscard]] std::string describe() const {
        std::string text;
        for (std::uint32_t row = 1; row < detail::data_type_rows; ++row)
            if (bits_ & (1u << row)) text.append(text.empty() ? "" : ", ").append(data_type_name(detail::data_type_of_row[row]));
        return text.empty() ? std::string("none") : text;
    }

private:
    static constexpr std::uint32_t bit(tensor_data_type type) noexcept {
        return is_known(type) ? 1u << detail::data_type_row(type) : 0u;
    }
    std::uint32_t bits_ = 0;
};

namespace types {
using enum tensor_data_type;
/// Every known data type (DirectML's eleven and the extension bfloat16).
inline constexpr data_type_set all{float64, float32, float16, bfloat16, int64, int32, int16, int8, uint64, uint32, uint16, uint8};
/// The index types of argmax/argmin outputs and scatter-ND indices.
inline constexpr data_type_set index{int64, int32, uint64, uint32};
}  // namespace types

// ---------------------------------------------------------------------------------------------
// Dispatch: run-time data type → C++ type, in one switch each.

namespace detail {

/// visitor(std::type_identity<T>{}) — unless T is a built-in type the compiled library was built without
/// (TENSOROPS_COMPILED_TYPES): then an error, and the visitor is not instantiated for T (it would compile the dml
/// layer's operators for T where the library leaves them out). Such visitors must return void.
template <class T, class Visitor>
decltype(auto) visit_as(tensor_data_type type, Visitor&& visitor) {
    if constexpr (tensorops::detail::left_out_of_compiled<T>) {
        throw error("dml", "data_type",
                    "is " + std::string(data_type_name(type)) + ": this tensorops::compiled was built without it (TENSOROPS_COMPILED_TYPES)");
    } else {
        return visitor(std::type_identity<T>{});
    }
}

}  // namespace detail

/// Calls `visitor(std::type_identity<T>{})` with T the C++ type of `type` (double, float, tensorops::float16,
/// tensorops::bfloat16, std::int8_t … std::uint64_t) and returns what it returns. Every branch instantiates the
/// visitor, so it must compile for all twelve types. Throws tensorops::error (operation "dml", argument "data_type") for `unknown`
/// or a value outside the enum, and in compiled mode for a type the library was built without.
template <class Visitor>
decltype(auto) visit_data_type(tensor_data_type type, Visitor&& visitor) {
    using enum tensor_data_type;
    switch (type) {
        case float64: return detail::visit_as<double>(type, visitor);
        case float32: return detail::visit_as<float>(type, visitor);
        case float16: return detail::visit_as<tensorops::float16>(type, visitor);
        case bfloat16: return detail::visit_as<tensorops::bfloat16>(type, visitor);
        case int64: return detail::visit_as<std::int64_t>(type, visitor);
        case int32: return detail::visit_as<std::int32_t>(type, visitor);
        case int16: return detail::visit_as<std::int16_t>(type, visitor);
        case int8: return detail::visit_as<std::int8_t>(type, visitor);
        case uint64: return detail::visit_as<std::uint64_t>(type, visitor);
        case uint32: return detail::visit_as<std::uint32_t>(type, visitor);
        case uint16: return detail::visit_as<std::uint16_t>(type, visitor);
        case uint8: return detail::visit_as<std::uint8_t>(type, visitor);
        case unknown: break;
    }
    throw error("dml", "data_type", "is " + std::to_string(static_cast<std::uint32_t>(type)) + ", not a known tensor_data_type");
}

/// As visit_data_type, restricted to the four index types (int64, int32, uint64, uint32): the visitor is only
/// instantiated for those. Throws tensorops::error for any other type.
template <class Visitor>
decltype(auto) visit_index_type(tensor_data_type type, Visitor&& visitor) {
    using enum tensor_data_type;
    switch (type) {
        case int64: return visitor(std::type_identity<std::int64_t>{});
        case int32: return visitor(std::type_identity<std::int32_t>{});
        case uint64: return visitor(std::type_identity<std::uint64_t>{});
        case uint32: return visitor(std::type_identity<std::uint32_t>{});
        default: break;
    }
    throw error("dml", "data_type", "is " + std::string(data_type_name(type)) + ", not an index type (INT64, INT32, UINT64, UINT32)");
}

// ---------------------------------------------------------------------------------------------
// Descriptors (DML_*_DESC, field for field).

/// DML_BUFFER_TENSOR_DESC. `sizes` (and `strides`, when not null) point to `dimension_count` entries; strides
/// are in elements; null strides mean packed row-major. `total_tensor_size_in_bytes` is the size of the buffer
/// bound at execution, which must be at least calc_buffer_tensor_size(*this). `guaranteed_base_offset_alignment`
/// is 0 (no promise) or a power of two at least the element size that the bound pointer is a multiple of.
struct buffer_tensor_desc {
    tensor_data_type data_type = tensor_data_type::unknown;
    std::uint32_t dimension_count = 0;
    const std::uint32_t* sizes = nullptr;
    const std::uint32_t* strides = nullptr;
    std::uint64_t total_tensor_size_in_bytes = 0;
    std::uint32_t guaranteed_base_offset_alignment = 0;
};

/// DML_CUMULATIVE_SUMMATION_OPERATOR_DESC (SEMANTICS.md §1).
struct cumulative_summation_operator_desc {
    const buffer_tensor_desc* input_tensor = nullptr;
    const buffer_tensor_desc* output_tensor = nullptr;
    std::uint32_t axis = 0;
    tensorops::axis_direction direction = tensorops::axis_direction::increasing;
    bool has_exclusive_sum = false;
};

/// DML_CUMULATIVE_PRODUCT_OPERATOR_DESC (SEMANTICS.md §1).
struct cumulative_product_operator_desc {
    const buffer_tensor_desc* input_tensor = nullptr;
    const buffer_tensor_desc* output_tensor = nullptr;
    std::uint32_t axis = 0;
    tensorops::axis_direction direction = tensorops::axis_direction::increasing;
    bool has_exclusive_product = false;
};

/// DML_REDUCE_OPERATOR_DESC (SEMANTICS.md §2). `axes` points to `axis_count` entries.
struct reduce_operator_desc {
    tensorops::reduce_function function = tensorops::reduce_function::sum;
    const buffer_tensor_desc* input_tensor = nullptr;
    const buffer_tensor_desc* output_tensor = nullptr;
    std::uint32_t axis_count = 0;
    const std::uint32_t* axes = nullptr;
};

/// DML_ARGMAX_OPERATOR_DESC: `direction` increasing = index of the first largest, decreasing = the last.
struct argmax_operator_desc {
    const buffer_tensor_desc* input_tensor = nullptr;
    const buffer_tensor_desc* output_tensor = nullptr;
    std::uint32_t axis_count = 0;
    const std::uint32_t* axes = nullptr;
    tensorops::axis_direction direction = tensorops::axis_direction::increasing;
};

/// DML_ARGMIN_OPERATOR_DESC: as argmax_operator_desc, for the smallest element.
struct argmin_operator_desc {
    const buffer_tensor_desc* input_tensor = nullptr;
    const buffer_tensor_desc* output_tensor = nullptr;
    std::uint32_t axis_count = 0;
    const std::uint32_t* axes = nullptr;
    tensorops::axis_direction direction = tensorops::axis_direction::increasing;
};

/// DML_SCATTER_ND_OPERATOR_DESC (SEMANTICS.md §3): all four tensors have one rank D; `input_dimension_count` (m)
/// and `indices_dimension_count` (q) are the meaningful trailing ranks of input and indices, in [1, D].
struct scatter_nd_operator_desc {
    const buffer_tensor_desc* input_tensor = nullptr;
    const buffer_tensor_desc* indices_tensor = nullptr;
    const buffer_tensor_desc* updates_tensor = nullptr;
    const buffer_tensor_desc* output_tensor = nullptr;
    std::uint32_t input_dimension_count = 0;
    std::uint32_t indices_dimension_count = 0;
};

}  // namespace tensorops::dml
