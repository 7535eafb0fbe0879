// tensorops/ops/detail/compiled.hpp — which calls the compiled library takes (TENSOROPS_COMPILED, isa_level.hpp).
//
// Each public operator reaches its detail:: function templated on the element type (reduce_values<T>, arg_reduce<T, I>,
// …). In compiled mode, for the built-in element types, it calls instead a route of the same parameters — a static
// member of a class template declared next to that function (compiled_reduce<T>, compiled_arg_reduce<T, I>, …) and
// defined only in the library (src/routes.hpp), which calls the same detail:: function compiled for the instruction
// set chosen at run time. User-defined element types, and every type header-only, take the detail:: function directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../../core/bfloat16.hpp"
#include "../../core/element.hpp"
#include "../../core/float16.hpp"
#include "../../isa_level.hpp"

namespace tensorops::detail {

/// The built-in element types the compiled library holds kernels for, one bit each in the order float64, float32,
/// float16, bfloat16, int8, int16, int32, int64, uint8, uint16, uint32, uint64 (src/CMakeLists.txt sets it from
/// TENSOROPS_COMPILED_TYPES through the tensorops::compiled target and tensorops-compiled.pc; all twelve otherwise).
#ifndef TENSOROPS_COMPILED_TYPE_MASK
#define TENSOROPS_COMPILED_TYPE_MASK 0xFFF
#endif

/// T's bit in TENSOROPS_COMPILED_TYPE_MASK (0 for a type that is not built in).
template <class T>
[[nodiscard]] consteval unsigned compiled_type_bit() noexcept {
    using list = std::tuple<double, float, float16, bfloat16, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                            std::uint32_t, std::uint64_t>;
    unsigned bit = 0;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((std::is_same_v<T, std::tuple_element_t<I, list>> ? (bit = 1u << I) : 0u), ...);
    }(std::make_index_sequence<std::tuple_size_v<list>>{});
    return bit;
}

/// Whether the operators on elements of type T go through the compiled library's routes: compiled mode, and T one of
/// the built-in element types (float64/32/16, bfloat16, the eight fixed-width integers) that the library was built
/// with. Any other type — user-defined, or built in but left out of the library — takes the header-only path.
template <class T>
inline constexpr bool compiled_element = TENSOROPS_COMPILED != 0 && builtin_element<T> && (TENSOROPS_COMPILED_TYPE_MASK & compiled_type_bit<T>()) != 0;

/// A built-in element type that this compiled library was built without (TENSOROPS_COMPILED_TYPES): dml::execute
/// refuses it rather than compile the whole dml layer for it.
template <class T>
inline constexpr bool left_out_of_compiled = TENSOROPS_COMPILED != 0 && builtin_element<T> && !compiled_element<T>;

}  // namespace tensorops::detail
