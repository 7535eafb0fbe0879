// tensorops/ops/reduce_plan.hpp — what reduce and argmax / argmin share: the reduce functions (DML_REDUCE_FUNCTION),
// and the checks and plan of a reduction's axes and output (SEMANTICS.md §2, §4).
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "../core/tensor_view.hpp"
#include "../iter/plan.hpp"
#include "arguments.hpp"

namespace tensorops {

/// The reduce functions, in DML_REDUCE_FUNCTION order (ARGMAX = 0 … SUM_SQUARE = 11).
enum class reduce_function { argmax, argmin, average, l1, l2, log_sum, log_sum_exp, max, min, multiply, sum, sum_square };

namespace detail {

inline std::string_view function_name(reduce_function function) {
    constexpr std::string_view names[] = {"ARGMAX", "ARGMIN", "AVERAGE", "L1",       "L2",  "LOG_SUM",
                                          "LOG_SUM_EXP", "MAX", "MIN",  "MULTIPLY", "SUM", "SUM_SQUARE"};
    const auto index = static_cast<std::size_t>(function);
    return index < std::size(names) ? names[index] : "?";
}

/// `function` must be one of the twelve reduce functions (a cast can make an enum hold any other value).
inline void require_function(std::string_view operation, reduce_function function) {
    const auto value = static_cast<int>(function);
    if (value < 0 || value > static_cast<int>(reduce_function::sum_square))
        throw error(operation, "function", "is " + std::to_string(value) + ", not one of the twelve reduce functions (argmax = 0 … sum_square = 11)");
}

/// What a reduction call looks like once its arguments are checked: the planned nest and the group size.
template <std::size_t Operands>
struct reduce_plan {
    iter::loop_nest<Operands> nest;
    iter::axis_set reduced;  // positions in the nest
    std::size_t count = 1;   // elements per group
};

/// Checks axes (each below the rank, none twice; none at all makes every element its own group) and the output's
/// sizes (the rank kept, reduced axes 1), uniqueness and disjointness from the input, then plans; throws
/// tensorops::error naming the argument. Operands = 3 adds the flat-index operand (argmax/argmin) and walks each
/// group in increasing flat index.
template <std::size_t Operands, class T, class U>
reduce_plan<Operands> plan_reduce(std::string_view operation, const tensor_view<const T>& input, const tensor_view<U>& output,
                                  std::span<const std::size_t> axes) {
    const std::size_t rank = input.rank();
    iter::axis_set reduced_axes;
    for (std::size_t i = 0; i < axes.size(); ++i) {
        if (axes[i] >= rank)
            throw error(operation, "axes",
                        "entry " + std::to_string(i) + " is " + std::to_string(axes[i]) + " but the input has rank " +
                            std::to_string(rank) + "; every axis must be below the rank");
        if (reduced_axes.test(axes[i])) throw error(operation, "axes", "names axis " + std::to_string(axes[i]) + " twice");
        reduced_axes.set(axes[i]);
    }
    bool sizes_match = output.rank() == rank;
    for (std::size_t d = 0; sizes_match && d < rank; ++d)
        sizes_match = output.size(d) == (reduced_axes.test(d) ? 1 : input.size(d));
    if (!sizes_match) {
        std::array<std::size_t, max_rank> expected{};
        for (std::size_t d = 0; d < rank; ++d) expected[d] = reduced_axes.test(d) ? 1 : input.size(d);
        throw error(operation, "output",
                    "has sizes " + describe(output.sizes()) + " but reducing input sizes " + describe(input.sizes()) +
                        " over axes " + describe(axes) + " gives " + describe(std::span<const std::size_t>(expected.data(), rank)) +
                        " (the rank is kept, reduced axes become 1)");
    }
    require_unique(operation, "output", output);
    require_disjoint(operation, "output", output, "input", input);

    reduce_plan<Operands> plan;
    iter::loop_request<Operands> request;
    request.rank = rank;
    std::ptrdiff_t index_stride = 1;
    for (std::size_t d = rank; d-- > 0;) {
        request.sizes[d] = input.size(d);
        request.strides[1][d] = input.stride(d);
        if (reduced_axes.test(d)) {
            request.group[d] = 1;
            request.strides[0][d] = 0;
            plan.count *= input.size(d);
            if constexpr (Operands == 3) {  // argmax/argmin: walk each group in increasing flat index
                request.ordered.set(d);
                request.strides[2][d] = index_stride;
                index_stride *= static_cast<std::ptrdiff_t>(input.size(d));
            }
        } else {
            request.strides[0][d] = output.stride(d);
        }
    }
    plan.nest = iter::plan_loops(request);
    for (std::size_t d = 0; d < plan.nest.rank; ++d)
        if (plan.nest.group[d] == 1) plan.reduced.set(d);
    return plan;
}

}  // namespace detail

}  // namespace tensorops
