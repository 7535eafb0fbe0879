// tensorops/ops/detail/reduce/parallel.hpp — the reduce kernels cut into pieces for an executor, bit-identical to the
// sequential kernels: bands of row units (outer), aligned chunks of one line's cascade, chunks of runs of one output.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "../../../core/inline.hpp"
#include "../../../exec/executor.hpp"
#include "../../../exec/split.hpp"
#include "../../../iter/plan.hpp"
#include "../cascade.hpp"
#include "../reduce_nest.hpp"
#include "contiguous.hpp"
#include "outer.hpp"

namespace tensorops::detail {

/// The running rows of units [first, end) of `plan` (row_units), a line of `n` rows of `width` columns from x: unit u's
/// at partial + (u − first) · fuse · width, each computed as reduce_rows computes it — a panel at a time in a row on the
/// piece's stack, in L1, from the identity, the last unit of the line with the rows fusing left over
/// (fold_rows_left_over) — in pieces of whole units on the executor. `origin` as fold_unit's: x may point into the
/// line (a piece holding those units' rows). Each thread streams whole rows, which the hardware prefetchers follow
/// (cutting the rows between threads instead measured slower: not kept). `bytes`: the input's size, to choose the pieces.
template <class T, class R>
void unit_running_rows(const executor_ref& exec, const T* x, std::ptrdiff_t origin, const row_units& plan,
                       std::size_t width, std::size_t n, std::size_t first, std::size_t end,
                       simd::compute_t<T>* partial, std::size_t bytes, const R& r) {
    using C = simd::compute_t<T>;
    const C identity = static_cast<C>(r.identity());
    const std::size_t fuse = plan.fuse, lanes = fuse * width, units = end - first;
    const std::ptrdiff_t step = plan.visit_step / static_cast<std::ptrdiff_t>(fuse);
    if (units == 0) return;
    const std::size_t pieces = std::min(units, wanted_pieces(exec, bytes));
    exec.parallel_for(pieces, [&](std::size_t piece) {
        accumulator_rows<C, 1> running_row;  // in L1: a panel of the running row, stored into `partial` once folded
        C* const running = running_row.row(0);
        const std::size_t piece_end = first + piece_begin(piece + 1, pieces, units, exec.concurrency());
        for (std::size_t u = first + piece_begin(piece, pieces, units, exec.concurrency()); u < piece_end; ++u) {
            for (std::size_t start = 0; start < lanes; start += running_row.panel) {
                const std::size_t w = std::min(running_row.panel, lanes - start);
                fill_row(running, w, identity);
                fold_unit(x + start, w, plan, u, running, r, false, origin);
                // Rows left over only where rows are fused (fuse > 1), and fused rows fit one panel: as reduce_rows.
                if (fuse > 1 && u + 1 == plan.units) fold_rows_left_over(x, n, step, fuse, width, running, r, origin);
                std::copy(running, running + w, partial + (u - first) * lanes + start);
            }
        }
    });
}

/// reduce_rows for a group of one line of `n` rows, `step` apart, on an executor: the line's row_units (the same
/// as reduce_rows', fused rows included) are shared out in pieces of whole units (unit_running_rows), each unit's
/// running row stored into `partial`; then the calling thread combines the running rows in order, as reduce_rows does
/// (unit_combiner). Every output is therefore bit-identical to reduce_rows'. Memory: one row of accumulators per unit
/// (1/128 of the input for f32). Returns false, having done nothing, for a line of fewer than two units. (The running
/// rows had been folded in `partial` itself, filled by the calling thread before the pieces, so that the other
/// thread's first fold of each unit read its row from the caller's cache. Folding on the stack measured neither
/// faster nor slower, and is kept for the serial fill it removes: the figures in
/// bench/journal/notes-reduce-and-log-sum-exp.md.)
template <class T, class R>
bool reduce_rows_in_bands(const executor_ref& exec, const T* x, T* y, std::size_t width, std::size_t n,
                          std::ptrdiff_t step, std::size_t count, const R& r) {
    using C = simd::compute_t<T>;
    const C identity = static_cast<C>(r.identity());
    const row_units plan = row_units::of_line<T>(width, n, step);
    const std::size_t fuse = plan.fuse;
    if (plan.units < 2) return false;
    const std::size_t lanes = fuse * width;
    // Each unit's running row, written whole by the piece that folds it (so left uninitialised here).
    const auto partial = std::make_unique_for_overwrite<C[]>(plan.units * lanes);
    unit_running_rows(exec, x, 0, plan, width, n, 0, plan.units, partial.get(), n * width * sizeof(T), r);
    accumulator_rows<C, 2> rows;  // block, total
    for (std::size_t start = 0; start < width; start += rows.panel) {  // panels of outputs (with fused rows, one)
        const std::size_t w = std::min(rows.panel, width - start);
        const std::size_t panel_lanes = fuse * w;
        fill_row(rows.row(0), panel_lanes, identity);
        fill_row(rows.row(1), panel_lanes, identity);
        unit_combiner<T, R> combiner{rows.row(0), rows.row(1), panel_lanes, r};
        for (std::size_t u = 0; u < plan.units; ++u) combiner.add(partial.get() + u * lanes + start);
        finish_segments(combiner.finish(), w, fuse, y + start, count, r);
    }
    return true;
}

/// The value of one full block of a contiguous line with blocks (R::line_blocks) — cascade_block steps of
/// inner_accumulators vectors from `at`, the accumulators combined as a balanced tree (combine_all) — as the inner
/// kernel (contiguous.hpp) pushes it into its cascade. `lines`: hint_stream_step's (hints_lines of what the caller reads).
template <class T, class R>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline simd::pack<T> line_block_value(const T* at, const R& r,
                                                                             const simd::pack<T>& identity,
                                                                             const simd::pack<T>& shift_lanes,
                                                                             bool lines) {
    using P = simd::pack<T>;
    constexpr std::size_t W = P::size, U = inner_accumulators;
    const auto combine = [&](const P& a, const P& b) { return r.combine_lanes(a, b); };
    std::array<P, U> acc;
    iter::fill_unrolled(acc, identity);
    for (std::size_t step = 0; step < cascade_block; ++step, at += U * W) {
        hint_stream_step(at, U * W * sizeof(T), lines);
        iter::unrolled<U>([&](auto k) { acc[k] = combine(acc[k], r.lift_lanes(simd::load(at + k * W), shift_lanes)); });
    }
    return combine_all(acc, combine);
}

/// The full blocks [first, end) of a contiguous line with blocks (block b at block_at(b), line_block_value's
/// elements) as nodes of the line's cascade: each the sum of 2^level blocks starting at a multiple of 2^level (a node
/// of the cascade's tree, which pushing those blocks one by one builds: cascade::push_at), at most 2^max_level blocks,
/// in order; computed in pieces on the executor. Pushed with push_at into a cascade that holds the line's first `first`
/// blocks, they leave it as pushing every block would. (tensorops::mpi: a rank's blocks, pushed after the ranks
/// before it.) `lines`: line_block_value's.
template <class T, class R, class BlockAt>
[[nodiscard]] std::vector<std::pair<simd::pack<T>, std::size_t>> line_block_nodes(const executor_ref& exec,
                                                                                  std::size_t first, std::size_t end,
                                                                                  std::size_t max_level,
                                                                                  const BlockAt& block_at, const R& r,
                                                                                  bool lines) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // (first block, level)
    for (std::size_t b = first; b < end;) {
        std::size_t level = 0;
        while (level < max_level && b % (std::size_t{2} << level) == 0 && b + (std::size_t{2} << level) <= end) ++level;
        spans.emplace_back(b, level);
        b += std::size_t{1} << level;
    }
    const P identity(static_cast<C>(r.identity())), shift_lanes(static_cast<C>(r.identity()));
    const auto combine = [&](const P& a, const P& b) { return r.combine_lanes(a, b); };
    std::vector<std::pair<P, std::size_t>> nodes(spans.size());
    if (!spans.empty())
        exec.parallel_for(spans.size(), [&](std::size_t i) {
            cascade<P> own;
            const auto [start, level] = spans[i];
            for (std::size_t b = start; b < start + (std::size_t{1} << level); ++b)
                own.push(line_block_value(block_at(b), r, identity, shift_lanes, lines), combine);
            nodes[i] = {own.level(level), level};
        });
    return nodes;
}

