// tensorops/iter/unroll.hpp — loops unrolled at compile time.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace tensorops::iter {

/// Calls f(std::integral_constant<std::size_t, k>{}) for k = 0 … N − 1, in order, as N separate statements.
/// Kernels keep several vector accumulators in a std::array; with the index a constant in every statement the
/// compiler keeps each accumulator in its own register (an ordinary `for` over the array is not always
/// unrolled — GCC 12 left the accumulators of an 8-way loop on the stack, a store and a reload per step).
template <std::size_t N, class F>
constexpr void unrolled(F&& f) {
    [&]<std::size_t... K>(std::index_sequence<K...>) { (f(std::integral_constant<std::size_t, K>{}), ...); }(std::make_index_sequence<N>{});
}

}  // namespace tensorops::iter
