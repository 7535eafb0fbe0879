// tensorops/ops/reduce.hpp — the twelve DirectML reduce functions over any set of axes (DML_REDUCE_OPERATOR_DESC;
// SEMANTICS.md §2, §5); ARGMAX and ARGMIN through argmax / argmin (arg_reduce.hpp).
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "../core/element.hpp"
#include "../core/tensor_view.hpp"
#include "../exec/executor.hpp"
#include "../exec/split.hpp"
#include "../iter/plan.hpp"
#include "arguments.hpp"
#include "arg_reduce.hpp"
#include "detail/compiled.hpp"
#include "detail/log_sum_exp/dispatch.hpp"
#include "detail/reduce/dispatch.hpp"
#include "detail/reduce/each_element.hpp"
#include "detail/reductions.hpp"
#include "reduce_plan.hpp"

namespace tensorops {

namespace detail {

/// Writes the value SEMANTICS.md §5 gives an empty group to every output element: SUM, SUM_SQUARE, L1, L2 zero;
/// MULTIPLY one; MAX element_identity's max_identity (−inf for floating types, the lowest value for integers, what a
/// user type's trait says) and MIN its min_identity (+inf, the highest); LOG_SUM, LOG_SUM_EXP −inf; AVERAGE NaN.
/// A user type without those traits has no value for an empty MAX or MIN group: an error (before anything is written).
template <class T>
void fill_empty_groups(reduce_function function, const tensor_view<T>& output) {
    if constexpr (!requires { element_identity<T>::max_identity(); element_identity<T>::min_identity(); }) {
        if (function == reduce_function::max || function == reduce_function::min)
            throw error("reduce", "input",
                        "has an empty reduced axis, and " + std::string(function_name(function)) +
                            " of an empty group needs element_identity<T>::max_identity() and min_identity() (this element type has none)");
    }
    T value{};
    switch (function) {
        case reduce_function::multiply:
            if constexpr (multiplicative<T>) value = element_identity<T>::one();
            break;
        case reduce_function::max:
            if constexpr (requires { element_identity<T>::max_identity(); }) value = element_identity<T>::max_identity();
            break;
        case reduce_function::min:
            if constexpr (requires { element_identity<T>::min_identity(); }) value = element_identity<T>::min_identity();
            break;
        case reduce_function::log_sum:
        case reduce_function::log_sum_exp:
            if constexpr (floating_element<T>) value = -std::numeric_limits<T>::infinity();
            break;
        case reduce_function::average:
            if constexpr (floating_element<T>) value = std::numeric_limits<T>::quiet_NaN();
            break;
        default:
            if constexpr (additive<T>) value = element_identity<T>::zero();
            break;
    }
    auto request = iter::make_request(output);
    iter::for_each_element(iter::plan_loops(request), [&](const std::array<std::ptrdiff_t, 1>& at) { output.data()[at[0]] = value; });
}

/// Runs the kernel of `r`, a reduction of elements of type K, on the plan, on the executor: K is T, or for the
/// wrapping sums, squares and products of a signed integer its unsigned type (wrapping_kernel_t: same bits).
template <class K, class T, class R>
    requires(sizeof(K) == sizeof(T))
void run_reduction(const executor_ref& exec, const reduce_plan<2>& plan, const tensor_view<const T>& input, const tensor_view<T>& output,
                   const R& r) {
    run_reduce_on(exec, reinterpret_cast<const K*>(input.data()), reinterpret_cast<K*>(output.data()), plan.nest, plan.reduced, plan.count, r);
}

/// Calls visit.template operator()<K>(policy) with the policy (reductions.hpp) that computes `function` for elements
/// of type T and the element type K its kernels run on: T, or for the wrapping sums, squares and products of a signed
/// integer its unsigned type (wrapping_kernel_t: the same bits). Every function but LOG_SUM_EXP (a kernel family of
/// its own), ARGMAX and ARGMIN; for a function T does not support (the checks of reduce_values), nothing is called.
/// Returns whether visit was called. What reduce_values runs, and what tensorops::mpi follows to compute the same bits.
template <class T, class Visit>
bool visit_reduction(reduce_function function, Visit&& visit) {
    constexpr bool floating = floating_element<T>;
    using lift = lift_kind;
    using finish = finish_kind;
    using W = wrapping_kernel_t<T>;  // sums, squares and products of int32 run on uint32's kernels
    switch (function) {
        case reduce_function::sum:
            if constexpr (additive<T>) {
                visit.template operator()<W>(sum_reduction<W, lift::value, finish::value>{});
                return true;
            }
            break;
        case reduce_function::sum_square:
            if constexpr (additive<T> && multiplicative<T>) {
                visit.template operator()<W>(sum_reduction<W, lift::square, finish::value>{});
                return true;
            }
            break;
        case reduce_function::l1:
            if constexpr (std::is_unsigned_v<T>) {  // |x| = x: the SUM kernel
                visit.template operator()<T>(sum_reduction<T, lift::value, finish::value>{});
                return true;
            } else if constexpr (std::is_arithmetic_v<T> || narrow_float<T>) {
                visit.template operator()<T>(sum_reduction<T, lift::absolute, finish::value>{});
                return true;
            }
            break;
        case reduce_function::l2:
            if constexpr (floating) {
                visit.template operator()<T>(sum_reduction<T, lift::square, finish::square_root>{});
                return true;
            }
            break;
        case reduce_function::average:
            if constexpr (floating) {
                visit.template operator()<T>(sum_reduction<T, lift::value, finish::mean>{});
                return true;
            }
            break;
        case reduce_function::log_sum:
            if constexpr (floating) {
                visit.template operator()<T>(sum_reduction<T, lift::value, finish::logarithm>{});
                return true;
            }
            break;
        case reduce_function::multiply:
            if constexpr (multiplicative<T>) {
                visit.template operator()<W>(product_reduction<W>{});
                return true;
            }
            break;
        case reduce_function::max:
            if constexpr (totally_ordered_element<T>) {
                visit.template operator()<T>(extreme_reduction<T, true>{});
                return true;
            }
            break;
        case reduce_function::min:
            if constexpr (totally_ordered_element<T>) {
                visit.template operator()<T>(extreme_reduction<T, false>{});
                return true;
            }
            break;
        default: break;
    }
    return false;
}

template <class T>
void reduce_values(const executor_ref& exec, const tensor_view<const T>& input, const tensor_view<T>& output, reduce_function function,
                   std::span<const std::size_t> axes) {
    constexpr std::string_view operation = "reduce";
    constexpr bool floating = floating_element<T>;
    const auto unsupported = [&](std::string_view needs) {
        throw error(operation, "function",
                    std::string(function_name(function)) + " needs " + std::string(needs) + "; this element type has none");
    };
    switch (function) {  // element-type rules first: nothing is planned for a call that cannot run
        case reduce_function::average:
        case reduce_function::l2:
        case reduce_function::log_sum:
        case reduce_function::log_sum_exp:
            if (!floating)
                throw error(operation, "function",
                            std::string(function_name(function)) +
                                " needs a floating element type (float64, float32, float16, bfloat16); integer inputs are rejected, as in DirectML");
            break;
        case reduce_function::sum:
            if (!additive<T>) unsupported("+ and a zero (the additive concept)");
            break;
        case reduce_function::multiply:
            if (!multiplicative<T>) unsupported("* and a one (the multiplicative concept)");
            break;
        case reduce_function::sum_square:
            if (!(additive<T> && multiplicative<T>)) unsupported("+, * and a zero");
            break;
        case reduce_function::l1:
            if (!(std::is_arithmetic_v<T> || narrow_float<T>)) unsupported("an absolute value (built-in types only)");
            break;
        case reduce_function::max:
        case reduce_function::min:
            if (!totally_ordered_element<T>) unsupported("operator< (the totally_ordered_element concept)");
            break;
        default:
            throw error(operation, "function", "is " + std::to_string(static_cast<int>(function)) + ", not one of the twelve reduce functions");
    }
    const auto plan = plan_reduce<2>(operation, input, output, axes);
    if (output.empty()) return;
    if (axes.empty()) {
        reduce_each_element(exec, input, output, function);
        return;
    }
    if (plan.count == 0) {
        fill_empty_groups(function, output);
        return;
    }
    if (function == reduce_function::log_sum_exp) {
        if constexpr (floating)
            run_log_sum_exp_on(exec, input.data(), output.data(), plan.nest, plan.reduced, plan.count);
        return;
    }
    visit_reduction<T>(function,
                       [&]<class K>(const auto& policy) { run_reduction<K>(exec, plan, input, output, policy); });
}

/// reduce_values<T> through the compiled library (ops/detail/compiled.hpp): declared here, defined in src/routes.hpp.
template <class T>
struct compiled_reduce {
    static void values(const executor_ref& exec, const tensor_view<const T>& input, const tensor_view<T>& output, reduce_function function,
                       std::span<const std::size_t> axes);
};

}  // namespace detail

/// Reduces `input` over `axes` into `output` (rank kept: size 1 on every reduced axis, input sizes elsewhere).
/// For a group x1…xN: SUM Σx, SUM_SQUARE Σx², L1 Σ|x|, L2 √Σx², AVERAGE Σx / N (one division), LOG_SUM ln Σx,
/// LOG_SUM_EXP m + ln Σe^(x−m) (m the maximum; 0 if it is ±inf), MULTIPLY Πx, MAX, MIN; ARGMAX / ARGMIN write
/// the index of the first extreme (see argmax), row-major over the reduced axes, into an index-typed output.
///
/// Types: the output element type is the input's, or for ARGMAX/ARGMIN int32/int64/uint32/uint64. float16
/// and bfloat16 accumulate in float and round once; float sums combine blocks pairwise (accuracy of NumPy's pairwise sum
/// or better); integers wrap (L1 of the minimum is the minimum). AVERAGE, L2, LOG_SUM and LOG_SUM_EXP reject
/// integer inputs (as DirectML does). User types: SUM (additive), MULTIPLY (multiplicative), SUM_SQUARE (both),
/// MAX/MIN/ARGMAX/ARGMIN (totally_ordered_element).
/// NaN: MAX/MIN give NaN when the group holds one; ARGMAX/ARGMIN take NaN as the extreme; sums propagate it.
/// Aliasing: the output must not share memory with the input.
/// Errors (tensorops::error, before anything is written): function out of range or not available for the
/// element type, axes out of range / repeated, output sizes wrong, output layout not unique, output overlapping the
/// input, index type too narrow. Empty groups (a reduced axis of size 0) give SEMANTICS.md §5's values: MAX −inf and
/// MIN +inf for floating types, the lowest / highest value for integers; SUM-like 0, MULTIPLY 1, LOG_SUM and
/// LOG_SUM_EXP −inf, AVERAGE NaN, a user type's MAX / MIN its element_identity max_identity() / min_identity()
/// (without them, and for ARGMAX/ARGMIN: an error); an empty output is left alone.
/// No axes (ONNX's noop_with_empty_axes): every element is a group of its own — SUM, AVERAGE, MULTIPLY, MAX, MIN,
/// LOG_SUM_EXP give x (its bits), SUM_SQUARE x², L1 and L2 |x|, LOG_SUM ln x, ARGMAX/ARGMIN 0. A rank-0 input (one
/// element) takes no axes and gives a rank-0 output.
/// Failures: an exception from a user type's operations (+, *, <, copy) or from the executor propagates unchanged
/// once the running pieces end; the output's contents are then unspecified, nothing outside the output is written,
/// nothing leaks, and the executor stays usable (exec/executor.hpp).
/// Executor: the overloads taking an executor first (exec/executor.hpp: a thread_pool, sequential, or a host's pool
/// adapter) run pieces of independent outputs on its threads — or bands of rows, or aligned chunks of a single
/// contiguous line — and the result is bit-identical to the sequential one. Tensors under ~512 KiB run on the
/// calling thread; a single output of floating MULTIPLY or LOG_SUM_EXP, or of a group that is not one contiguous
/// line, runs on one thread.
template <class E, class In, class U>
    requires executor<std::remove_reference_t<E>> && element<std::remove_const_t<In>> && element<U>
void reduce(E&& exec, tensor_view<In> input, tensor_view<U> output, reduce_function function, std::span<const std::size_t> axes) {
    using T = std::remove_const_t<In>;
    const tensor_view<const T> source = input;
    detail::require_function("reduce", function);
    if (function == reduce_function::argmax || function == reduce_function::argmin) {
        if constexpr (index_element<U> && totally_ordered_element<T>)
            detail::arg_reduce_routed(exec, "reduce", function == reduce_function::argmax, source, output, axes, axis_direction::increasing);
        else
            throw error("reduce", "output",
                        std::string(detail::function_name(function)) +
                            " writes indices: the output element type must be int32, int64, uint32 or uint64 (and the input ordered)");
        return;
    }
    if constexpr (std::is_same_v<T, U> && detail::compiled_element<T>) {
        detail::compiled_reduce<T>::values(exec, source, output, function, axes);
    } else if constexpr (std::is_same_v<T, U>) {
        detail::reduce_values<T>(exec, source, output, function, axes);
    } else {
        throw error("reduce", "output",
                    std::string(detail::function_name(function)) + " writes the input's element type; the output has another one");
    }
}
template <class In, class U>
    requires element<std::remove_const_t<In>> && element<U>
void reduce(tensor_view<In> input, tensor_view<U> output, reduce_function function, std::span<const std::size_t> axes) {
    reduce(sequential, input, output, function, axes);
}

/// reduce() with the axes as a braced list: reduce(x, y, reduce_function::sum, {0, 2}).
template <class E, class In, class U>
    requires executor<std::remove_reference_t<E>> && element<std::remove_const_t<In>> && element<U>
void reduce(E&& exec, tensor_view<In> input, tensor_view<U> output, reduce_function function, std::initializer_list<std::size_t> axes) {
    reduce(exec, input, output, function, std::span<const std::size_t>(axes.begin(), axes.size()));
}
template <class In, class U>
    requires element<std::remove_const_t<In>> && element<U>
void reduce(tensor_view<In> input, tensor_view<U> output, reduce_function function, std::initializer_list<std::size_t> axes) {
    reduce(sequential, input, output, function, std::span<const std::size_t>(axes.begin(), axes.size()));
}

}  // namespace tensorops
