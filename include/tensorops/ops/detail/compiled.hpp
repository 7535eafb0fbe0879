// tensorops/ops/detail/compiled.hpp — which calls the compiled library takes (TENSOROPS_COMPILED, isa_level.hpp).
//
// Each public operator reaches its detail:: function templated on the element type (reduce_values<T>, arg_reduce<T, I>,
// …). In compiled mode, for the built-in element types, it calls instead a route of the same parameters — a static
// member of a class template declared next to that function (compiled_reduce<T>, compiled_arg_reduce<T, I>, …) and
// defined only in the library (src/routes.hpp), which calls the same detail:: function compiled for the instruction
// set chosen at run time. User-defined element types, and every type header-only, take the detail:: function directly.
#pragma once

#include "../../core/element.hpp"
#include "../../isa_level.hpp"

namespace tensorops::detail {

/// Whether the operators on elements of type T go through the compiled library's routes: compiled mode, and T one of
/// the built-in element types (float64/32/16, bfloat16, the eight fixed-width integers).
template <class T>
inline constexpr bool compiled_element = TENSOROPS_COMPILED != 0 && builtin_element<T>;

}  // namespace tensorops::detail