/// A reduction with blocks (R::line_blocks: sums, max/min, integer products) of one contiguous line of `length`
/// elements into *y, on an executor. The inner kernel
/// (accumulate_runs) pushes a block every cascade_block steps of inner_accumulators vectors into a binary-counter
/// cascade, whose tree does not depend on where the stream is cut: 2^k blocks starting at a multiple of 2^k form
/// one node of it. So the line's first blocks are cut into such aligned chunks, each summed by a piece with a
/// cascade of its own; the calling thread carries the chunk nodes into the cascade at level k (push_at) and runs
/// the rest of the line itself, continuing that cascade (accumulate_runs_after). Bit-identical to the sequential kernel. Returns false
/// (nothing done) when the line is too short to be worth it.
template <class T, class R>
bool reduce_line_in_chunks(const executor_ref& exec, const T* x, T* y, std::size_t length, std::size_t count, const R& r) {
    using P = simd::pack<T>;
    constexpr std::size_t W = P::size, U = inner_accumulators, block = cascade_block * U * W;
    const std::size_t full_blocks = length / block;
    const std::size_t wanted = wanted_pieces(exec, length * sizeof(T));
    if (wanted < 2 || full_blocks < 2) return false;
    std::size_t level = 0;
    while ((full_blocks >> (level + 1)) >= wanted) ++level;
    const std::size_t chunk_blocks = std::size_t{1} << level, chunks = full_blocks >> level;
    const typename R::accumulator no_shift = r.identity();
    const auto combine = [&](const P& a, const P& b) { return r.combine_lanes(a, b); };
    const bool lines = hints_lines(length * sizeof(T));  // as the sequential kernel's (reduce_inner)
    // `chunks` aligned nodes of 2^level blocks (line_block_nodes cuts [0, chunks · 2^level) into exactly those).
    const auto block_at = [&](std::size_t b) { return x + b * block; };
    const auto nodes = line_block_nodes<T>(exec, 0, chunks * chunk_blocks, level, block_at, r, lines);
    cascade<P> blocks;
    for (const auto& [node, node_level] : nodes) blocks.push_at(node, node_level, combine);
    const std::size_t done = chunks * chunk_blocks * block;
    *y = r.finish(accumulate_runs_after(x + done, iter::loop_nest<2>{}, length - done, r, no_shift, blocks, 0, all_runs,
                                        lines),
                  count, no_shift);
    return true;
}

/// One output over several contiguous runs (every dimension reduced, the innermost contiguous and at least a vector
/// long: what reduce_inner computes), on an executor: by chunks of runs (accumulate_run_chunks), in pieces. Every
/// function but log-sum-exp (log_sum_exp/runs.hpp). Returns false (nothing done) when the group is not that, or not
/// worth cutting.
template <class T, class R>
bool reduce_runs_on(const executor_ref& exec, const T* input, T* output, const iter::loop_nest<2>& nest, iter::axis_set reduced,
                    std::size_t count, const R& r) {
    const auto one = [&](std::ptrdiff_t y, std::ptrdiff_t x, const group_runs& grouped, std::size_t wanted) {
        const typename R::accumulator no_shift = r.identity();
        output[y] = r.finish(accumulate_run_chunks(&exec, wanted, input + x, grouped.runs, grouped.length, r, no_shift), count, no_shift);
    };
    return for_the_output_of_runs<T>(exec, nest, reduced, simd::lanes<T>, one);
}

}  // namespace tensorops::detail
