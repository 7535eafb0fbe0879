// tensorops/mpi/detail/reduce_rows.hpp — floating reductions over the sharded axis that follow the single process's
// order without gathering the tensor: the outer kernel's walk of a line of rows ([n rows, w columns] reduced over its
// rows, the rows sharded; lines side by side where kept axes come before the sharded one) — each rank folds the units
// of that walk whose rows it holds, and the units' running rows are combined in order along the ranks — LOG_SUM_EXP's
// outer walk likewise, and one contiguous line reduced whole (reduce_one_line: the inner kernel's blocks as aligned
// nodes of its cascade, the cascade passed along the ranks).
//
// Why this gives the single process's bits: the outer kernel (ops/detail/reduce/outer.hpp) fixes its order of
// operations by the global line alone — units of rows (row_units: blocks of cascade_block rows, paired within
// windows of a few MiB), each folded into a running row from the identity, the running rows then combined in unit
// order (unit_combiner: a block row, a total row). Here unit u is folded by the rank that holds its first row: from its
// shard when the unit's rows end there, else from a copy of its rows to the end of the unit, the rows past the shard
// received from the ranks that hold them — only the units of the window the shard's end cuts, and the rows fusing left
// over at the line's end (at most one window and a few rows per rank, whatever n). Then the combination runs along
// the ranks in rank order: each receives the combiner's state (block row, total row, rows in the block) from the rank
// before, adds its units' running rows, passes it on; the last rank finishes the outputs and sends them out.
// Communication per rank: the rows its window needs (bounded by the window, not by the tensor's length), two rows of
// accumulators along the chain, and the outputs. LOG_SUM_EXP's outer kernel (log_sum_exp/outer.hpp) is walked the
// same way: its units are blocks of lse_block_rows rows, its chain passes the running (maximum, sum) rows.
#pragma once

#include "mpi_c.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "../../exec/executor.hpp"
#include "../../ops/detail/compiled.hpp"
#include "../../ops/detail/log_sum_exp/outer.hpp"
#include "../../ops/detail/reduce/contiguous.hpp"
#include "../../ops/detail/reduce/outer.hpp"
#include "../../ops/detail/reduce/parallel.hpp"
#include "../../ops/detail/reduce/row_units.hpp"
#include "../../ops/detail/tuning.hpp"
#include "../../simd/pack.hpp"
#include "../sharded.hpp"
#include "collectives.hpp"

