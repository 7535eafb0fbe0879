// tensorops/ops/cumulative_extreme.hpp — the running maximum and minimum along one axis (with or without the index of
// the running extreme, as torch.cummax / cummin) and the cumulative log-sum-exp. Extensions: DirectML has neither.
//
// Rules (the scan_options table of ops/cumulative.hpp, with ∘ = max, min or log-add-exp):
//   - identity: the exclusive scan's first output (traversal order) is −inf for max (lowest() for integers), +inf
//     for min (highest()), −inf for log-sum-exp; only the traversal order reverses for a decreasing scan;
//   - running extreme: the first extreme value met in traversal order — a later equal value (zeros of either sign
//     are equal) does not replace it — so the value is always an element of the line, bit for bit;
//   - NaN (floating types): the first NaN met replaces the running value and is never replaced (value NaN);
//   - index: the input coordinate along the axis of the running extreme, as argmax's direction rule: increasing,
//     the first extreme (lowest coordinate) of x[0..i]; decreasing, the last (highest coordinate) of x[i..n−1];
//     NaN: the first NaN met in traversal order. The exclusive scan's first output has the coordinate of its own
//     position (0 increasing, n − 1 decreasing) beside the identity; later ones the index of the inclusive scan
//     one position earlier in traversal order;
//   - log-sum-exp: ln Σ e^x over the same elements, computed stably (ops/detail/scan/log_sum_exp.hpp): it overflows
//     nowhere the running maximum is finite; +inf anywhere before gives +inf, NaN gives NaN.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "../core/element.hpp"
#include "../core/tensor_view.hpp"
#include "../exec/executor.hpp"
#include "../exec/split.hpp"
#include "../iter/nd_loop.hpp"
#include "../iter/plan.hpp"
#include "arguments.hpp"
#include "cumulative.hpp"
#include "detail/compiled.hpp"
#include "detail/scan/extreme.hpp"
#include "detail/scan/log_sum_exp.hpp"

