// tensorops/ops/detail/arg_reduce/strided.hpp — the scalar argmax/argmin kernel: any layout and element type, ties
// broken by flat index, so its answer does not depend on the walk order.
#pragma once

#include <array>
#include <cstddef>

#include "../../../iter/nd_loop.hpp"
#include "../reduce_nest.hpp"
#include "policy.hpp"

namespace tensorops::detail {

template <bool Maximum, bool Last, class T>
void arg_reduce_strided(const T* input, const index_output& output, const iter::loop_nest<3>& nest, iter::axis_set reduced,
                        std::ptrdiff_t index_base = 0) {
    using V = accumulator_t<T, accumulation::ordering>;
    const auto parts = split_reduce_nest(nest, reduced);
    iter::for_each_element(parts.kept, [&](const std::array<std::ptrdiff_t, 3>& at) {
        const T* base = input + at[1];
        V best{};
        std::ptrdiff_t best_index = -1;
        bool best_is_nan = false;
        iter::for_each_element(parts.group, [&](const std::array<std::ptrdiff_t, 3>& element) {
            const auto value = static_cast<V>(base[element[1]]);
            const std::ptrdiff_t index = index_base + at[2] + element[2];  // the group's base plus the walk
            const bool value_is_nan = is_nan_value(value);
            bool take;
            if (best_index < 0) take = true;
            else if (value_is_nan || best_is_nan) take = value_is_nan && (!best_is_nan || (Last ? index > best_index : index < best_index));
            else if (Maximum ? best < value : value < best) take = true;
            else if (Maximum ? value < best : best < value) take = false;
            else take = Last ? index > best_index : index < best_index;  // equal values
            if (take) {
                best = value;
                best_index = index;
                best_is_nan = value_is_nan;
            }
        });
        output.put(at[0], best_index);
    });
}

}  // namespace tensorops::detail