namespace tensorops::mpi::detail {

/// The global reduction as one line of rows: `n` rows of `width` contiguous columns, rank q's rows
/// [rows_per_index · offset_q, rows_per_index · (offset_q + count_q)).
struct line_of_rows {
    std::size_t n = 0, width = 0, rows_per_index = 0;
    std::size_t lines = 1;  // lines of rows side by side: the product of the kept axes before the sharded one
};

/// Whether reducing the packed global tensor over `axes` (the sharded axis among them) is, for element type T, the
/// outer kernels' walk of lines of rows that this file computes: the reduced axes are the sharded one and those right
/// after it, [a, k); the kept ones after them, [k, rank), hold at least two elements; those before it, [0, a), are kept
/// and make `lines` lines of rows side by side (a batch of sequences sharded along the sequence, say). The planned
/// nest is then [lines, n, width] reduced over n, the outer layout, each line walked by reduce_rows alone. Also n ≥ 2,
/// a build with the vector kernels, T's operators header-only (a compiled library chooses its kernels' instruction set
/// at run time). Sizes are the global ones: the same verdict on every rank.
template <class T>
[[nodiscard]] bool is_a_line_of_rows(const sharding& sh, std::span<const std::size_t> axes, line_of_rows& line) {
    if constexpr (!simd::vectorized || tensorops::detail::compiled_element<T>) {
        return false;
    } else {
        const std::size_t a = sh.axis, k = a + axes.size();
        if (axes.empty() || k >= sh.rank_dims) return false;
        for (std::size_t d = a; d < k; ++d)
            if (std::find(axes.begin(), axes.end(), d) == axes.end()) return false;
        std::size_t lines = 1, n = 1, width = 1;
        for (std::size_t d = 0; d < a; ++d) lines *= sh.global[d];
        for (std::size_t d = a; d < k; ++d) n *= sh.global[d];
        for (std::size_t d = k; d < sh.rank_dims; ++d) width *= sh.global[d];
        if (lines == 0 || n < 2 || width < 2) return false;
        line = {n, width, n / sh.global[a], lines};
        return true;
    }
}

/// Whether reducing the packed global tensor over `axes`, the sharded axis kept, is for element type T the outer
/// kernel's walk of one line of rows whose columns the shards cut: the reduced axes are the leading ones, [0, k) with
/// k ≥ 1, their n ≥ 2 rows, the kept ones after them `width` ≥ 2 columns (the sharded one among them, so each rank holds
/// a stretch of every row's columns, or several stretches where kept axes come before the sharded one). Also a build with
/// the vector kernels, T's operators header-only. The same verdict on every rank.
template <class T>
[[nodiscard]] bool is_columns_of_rows(const sharding& sh, std::span<const std::size_t> axes, line_of_rows& line) {
    if constexpr (!simd::vectorized || tensorops::detail::compiled_element<T>) {
        return false;
    } else {
        const std::size_t k = axes.size();
        if (k == 0 || sh.axis < k) return false;
        for (std::size_t d = 0; d < k; ++d)
            if (std::find(axes.begin(), axes.end(), d) == axes.end()) return false;
        std::size_t n = 1, width = 1;
        for (std::size_t d = 0; d < k; ++d) n *= sh.global[d];
        for (std::size_t d = k; d < sh.rank_dims; ++d) width *= sh.global[d];
        if (n < 2 || width < 2) return false;
        line = {n, width, 0, 1};
        return true;
    }
}

/// The outputs of a line of rows whose columns the shards cut (is_columns_of_rows) that this rank holds, packed into
/// `result` (`columns` of them): its shard, [n rows, columns] packed at `shard`, walked by policy r (a function with row
/// blocks) with the whole line's plan (row_units::of_line of the global width; the visits `columns` apart):
/// tensorops::detail::reduce_rows_by_plan says why each column gets the bits the whole line gives it.
template <class T, class R>
void reduce_columns_of_rows(const T* shard, const line_of_rows& line, std::size_t columns, T* result, const R& r) {
    if (columns == 0) return;
    namespace lib = tensorops::detail;
    lib::row_units plan = lib::row_units::of_line<T>(line.width, line.n, static_cast<std::ptrdiff_t>(line.width));
    plan.visit_step = static_cast<std::ptrdiff_t>(plan.fuse * columns);
    lib::reduce_rows_by_plan(shard, result, columns, line.n, plan, line.n, r);
}

/// The units of the outer kernel's walk (row_units) as rows of the line: unit u starts at first_row(u) (rising with u)
/// and ends before end_row(u); the last unit takes the rows fusing left over, to the line's end.
struct outer_walk_units {
    tensorops::detail::row_units plan;
    std::size_t n = 0;

    [[nodiscard]] std::size_t count() const noexcept { return plan.units; }
    [[nodiscard]] std::size_t first_row(std::size_t unit) const noexcept {
        return plan.first_block(unit) * tensorops::detail::cascade_block * plan.fuse;
    }
    [[nodiscard]] std::size_t end_row(std::size_t unit) const noexcept {
        constexpr std::size_t B = tensorops::detail::cascade_block;
        if (unit + 1 == plan.units) return n;
        std::size_t end = std::min(plan.visits, (plan.first_block(unit) + 1) * B);
        if (const std::size_t partner = plan.partner_block(unit); partner * B < plan.visits)
            end = std::min(plan.visits, (partner + 1) * B);
        return end * plan.fuse;
    }
};

/// The units of the outer kernel's walk of `line` (one: a short line, or one the few-row kernel takes).
template <class T>
[[nodiscard]] std::size_t outer_walk_unit_count(const line_of_rows& line) noexcept {
    return tensorops::detail::row_units::of_line<T>(line.width, line.n, static_cast<std::ptrdiff_t>(line.width)).units;
}

/// Units of `size` rows each from the line's first, in order, the last one shorter: the blocks of the outer
/// log-sum-exp kernel (log_sum_exp/outer.hpp: lse_block_rows rows) and the fixed blocks of a line (fixed_blocks.hpp:
/// line_fold_block elements, one per "row").
struct fixed_size_units {
    std::size_t n = 0, size = 1;

