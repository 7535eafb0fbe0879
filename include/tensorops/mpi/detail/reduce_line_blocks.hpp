// tensorops/mpi/detail/reduce_line_blocks.hpp — one contiguous line reduced whole by the functions the kernels compute
// in fixed blocks (ops/detail/fixed_blocks.hpp: floating MULTIPLY and LOG_SUM_EXP, whose running product or running
// (maximum, sum) state has no cascade of blocks to cut): each block's value where the block starts, the values folded
// in order along the ranks.
//
// Why this gives the single process's bits: its kernels (product_run_in_blocks; log_sum_exp_of_run past one stretch)
// compute a line's fixed blocks of line_fold_block elements each from scratch and fold their values in order,
// fold(fold(v0, v1), v2)…, on any executor. Here rank q computes the blocks whose first element it holds — the one its
// shard's end cuts from a copy, its elements past the shard received from the ranks after it (reduce_rows.hpp's
// unit_owners and exchange_unit_rows, with blocks as units) — and the fold runs along the ranks: each receives the
// value so far, folds its blocks' values in, passes it on; the last rank finishes the output. Communication per rank:
// at most one block's elements, one folded value, and the output.
#pragma once

#include "mpi_c.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "../../exec/executor.hpp"
#include "../../exec/split.hpp"
#include "../../ops/detail/fixed_blocks.hpp"
#include "../../ops/detail/log_sum_exp/stretch.hpp"
#include "../../ops/detail/reduce/blocks.hpp"
#include "../../ops/detail/tuning.hpp"
#include "../sharded.hpp"
#include "collectives.hpp"
#include "reduce_rows.hpp"

