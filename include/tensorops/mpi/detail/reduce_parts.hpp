// tensorops/mpi/detail/reduce_parts.hpp — what the sharded reductions share: their type and argument rules, the library's
// call on packed local views, and how ARGMAX / ARGMIN candidates from different shards compare.
#pragma once

#include "mpi_c.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../../core/element.hpp"
#include "../../core/float16.hpp"
#include "../../core/narrow_float.hpp"
#include "../../core/tensor_view.hpp"
#include "../../exec/executor.hpp"
#include "../../ops/arg_reduce.hpp"
#include "../../ops/reduce.hpp"
#include "../../ops/reduce_plan.hpp"
#include "../sharded.hpp"
#include "agreement.hpp"
#include "collectives.hpp"
#include "staging.hpp"

namespace tensorops::mpi::detail {

/// Element types of the sharded reductions: the built-in arithmetic types and the narrow floats (float16, bfloat16).
template <class T>
concept sharded_reduce_element = std::is_arithmetic_v<T> || narrow_float<T>;

[[nodiscard]] inline bool is_arg(reduce_function f) noexcept { return f == reduce_function::argmax || f == reduce_function::argmin; }

/// Functions whose result does not depend on the order of the operations for T: partials combine exactly (for the
/// eight fixed-width integers, in MPI's own reductions: mpi/reduce.hpp, combine_exactly; other integral types — bool,
/// char, long long — take the gathered path).
template <class T>
[[nodiscard]] bool combines_exactly(reduce_function f) noexcept {
    if (is_arg(f)) return true;
    if constexpr (fixed_width_integer<T>)
        return f == reduce_function::sum || f == reduce_function::multiply || f == reduce_function::l1 || f == reduce_function::sum_square ||
               f == reduce_function::max || f == reduce_function::min;
    else return false;
}

/// Whether each rank's groups, with the sharded axis kept, are computed by the library on the shard exactly as on the
/// global tensor, whatever the function: the shard is then a piece of the global nest along an outer kept dimension
/// (exec/split.hpp: such pieces keep every output's kernel and order). That holds when every axis before the sharded
/// one is kept (a reduced one there would give the groups the shard's strides, not the global ones) and a reduced axis
/// after it has more than one element (else the sharded axis may join the innermost kept dimension, which is cut
/// only in aligned blocks). Sizes are the global ones: the same verdict on every rank.
[[nodiscard]] inline bool shard_is_a_piece(const sharding& sh, std::span<const std::size_t> axes) noexcept {
    const auto reduced = [&](std::size_t d) { return std::find(axes.begin(), axes.end(), d) != axes.end() && sh.global[d] > 1; };
    for (std::size_t d = 0; d < sh.axis; ++d)
        if (reduced(d)) return false;
    for (std::size_t d = sh.axis + 1; d < sh.rank_dims; ++d)
        if (reduced(d)) return true;
    return false;
}

/// The rules a reduce call's function and types must meet (the library's, for the types allowed here).
template <class T, class U>
void require_function_and_types(std::string_view operation, reduce_function function) {
    tensorops::detail::require_function(operation, function);
    if (is_arg(function)) {
        if constexpr (!index_element<U>)
            throw tensorops::error(operation, "output", "ARGMAX and ARGMIN write indices: int32, int64, uint32 or uint64 outputs");
    } else {
        if constexpr (!std::is_same_v<T, U>) throw tensorops::error(operation, "output", "has an element type other than the input's");
        const bool floating = !std::is_integral_v<T>;
        if (!floating && (function == reduce_function::average || function == reduce_function::l2 || function == reduce_function::log_sum ||
                          function == reduce_function::log_sum_exp))
            throw tensorops::error(operation, "function",
                                   std::string(tensorops::detail::function_name(function)) +
                                       " needs a floating element type (float64, float32, float16, bfloat16); integer inputs are rejected, as in DirectML");
    }
}

/// Axes each below the rank and none twice (the check plan_reduce makes, for ranks that have no output to plan).
inline void require_axes(std::string_view operation, std::span<const std::size_t> axes, std::size_t rank) {
    std::vector<bool> seen(rank, false);
    for (std::size_t i = 0; i < axes.size(); ++i) {
        if (axes[i] >= rank)
            throw tensorops::error(operation, "axes", "entry " + std::to_string(i) + " is " + std::to_string(axes[i]) + " but the input has rank " + std::to_string(rank));
        if (seen[axes[i]]) throw tensorops::error(operation, "axes", "names axis " + std::to_string(axes[i]) + " twice");
        seen[axes[i]] = true;
    }
}

/// Index-type and empty-group rules of ARGMAX / ARGMIN, on the global group.
template <class U>
void require_global_group(std::string_view operation, reduce_function function, const sharding& sh, std::span<const std::size_t> axes) {
    if (!is_arg(function) || axes.empty()) return;
    std::size_t count = 1;
    for (std::size_t axis : axes) count *= sh.global[axis];
    if (count == 0) throw tensorops::error(operation, "input", "has an empty reduced axis: an empty group has no index of an extreme");
    if constexpr (index_element<U>)
        if (count - 1 > static_cast<std::uint64_t>(std::numeric_limits<U>::max()))
            throw tensorops::error(operation, "output", "has an index type too narrow for the last index " + std::to_string(count - 1) + " of the reduced group");
}

/// The library's call on local views: reduce, or argmax / argmin with `direction`.
template <class T, class U>
void reduce_locally(const executor_ref& exec, const tensor_view<const T>& input, const tensor_view<U>& output, reduce_function function,
                    std::span<const std::size_t> axes, axis_direction direction) {
    if (is_arg(function)) {
        if constexpr (index_element<U>) {
            if (function == reduce_function::argmax) tensorops::argmax(exec, input, output, axes, direction);
            else tensorops::argmin(exec, input, output, axes, direction);
        }
    } else if constexpr (std::is_same_v<T, U>) {
        tensorops::reduce(exec, input, output, function, axes);
    }
}

/// Sizes of `sizes` with the axes reduced to 1.
[[nodiscard]] inline std::vector<std::size_t> reduced_sizes(std::span<const std::size_t> sizes, std::span<const std::size_t> axes) {
    std::vector<std::size_t> out(sizes.begin(), sizes.end());
    for (std::size_t axis : axes) out[axis] = 1;
    return out;
}

/// Reduces a packed input of `sizes` into `output` through a packed buffer when `output` is not packed (the
/// output's layout orders the library's loops).
template <class T, class U>
void reduce_packed(const executor_ref& exec, const T* input, std::span<const std::size_t> sizes, const tensor_view<U>& output,
                   reduce_function function, std::span<const std::size_t> axes, axis_direction direction) {
    const tensor_view<const T> in(input, sizes);
    if (is_packed(output)) {
        reduce_locally(exec, in, output, function, axes, direction);
        return;
    }
    std::vector<U> packed(output.element_count());
    reduce_locally(exec, in, tensor_view<U>(packed.data(), output.sizes()), function, axes, direction);
    unpack_into(packed.data(), output);
}

/// Whether partial results of ARGMAX / ARGMIN candidate (value a at global index ia) beats (b, ib): NaN is the
/// extreme, ties go to the lower index (first) or the higher (last).
template <class T>
[[nodiscard]] bool beats(const T& a, std::uint64_t ia, const T& b, std::uint64_t ib, bool maximum, bool last) {
    const auto value = [](const T& v) {
        if constexpr (narrow_float<T>) return static_cast<float>(v);
        else return v;
    };
    const auto va = value(a), vb = value(b);
    bool a_nan = false, b_nan = false;
    if constexpr (!std::is_integral_v<T>) {
        a_nan = std::isnan(va);
        b_nan = std::isnan(vb);
    }
    if (a_nan != b_nan) return a_nan;
    if (a_nan || va == vb) return last ? ia > ib : ia < ib;
    return maximum ? vb < va : va < vb;
}

}  // namespace tensorops::mpi::detail