    [[nodiscard]] std::size_t count() const noexcept { return (n + size - 1) / size; }
    [[nodiscard]] std::size_t first_row(std::size_t unit) const noexcept { return unit * size; }
    [[nodiscard]] std::size_t end_row(std::size_t unit) const noexcept { return std::min(n, (unit + 1) * size); }
};

/// The full blocks of the inner kernel's walk of one contiguous line (contiguous.hpp: cascade_block steps of
/// inner_accumulators vectors each) as units of one element per "row".
template <class T>
struct line_blocks {
    static constexpr std::size_t elements =
        tensorops::detail::cascade_block * tensorops::detail::inner_accumulators * simd::pack<T>::size;
    std::size_t n = 0;

    [[nodiscard]] std::size_t count() const noexcept { return n / elements; }
    [[nodiscard]] std::size_t first_row(std::size_t unit) const noexcept { return unit * elements; }
    [[nodiscard]] std::size_t end_row(std::size_t unit) const noexcept { return (unit + 1) * elements; }
};

/// Where each rank's rows and units lie (the same table on every rank): rank q folds the units whose first row it
/// holds, [units_begin[q], units_begin[q + 1]); those reach to row needs_end[q], and the first of them that reaches
/// past its shard starts at copy_begin[q] (rows_end[q] when none does).
struct unit_owners {
    std::vector<std::size_t> rows_begin, rows_end;
    std::vector<std::size_t> units_begin;
    std::vector<std::size_t> needs_end, copy_begin;