namespace tensorops::mpi::detail {

/// The length of the contiguous line that reducing the packed global tensor over `axes` is, when it is one — every
/// axis reduced and the sharded one axis 0, so that each shard is a range of the line — else 0. Also 0 in a build
/// without the vector kernels or where T's operators are compiled (the kernels this file follows are not the ones that
/// run then). The same verdict on every rank.
template <class T>
[[nodiscard]] std::size_t whole_line_length(const sharding& sh, std::span<const std::size_t> axes) {
    if constexpr (!simd::vectorized || tensorops::detail::compiled_element<T>) {
        return 0;
    } else {
        if (sh.axis != 0 || axes.size() != sh.rank_dims) return 0;
        std::size_t n = 1;
        for (std::size_t d = 0; d < sh.rank_dims; ++d) n *= sh.global[d];
        return n;
    }
}

/// When reducing the packed global tensor over `axes` is reducing the rows of one line of rows, the reduced axes
/// exactly 0 … k, and another axis than axis 0 is sharded — among the rows (reduced) or among the columns (kept) —
/// the rows' width (the product of the kept axes' sizes; 1 when every axis is reduced: one line), else 0
/// (reshard_flat, then the path of a line of rows, or a line, sharded along axis 0). Also 0 for an empty tensor, and
/// where whole_line_length is always 0. The same verdict on every rank.
template <class T>
[[nodiscard]] std::size_t flat_row_width(const sharding& sh, std::span<const std::size_t> axes) {
    if constexpr (!simd::vectorized || tensorops::detail::compiled_element<T>) {
        return 0;
    } else {
        const std::size_t reduced =
            axes.size();  // axes has no repeats: all below `reduced` means exactly 0 … reduced − 1
        if (sh.axis == 0 || reduced == 0 ||
            std::any_of(axes.begin(), axes.end(), [&](std::size_t a) { return a >= reduced; }))
            return 0;
        std::size_t width = 1;
        for (std::size_t d = reduced; d < sh.rank_dims; ++d) width *= sh.global[d];
        return sh.outer() * sh.along() * sh.inner() > 0 ? width : 0;
    }
}

/// The fold of the values of a line's fixed blocks along the ranks, this rank's shard packed at `shard` (`line`: the
/// line's n and rows_per_index = elements per index of the sharded axis): value(x, count) gives the value of the block
/// of `count` elements at x, fold(a, b) folds b into a. Returns, on the last rank, the values of all the line's blocks
/// folded in order, fold(fold(v0, v1), v2)… (the value of the one block if there is only one); elsewhere an unspecified
/// S. The block values are computed in pieces on `exec` (each block alone: the same bits). A collective.
template <class S, class T, class Value, class Fold>
S fold_line_blocks(const executor_ref& exec, const sharding& sh, MPI_Comm comm, const T* shard,
                   const line_of_rows& line, const Value& value, const Fold& fold) {
    static_assert(std::is_trivially_copyable_v<S>, "the folded value passes between ranks as bytes");
    const fixed_size_units blocks{line.n, tensorops::detail::line_fold_block};  // elements as rows
    const unit_owners owners(sh, line, blocks);
    const std::size_t me = static_cast<std::size_t>(sh.here.rank), ranks = sh.shards.size();
    std::vector<T> copy;
    exchange_unit_rows(comm, owners, me, shard, 1, 1, copy);

    const std::size_t first = owners.units_begin[me], end = owners.units_begin[me + 1], count = end - first;
    std::vector<S> values(count);
    const auto compute = [&](std::size_t b) {
        const std::size_t start = blocks.first_row(b), elements = blocks.end_row(b) - start;
        const T* x = owners.from_copy(blocks, me, b) ? copy.data() + (start - owners.copy_begin[me])
                                                     : shard + (start - owners.rows_begin[me]);
        values[b - first] = value(x, elements);
    };
    const std::size_t pieces =
        std::min(count,
                 tensorops::detail::wanted_pieces(exec, (owners.rows_end[me] - owners.rows_begin[me]) * sizeof(T)));
    if (pieces >= 2)
        exec.parallel_for(pieces, [&](std::size_t piece) {
            for (std::size_t b = first + piece * count / pieces; b < first + (piece + 1) * count / pieces; ++b)
                compute(b);
        });
    else
        for (std::size_t b = first; b < end; ++b) compute(b);

    // The fold along the ranks; `started` false until a rank with blocks has passed its values (an empty shard's
    // rank holds none).
    struct chain_state {
        S folded;
        std::uint8_t started;
    } state{};
    if (me > 0) receive_bytes(comm, &state, sizeof(state), static_cast<int>(me - 1), chain_tag);
    for (std::size_t i = 0; i < count; ++i) {
        state.folded = state.started != 0 ? fold(state.folded, values[i]) : values[i];
        state.started = 1;
    }
    if (me + 1 < ranks) send_bytes(comm, &state, sizeof(state), static_cast<int>(me + 1), chain_tag);
    return state.folded;
}

/// A floating MULTIPLY of one contiguous line (whole_line_length: n elements, longer than a short row), by the product
/// policy r, this rank's shard packed at `shard`: the one output into `result` on every rank (root < 0) or on `root`.
/// Bit for bit what run_reduce_on's product_run_in_blocks gives on the gathered line. A collective.
template <class T, class R>
void multiply_one_line(const executor_ref& exec, const sharding& sh, MPI_Comm comm, const T* shard,
                       const line_of_rows& line, T* result, int root, const R& r) {
    using A = typename R::accumulator;
    const A product = fold_line_blocks<A>(
        exec, sh, comm, shard, line,
        [&](const T* x, std::size_t count) { return tensorops::detail::product_block(x, count, r); },
        [&](const A& a, const A& b) { return r.combine(a, b); });
    std::vector<T> outputs(1);
    if (sh.here.rank + 1 == sh.here.ranks) outputs[0] = r.finish(product, line.n, r.identity());
    deliver_outputs(comm, sh, outputs, result, root);
}

/// LOG_SUM_EXP of one contiguous line longer than one stretch (whole_line_length: n > lse_stretch and longer than a
/// log-sum-exp short row), this rank's shard packed at `shard`: the one output into `result` on every rank (root < 0)
/// or on `root`. Bit for bit what log_sum_exp_of_run gives on the gathered line (its blocks' states merged in order,
/// then finished). A collective.
template <class T>
void log_sum_exp_one_line(const executor_ref& exec, const sharding& sh, MPI_Comm comm, const T* shard,
                          const line_of_rows& line, T* result, int root) {
    namespace lib = tensorops::detail;
    using R = lib::log_sum_exp_reduction<T>;
    using S = lib::log_sum_exp_state<typename R::accumulator>;
    const S state = fold_line_blocks<S>(
        exec, sh, comm, shard, line, [](const T* x, std::size_t count) { return lib::log_sum_exp_block(x, count); },
        [](const S& a, const S& b) { return lib::merge(a, b); });
    std::vector<T> outputs(1);
    if (sh.here.rank + 1 == sh.here.ranks) outputs[0] = R{}.finish(state.sum, line.n, R::shift_for(state.maximum));
    deliver_outputs(comm, sh, outputs, result, root);
}

}  // namespace tensorops::mpi::detail
