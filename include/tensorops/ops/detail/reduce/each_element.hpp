// tensorops/ops/detail/reduce/each_element.hpp — a reduction over no axes (SEMANTICS.md §5, ONNX's
// noop_with_empty_axes): every element is a group of its own, so the output is the input mapped element by element —
// SUM, AVERAGE, MULTIPLY, MAX, MIN and LOG_SUM_EXP give x itself (its bits: −0 and NaN payloads kept), SUM_SQUARE x²
// (wrapping for integers, float16 squared in float and rounded once), L1 and L2 |x| (L1 of an integer's minimum is the
// minimum; L2 never passes through x², so it cannot overflow), LOG_SUM ln x. (ARGMAX/ARGMIN: index 0, fill_with_zero.)
#pragma once

#include <type_traits>

#include "../../../core/element.hpp"
#include "../../../core/tensor_view.hpp"
#include "../../../exec/executor.hpp"
#include "../../../iter/plan.hpp"
#include "../../reduce_plan.hpp"
#include "../map_elements.hpp"
#include "../reductions.hpp"

namespace tensorops::detail {

/// The reduction of `input` over no axes into `output` (equal sizes, checked by plan_reduce): see the file comment.
/// `function` is one of the ten value functions and valid for T (reduce_values checked both).
template <class T>
void reduce_each_element(const executor_ref& exec, const tensor_view<const T>& input, const tensor_view<T>& output, reduce_function function) {
    const auto nest = iter::plan_loops(iter::make_request(output, input));
    const auto apply = [&](const auto& reduction) {
        const typename std::remove_cvref_t<decltype(reduction)>::accumulator none{};
        map_elements(exec, output.data(), input.data(), nest, [&](const T& x) { return reduction.finish(reduction.lift(x, none), 1, none); });
    };
    switch (function) {
        case reduce_function::sum_square:
            if constexpr (additive<T> && multiplicative<T>) apply(sum_reduction<T, lift_kind::square, finish_kind::value>{});
            return;
        case reduce_function::l1:
        case reduce_function::l2:
            if constexpr (std::is_arithmetic_v<T> || narrow_float<T>) apply(sum_reduction<T, lift_kind::absolute, finish_kind::value>{});
            return;
        case reduce_function::log_sum:
            if constexpr (floating_element<T>) apply(sum_reduction<T, lift_kind::value, finish_kind::logarithm>{});
            return;
        default: map_elements(exec, output.data(), input.data(), nest, [](const T& x) { return x; }); return;
    }
}

}  // namespace tensorops::detail