    template <class Units>
    unit_owners(const sharding& sh, const line_of_rows& line, const Units& units) {
        const std::size_t ranks = sh.shards.size();
        rows_begin.resize(ranks);
        rows_end.resize(ranks);
        units_begin.resize(ranks + 1);
        needs_end.resize(ranks);
        copy_begin.resize(ranks);
        for (std::size_t q = 0; q < ranks; ++q) {
            rows_begin[q] = sh.shards[q].offset * line.rows_per_index;
            rows_end[q] = rows_begin[q] + sh.shards[q].count * line.rows_per_index;
            // The first unit whose first row is at or after the shard's start.
            std::size_t low = 0, high = units.count();
            while (low < high) {
                const std::size_t mid = low + (high - low) / 2;
                if (units.first_row(mid) < rows_begin[q]) low = mid + 1;
                else high = mid;
            }
            units_begin[q] = low;
        }
        units_begin[ranks] = units.count();
        for (std::size_t q = 0; q < ranks; ++q) {
            needs_end[q] = rows_end[q];
            copy_begin[q] = rows_end[q];
            for (std::size_t u = units_begin[q]; u < units_begin[q + 1]; ++u) {
                const std::size_t end = units.end_row(u);
                if (end <= rows_end[q]) continue;
                needs_end[q] = std::max(needs_end[q], end);
                copy_begin[q] = std::min(copy_begin[q], units.first_row(u));
            }
        }
    }
    /// Whether unit u of rank q's reaches past its shard (so is folded from the copy).
    template <class Units>
    [[nodiscard]] bool from_copy(const Units& units, std::size_t q, std::size_t u) const noexcept {
        return units.end_row(u) > rows_end[q];
    }
};

/// Sends every rank the rows past its shard that its units need (owners.needs_end), from the ranks that hold them, and
/// receives this rank's into `copy` (rows [copy_begin, needs_end) of each of the `lines` lines, one after the other,
/// the rows of its own shard among them copied from `shard`, whose lines hold its rows one after the other).
/// Nonblocking, in messages of at most message_byte_limit bytes, each pair of ranks's in line order.
template <class T>
void exchange_unit_rows(MPI_Comm comm, const unit_owners& owners, std::size_t me, const T* shard, std::size_t width,
                        std::size_t lines, std::vector<T>& copy) {
    const std::size_t ranks = owners.rows_begin.size(), row_bytes = width * sizeof(T);
    const std::size_t begin = owners.copy_begin[me], end = owners.needs_end[me];
    const std::size_t copied = end > begin ? (end - begin) * width : 0;              // elements of one line's copy
    const std::size_t mine = (owners.rows_end[me] - owners.rows_begin[me]) * width;  // of one line of the shard
    copy.assign(lines * copied, T{});
    if (end > begin && owners.rows_end[me] > begin)
        for (std::size_t l = 0; l < lines; ++l)
            std::memcpy(copy.data() + l * copied, shard + l * mine + (begin - owners.rows_begin[me]) * width,
                        (owners.rows_end[me] - begin) * row_bytes);
    std::vector<MPI_Request> requests;
    const auto receive = [&](T* rows, std::size_t size, std::size_t from) {
        post_receive_bytes(comm, rows, size, static_cast<int>(from), gather_tag, requests);
    };
    const auto send = [&](const T* rows, std::size_t size, std::size_t to) {
        post_send_bytes(comm, rows, size, static_cast<int>(to), gather_tag, requests);
    };
    for (std::size_t l = 0; l < lines; ++l)
        for (std::size_t q = 0; q < ranks; ++q) {
            if (q == me) continue;
            // Rows q holds that this rank needs; rows this rank holds that q needs (past q's shard: q before it).
            const std::size_t in_begin = std::max(owners.rows_begin[q], owners.rows_end[me]),
                              in_end = std::min(owners.rows_end[q], end);
            if (in_begin < in_end)
                receive(copy.data() + l * copied + (in_begin - begin) * width, (in_end - in_begin) * row_bytes, q);
            const std::size_t out_begin = std::max(owners.rows_begin[me], owners.rows_end[q]),
                              out_end = std::min(owners.rows_end[me], owners.needs_end[q]);
            if (out_begin < out_end)
                send(shard + l * mine + (out_begin - owners.rows_begin[me]) * width, (out_end - out_begin) * row_bytes,
                     q);
        }
    wait_for(requests);
}

/// The outputs the last rank of the chain finished, from it to every rank (root < 0) or to `root`, into `result` there.
template <class T>
void deliver_outputs(MPI_Comm comm, const sharding& sh, std::vector<T>& outputs, T* result, int root) {
    const int last = sh.here.ranks - 1;
    const std::size_t output_bytes = outputs.size() * sizeof(T);
    if (root < 0) {
        broadcast_bytes(comm, outputs.data(), output_bytes, last);
    } else if (root != last) {
        if (sh.here.rank == last) send_bytes(comm, outputs.data(), output_bytes, root, gather_tag);
        else if (sh.here.rank == root) receive_bytes(comm, outputs.data(), output_bytes, last, gather_tag);
    }
    if (root < 0 || root == sh.here.rank) std::copy(outputs.begin(), outputs.end(), result);
}

/// The global reduction of `line` (is_a_line_of_rows) by policy r, this rank's shard packed at `shard`: the
/// lines · width outputs into `result` on every rank (root < 0) or on `root` (result unused elsewhere). Bit for bit the
/// outer kernel's outputs on the gathered lines (the file comment says why; each line is walked alone, and its units
/// and owners are the same in every line). A collective: every rank calls it.
template <class T, class R>
void reduce_line_of_rows(const executor_ref& exec, const sharding& sh, MPI_Comm comm, const T* shard,
                         const line_of_rows& line, T* result, int root, const R& r) {
    using C = simd::compute_t<T>;
    namespace lib = tensorops::detail;
    const lib::row_units plan = lib::row_units::of_line<T>(line.width, line.n, static_cast<std::ptrdiff_t>(line.width));
    const outer_walk_units units{plan, line.n};
    const unit_owners owners(sh, line, units);
    const std::size_t me = static_cast<std::size_t>(sh.here.rank), ranks = sh.shards.size();
    const std::size_t lanes = plan.fuse * line.width, width = line.width, lines = line.lines;
    std::vector<T> copy;
    exchange_unit_rows(comm, owners, me, shard, width, lines, copy);

    // This rank's units' running rows, line by line: from the shard, or from the copy where a unit's rows reach past
    // the shard.
    const std::size_t first = owners.units_begin[me], end = owners.units_begin[me + 1], units_here = end - first;
    const auto partial = std::make_unique_for_overwrite<C[]>(lines * units_here * lanes);
    const std::size_t mine = (owners.rows_end[me] - owners.rows_begin[me]) * width;  // elements of a line here
    const std::size_t copied = (owners.needs_end[me] - owners.copy_begin[me]) * width;
    for (std::size_t l = 0; l < lines; ++l)
        for (std::size_t u = first; u < end;) {
            const bool from_copy = owners.from_copy(units, me, u);
            std::size_t run_end = u + 1;
            while (run_end < end && owners.from_copy(units, me, run_end) == from_copy) ++run_end;
            const T* x = from_copy ? copy.data() + l * copied : shard + l * mine;
            const std::size_t origin_row = from_copy ? owners.copy_begin[me] : owners.rows_begin[me];
            lib::unit_running_rows(exec, x, static_cast<std::ptrdiff_t>(origin_row * width), plan, width, line.n, u,
                                   run_end, partial.get() + (l * units_here + u - first) * lanes, mine * sizeof(T), r);
            u = run_end;
        }

    // The combination along the ranks: each line's block row and total row, and the rows in a block (the same in
    // every line), from the rank before.
    const C identity = static_cast<C>(r.identity());
    std::vector<C> rows(2 * lines * lanes, identity);  // per line: block row, total row
    std::size_t in_block = 0;
    const std::size_t rows_bytes = rows.size() * sizeof(C);
    std::vector<unsigned char> state(rows_bytes + sizeof(std::size_t));
    if (me > 0) {
        receive_bytes(comm, state.data(), state.size(), static_cast<int>(me - 1), chain_tag);
        std::memcpy(rows.data(), state.data(), rows_bytes);
        std::memcpy(&in_block, state.data() + rows_bytes, sizeof(std::size_t));
    }
    std::vector<T> outputs(lines * width);
    std::size_t in_block_after = in_block;
    for (std::size_t l = 0; l < lines; ++l) {
        C* const block = rows.data() + 2 * l * lanes;
        lib::unit_combiner<T, R> combiner{block, block + lanes, lanes, r, in_block};
        for (std::size_t u = first; u < end; ++u) combiner.add(partial.get() + (l * units_here + u - first) * lanes);
        in_block_after = combiner.in_block;
        if (me + 1 == ranks)
            lib::finish_segments(combiner.finish(), width, plan.fuse, outputs.data() + l * width, line.n, r);
    }
    if (me + 1 < ranks) {
        std::memcpy(state.data(), rows.data(), rows_bytes);
        std::memcpy(state.data() + rows_bytes, &in_block_after, sizeof(std::size_t));
        send_bytes(comm, state.data(), state.size(), static_cast<int>(me + 1), chain_tag);
    }
    deliver_outputs(comm, sh, outputs, result, root);
}

/// LOG_SUM_EXP of `line` (is_a_line_of_rows, at least two blocks), this rank's shard packed at `shard`: the
/// lines · width outputs into `result` on every rank (root < 0) or on `root`, each line walked alone. The outer
/// log-sum-exp kernel's order (log_sum_exp/outer.hpp): blocks of lse_block_rows rows, each block's (maximum, shift,
/// sums) rows computed from its rows alone, in the kernel's panels (a lane's vector, whose second pass a non-finite
/// sum or an unserved maximum calls for, is the same as there), then merged in block order into running (maximum, sum)
/// rows: here each rank computes the blocks whose first row it holds (the one its shard's end cuts from a copy, its
/// rows past the shard received), and the merge runs along the ranks, the running rows passed from rank to rank. Bit
/// for bit the kernel's outputs on the gathered lines. A collective.
template <class T>
void log_sum_exp_line_of_rows(const executor_ref& exec, const sharding& sh, MPI_Comm comm, const T* shard,
                              const line_of_rows& line, T* result, int root) {
    using C = simd::compute_t<T>;
    namespace lib = tensorops::detail;
    const fixed_size_units units{line.n, lib::lse_block_rows};
    const unit_owners owners(sh, line, units);
    const std::size_t me = static_cast<std::size_t>(sh.here.rank), ranks = sh.shards.size(), width = line.width;
    const std::size_t lines = line.lines;
    std::vector<T> copy;
    exchange_unit_rows(comm, owners, me, shard, width, lines, copy);

    // This rank's blocks: maximum, shift and sums rows of each, computed as reduce_rows_log_sum_exp_in_bands does; a
    // block of line l is block (l, b), l · blocks + b − first in order.
    const std::size_t first = owners.units_begin[me], end = owners.units_begin[me + 1], blocks = end - first;
    const std::unique_ptr<C[]> kept(new C[3 * lines * blocks * width]);
    const auto row_of = [&](std::size_t l, std::size_t b, std::size_t k) {
        return kept.get() + (3 * (l * blocks + b - first) + k) * width;
    };
    const std::size_t mine = (owners.rows_end[me] - owners.rows_begin[me]) * width;  // elements of a line here
    const std::size_t copied = (owners.needs_end[me] - owners.copy_begin[me]) * width;
    const std::size_t threads = exec.concurrency(), all = lines * blocks;
    const std::size_t pieces = std::min(all, lib::wanted_pieces(exec, lines * mine * sizeof(T)));
    if (pieces > 0)
        exec.parallel_for(pieces, [&](std::size_t piece) {
            std::array<const T*, lib::lse_block_rows> block;
            lib::accumulator_rows<C, lib::lse_accumulator_rows> own;
            const std::size_t piece_end = lib::piece_begin(piece + 1, pieces, all, threads);
            for (std::size_t i = lib::piece_begin(piece, pieces, all, threads); i < piece_end; ++i) {
                const std::size_t l = i / blocks, b = first + i % blocks;
                const bool from_copy = owners.from_copy(units, me, b);
                const T* x = from_copy ? copy.data() + l * copied : shard + l * mine;
                const std::size_t origin_row = from_copy ? owners.copy_begin[me] : owners.rows_begin[me];
                const std::size_t row = units.first_row(b), rows = units.end_row(b) - row;
                for (std::size_t start = 0; start < width; start += own.panel) {
                    const std::size_t w = std::min(own.panel, width - start);
                    own.place_apart_from(x + start, 0);
                    for (std::size_t j = 0; j < rows; ++j) block[j] = x + start + (row + j - origin_row) * width;
                    lib::log_sum_exp_block(block.data(), rows, w, own.row(0), own.row(1), own.row(2));
                    for (std::size_t k = 0; k < 3; ++k) std::copy_n(own.row(k), w, row_of(l, b, k) + start);
                }
            }
        });

    // The merge along the ranks: each line's running (maximum, sum) rows from the rank before.
    std::vector<C> running(2 * lines * width);
    for (std::size_t l = 0; l < lines; ++l) {
        std::fill_n(running.begin() + static_cast<std::ptrdiff_t>(2 * l * width), width,
                    -std::numeric_limits<C>::infinity());
        std::fill_n(running.begin() + static_cast<std::ptrdiff_t>((2 * l + 1) * width), width, C(0));
    }
    const std::size_t state_bytes = running.size() * sizeof(C);
    if (me > 0) receive_bytes(comm, running.data(), state_bytes, static_cast<int>(me - 1), chain_tag);
    std::vector<T> outputs(lines * width);
    for (std::size_t l = 0; l < lines; ++l) {
        C* const m = running.data() + 2 * l * width;
        for (std::size_t b = first; b < end; ++b)
            lib::log_sum_exp_merge<T>(m, m + width, row_of(l, b, 0), row_of(l, b, 1), row_of(l, b, 2), width);
        if (me + 1 == ranks) lib::log_sum_exp_finish(m, m + width, outputs.data() + l * width, width, line.n);
    }
    if (me + 1 < ranks) send_bytes(comm, running.data(), state_bytes, static_cast<int>(me + 1), chain_tag);
    deliver_outputs(comm, sh, outputs, result, root);
}

/// Sends rank P − 1 the elements [begin, n) of the line from the ranks that hold them, into `tail` there.
template <class T>
void gather_tail(MPI_Comm comm, const unit_owners& owners, std::size_t me, const T* shard, std::size_t begin,
                 std::size_t n, std::vector<T>& tail) {
    const std::size_t ranks = owners.rows_begin.size(), last = ranks - 1;
    std::vector<MPI_Request> requests;
    const auto send = [&](const T* data, std::size_t elements) {
        post_send_bytes(comm, data, elements * sizeof(T), static_cast<int>(last), gather_tag, requests);
    };
    const auto receive = [&](T* data, std::size_t elements, std::size_t from) {
        post_receive_bytes(comm, data, elements * sizeof(T), static_cast<int>(from), gather_tag, requests);
    };
    if (me == last) tail.assign(n - begin, T{});
    for (std::size_t q = 0; q < ranks; ++q) {
        const std::size_t from = std::max(begin, owners.rows_begin[q]), to = std::min(n, owners.rows_end[q]);
        if (from >= to) continue;
        if (q == me && me == last)
            std::copy(shard + (from - owners.rows_begin[q]), shard + (to - owners.rows_begin[q]),
                      tail.begin() + static_cast<std::ptrdiff_t>(from - begin));
        else if (q == me) send(shard + (from - owners.rows_begin[q]), to - from);
        else if (me == last) receive(tail.data() + (from - begin), to - from, q);
    }
    wait_for(requests);
}

/// The global reduction of one contiguous line (whole_line_length in reduce_line_blocks.hpp; at least two full blocks)
/// by policy r (a function with line blocks), this rank's shard packed at `shard`: the one output into `result` on
/// every rank (root < 0) or on `root`. The inner kernel's order (contiguous.hpp): full blocks pushed in order into a
/// cascade (a binary counter), then the elements after the last full block continuing it. Here each rank computes the blocks whose first element it holds (the one its
/// shard's end cuts from a copy, its elements past the shard received), as aligned nodes of the cascade's tree
/// (line_block_nodes); the cascade passes along the ranks, each pushing its nodes (push_at: what pushing the blocks
/// would do); the last rank receives the elements after the full blocks, continues the cascade over them and finishes
/// the output. Bit for bit the single process's output. A collective.
template <class T, class R>
void reduce_one_line(const executor_ref& exec, const sharding& sh, MPI_Comm comm, const T* shard,
                     const line_of_rows& line, T* result, int root, const R& r) {
    using P = simd::pack<T>;
    namespace lib = tensorops::detail;
    const line_blocks<T> units{line.n};
    const unit_owners owners(sh, line, units);
    const std::size_t me = static_cast<std::size_t>(sh.here.rank), ranks = sh.shards.size();
    std::vector<T> copy, tail;
    exchange_unit_rows(comm, owners, me, shard, 1, 1, copy);
    const std::size_t tail_begin = units.count() * units.elements;
    gather_tail(comm, owners, me, shard, tail_begin, line.n, tail);

    const std::size_t first = owners.units_begin[me], end = owners.units_begin[me + 1];
    const std::size_t wanted =
        std::max<std::size_t>(1, lib::wanted_pieces(exec, (end - first) * units.elements * sizeof(T)));
    std::size_t max_level = 0;
    while (((end - first) >> (max_level + 1)) >= wanted) ++max_level;
    const auto block_at = [&](std::size_t b) {
        return owners.from_copy(units, me, b) ? copy.data() + (units.first_row(b) - owners.copy_begin[me])
                                              : shard + (units.first_row(b) - owners.rows_begin[me]);
    };
    const bool lines = lib::hints_lines(line.n * sizeof(T));  // as the single process's kernel (reduce_inner)
    const auto nodes = lib::line_block_nodes<T>(exec, first, end, max_level, block_at, r, lines);

    // The cascade along the ranks.
    const auto combine = [&](const P& a, const P& b) { return r.combine_lanes(a, b); };
    lib::cascade<P> blocks;
    static_assert(std::is_trivially_copyable_v<lib::cascade<P>>);
    if (me > 0) receive_bytes(comm, &blocks, sizeof(blocks), static_cast<int>(me - 1), chain_tag);
    for (const auto& [node, level] : nodes) blocks.push_at(node, level, combine);
    std::vector<T> outputs(1);
    if (me + 1 < ranks) {
        send_bytes(comm, &blocks, sizeof(blocks), static_cast<int>(me + 1), chain_tag);
    } else {
        const typename R::accumulator no_shift = r.identity();
        outputs[0] = r.finish(lib::accumulate_runs_after(tail.data(), iter::loop_nest<2>{}, tail.size(), r, no_shift,
                                                         blocks, 0, lib::all_runs, lines),
                              line.n, no_shift);
    }
    deliver_outputs(comm, sh, outputs, result, root);
}

}  // namespace tensorops::mpi::detail
