// tensorops/iter/unroll.hpp — loops unrolled at compile time.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "../core/inline.hpp"

namespace tensorops::iter {

namespace detail {
template <class F, std::size_t... K>
[[TENSOROPS_ALWAYS_INLINE]] constexpr void unrolled_steps(F& f, std::index_sequence<K...>) {
    (f(std::integral_constant<std::size_t, K>{}), ...);
}
}  // namespace detail

/// Calls f(std::integral_constant<std::size_t, k>{}) for k = 0 … N − 1, in order, as N separate statements.
/// Kernels keep several vector accumulators in a std::array; with the index a constant in every statement the
/// compiler keeps each accumulator in its own register (an ordinary `for` over the array is not always
/// unrolled — GCC 12 left the accumulators of an 8-way loop on the stack, a store and a reload per step). Always
/// inlined, for the same reason: GCC 12 -O2 called it out of line from float16 kernels, whose eight conversions make
/// the body large, with the accumulators in memory.
template <std::size_t N, class F>
[[TENSOROPS_ALWAYS_INLINE]] constexpr void unrolled(F&& f) {
    detail::unrolled_steps(f, std::make_index_sequence<N>{});
}

/// Sets every element of `values` to `value`, one statement per element (unrolled). For the arrays of vector
/// accumulators a kernel keeps in registers: std::array::fill goes through std::fill_n, which GCC 12 -O2 does not
/// always inline, and an array whose address reaches an outlined call lives on the stack for the whole loop — a store
/// and a reload of every accumulator at every step, a store-to-load forwarding in every accumulator's dependency chain.
template <class V, std::size_t N>
[[TENSOROPS_ALWAYS_INLINE]] constexpr void fill_unrolled(std::array<V, N>& values, const V& value) {
    unrolled<N>([&](auto k) { values[k] = value; });
}

}  // namespace tensorops::iter
