// tensorops/ops/detail/map_elements.hpp — an element-by-element walk of two views of equal sizes, in pieces on an
// executor: what reduce and argmax / argmin over no axes are (reduce/each_element.hpp; every element a group of its
// own). The walk is the planner's (dimensions ordered by the output's strides, merged where they chain), its
// innermost dimension a plain loop the compiler vectorises where both strides are 1; every element is computed alike
// whichever piece takes it, so the result never depends on the executor.
#pragma once

#include <array>
#include <cstddef>

#include "../../core/tensor_view.hpp"
#include "../../exec/executor.hpp"
#include "../../exec/split.hpp"
#include "../../iter/nd_loop.hpp"
#include "../../iter/plan.hpp"

namespace tensorops::detail {

/// Calls out = f(in) for every element of the two-operand nest (operand 0 output, 1 input), in pieces on `exec`.
template <class Out, class In, class F>
void map_elements(const executor_ref& exec, Out* output, const In* input, const iter::loop_nest<2>& nest, const F& f) {
    if (nest.element_count() == 0) return;
    iter::axis_set every;
    for (std::size_t d = 0; d < nest.rank; ++d) every.set(d);
    for_each_piece(exec, nest, every, nest.element_count() * (sizeof(Out) + sizeof(In)), [&](const iter::loop_nest<2>& piece) {
        if (piece.rank == 0) {
            output[piece.offsets[0]] = f(input[piece.offsets[1]]);
            return;
        }
        const std::size_t inner = piece.rank - 1, n = piece.sizes[inner];
        const std::ptrdiff_t out_step = piece.strides[0][inner], in_step = piece.strides[1][inner];
        iter::for_each_outer_index(piece, inner, [&](const std::array<std::ptrdiff_t, 2>& at) {
            Out* y = output + at[0];
            const In* x = input + at[1];
            if (out_step == 1 && in_step == 1) {
                for (std::size_t i = 0; i < n; ++i) y[i] = f(x[i]);
            } else {
                for (std::size_t i = 0; i < n; ++i) y[static_cast<std::ptrdiff_t>(i) * out_step] = f(x[static_cast<std::ptrdiff_t>(i) * in_step]);
            }
        });
    });
}

/// Writes index 0 to every element of `output`: argmax / argmin over no axes (each group one element, at index 0).
template <class I>
void fill_with_zero(const executor_ref& exec, const tensor_view<I>& output) {
    const auto nest = iter::plan_loops(iter::make_request(output, output));
    map_elements(exec, output.data(), output.data(), nest, [](const I&) { return I{0}; });
}

}  // namespace tensorops::detail
