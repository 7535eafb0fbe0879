// tensorops/mpi/reduce.hpp — reduce (the twelve functions) and argmax / argmin of a sharded tensor over any set of
// axes, bit-identical to the single-process operator on the packed global tensor.
//
// Two forms. The sharded axis kept: the output is sharded as the input, every group lies on one rank. The sharded axis
// reduced: the output is the whole reduced tensor, on every rank or on one root. How each result is made:
//   - exact in any order (integer SUM, MULTIPLY, L1, SUM_SQUARE, MAX, MIN: wrapping arithmetic and comparisons;
//     ARGMAX / ARGMIN of any type: comparisons only): each rank reduces its shard with the library, and the partials
//     (one per output per rank) are combined — by MPI's allreduce / reduce for the integer functions, every rank's
//     candidates gathered for ARGMAX / ARGMIN: communication independent of the tensor's size along the sharded axis;
//   - the others (floating sums, products, norms, LOG_SUM_EXP, floating MAX / MIN, whose signed zeros and NaN payloads
//     follow the kernel's order), with the sharded axis kept: locally too when the shard is a piece of the global nest
//     (shard_is_a_piece: every axis before the sharded one kept, a reduced axis after it — reducing the rows of a
//     row-sharded matrix, say), since the library computes every output of such a piece exactly as in the whole nest;
//   - with the sharded axis kept and the leading axes reduced before it (a column-sharded matrix reduced over its
//     rows), by the functions with row blocks: each rank walks its columns with the whole line's plan, no exchange
//     (detail/reduce_rows.hpp, reduce_columns_of_rows); by the others (LOG_SUM_EXP, MULTIPLY) the tensor moved into
//     even ranges of its rows (detail/reshard.hpp, reshard_flat), reduced as a line of rows (below), each rank keeping
//     its columns;
//   - with the sharded axis reduced, when the global call is the outer kernel's walk of lines of rows (the reduced
//     axes the sharded one and those right after it, the kept ones after them at least two elements, any kept ones
//     before it: the rows of a row-sharded matrix reduced into one row, or a batch of sequences sharded along the
//     sequence, say): each rank folds the units whose rows it holds (the walk's units of rows for sums, norms,
//     averages, LOG_SUM, MAX, MIN; LOG_SUM_EXP's blocks of rows), the rows of the one unit or window its shard's end
//     cuts received from the ranks after it, and the units' results are combined in order along the ranks
//     (detail/reduce_rows.hpp): communication bounded by a window of rows and two rows of accumulators per rank; a
//     floating MULTIPLY keeps one running row per line, passed along the ranks in stages of columns that pipeline
//     (detail/reduce_running_row.hpp): communication one running row per line;
//   - every axis reduced, the sharded one axis 0 (the shards are ranges of one contiguous line: a global sum or norm
//     of a sharded vector), for the functions with line blocks (floating sums, norms, averages, LOG_SUM, MAX, MIN):
//     each rank computes the inner kernel's blocks that start on its shard as aligned nodes of the kernel's cascade,
//     the cascade passes along the ranks, and the last rank adds the elements after the last full block (received)
//     and finishes — communication: a block's elements at a shard's end, the cascade (40 vectors), the tail; for
//     floating MULTIPLY and LOG_SUM_EXP, which the kernels compute in fixed blocks folded in order: each block's value
//     where the block starts, the values folded along the ranks (detail/reduce_line_blocks.hpp) — communication: a
//     block's elements at a shard's end and one value;
//   - the reduced axes 0 … k, another than axis 0 sharded among them (the sum of a column-sharded matrix; a batch of
//     sequences sharded along the sequence reduced over both): the global call reduces the rows of one line of rows,
//     so the tensor is moved into even ranges of those rows (detail/reshard.hpp, reshard_flat: one alltoallv, each
//     element once), then reduced as above;
//   - else, when axis 0 is kept (and not sharded), the tensor is re-sharded along its leading kept axes: each rank
//     receives a range of them with every other axis whole, a chunk at a time, reduces each chunk (a range of an outer
//     kept axis gets the bits of the whole call), and the outputs are gathered, or sent to the ranks that own them
//     when the sharded axis is kept (detail/reshard.hpp) — rows whose features are sharded reduced over them, a
//     reduced axis before the sharded one: each element moves once, each rank holds two chunks beside its shard;
//   - else (axis 0 reduced in a layout none of the above follows: short lines; a reduced axis 0 with an axis kept
//     before the sharded one, or a reduced one after it) the global tensor is gathered (on every rank, or on the root) and reduced there: correct and
//     bit-identical, but its communication and memory grow with the tensor. bench/mpi.md: the model and what comes
//     next.
#pragma once

