// tensorops/mpi/cumulative.hpp — every scan of the library on a sharded tensor: cumulative sum, product and scan, the
// running maximum / minimum (with or without indices) and the cumulative log-sum-exp, along any axis, bit-identical
// to the single-process operator on the packed global tensor for any number of ranks and any executor.
#pragma once

#include "detail/mpi_c.hpp"

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/element.hpp"
#include "../core/tensor_view.hpp"
#include "../exec/executor.hpp"
#include "../ops/arguments.hpp"
#include "../ops/cumulative.hpp"
#include "../ops/cumulative_extreme.hpp"
#include "detail/agreement.hpp"
#include "detail/collectives.hpp"
#include "detail/scan_chain.hpp"
#include "detail/scan_indices.hpp"
#include "detail/scan_log_sum_exp.hpp"
#include "detail/staging.hpp"
#include "sharded.hpp"

namespace tensorops::mpi {
namespace detail {

template <class T, class Scan>
void sharded_cumulative_agreed(const executor_ref& exec, std::string_view operation, const sharding& sh,
                               const sharded_view<const T>& input, const sharded_view<T>& output,
                               const scan_options& options, const Scan& scan);

/// The collective checks of a sharded scan of `input` into `output` (agree_on_shardings): the library's own on each
/// rank's views (sizes, axis, direction, an output whose elements are distinct, exactly in place or disjoint) and the
/// shardings. Returns the agreed sharding.
template <class T>
[[nodiscard]] sharding agree_on_scan(std::string_view operation, const sharded_view<const T>& input,
                                     const sharded_view<T>& output, const scan_options& options) {
    const tensor_view<const T>& in = input.local();
    const tensor_view<T>& out = output.local();
    return agree_on_shardings(
               operation, input, output,
               [&] {
        tensorops::detail::require_same_sizes(operation, "input.local", in, "output.local", out);
        tensorops::detail::require_axis(operation, "options.axis", options.axis, in.rank());
        tensorops::detail::require_direction(operation, "options.direction", options.direction);
        tensorops::detail::require_unique(operation, "output.local", out);
        tensorops::detail::require_exact_alias_or_disjoint(operation, "output.local", out, "input.local", in);
               })
        .first;
}

/// A scan's operands packed: the views themselves when both are packed, else one packed copy of the input that the
/// scan runs on in place (x = y), written back into the output by finish().
template <class T>
struct packed_scan_operands {
    std::vector<T> staging;
    const T* x;
    T* y;
    packed_scan_operands(const tensor_view<const T>& in, const tensor_view<T>& out) : x(in.data()), y(out.data()) {
        if ((!is_packed(in) || !is_packed(out)) && !in.empty()) {
            staging = packed_copy(in);
            x = y = staging.data();
        }
    }
    void finish(const tensor_view<T>& out) const {
        if (!staging.empty()) unpack_into(staging.data(), out);
    }
};

/// The sharded scan: validate collectively, compute on the packed shard (a packed copy if the views are not packed),
/// by the path the axes call for (see cumulative_sum below).
template <class T, class Scan>
void sharded_cumulative(const executor_ref& exec, std::string_view operation, const sharded_view<const T>& input,
                        const sharded_view<T>& output, const scan_options& options, const Scan& scan) {
    sharded_cumulative_agreed(exec, operation, agree_on_scan(operation, input, output, options), input, output, options,
                              scan);
}

/// The sharded scan on shardings agreed and arguments checked: see sharded_cumulative.
template <class T, class Scan>
void sharded_cumulative_agreed(const executor_ref& exec, std::string_view operation, const sharding& sh,
                               const sharded_view<const T>& input, const sharded_view<T>& output,
                               const scan_options& options, const Scan& scan) {
    const tensor_view<const T>& in = input.local();
    const tensor_view<T>& out = output.local();
    std::size_t global_count = 1;
    for (std::size_t d = 0; d < sh.rank_dims; ++d) global_count *= sh.global[d];
    if (global_count == 0) return;

    const packed_scan_operands<T> packed(in, out);
    const T* x = packed.x;
    T* y = packed.y;
    const std::size_t axis = options.axis;
    const bool decreasing = options.direction == axis_direction::decreasing;
    const auto run = [&]<bool Exclusive>() {
        if (axis == sh.axis) {
            const scan_geometry g = global_scan_geometry<T, Scan>(sh.global, sh.rank_dims, axis, decreasing);
            const std::vector<traversal_range> ranges = traversal_ranges(sh, decreasing);
            const traversal_range mine = ranges[static_cast<std::size_t>(sh.here.rank)];
            const int rank = sh.here.rank, last = sh.here.ranks - 1;
            const int previous = decreasing ? (rank < last ? rank + 1 : -1) : rank - 1;
            const int next = decreasing ? rank - 1 : (rank < last ? rank + 1 : -1);
            sharded_axis_scan<Exclusive, T, Scan> engine(x, y, g, mine.begin, mine.end, decreasing, scan);
            engine.run(input.comm(), previous, next, ranges);
            return;
        }
        if (in.empty()) return;
        std::size_t global_columns = 1;  // elements of the global tensor after the scanned axis
        for (std::size_t d = axis + 1; d < sh.rank_dims; ++d) global_columns *= sh.global[d];
        // Whole lines of the global tensor, the same structure as there: the library's own call — when the sharded
        // axis comes before the scanned one, or when every axis after the scanned one is 1 long (the sharded one among
        // them: this shard is the whole tensor, whose lines are contiguous).
        if (sh.axis < axis || global_columns == 1) {
            tensorops::detail::cumulative(exec, operation, tensor_view<const T>(x, in.sizes()), tensor_view<T>(y, in.sizes()), options, scan);
            return;
        }
        // The sharded axis lies within the columns: whole lines again, but the library would choose its blocks and
        // kernel from this shard's narrower rows; the global tensor's are imposed instead.
        const scan_geometry g = global_scan_geometry<T, Scan>(sh.global, sh.rank_dims, axis, decreasing);
        std::size_t m = 1;
        for (std::size_t d = axis + 1; d < in.rank(); ++d) m *= in.size(d);
        if constexpr (Scan::vectorizable && simd::vectorized) {
            if (g.vector_rows) {
                const std::ptrdiff_t step = (decreasing ? -1 : 1) * static_cast<std::ptrdiff_t>(m);
                const std::ptrdiff_t first_row = decreasing ? static_cast<std::ptrdiff_t>((g.n - 1) * m) : 0;
                for (std::size_t line = 0; line < g.outer; ++line)
                    tensorops::detail::scan_across_rows<Exclusive>(x + line * g.n * m + first_row, y + line * g.n * m + first_row, g.n, step, step, m,
                                                                   g.block, scan);
                return;
            }
        }
        scan_geometry local = g;
        local.inner = m;
        local.block = g.n;
        local.contiguous = false;
        local.vector_rows = false;
        sharded_axis_scan<Exclusive, T, Scan>(x, y, local, 0, g.n, decreasing, scan).run_local();
    };
    if (options.exclusive) run.template operator()<true>();
    else run.template operator()<false>();
    packed.finish(out);
}

/// The nearest ranks before and after this one in the scan's traversal order (rank order, or its reverse when
/// `decreasing`) whose shards hold elements of the axis (-1: none).
[[nodiscard]] inline std::pair<int, int> neighbours_with_elements(const sharding& sh, bool decreasing) {
    const int ranks = sh.here.ranks, step = decreasing ? -1 : 1;
    const auto holds = [&](int r) { return sh.shards[static_cast<std::size_t>(r)].count > 0; };
    int previous = -1, next = -1;
    for (int r = sh.here.rank - step; r >= 0 && r < ranks && previous < 0; r -= step)
        if (holds(r)) previous = r;
    for (int r = sh.here.rank + step; r >= 0 && r < ranks && next < 0; r += step)
        if (holds(r)) next = r;
    return {previous, next};
}

/// The sharded running extreme with indices: the values by sharded_cumulative's path, then the indices from them
/// (along the sharded axis by the chain of scan_indices.hpp; along another, lines wholly local: the library's call).
template <bool Maximum, class T, class I>
void sharded_extreme_with_indices(const executor_ref& exec, std::string_view operation,
                                  const sharded_view<const T>& input, const sharded_view<T>& values,
                                  const sharded_view<I>& indices, const scan_options& options) {
    namespace lib = tensorops::detail;
    const tensor_view<const T>& in = input.local();
    const tensor_view<T>& out = values.local();
    const tensor_view<I>& at = indices.local();
    const auto checks = [&](const std::array<sharding, 3>& shardings) {
        lib::require_same_sizes(operation, "input.local", in, "values.local", out);
        lib::require_same_sizes(operation, "input.local", in, "indices.local", at);
        lib::require_axis(operation, "options.axis", options.axis, in.rank());
        lib::require_direction(operation, "options.direction", options.direction);
        lib::require_unique(operation, "values.local", out);
        lib::require_unique(operation, "indices.local", at);
        lib::require_exact_alias_or_disjoint(operation, "values.local", out, "input.local", in);
        lib::require_disjoint(operation, "indices.local", at, "input.local", in);
        lib::require_disjoint(operation, "indices.local", at, "values.local", out);
        const std::size_t n = shardings[0].global[options.axis];
        if (n > 0 && static_cast<std::uint64_t>(n - 1) > static_cast<std::uint64_t>(std::numeric_limits<I>::max()))
            throw tensorops::error(operation, "indices",
                                   "has an index type whose largest value " +
                                       std::to_string(std::numeric_limits<I>::max()) + " cannot hold the last index " +
                                       std::to_string(n - 1) + " of the axis");
    };
    const auto shardings =
        agree_on_all_shardings(operation, input, std::array<std::string_view, 2>{"values", "indices"}, checks, values,
                               indices);
    const sharding& sh = shardings[0];
    if (options.axis != sh.axis) {  // whole lines on every rank: the library's call (the values are exact, any path)
        if (!in.empty()) lib::cumulative_extreme_with_indices<Maximum>(exec, operation, in, out, at, options);
        return;
    }
    sharded_cumulative_agreed(exec, operation, sh, input, values, options, lib::extreme_scan<T, Maximum>{});
    if (in.empty()) return;
    const bool decreasing = options.direction == axis_direction::decreasing;
    const std::size_t n = sh.along();
    const traversal_range mine = traversal_ranges(sh, decreasing)[static_cast<std::size_t>(sh.here.rank)];
    const std::pair<int, int> neighbours = neighbours_with_elements(sh, decreasing);
    std::vector<T> packed_values;
    if (!is_packed(out)) packed_values = packed_copy(out);
    std::vector<I> packed_indices;
    if (!is_packed(at)) packed_indices.resize(at.element_count());
    I* index_data = packed_indices.empty() ? at.data() : packed_indices.data();
    const T* value_data = packed_values.empty() ? out.data() : packed_values.data();
    const auto write = [&]<bool Exclusive>() {
        write_sharded_extreme_indices<Maximum, Exclusive>(input.comm(), value_data, index_data, sh.outer(), sh.inner(),
                                                          n, mine, decreasing, neighbours.first, neighbours.second);
    };
    if (options.exclusive) write.template operator()<true>();
    else write.template operator()<false>();
    if (!packed_indices.empty()) unpack_into(packed_indices.data(), at);
}

/// The sharded cumulative log-sum-exp (scan_log_sum_exp.hpp): validated as sharded_cumulative, computed on the packed
/// shard by the case the axes call for.
template <class T>
void sharded_log_sum_exp(const executor_ref& exec, const sharded_view<const T>& input, const sharded_view<T>& output,
                         const scan_options& options) {
    constexpr std::string_view operation = "mpi::cumulative_log_sum_exp";
    const tensor_view<const T>& in = input.local();
    const tensor_view<T>& out = output.local();
    const sharding sh = agree_on_scan(operation, input, output, options);
    if (in.empty()) return;  // (every rank's part is its own: no rank waits for an empty one)
    const packed_scan_operands<T> packed(in, out);
    const T* x = packed.x;
    T* y = packed.y;
    const std::size_t axis = options.axis;
    const bool decreasing = options.direction == axis_direction::decreasing;
    std::size_t global_columns = 1;  // elements of the global tensor after the scanned axis
    for (std::size_t d = axis + 1; d < sh.rank_dims; ++d) global_columns *= sh.global[d];
    const auto run = [&]<bool Exclusive>() {
        if (axis != sh.axis) {
            if (sh.axis < axis ||
                global_columns == 1) {  // whole lines laid out as in the global tensor: the library's call
                tensorops::detail::cumulative_log_sum_exp(exec, tensor_view<const T>(x, in.sizes()),
                                                          tensor_view<T>(y, in.sizes()), options);
            } else {
                const std::vector<std::size_t> local(in.sizes().begin(), in.sizes().end());
                lse_scan_sharded_columns<Exclusive>(x, y, local, sh, axis, decreasing);
            }
            return;
        }
        const std::size_t n = sh.along();
        const std::vector<traversal_range> ranges = traversal_ranges(sh, decreasing);
        const traversal_range mine = ranges[static_cast<std::size_t>(sh.here.rank)];
        const std::pair<int, int> neighbours = neighbours_with_elements(sh, decreasing);
        if (sh.inner() > 1)
            lse_scan_sharded_rows<Exclusive>(input.comm(), x, y, sh.outer(), mine.end - mine.begin, sh.inner(),
                                             std::max<std::size_t>(1, n / ranges.size()), decreasing, neighbours.first,
                                             neighbours.second, mine.begin == 0);
        else if (decreasing)
            lse_scan_sharded_lines<Exclusive, true>(input.comm(), x, y, sh.outer(), n, ranges, mine, neighbours.first,
                                                    neighbours.second);
        else
            lse_scan_sharded_lines<Exclusive, false>(input.comm(), x, y, sh.outer(), n, ranges, mine, neighbours.first,
                                                     neighbours.second);
    };
    if (options.exclusive) run.template operator()<true>();
    else run.template operator()<false>();
    packed.finish(out);
}

/// The same shard seen as K (wrapping_kernel_t: a signed integer as its unsigned type).
template <class K, class T>
[[nodiscard]] sharded_view<K> sharded_as(const sharded_view<T>& view) {
    return sharded_view<K>(tensorops::detail::view_as<K>(view.local()), view.axis(), view.offset(), view.global_size(), view.comm());
}

template <template <class> class Scan, class T>
void wrapping_sharded_cumulative(const executor_ref& exec, std::string_view operation, const sharded_view<const T>& input,
                                 const sharded_view<T>& output, const scan_options& options) {
    using K = wrapping_kernel_t<T>;
    sharded_cumulative(exec, operation, sharded_as<const K>(input), sharded_as<K>(output), options, Scan<K>{});
}

}  // namespace detail

/// Cumulative sum of a sharded tensor along `options.axis` (any axis: the sharded one or another), into `output`,
/// sharded exactly as `input` (same communicator, axis and shards). A collective: every rank of the communicator calls
/// it with its own shard, in the same order as its other collectives on that communicator.
///
/// Result: on every rank, bit for bit what tensorops::cumulative_sum computes for that shard's elements on the
/// gathered global tensor laid out packed row-major — for any number of ranks, any shard sizes (unequal, empty) and
/// any executor. The single process computes long scans in fixed blocks fixed by the global shape (see
/// ops/cumulative.hpp); each rank computes the same blocks (mpi/detail/scan_chain.hpp): a block that straddles two
/// shards is completed by passing its running value (and, for a vector step cut in two, its few elements) from one
/// rank to the next. Types, rounding, NaN and wrap-around as tensorops::cumulative_sum; T must be trivially copyable.
/// Aliasing: output.local() may be exactly input.local() (in place); any other overlap is an error.
/// Errors (tensorops::error, on every rank, before anything is written on any rank): anything
/// tensorops::cumulative_sum refuses on a rank's local views, and shardings that do not describe one global tensor
/// (ranks disagreeing on the rank, the axis or the global sizes; shards not tiling the axis in rank order; output
/// sharded differently from input; input.comm() == MPI_COMM_NULL, which is reported on that rank alone).
/// Communication along the sharded axis: one message of the running values (lines × columns) from each rank to the
/// next, and an allgather of the block totals (one per line and column per 512 KiB block or 2 MiB band); along any
/// other axis, none. The executor runs the local scans of lines wholly on this rank; the chain of blocks along the
/// sharded axis runs on the calling thread.
template <additive T, class E>
    requires executor<std::remove_reference_t<E>>
void cumulative_sum(E&& exec, sharded_view<const std::type_identity_t<T>> input, sharded_view<T> output, scan_options options = {}) {
    detail::wrapping_sharded_cumulative<tensorops::detail::sum_scan>(exec, "mpi::cumulative_sum", input, output, options);
}
/// cumulative_sum on the calling thread of each rank.
template <additive T>
void cumulative_sum(sharded_view<const std::type_identity_t<T>> input, sharded_view<T> output, scan_options options = {}) {
    detail::wrapping_sharded_cumulative<tensorops::detail::sum_scan>(sequential, "mpi::cumulative_sum", input, output, options);
}

/// Cumulative product of a sharded tensor: as mpi::cumulative_sum, with × and the identity 1 (integers wrap).
template <multiplicative T, class E>
    requires executor<std::remove_reference_t<E>>
void cumulative_product(E&& exec, sharded_view<const std::type_identity_t<T>> input, sharded_view<T> output, scan_options options = {}) {
    detail::wrapping_sharded_cumulative<tensorops::detail::product_scan>(exec, "mpi::cumulative_product", input, output, options);
}
/// cumulative_product on the calling thread of each rank.
template <multiplicative T>
void cumulative_product(sharded_view<const std::type_identity_t<T>> input, sharded_view<T> output, scan_options options = {}) {
    detail::wrapping_sharded_cumulative<tensorops::detail::product_scan>(sequential, "mpi::cumulative_product", input, output, options);
}

/// Cumulative scan of a sharded tensor with a caller's associative `operation` and its `identity`: as
/// tensorops::cumulative_scan (computed in T, one element at a time, in traversal order), sharded as
/// mpi::cumulative_sum. Along the sharded axis the line is one chain: each rank waits for the running values of the
/// ranks before it (the single process's order allows nothing else).
template <element T, class E, class Operation>
    requires executor<std::remove_reference_t<E>> && std::regular_invocable<const Operation&, const T&, const T&> &&
             std::convertible_to<std::invoke_result_t<const Operation&, const T&, const T&>, T>
void cumulative_scan(E&& exec, sharded_view<const std::type_identity_t<T>> input, sharded_view<T> output, scan_options options, Operation operation,
                     std::type_identity_t<T> identity) {
    detail::sharded_cumulative(exec, "mpi::cumulative_scan", input, output, options,
                               tensorops::detail::custom_scan<T, Operation>{std::move(operation), std::move(identity)});
}
/// cumulative_scan on the calling thread of each rank.
template <element T, class Operation>
    requires std::regular_invocable<const Operation&, const T&, const T&> &&
             std::convertible_to<std::invoke_result_t<const Operation&, const T&, const T&>, T>
void cumulative_scan(sharded_view<const std::type_identity_t<T>> input, sharded_view<T> output, scan_options options, Operation operation,
                     std::type_identity_t<T> identity) {
    detail::sharded_cumulative(sequential, "mpi::cumulative_scan", input, output, options,
                               tensorops::detail::custom_scan<T, Operation>{std::move(operation), std::move(identity)});
}

/// Running maximum of a sharded tensor along `options.axis` into `output`: tensorops::cumulative_max's rule (the
/// first largest element met in traversal order, bit for bit; the first NaN met, never replaced; the exclusive scan's
/// first output −inf, lowest() for integers), sharded as mpi::cumulative_sum and computed by its blocks and chain (the
/// single process computes the running extremes with the sum scans' kernels and blocks, and a maximum selects one of
/// its operands: any grouping gives the same bits). Result, aliasing, errors and communication as
/// mpi::cumulative_sum; T must be trivially copyable.
template <maximum_scannable T, class E>
    requires executor<std::remove_reference_t<E>>
void cumulative_max(E&& exec, sharded_view<const std::type_identity_t<T>> input, sharded_view<T> output,
                    scan_options options = {}) {
    detail::sharded_cumulative(exec, "mpi::cumulative_max", input, output, options,
                               tensorops::detail::extreme_scan<T, true>{});
}
/// cumulative_max on the calling thread of each rank.
template <maximum_scannable T>
void cumulative_max(sharded_view<const std::type_identity_t<T>> input, sharded_view<T> output,
                    scan_options options = {}) {
    cumulative_max<T>(sequential, input, output, options);
}
/// Running minimum of a sharded tensor: as mpi::cumulative_max with "smallest" for "largest" (the exclusive identity
/// +inf, highest() for integers).
template <minimum_scannable T, class E>
    requires executor<std::remove_reference_t<E>>
void cumulative_min(E&& exec, sharded_view<const std::type_identity_t<T>> input, sharded_view<T> output,
                    scan_options options = {}) {
    detail::sharded_cumulative(exec, "mpi::cumulative_min", input, output, options,
                               tensorops::detail::extreme_scan<T, false>{});
}
/// cumulative_min on the calling thread of each rank.
template <minimum_scannable T>
void cumulative_min(sharded_view<const std::type_identity_t<T>> input, sharded_view<T> output,
                    scan_options options = {}) {
    cumulative_min<T>(sequential, input, output, options);
}

/// Running maximum into `values` (exactly mpi::cumulative_max's output) and the index of the running extreme into
/// `indices`, all three sharded alike: tensorops::cumulative_max with indices' rule (increasing, the first largest of
/// x[0..i]; decreasing, the last largest of x[i..n−1]; the first NaN met; the coordinate along the axis in the global
/// tensor), bit for bit what that call computes on the gathered tensor, for any number of ranks, shard sizes and
/// executor. Along the sharded axis the indices follow from the running values (scan_indices.hpp): each rank's last
/// value and index pass to the next rank holding elements, one message of lines × columns each. Aliasing: `values` may
/// be exactly `input`; `indices` shares no memory with either. Errors (on every rank, nothing written): as
/// mpi::cumulative_max (naming `values`), `indices` sized or sharded differently, a layout mapping two coordinates to
/// one element, shared memory, an index type that cannot hold the global axis' last index.
template <maximum_scannable T, index_element I, class E>
    requires executor<std::remove_reference_t<E>>
void cumulative_max(E&& exec, sharded_view<const std::type_identity_t<T>> input, sharded_view<T> values,
                    sharded_view<I> indices, scan_options options = {}) {
    detail::sharded_extreme_with_indices<true>(exec, "mpi::cumulative_max", input, values, indices, options);
}
/// cumulative_max with indices on the calling thread of each rank.
template <maximum_scannable T, index_element I>
void cumulative_max(sharded_view<const std::type_identity_t<T>> input, sharded_view<T> values, sharded_view<I> indices,
                    scan_options options = {}) {
    detail::sharded_extreme_with_indices<true>(sequential, "mpi::cumulative_max", input, values, indices, options);
}
/// Running minimum with indices of a sharded tensor: as mpi::cumulative_max with indices, "smallest" for "largest".
template <minimum_scannable T, index_element I, class E>
    requires executor<std::remove_reference_t<E>>
void cumulative_min(E&& exec, sharded_view<const std::type_identity_t<T>> input, sharded_view<T> values,
                    sharded_view<I> indices, scan_options options = {}) {
    detail::sharded_extreme_with_indices<false>(exec, "mpi::cumulative_min", input, values, indices, options);
}
/// cumulative_min with indices on the calling thread of each rank.
template <minimum_scannable T, index_element I>
void cumulative_min(sharded_view<const std::type_identity_t<T>> input, sharded_view<T> values, sharded_view<I> indices,
                    scan_options options = {}) {
    detail::sharded_extreme_with_indices<false>(sequential, "mpi::cumulative_min", input, values, indices, options);
}

/// Cumulative log-sum-exp of a sharded tensor along `options.axis` (any axis) into `output`, sharded as `input`:
/// tensorops::cumulative_log_sum_exp's values (y[i] = ln Σ e^x over the elements a cumulative sum takes; the exclusive
/// scan's first output −inf; computed stably from a running maximum and a sum rescaled to it), bit for bit what that
/// call computes on the gathered packed tensor on this build, for any number of ranks, shard sizes and executor.
/// Types: float64, float32, float16, bfloat16. The single process computes each line sequentially (the operation is
/// not associative in floating point); so do the ranks (mpi/detail/scan_log_sum_exp.hpp): along the sharded axis each
/// line's state passes from rank to rank with the few elements of a kernel step cut by a shard boundary, lines (or
/// blocks of columns) in groups that pipeline — a single long line along the sharded axis is computed one rank after
/// the other. Along any other axis nothing is exchanged. Aliasing, errors and collectiveness as mpi::cumulative_sum.
/// Executor: the library's where lines are wholly local and laid out as in the global tensor; the calling thread
/// elsewhere.
template <builtin_floating T, class E>
    requires executor<std::remove_reference_t<E>>
void cumulative_log_sum_exp(E&& exec, sharded_view<const std::type_identity_t<T>> input, sharded_view<T> output,
                            scan_options options = {}) {
    detail::sharded_log_sum_exp(exec, input, output, options);
}
/// cumulative_log_sum_exp on the calling thread of each rank.
template <builtin_floating T>
void cumulative_log_sum_exp(sharded_view<const std::type_identity_t<T>> input, sharded_view<T> output,
                            scan_options options = {}) {
    detail::sharded_log_sum_exp(sequential, input, output, options);
}

}  // namespace tensorops::mpi
