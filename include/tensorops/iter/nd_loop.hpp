// tensorops/iter/nd_loop.hpp — the odometer that walks the outer dimensions of a loop nest.
#pragma once

#include <array>
#include <cstddef>

#include "plan.hpp"

namespace tensorops::iter {

/// Calls `body(offsets)` once for every index combination of the nest's dimensions [0, outer_rank),
/// in row-major order, where `offsets[o]` is operand o's element offset from its data pointer
/// (the nest's base offsets included). The kernel handles dimensions [outer_rank, rank) itself.
/// Offsets are updated incrementally: one add per step, one rewind per carry, no multiplications.
/// Nothing is called for an empty nest; exactly once when outer_rank is 0.
template <std::size_t Operands, class Body>
constexpr void for_each_outer_index(const loop_nest<Operands>& nest, std::size_t outer_rank, Body&& body) {
    for (std::size_t d = 0; d < nest.rank; ++d)
        if (nest.sizes[d] == 0) return;
    std::array<std::ptrdiff_t, Operands> offsets = nest.offsets;
    std::array<std::size_t, max_rank> counter{};
    for (;;) {
        body(static_cast<const std::array<std::ptrdiff_t, Operands>&>(offsets));
        std::size_t d = outer_rank;
        for (;;) {
            if (d == 0) return;
            --d;
            for (std::size_t o = 0; o < Operands; ++o) offsets[o] += nest.strides[o][d];
            if (++counter[d] < nest.sizes[d]) break;
            counter[d] = 0;
            for (std::size_t o = 0; o < Operands; ++o)
                offsets[o] -= nest.strides[o][d] * static_cast<std::ptrdiff_t>(nest.sizes[d]);
        }
    }
}

/// Calls `body(offsets)` for every element of the nest in row-major order (the strided scalar walk).
template <std::size_t Operands, class Body>
constexpr void for_each_element(const loop_nest<Operands>& nest, Body&& body) {
    if (nest.rank == 0) {
        body(static_cast<const std::array<std::ptrdiff_t, Operands>&>(nest.offsets));
        return;
    }
    const std::size_t inner = nest.rank - 1;
    const std::size_t length = nest.sizes[inner];
    for_each_outer_index(nest, inner, [&](const std::array<std::ptrdiff_t, Operands>& line) {
        std::array<std::ptrdiff_t, Operands> offsets = line;
        for (std::size_t i = 0; i < length; ++i) {
            body(static_cast<const std::array<std::ptrdiff_t, Operands>&>(offsets));
            for (std::size_t o = 0; o < Operands; ++o) offsets[o] += nest.strides[o][inner];
        }
    });
}

/// Calls `body(offsets)` for the elements first, first + 1, …, first + count − 1 of the nest, numbered in the
/// row-major order of for_each_element: a piece of that walk (first + count ≤ the nest's element count). Starting
/// costs one division per dimension; each further element, one add per operand (and a rewind per carry).
template <std::size_t Operands, class Body>
constexpr void for_each_element_from(const loop_nest<Operands>& nest, std::size_t first, std::size_t count, Body&& body) {
    if (count == 0) return;
    std::array<std::ptrdiff_t, Operands> offsets = nest.offsets;
    std::array<std::size_t, max_rank> counter{};
    for (std::size_t d = nest.rank, rest = first; d-- > 0; rest /= nest.sizes[d]) {
        counter[d] = rest % nest.sizes[d];
        for (std::size_t o = 0; o < Operands; ++o) offsets[o] += nest.strides[o][d] * static_cast<std::ptrdiff_t>(counter[d]);
    }
    for (std::size_t i = 0;;) {
        body(static_cast<const std::array<std::ptrdiff_t, Operands>&>(offsets));
        if (++i == count) return;
        for (std::size_t d = nest.rank; d-- > 0;) {
            for (std::size_t o = 0; o < Operands; ++o) offsets[o] += nest.strides[o][d];
            if (++counter[d] < nest.sizes[d]) break;
            counter[d] = 0;
            for (std::size_t o = 0; o < Operands; ++o) offsets[o] -= nest.strides[o][d] * static_cast<std::ptrdiff_t>(nest.sizes[d]);
        }
    }
}

}  // namespace tensorops::iter
