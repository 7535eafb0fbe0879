// tensorops/ops/cumulative.hpp — cumulative sum, product and scan along one axis (DirectML
// CUMULATIVE_SUMMATION / CUMULATIVE_PRODUCT; SEMANTICS.md §1).
#pragma once

#include <concepts>
#include <cstddef>
#include <functional>
#include <string_view>
#include <type_traits>

#include "../core/element.hpp"
#include "../core/tensor_view.hpp"
#include "../exec/executor.hpp"
#include "../exec/split.hpp"
#include "../iter/plan.hpp"
#include "arguments.hpp"
#include "detail/compiled.hpp"
#include "detail/scan/blocked.hpp"
#include "detail/scan/dispatch.hpp"

namespace tensorops {

/// Parameters of a cumulative operator. For every line along `axis` (n elements, all other coordinates
/// fixed), with ∘ the operation and e its identity:
///   increasing, inclusive:  y[i] = x[0] ∘ … ∘ x[i]
///   increasing, exclusive:  y[0] = e,   y[i] = x[0] ∘ … ∘ x[i−1]
///   decreasing, inclusive:  y[i] = x[i] ∘ … ∘ x[n−1]
///   decreasing, exclusive:  y[n−1] = e, y[i] = x[i+1] ∘ … ∘ x[n−1]
/// Only the traversal order reverses; results are never written to reversed positions.
struct scan_options {
    std::size_t axis = 0;
    axis_direction direction = axis_direction::increasing;
    bool exclusive = false;
};

namespace detail {

template <class T, class Scan>
void cumulative(const executor_ref& exec, std::string_view operation, tensor_view<const T> input, tensor_view<T> output,
                const scan_options& options, const Scan& scan) {
    require_same_sizes(operation, "input", input, "output", output);
    require_axis(operation, "options.axis", options.axis, input.rank());
    require_direction(operation, "options.direction", options.direction);
    require_unique(operation, "output", output);
    require_exact_alias_or_disjoint(operation, "output", output, "input", input);
    if (output.empty()) return;

    auto request = iter::make_request(output, input);
    request.keep.set(options.axis);
    request.ordered.set(options.axis);
    if (options.direction == axis_direction::decreasing) request.reverse.set(options.axis);
    auto nest = iter::plan_loops(request);
    std::size_t axis = nest.position_of(options.axis);
    // A decreasing scan of contiguous lines walks the lines downwards too: one descending stream through memory
    // (upwards, each line would be read down and the next one two lines further up, which hardware prefetchers follow
    // poorly; bench/journal has the measurement). The lines are independent: the results do not change.
    if (options.direction == axis_direction::decreasing && scan_layout_of<T, Scan>(nest, axis) == scan_layout::contiguous) {
        request.walk_down = true;
        nest = iter::plan_loops(request);
        axis = nest.position_of(options.axis);
    }
    const T* x = input.data();
    T* y = output.data();
    // Pieces (exec/split.hpp): sets of whole lines, each scanned as in the whole nest — or, when there are too few
    // lines for the threads, the fixed blocks of each long scan (ops/detail/scan/blocked.hpp).
    iter::axis_set lines;
    for (std::size_t d = 0; d < nest.rank; ++d)
        if (d != axis) lines.set(d);
    const std::size_t bytes = 2 * nest.element_count() * sizeof(T);
    const std::size_t wanted = wanted_pieces(exec, bytes);
    const std::size_t last = nest.rank - 1;
    const std::size_t blocks = scan_blocks<T, Scan>(nest, axis);
    // Across rows, a cut by columns gives each thread a strip of every row: worth it only when the strips are
    // wide (min_strip_bytes: short strips break each row's stream into pieces the prefetchers follow badly).
    if (blocks > 1 && axis != last && nest.sizes[last] * sizeof(T) < wanted * min_strip_bytes) lines.reset(last);
    const nest_cut cut = choose_cut(nest, lines, wanted, exec.concurrency());
    if constexpr (Scan::vectorizable && simd::vectorized) {  // only the vector kernels have blocks
        if (blocks > 1 && cut.pieces < std::min(wanted, 2 * exec.concurrency())) {
            if (options.exclusive) run_blocked_scans<true>(exec, x, y, nest, axis, scan);
            else run_blocked_scans<false>(exec, x, y, nest, axis, scan);
            return;
        }
    }
    const std::size_t band = across_rows_band<T>(nest, axis);  // of the whole: pieces keep its bands
    for_each_piece(exec, nest, lines, bytes, [&](const iter::loop_nest<2>& piece) {
        if (options.exclusive) run_scan<true>(x, y, piece, axis, scan, band);
        else run_scan<false>(x, y, piece, axis, scan, band);
    });
}

/// Cumulative sums (Scan = sum_scan) or products (product_scan) of T, computed by the kernels of
/// wrapping_kernel_t<T>: a signed integer's by its unsigned type's (same bits, one instantiation for both).
template <template <class> class Scan, class T>
void wrapping_cumulative(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input, const tensor_view<T>& output,
                         const scan_options& options) {
    using K = wrapping_kernel_t<T>;
    cumulative(exec, operation, view_as<const K>(input), view_as<K>(output), options, Scan<K>{});
}

/// wrapping_cumulative of sum_scan and product_scan through the compiled library (ops/detail/compiled.hpp): declared
/// here, defined in src/routes.hpp.
template <class T>
struct compiled_cumulative {
    static void sum(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input, const tensor_view<T>& output,
                    const scan_options& options);
    static void product(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input, const tensor_view<T>& output,
                        const scan_options& options);
};

/// wrapping_cumulative, through the compiled library where it holds T's kernels (compiled_element).
template <template <class> class Scan, class T>
void wrapping_cumulative_routed(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input,
                                const tensor_view<T>& output, const scan_options& options) {
    if constexpr (compiled_element<T> && std::is_same_v<Scan<T>, sum_scan<T>>) compiled_cumulative<T>::sum(exec, operation, input, output, options);
    else if constexpr (compiled_element<T> && std::is_same_v<Scan<T>, product_scan<T>>) compiled_cumulative<T>::product(exec, operation, input, output, options);
    else wrapping_cumulative<Scan>(exec, operation, input, output, options);
}

}  // namespace detail

/// Cumulative sum of `input` along `options.axis` into `output` (the table at scan_options).
///
/// Types: any `additive` T. float64/32/16, bfloat16 and the fixed-width integers are vectorised; float16 and
/// bfloat16 carry a float and round once per output; integers wrap around (two's complement, no undefined behaviour);
/// NaN and infinities propagate as IEEE addition makes them. Float sums along the contiguous axis are
/// combined in a tree order inside each vector (error of a pairwise sum of the vector width, then sequential);
/// a line longer than 512 KiB, or rows scanned across that make more than 2 MiB, is computed in fixed blocks,
/// each from zero and offset by the sum of the blocks before it (prefix + running), which only lowers the error.
/// Aliasing: `output` may be exactly `input` (same data pointer, sizes and strides: in place); any other
/// overlap is an error. Inputs may broadcast (stride 0) and any view may have negative strides.
/// Errors (tensorops::error, thrown before anything is written): sizes differ, axis ≥ rank, direction not an
/// axis_direction, output layout maps two coordinates to one element (or cannot be proven not to: see
/// tensor_view::uniqueness), output partially overlaps input. Empty tensors: nothing happens.
/// Failures: an exception from a user type's + (or copy) or from the executor propagates unchanged once the running
/// pieces end; the output's contents are then unspecified (in place: the input's too), nothing outside the output is
/// written, nothing leaks, and the executor stays usable (exec/executor.hpp).
template <additive T>
void cumulative_sum(tensor_view<const std::type_identity_t<T>> input, tensor_view<T> output, scan_options options = {}) {
    detail::wrapping_cumulative_routed<detail::sum_scan>(sequential, "cumulative_sum", input, output, options);
}
/// cumulative_sum on an executor (exec/executor.hpp): sets of whole lines run on its threads, each line scanned
/// exactly as sequentially, so the result is bit-identical. With fewer lines than threads, each long scan (a line,
/// or rows scanned across, past 512 KiB) is cut into the fixed blocks the kernels compute it in
/// anyway (ops/detail/scan/blocked.hpp). Tensors under ~512 KiB run on the calling thread.
template <additive T, class E>
    requires executor<std::remove_reference_t<E>>
void cumulative_sum(E&& exec, tensor_view<const std::type_identity_t<T>> input, tensor_view<T> output, scan_options options = {}) {
    detail::wrapping_cumulative_routed<detail::sum_scan>(exec, "cumulative_sum", input, output, options);
}

/// Cumulative product of `input` along `options.axis` into `output`; the exclusive identity is 1.
/// Types, rounding, wrap-around, aliasing, errors and failures (a user type's *) exactly as cumulative_sum (integer
/// products wrap).
template <multiplicative T>
void cumulative_product(tensor_view<const std::type_identity_t<T>> input, tensor_view<T> output, scan_options options = {}) {
    detail::wrapping_cumulative_routed<detail::product_scan>(sequential, "cumulative_product", input, output, options);
}
/// cumulative_product on an executor, as cumulative_sum's executor overload.
template <multiplicative T, class E>
    requires executor<std::remove_reference_t<E>>
void cumulative_product(E&& exec, tensor_view<const std::type_identity_t<T>> input, tensor_view<T> output, scan_options options = {}) {
    detail::wrapping_cumulative_routed<detail::product_scan>(exec, "cumulative_product", input, output, options);
}

/// Cumulative scan with a caller's associative `operation` (T, T → T) whose identity is `identity`.
/// Computed in T, one line at a time, in traversal order: operation(running, next). Aliasing and errors as
/// cumulative_sum. Failures as cumulative_sum's, `operation` in place of +: its exception propagates unchanged,
/// the output's contents are then unspecified, and nothing outside the output is written.
template <element T, class Operation>
    requires std::regular_invocable<const Operation&, const T&, const T&> &&
             std::convertible_to<std::invoke_result_t<const Operation&, const T&, const T&>, T>
void cumulative_scan(tensor_view<const std::type_identity_t<T>> input, tensor_view<T> output, scan_options options,
                     Operation operation, std::type_identity_t<T> identity) {
    detail::cumulative(sequential, "cumulative_scan", input, output, options,
                       detail::custom_scan<T, Operation>{std::move(operation), std::move(identity)});
}
/// cumulative_scan on an executor, as cumulative_sum's executor overload. `operation` is then called from the
/// executor's threads at once (on different lines): it must be safe to call concurrently. The first exception
/// it throws propagates (as the executor reports it) once the running pieces end.
template <element T, class E, class Operation>
    requires executor<std::remove_reference_t<E>> && std::regular_invocable<const Operation&, const T&, const T&> &&
             std::convertible_to<std::invoke_result_t<const Operation&, const T&, const T&>, T>
void cumulative_scan(E&& exec, tensor_view<const std::type_identity_t<T>> input, tensor_view<T> output, scan_options options,
                     Operation operation, std::type_identity_t<T> identity) {
    detail::cumulative(exec, "cumulative_scan", input, output, options,
                       detail::custom_scan<T, Operation>{std::move(operation), std::move(identity)});
}

}  // namespace tensorops