namespace tensorops {

/// Element types with a running maximum: ordered by `<`, with element_identity's max_identity (every arithmetic type
/// float16 and bfloat16; a user type through its numeric_limits or an element_identity specialisation).
template <class T>
concept maximum_scannable = totally_ordered_element<T> && requires {
    { element_identity<accumulator_t<T, accumulation::ordering>>::max_identity() } -> std::convertible_to<accumulator_t<T, accumulation::ordering>>;
};

/// Element types with a running minimum: as maximum_scannable, with min_identity.
template <class T>
concept minimum_scannable = totally_ordered_element<T> && requires {
    { element_identity<accumulator_t<T, accumulation::ordering>>::min_identity() } -> std::convertible_to<accumulator_t<T, accumulation::ordering>>;
};

namespace detail {

/// The nest of `views` (operand 0 first) along options.axis, walked in traversal order; `axis` receives the axis'
/// position in it. A decreasing scan of contiguous lines walks the lines downwards too (as cumulative()).
template <class... Views>
iter::loop_nest<sizeof...(Views)> plan_scan(const scan_options& options, std::size_t& axis, const Views&... views) {
    auto request = iter::make_request(views...);
    request.keep.set(options.axis);
    request.ordered.set(options.axis);
    if (options.direction == axis_direction::decreasing) request.reverse.set(options.axis);
    auto nest = iter::plan_loops(request);
    axis = nest.position_of(options.axis);
    if (options.direction == axis_direction::decreasing && axis == nest.rank - 1) {
        request.walk_down = true;
        nest = iter::plan_loops(request);
        axis = nest.position_of(options.axis);
    }
    return nest;
}

/// Operands `first` and `second` of a nest of three, as a nest of two (operand 0 `first`).
inline iter::loop_nest<2> operands_of(const iter::loop_nest<3>& nest, std::size_t first, std::size_t second) {
    iter::loop_nest<2> pair;
    pair.rank = nest.rank;
    pair.sizes = nest.sizes;
    pair.group = nest.group;
    pair.origin = nest.origin;
    pair.strides = {nest.strides[first], nest.strides[second]};
    pair.offsets = {nest.offsets[first], nest.offsets[second]};
    return pair;
}

/// The dimensions of `nest` other than `axis`: what pieces of a scan may cut.
template <std::size_t Operands>
iter::axis_set lines_of(const iter::loop_nest<Operands>& nest, std::size_t axis) {
    iter::axis_set lines;
    for (std::size_t d = 0; d < nest.rank; ++d)
        if (d != axis) lines.set(d);
    return lines;
}

template <bool Maximum, class T, class I>
void cumulative_extreme_with_indices(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input,
                                     const tensor_view<T>& values, const tensor_view<I>& indices, const scan_options& options) {
    require_same_sizes(operation, "input", input, "values", values);
    require_same_sizes(operation, "input", input, "indices", indices);
    require_axis(operation, "options.axis", options.axis, input.rank());
    require_direction(operation, "options.direction", options.direction);
    require_unique(operation, "values", values);
    require_unique(operation, "indices", indices);
    require_exact_alias_or_disjoint(operation, "values", values, "input", input);
    require_disjoint(operation, "indices", indices, "input", input);
    require_disjoint(operation, "indices", indices, "values", values);
    if (values.empty()) return;
    const std::size_t n = input.size(options.axis);
    if (static_cast<std::uint64_t>(n - 1) > static_cast<std::uint64_t>(std::numeric_limits<I>::max()))
        throw error(operation, "indices",
                    "has an index type whose largest value " + std::to_string(std::numeric_limits<I>::max()) +
                        " cannot hold the last index " + std::to_string(n - 1) + " of the axis");
    const bool decreasing = options.direction == axis_direction::decreasing;
    const auto indices_of = [&](const iter::loop_nest<2>& piece, std::size_t axis) {  // operand 0 indices, 1 values
        if (options.exclusive) write_extreme_indices<Maximum, true>(indices.data(), values.data(), piece, axis, decreasing);
        else write_extreme_indices<Maximum, false>(indices.data(), values.data(), piece, axis, decreasing);
    };
    // Lines along the innermost dimension, each one block (policy.hpp): the values of a line, then its indices while
    // the values are still in cache — the lines in pieces on the executor's threads, as cumulative() would cut them.
    using Scan = extreme_scan<T, Maximum>;
    std::size_t axis = 0;
    const auto nest = plan_scan(options, axis, values, input, indices);  // operands: values, input, indices
    if (axis == nest.rank - 1 && scan_blocks<T, Scan>(operands_of(nest, 0, 1), axis) == 1) {
        iter::axis_set along;
        along.set(axis);
        const std::size_t bytes = nest.element_count() * (2 * sizeof(T) + sizeof(I));
        for_each_piece(exec, nest, lines_of(nest, axis), bytes, [&](const iter::loop_nest<3>& piece) {
            iter::loop_nest<3> line = piece;  // the piece's axis alone, moved to each line's offsets
            line.rank = 1;
            line.sizes[0] = piece.sizes[axis];
            line.origin[0] = piece.origin[axis];
            for (std::size_t o = 0; o < 3; ++o) line.strides[o][0] = piece.strides[o][axis];
            iter::for_each_element(iter::remove_dimensions(piece, along), [&](const std::array<std::ptrdiff_t, 3>& offsets) {
                line.offsets = offsets;
                const auto scanned = operands_of(line, 0, 1);
                if (options.exclusive) run_scan<true>(input.data(), values.data(), scanned, 0, Scan{}, line.sizes[0]);
                else run_scan<false>(input.data(), values.data(), scanned, 0, Scan{}, line.sizes[0]);
                indices_of(operands_of(line, 2, 0), 0);
            });
        });
        return;
    }
    // Otherwise every value first (long lines in blocks on several threads, rows), then the indices from them: lines
    // or strips of rows on the executor's threads.
    cumulative(exec, operation, input, values, options, Scan{});
    const auto index_nest = plan_scan(options, axis, indices, tensor_view<const T>(values));
    const std::size_t bytes = index_nest.element_count() * (sizeof(T) + sizeof(I));
    for_each_piece(exec, index_nest, lines_of(index_nest, axis), bytes, [&](const iter::loop_nest<2>& piece) { indices_of(piece, axis); });
}

template <class T>
void cumulative_log_sum_exp(const executor_ref& exec, const tensor_view<const T>& input, const tensor_view<T>& output,
                            const scan_options& options) {
    constexpr std::string_view operation = "cumulative_log_sum_exp";
    require_same_sizes(operation, "input", input, "output", output);
    require_axis(operation, "options.axis", options.axis, input.rank());
    require_direction(operation, "options.direction", options.direction);
    require_unique(operation, "output", output);
    require_exact_alias_or_disjoint(operation, "output", output, "input", input);
    if (output.empty()) return;
    std::size_t axis = 0;
    const auto nest = plan_scan(options, axis, output, input);
    const T* x = input.data();
    T* y = output.data();
    for_each_piece(exec, nest, lines_of(nest, axis), 2 * nest.element_count() * sizeof(T), [&](const iter::loop_nest<2>& piece) {
        if (options.exclusive) run_log_sum_exp_scan<true>(x, y, piece, axis);
        else run_log_sum_exp_scan<false>(x, y, piece, axis);
    });
}

/// The running extremes and the cumulative log-sum-exp through the compiled library (ops/detail/compiled.hpp):
/// cumulative() with extreme_scan, and cumulative_log_sum_exp (floating T only). Declared here, defined in src/routes.hpp.
template <class T>
struct compiled_cumulative_extreme {
    static void maximum(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input, const tensor_view<T>& output,
                        const scan_options& options);
    static void minimum(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input, const tensor_view<T>& output,
                        const scan_options& options);
    static void log_sum_exp(const executor_ref& exec, const tensor_view<const T>& input, const tensor_view<T>& output, const scan_options& options);
};

/// cumulative_extreme_with_indices through the compiled library. Declared here, defined in src/routes.hpp.
template <class T, class I>
struct compiled_cumulative_extreme_with_indices {
    static void maximum(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input, const tensor_view<T>& values,
                        const tensor_view<I>& indices, const scan_options& options);
    static void minimum(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input, const tensor_view<T>& values,
                        const tensor_view<I>& indices, const scan_options& options);
};

/// The running maximum (Maximum) or minimum without indices, through the compiled library where it holds T's kernels.
template <bool Maximum, class T>
void cumulative_extreme_routed(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input, const tensor_view<T>& output,
                               const scan_options& options) {
    if constexpr (compiled_element<T> && Maximum) compiled_cumulative_extreme<T>::maximum(exec, operation, input, output, options);
    else if constexpr (compiled_element<T>) compiled_cumulative_extreme<T>::minimum(exec, operation, input, output, options);
    else cumulative(exec, operation, input, output, options, extreme_scan<T, Maximum>{});
}

/// cumulative_extreme_with_indices, through the compiled library where it holds T's kernels.
template <bool Maximum, class T, class I>
void cumulative_extreme_with_indices_routed(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input,
                                            const tensor_view<T>& values, const tensor_view<I>& indices, const scan_options& options) {
    if constexpr (compiled_element<T> && Maximum) compiled_cumulative_extreme_with_indices<T, I>::maximum(exec, operation, input, values, indices, options);
    else if constexpr (compiled_element<T>) compiled_cumulative_extreme_with_indices<T, I>::minimum(exec, operation, input, values, indices, options);
    else cumulative_extreme_with_indices<Maximum>(exec, operation, input, values, indices, options);
}

/// cumulative_log_sum_exp, through the compiled library where it holds T's kernels.
template <class T>
void cumulative_log_sum_exp_routed(const executor_ref& exec, const tensor_view<const T>& input, const tensor_view<T>& output, const scan_options& options) {
    if constexpr (compiled_element<T>) compiled_cumulative_extreme<T>::log_sum_exp(exec, input, output, options);
    else cumulative_log_sum_exp(exec, input, output, options);
}

}  // namespace detail

/// Running maximum of `input` along `options.axis` into `output` (the table at scan_options, ∘ = max): y[i] is the
/// first largest element met in traversal order (bit for bit: equal values, zeros of either sign included, keep the
/// first), or the first NaN met, which is never replaced. The exclusive scan's first output is −inf (floating types,
/// float16 and bfloat16 too) or lowest() (integers; a user type's max_identity).
/// Types: any maximum_scannable T; float64/32/16, bfloat16 and the fixed-width integers are vectorised (float16 and
/// bfloat16 compared as float, exactly). Exact: the result does not depend on the executor, the thread count, the layout or the instruction set.
/// Aliasing: `output` may be exactly `input` (in place); any other overlap is an error. Inputs may broadcast (stride 0)
/// and any view may have negative strides.
/// Errors (tensorops::error, thrown before anything is written): sizes differ, axis ≥ rank, direction not an
/// axis_direction, output layout maps two coordinates to one element (or cannot be proven not to), output partially
/// overlaps input. Empty tensors: nothing happens. Failures (a user type's < or copy throwing): as cumulative_sum.
template <maximum_scannable T>
void cumulative_max(tensor_view<const std::type_identity_t<T>> input, tensor_view<T> output, scan_options options = {}) {
    detail::cumulative_extreme_routed<true, T>(sequential, "cumulative_max", input, output, options);
}
/// cumulative_max on an executor (as cumulative_sum's executor overload): the same bits for any executor.
template <maximum_scannable T, class E>
    requires executor<std::remove_reference_t<E>>
void cumulative_max(E&& exec, tensor_view<const std::type_identity_t<T>> input, tensor_view<T> output, scan_options options = {}) {
    detail::cumulative_extreme_routed<true, T>(exec, "cumulative_max", input, output, options);
}

/// Running minimum: as cumulative_max with "smallest" for "largest"; the exclusive identity is +inf (highest() for
/// integers; a user type's min_identity).
template <minimum_scannable T>
void cumulative_min(tensor_view<const std::type_identity_t<T>> input, tensor_view<T> output, scan_options options = {}) {
    detail::cumulative_extreme_routed<false, T>(sequential, "cumulative_min", input, output, options);
}
/// cumulative_min on an executor.
template <minimum_scannable T, class E>
    requires executor<std::remove_reference_t<E>>
void cumulative_min(E&& exec, tensor_view<const std::type_identity_t<T>> input, tensor_view<T> output, scan_options options = {}) {
    detail::cumulative_extreme_routed<false, T>(exec, "cumulative_min", input, output, options);
}

/// Running maximum into `values` (exactly cumulative_max's output) and the index of the running extreme into
/// `indices`: its coordinate along the axis in the input — increasing, the first largest of x[0..i] (torch.cummax
/// returns the last: here a later equal value never replaces the running one, so the index mirrors argmax's
/// direction rule); decreasing, the last largest of x[i..n−1]; the first NaN met in traversal order once there is one.
/// The exclusive scan's first output in traversal order has index 0 (increasing) or n − 1 (decreasing) beside the
/// identity, and every later one the index of the inclusive scan one position before it in traversal order.
/// Index types: int32, int64, uint32, uint64; n − 1 must fit. Aliasing: `values` may be exactly `input` (in place);
/// `indices` must share no memory with either. Errors: as cumulative_max (naming `values`), and `indices` with other
/// sizes, a layout that maps two coordinates to one element, memory shared with `input` or `values`, or an index type
/// that cannot hold n − 1. Executor: the values as cumulative_max; the indices from them, lines (or strips of rows)
/// on the executor's threads.
template <maximum_scannable T, index_element I>
void cumulative_max(tensor_view<const std::type_identity_t<T>> input, tensor_view<T> values, tensor_view<I> indices, scan_options options = {}) {
    detail::cumulative_extreme_with_indices_routed<true>(sequential, "cumulative_max", input, values, indices, options);
}
/// cumulative_max with indices on an executor.
template <maximum_scannable T, index_element I, class E>
    requires executor<std::remove_reference_t<E>>
void cumulative_max(E&& exec, tensor_view<const std::type_identity_t<T>> input, tensor_view<T> values, tensor_view<I> indices,
                    scan_options options = {}) {
    detail::cumulative_extreme_with_indices_routed<true>(exec, "cumulative_max", input, values, indices, options);
}

/// Running minimum with the index of the running extreme: as cumulative_max with indices, "smallest" for "largest".
template <minimum_scannable T, index_element I>
void cumulative_min(tensor_view<const std::type_identity_t<T>> input, tensor_view<T> values, tensor_view<I> indices, scan_options options = {}) {
    detail::cumulative_extreme_with_indices_routed<false>(sequential, "cumulative_min", input, values, indices, options);
}
/// cumulative_min with indices on an executor.
template <minimum_scannable T, index_element I, class E>
    requires executor<std::remove_reference_t<E>>
void cumulative_min(E&& exec, tensor_view<const std::type_identity_t<T>> input, tensor_view<T> values, tensor_view<I> indices,
                    scan_options options = {}) {
    detail::cumulative_extreme_with_indices_routed<false>(exec, "cumulative_min", input, values, indices, options);
}

/// Cumulative log-sum-exp of `input` along `options.axis` into `output` (the table at scan_options, a ∘ b = ln(e^a +
/// e^b)): y[i] = ln Σ e^x over the same elements as a cumulative sum; the exclusive scan's first output is −inf.
/// Computed stably from a running maximum m and sum s = Σ e^(x − m) (y = m + ln s): never overflows where the running
/// maximum is finite; −inf elements add nothing; after a +inf the value is +inf, after a NaN NaN.
/// Types: float64, float32, float16, bfloat16 (the last two computed in float, rounded once per output); integer and
/// other types do not compile. Bit-identical for any executor and thread count: each line is computed whole, sequentially, by the kernel
/// its layout calls for (lines, or strips of rows scanned across, are what the threads share); results may differ
/// in the last bits between layouts and instruction sets.
/// Aliasing, errors (naming `output`), empty tensors: as cumulative_sum.
template <builtin_floating T>
void cumulative_log_sum_exp(tensor_view<const std::type_identity_t<T>> input, tensor_view<T> output, scan_options options = {}) {
    detail::cumulative_log_sum_exp_routed(sequential, input, output, options);
}
/// cumulative_log_sum_exp on an executor.
template <builtin_floating T, class E>
    requires executor<std::remove_reference_t<E>>
void cumulative_log_sum_exp(E&& exec, tensor_view<const std::type_identity_t<T>> input, tensor_view<T> output, scan_options options = {}) {
    detail::cumulative_log_sum_exp_routed(exec, input, output, options);
}

}  // namespace tensorops