#include "detail/mpi_c.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cumulative.hpp"
#include "detail/gather.hpp"
#include "detail/reduce_exact.hpp"
#include "detail/reduce_line_blocks.hpp"
#include "detail/reduce_parts.hpp"
#include "detail/reduce_rows.hpp"
#include "detail/reduce_running_row.hpp"
#include "detail/reshard.hpp"
#include "sharded.hpp"

namespace tensorops::mpi {

/// Where a reduction over the sharded axis leaves its result: on every rank (root < 0, as an allreduce) or on rank
/// `root` alone (as a reduce; the other ranks' outputs are neither checked nor written).
struct result_at {
    int root = -1;
};
inline constexpr result_at on_every_rank{};
[[nodiscard]] constexpr result_at on_rank(int root) noexcept { return {root}; }

namespace detail {

/// Calls walk(policy) with reduce's policy for `function` on T (ops/reduce.hpp, visit_reduction) when its kernels run on T
/// itself and it has the blocks the walk follows — blocks along a line (`ByLine`: sums, max, min) or blocks of rows
/// (sums, norms, averages, LOG_SUM, max, min) — and returns whether it did.
template <class T, bool ByLine, class Walk>
bool walk_with_policy(reduce_function function, const Walk& walk) {
    bool done = false;
    tensorops::detail::visit_reduction<T>(function, [&]<class K>(const auto& policy) {
        using R = std::remove_cvref_t<decltype(policy)>;
        if constexpr (std::is_same_v<K, T> && (ByLine ? R::line_blocks : R::row_blocks)) {
            walk(policy);
            done = true;
        }
    });
    return done;
}

template <class T, class U>
void sharded_reduce_whole(const executor_ref& exec, std::string_view operation, const sharded_view<const T>& input,
                          const tensor_view<U>& output, reduce_function function, std::span<const std::size_t> axes,
                          axis_direction direction, result_at where);

/// A reduction over axes 0 … k that flat_row_width recognises (rows of `width` elements): the tensor moved into even
/// ranges of its rows (reshard_flat, each element once) and reduced there over its rows as a line of rows — a line when
/// width is 1 — sharded along axis 0. Returns the `width` outputs, packed, where `where` puts them (elsewhere none).
/// A collective.
template <class T, class U>
[[nodiscard]] std::vector<U> reduce_flat_rows(const executor_ref& exec, std::string_view operation, const sharding& sh,
                                              MPI_Comm comm, const T* shard, std::size_t width,
                                              reduce_function function, axis_direction direction, result_at where) {
    shard_range flat;
    const std::unique_ptr<T[]> rows = reshard_flat(comm, sh, shard, width, flat);
    const bool receives = where.root < 0 || where.root == sh.here.rank;
    const auto sizes = [&](std::size_t count) {
        return width == 1 ? std::vector<std::size_t>{count} : std::vector<std::size_t>{count, width};
    };
    const sharded_view<const T> as_rows(tensor_view<const T>(rows.get(), sizes(flat.count / width)), 0,
                                        flat.offset / width, sh.outer() * sh.along() * sh.inner() / width, comm);
    const std::array<std::size_t, 1> along_rows{0};
    std::vector<U> outputs(receives ? width : 0);
    sharded_reduce_whole(exec, operation, as_rows, tensor_view<U>(outputs.data(), sizes(receives ? 1 : 0)), function,
                         std::span<const std::size_t>(along_rows), direction, where);
    return outputs;
}

template <class T, class U>
void sharded_reduce_kept(const executor_ref& exec, std::string_view operation, const sharded_view<const T>& input, const sharded_view<U>& output,
                         reduce_function function, std::span<const std::size_t> axes, axis_direction direction) {
    const auto shardings = agree_on_shardings(operation, input, output, [&] {
        require_function_and_types<T, U>(operation, function);
        if (is_arg(function)) tensorops::detail::require_direction(operation, "direction", direction);
        if (std::find(axes.begin(), axes.end(), input.axis()) != axes.end())
            throw tensorops::error(operation, "axes", "reduce the sharded axis: its result is the whole reduced tensor (give a tensor_view output)");
        (void)tensorops::detail::plan_reduce<2>(operation, input.local(), output.local(), axes);
    });
    const sharding& sh = shardings.first;
    require_global_group<U>(operation, function, sh, axes);  // the same verdict on every rank: from the shared table
    // Locally when the function is exact in any order, or when the shard is a piece of the global nest (its groups then
    // take the global call's kernels and orders). Otherwise a floating group's rounding may follow the shard's layout:
    // its strides (a reduced axis before the sharded one), its place in the innermost kept dimension (vector lanes or
    // tail), or the map of a reduction over no axes (vector or scalar logarithm).
    const bool local = combines_exactly<T>(function) || shard_is_a_piece(sh, axes);
    const packed_input<T> in(input.local());
    if (local) {
        if (!output.local().empty()) reduce_packed(exec, in.data, input.local().sizes(), output.local(), function, axes, direction);
        return;
    }
    if constexpr (std::is_same_v<T, U> && !std::is_integral_v<T>) {
        // The leading axes reduced, the sharded one kept after them (a column-sharded matrix reduced over its rows):
        // each rank walks its columns by the whole line's plan (detail/reduce_rows.hpp).
        line_of_rows line;
        if (is_columns_of_rows<T>(sh, axes, line)) {
            std::vector<T> outputs(output.local().element_count());
            if (walk_with_policy<T, false>(function, [&](const auto& policy) {
                    reduce_columns_of_rows(in.data, line, outputs.size(), outputs.data(), policy);
                })) {
                if (!outputs.empty()) unpack_into(outputs.data(), output.local());
                return;
            }
        }
        if (const std::size_t width = flat_row_width<T>(sh, axes); width > 0) {
            // The leading axes reduced, the sharded one kept, by a function no walk above takes (LOG_SUM_EXP and
            // MULTIPLY, whose columns' bits depend on their place among the global columns): the tensor moved into
            // even ranges of its rows (detail/reshard.hpp), reduced there as a line of rows, the whole output on
            // every rank, this rank's columns kept.
            const std::vector<U> whole = reduce_flat_rows<T, U>(exec, operation, sh, input.comm(), in.data, width,
                                                                function, direction, on_every_rank);
            const std::size_t kept_before = width / (sh.along() * sh.inner()), count = sh.mine().count,
                              run = count * sh.inner();
            std::vector<U> mine(kept_before * run);
            for (std::size_t p = 0; p < kept_before; ++p)
                std::copy_n(whole.data() + (p * sh.along() + sh.mine().offset) * sh.inner(), run,
                            mine.data() + p * run);
            if (!mine.empty()) unpack_into(mine.data(), output.local());
            return;
        }
    }
    if (const leading_split split = leading_kept_split(sh, axes); split.axes > 0) {
        // Whole groups on each rank rather than the whole tensor on every rank (detail/reshard.hpp): the tensor
        // re-sharded along its leading kept axes and reduced there, the outputs sent to the ranks that own them.
        const std::vector<std::size_t> out_sizes = reduced_sizes({sh.global.data(), sh.rank_dims}, axes);
        const std::vector<U> mine =
            reduce_resharded<T, U>(exec, input.comm(), sh, split, in.data, out_sizes, function, axes, direction);
        std::size_t between = 1, inner = 1;
        for (std::size_t d = split.axes; d < sh.axis; ++d) between *= out_sizes[d];
        for (std::size_t d = sh.axis + 1; d < sh.rank_dims; ++d) inner *= out_sizes[d];
        const std::vector<U> outputs = route_pieces(input.comm(), sh, split, mine, between, inner);
        if (!output.local().empty()) unpack_into(outputs.data(), output.local());
        return;
    }
    const std::vector<T> global = gather_global<T>(input.comm(), sh, in.data, -1);
    const std::span<const std::size_t> global_sizes(sh.global.data(), sh.rank_dims);
    extents_array result_sizes = sh.global;
    for (std::size_t axis : axes) result_sizes[axis] = 1;
    std::size_t results = 1;
    for (std::size_t d = 0; d < sh.rank_dims; ++d) results *= result_sizes[d];
    std::vector<U> result(results);
    const std::span<const std::size_t> result_span(result_sizes.data(), sh.rank_dims);
    if (results > 0)
        reduce_locally(exec, tensor_view<const T>(global.empty() ? nullptr : global.data(), global_sizes), tensor_view<U>(result.data(), result_span),
                       function, axes, direction);
    if (output.local().empty()) return;
    // This rank's outputs: the sharded axis is kept, so they are the result's [offset, offset + count) along it.
    const strides_array result_strides = packed_strides(result_sizes, sh.rank_dims);
    const tensor_view<const U> mine(result.data() + sh.mine().offset * static_cast<std::size_t>(result_strides[sh.axis]), output.local().sizes(),
                                    std::span<const std::ptrdiff_t>(result_strides.data(), sh.rank_dims));
    const std::vector<U> packed = packed_copy(mine);
    unpack_into(packed.data(), output.local());
}

template <class T, class U>
void sharded_reduce_whole(const executor_ref& exec, std::string_view operation, const sharded_view<const T>& input, const tensor_view<U>& output,
                          reduce_function function, std::span<const std::size_t> axes, axis_direction direction, result_at where) {
    const int root = where.root;
    const sharding sh = agree_on_sharding(operation, input, [&](const sharding& s) {
        require_function_and_types<T, U>(operation, function);
        if (is_arg(function)) tensorops::detail::require_direction(operation, "direction", direction);
        if (root < -1 || root >= s.here.ranks)
            throw tensorops::error(operation, "where.root", "is " + std::to_string(root) + ": not a rank of the communicator (nor -1, every rank)");
        if (std::find(axes.begin(), axes.end(), s.axis) == axes.end())
            throw tensorops::error(operation, "axes", "keep the sharded axis: the result is sharded as the input (give a sharded_view output)");
        if (root < 0 || root == s.here.rank) (void)tensorops::detail::plan_reduce<2>(operation, input.local(), output, axes);
        else require_axes(operation, axes, input.local().rank());
        require_global_group<U>(operation, function, s, axes);
    });
    const bool receives = root < 0 || root == sh.here.rank;
    const packed_input<T> in(input.local());
    const std::span<const std::size_t> local_sizes = input.local().sizes();
    if (is_arg(function)) {
        arg_reduce_across(exec, sh, input.comm(), in.data, local_sizes, output, function == reduce_function::argmax, axes, direction, root);
        return;
    }
    if constexpr (std::is_same_v<T, U> && fixed_width_integer<T>) {  // the other types: ARGMAX / ARGMIN above, or gathered
        if (combines_exactly<T>(function)) {
            const std::vector<std::size_t> out_sizes = reduced_sizes(local_sizes, axes);
            std::size_t outputs = 1;
            for (std::size_t size : out_sizes) outputs *= size;
            std::vector<T> partial(outputs);
            if (outputs > 0)
                reduce_locally(exec, tensor_view<const T>(in.data, local_sizes), tensor_view<T>(partial.data(), out_sizes), function, axes, direction);
            std::vector<T> result(receives ? outputs : 0);
            combine_exactly(input.comm(), partial, result, function, root);
            if (!receives || outputs == 0) return;
            unpack_into(result.data(), output);
            return;
        }
    }
    if constexpr (std::is_same_v<T, U> && !std::is_integral_v<T>) {
        // The floating functions where the global call's order is one the ranks can follow without the tensor
        // (detail/reduce_rows.hpp): lines of rows reduced over them (the rows of a row-sharded matrix reduced into one
        // row; a batch of sharded sequences) — the outer kernels' units, or LOG_SUM_EXP's blocks, where their rows
        // are, a floating product's running row along the ranks; one contiguous line reduced whole — the inner
        // kernel's blocks where they lie, or for MULTIPLY and LOG_SUM_EXP the fixed blocks. Any other layout:
        // re-sharded or gathered below.
        line_of_rows line;
        std::vector<T> result;
        const auto deliver = [&] {
            if (receives && !output.empty()) unpack_into(result.data(), output);
        };
        if (is_a_line_of_rows<T>(sh, axes, line)) {
            result.resize(receives ? line.lines * line.width : 0);
            if (function == reduce_function::multiply) {  // one running row per line, along the ranks
                multiply_line_of_rows(sh, input.comm(), in.data, line, result.data(), root,
                                      tensorops::detail::product_reduction<T>{});
                return deliver();
            }
            if (function == reduce_function::log_sum_exp) {
                if (line.n > tensorops::detail::lse_block_rows) {  // one block: gathered
                    log_sum_exp_line_of_rows(exec, sh, input.comm(), in.data, line, result.data(), root);
                    return deliver();
                }
            } else if (outer_walk_unit_count<T>(line) >= 2 &&
                       walk_with_policy<T, false>(function, [&](const auto& policy) {
                           reduce_line_of_rows(exec, sh, input.comm(), in.data, line, result.data(), root, policy);
                       })) {  // (one unit: a short line, or one the few-row kernel takes; gathered)
                return deliver();
            }
        } else if (const std::size_t n = whole_line_length<T>(sh, axes); n > 0) {
            namespace lib = tensorops::detail;
            result.resize(receives ? 1 : 0);
            line = {n, 1, n / sh.global[0]};
            if (function == reduce_function::log_sum_exp) {
                if (n > lib::lse_stretch && n > lib::log_sum_exp_short_row_elements<T>) {  // one stretch: gathered
                    log_sum_exp_one_line(exec, sh, input.comm(), in.data, line, result.data(), root);
                    return deliver();
                }
            } else if (function == reduce_function::multiply) {
                if (n > lib::short_row_elements<T>) {  // a short row: gathered
                    multiply_one_line(exec, sh, input.comm(), in.data, line, result.data(), root,
                                      lib::product_reduction<T>{});
                    return deliver();
                }
            } else if (n / line_blocks<T>::elements >= 2 && n > lib::short_row_elements<T> &&
                       walk_with_policy<T, true>(function, [&](const auto& policy) {
                           reduce_one_line(exec, sh, input.comm(), in.data, line, result.data(), root, policy);
                       })) {  // (fewer than two blocks of the cascade: gathered)
                return deliver();
            }
        } else if (const std::size_t width = flat_row_width<T>(sh, axes); width > 0) {
            // The reduced axes 0 … k, another than axis 0 sharded: the global call reduces the rows of one line of rows
            // (one line when every axis is reduced); the tensor moved into even ranges of its rows (detail/reshard.hpp,
            // each element once) and reduced there as a line of rows, or a line, sharded along axis 0.
            const std::vector<U> packed =
                reduce_flat_rows<T, U>(exec, operation, sh, input.comm(), in.data, width, function, direction, where);
            if (receives && !output.empty()) unpack_into(packed.data(), output);
            return;
        }
    }
    if (const leading_split split = leading_kept_split(sh, axes); split.axes > 0) {
        // Whole groups on each rank rather than the whole tensor on every rank (detail/reshard.hpp): the tensor
        // re-sharded along its leading kept axes and reduced there, the outputs gathered.
        const std::vector<std::size_t> out_sizes = reduced_sizes({sh.global.data(), sh.rank_dims}, axes);
        std::size_t per_leading = 1;
        for (std::size_t d = split.axes; d < sh.rank_dims; ++d) per_leading *= out_sizes[d];
        const std::vector<U> mine =
            reduce_resharded<T, U>(exec, input.comm(), sh, split, in.data, out_sizes, function, axes, direction);
        const std::vector<U> all = gather_pieces(input.comm(), sh, split, mine, per_leading, root);
        if (receives && !output.empty()) unpack_into(all.data(), output);
        return;
    }
    const std::vector<T> global = gather_global<T>(input.comm(), sh, in.data, root);
    if (!receives || output.empty()) return;
    const std::span<const std::size_t> global_sizes(sh.global.data(), sh.rank_dims);
    reduce_packed(exec, global.empty() ? nullptr : global.data(), global_sizes, output, function, axes, direction);
}

}  // namespace detail

/// Reduces a sharded tensor over `axes`, the sharded axis kept, into `output`, sharded as the input (same
/// communicator, axis and shards; local sizes 1 on the reduced axes). A collective (every rank of the communicator,
/// in the same order as its other collectives). Functions, types, NaN, empty groups and no axes: as
/// tensorops::reduce, for the built-in arithmetic types, float16 and bfloat16 (ARGMAX / ARGMIN through reduce need an index
/// output; mpi::argmax adds the direction). Result: on every rank, bit for bit what tensorops::reduce computes for
/// that rank's outputs on the gathered global tensor laid out packed row-major, for any number of ranks, any shard
/// sizes and any executor (the file comment says how: locally when the function is exact in any order or the shard a
/// piece of the global nest, else on pieces re-sharded along the leading kept axes, or through the gathered tensor
/// when axis 0 is reduced). Aliasing: output.local() must not
/// overlap input.local(). Errors (tensorops::error, on every rank, before anything is written on any rank): what
/// tensorops::reduce refuses on a rank's local views, a sharded axis among `axes`, and the sharding errors of
/// mpi::cumulative_sum.
template <class E, class In, class U>
    requires executor<std::remove_reference_t<E>> && detail::sharded_reduce_element<std::remove_const_t<In>> && element<U>
void reduce(E&& exec, sharded_view<In> input, sharded_view<U> output, reduce_function function, std::span<const std::size_t> axes) {
    using T = std::remove_const_t<In>;
    detail::sharded_reduce_kept<T, U>(exec, "mpi::reduce", sharded_view<const T>(input), output, function, axes, axis_direction::increasing);
}
/// mpi::reduce (sharded output) on the calling thread of each rank.
template <class In, class U>
    requires detail::sharded_reduce_element<std::remove_const_t<In>> && element<U>
void reduce(sharded_view<In> input, sharded_view<U> output, reduce_function function, std::span<const std::size_t> axes) {
    reduce(sequential, input, output, function, axes);
}

/// Reduces a sharded tensor over `axes`, the sharded axis among them, into `output`: the whole reduced tensor (sizes
/// 1 on the reduced axes, the global sizes elsewhere), on every rank (`where` = on_every_rank) or on rank
/// where.root alone (the other ranks' `output` is neither checked nor written; it may be a default tensor_view).
/// Result: bit for bit what tensorops::reduce computes on the gathered global tensor laid out packed row-major, for
/// any number of ranks, shard sizes and executor. Communication: integer SUM, MULTIPLY, L1, SUM_SQUARE, MAX, MIN
/// (fixed-width integer types) one MPI allreduce (or reduce) of one partial per output; ARGMAX / ARGMIN an allgather
/// (or gather) of one candidate per output per rank — whatever the size of the sharded axis. The floating functions
/// over the sharded axis and those right after it: the rows its shard's end cuts and two rows of accumulators per line
/// (MULTIPLY: its running row); over every axis (axis 0 sharded): a block's elements, a cascade of 40 vectors
/// (MULTIPLY and LOG_SUM_EXP: one value) and the line's last partial block; else, axis 0 kept, the tensor re-sharded
/// along the leading kept axes (each element moved once); else they gather the tensor (see the file comment). Errors
/// as the sharded-output form, with the sharded axis required among `axes` and `where.root` a rank of the communicator
/// or -1.
template <class E, class In, class U>
    requires executor<std::remove_reference_t<E>> && detail::sharded_reduce_element<std::remove_const_t<In>> && element<U>
void reduce(E&& exec, sharded_view<In> input, tensor_view<U> output, reduce_function function, std::span<const std::size_t> axes,
            result_at where = on_every_rank) {
    using T = std::remove_const_t<In>;
    detail::sharded_reduce_whole<T, U>(exec, "mpi::reduce", sharded_view<const T>(input), output, function, axes, axis_direction::increasing, where);
}
/// mpi::reduce (whole output) on the calling thread of each rank.
template <class In, class U>
    requires detail::sharded_reduce_element<std::remove_const_t<In>> && element<U>
void reduce(sharded_view<In> input, tensor_view<U> output, reduce_function function, std::span<const std::size_t> axes, result_at where = on_every_rank) {
    reduce(sequential, input, output, function, axes, where);
}

/// Index of the largest element of each group of a sharded tensor, row-major flattened over `axes` of the GLOBAL
/// tensor (the sharded axis's global indices): as tensorops::argmax (direction increasing: the first largest;
/// decreasing: the last; NaN is the largest), with the sharded axis kept (output sharded as the input) or reduced
/// (output the whole reduced tensor, on every rank or on where.root). Exact for every type and rank count: each rank
/// finds its shard's extreme and the candidates (value, global index; one per output per rank) are compared.
/// Errors as mpi::reduce, plus those of tensorops::argmax on the global group (empty, or an index type too narrow).
template <class E, class In, index_element I>
    requires executor<std::remove_reference_t<E>> && detail::sharded_reduce_element<std::remove_const_t<In>>
void argmax(E&& exec, sharded_view<In> input, sharded_view<I> output, std::span<const std::size_t> axes,
            axis_direction direction = axis_direction::increasing) {
    using T = std::remove_const_t<In>;
    detail::sharded_reduce_kept<T, I>(exec, "mpi::argmax", sharded_view<const T>(input), output, reduce_function::argmax, axes, direction);
}
/// mpi::argmax with the sharded axis among `axes`: the whole output on every rank or on where.root.
template <class E, class In, index_element I>
    requires executor<std::remove_reference_t<E>> && detail::sharded_reduce_element<std::remove_const_t<In>>
void argmax(E&& exec, sharded_view<In> input, tensor_view<I> output, std::span<const std::size_t> axes,
            axis_direction direction = axis_direction::increasing, result_at where = on_every_rank) {
    using T = std::remove_const_t<In>;
    detail::sharded_reduce_whole<T, I>(exec, "mpi::argmax", sharded_view<const T>(input), output, reduce_function::argmax, axes, direction, where);
}
/// Index of the smallest element of each group: as mpi::argmax (NaN is the smallest).
template <class E, class In, index_element I>
    requires executor<std::remove_reference_t<E>> && detail::sharded_reduce_element<std::remove_const_t<In>>
void argmin(E&& exec, sharded_view<In> input, sharded_view<I> output, std::span<const std::size_t> axes,
            axis_direction direction = axis_direction::increasing) {
    using T = std::remove_const_t<In>;
    detail::sharded_reduce_kept<T, I>(exec, "mpi::argmin", sharded_view<const T>(input), output, reduce_function::argmin, axes, direction);
}
/// mpi::argmin with the sharded axis among `axes`.
template <class E, class In, index_element I>
    requires executor<std::remove_reference_t<E>> && detail::sharded_reduce_element<std::remove_const_t<In>>
void argmin(E&& exec, sharded_view<In> input, tensor_view<I> output, std::span<const std::size_t> axes,
            axis_direction direction = axis_direction::increasing, result_at where = on_every_rank) {
    using T = std::remove_const_t<In>;
    detail::sharded_reduce_whole<T, I>(exec, "mpi::argmin", sharded_view<const T>(input), output, reduce_function::argmin, axes, direction, where);
}

/// mpi::argmax and mpi::argmin on the calling thread of each rank (both forms).
template <class In, index_element I>
    requires detail::sharded_reduce_element<std::remove_const_t<In>>
void argmax(sharded_view<In> input, sharded_view<I> output, std::span<const std::size_t> axes, axis_direction direction = axis_direction::increasing) {
    argmax(sequential, input, output, axes, direction);
}
template <class In, index_element I>
    requires detail::sharded_reduce_element<std::remove_const_t<In>>
void argmax(sharded_view<In> input, tensor_view<I> output, std::span<const std::size_t> axes, axis_direction direction = axis_direction::increasing,
            result_at where = on_every_rank) {
    argmax(sequential, input, output, axes, direction, where);
}
template <class In, index_element I>
    requires detail::sharded_reduce_element<std::remove_const_t<In>>
void argmin(sharded_view<In> input, sharded_view<I> output, std::span<const std::size_t> axes, axis_direction direction = axis_direction::increasing) {
    argmin(sequential, input, output, axes, direction);
}
template <class In, index_element I>
    requires detail::sharded_reduce_element<std::remove_const_t<In>>
void argmin(sharded_view<In> input, tensor_view<I> output, std::span<const std::size_t> axes, axis_direction direction = axis_direction::increasing,
            result_at where = on_every_rank) {
    argmin(sequential, input, output, axes, direction, where);
}

}  // namespace tensorops::mpi
