// tensorops/exec/split.hpp — cutting a planned loop nest into pieces for an executor.
//
// Determinism. A piece is the nest restricted to a range of one *independent* dimension: one whose indices
// name different outputs (a kept axis of a reduction, a line of a scan, a slice of a copy). Each output is
// then computed by the same kernel, with the same operations in the same order, as in the whole nest — only
// which thread computes it changes — so the result is bit-identical for any number of pieces and threads.
// The callers state which dimensions are independent; the rules that keep a piece on the same kernel path
// (below) are applied here:
//   - the innermost dimension is cut only in blocks of `line_block` elements, the last block taking the rest,
//     so every piece keeps at least a full vector of it and its tail is the whole nest's tail;
//   - the other dimensions are cut anywhere.
// Sizing. Pieces carry at least the executor's min_piece_bytes() of memory traffic (256 KiB unless it says
// otherwise; smaller tensors run on the calling thread with no executor overhead) and there are at most
// `pieces_per_thread` per thread of the executor, so threads that finish early take more (the pool hands out pieces
// dynamically). With that many, the pieces shrink as the work goes on, so that the threads end together without
// more pieces (piece_begin): the idle end of a call, where one thread has finished and the other still works, shrinks.
// 16 even pieces a thread instead end as close together but measured slower: each piece starts new streams through
// memory (the figures: bench/journal/notes-reduce-and-log-sum-exp.md).
#pragma once

#include <algorithm>
#include <cstddef>

#include "../iter/plan.hpp"
#include "executor.hpp"

namespace tensorops::detail {

inline constexpr std::size_t pieces_per_thread = 4;
/// Granularity of cuts in the innermost dimension, in elements (a multiple of every vector width).
inline constexpr std::size_t line_block = 64;

/// The first of `units` units of work that piece `piece` of `pieces` takes (`units` for piece ≥ pieces), on an
/// executor of `threads` threads. Where there are pieces_per_thread (k) pieces a thread and enough units, the pieces
/// shrink as the work goes on ("guided"): k rounds of one piece a thread, the pieces of round r each 1/(threads ·
/// 2^(r+1)) of the units and those of the last round as big as the round before (16, 16, 8, 8, 4, 4, 4, 4 MiB of
/// 64 MiB on two threads) — the threads' last pieces are small, so they end close together, and there are no more
/// pieces than before (each starts new streams through memory). Otherwise even pieces. Which piece covers which
/// units never changes a result (pieces compute independent outputs, or fixed units combined in order).
[[nodiscard]] inline std::size_t piece_begin(std::size_t piece, std::size_t pieces, std::size_t units, std::size_t threads) noexcept {
    if (piece >= pieces) return units;
    constexpr std::size_t k = pieces_per_thread;
    const std::size_t smallest_share = threads << (k - 1);  // the last rounds' pieces are units / smallest_share
    if (threads < 2 || pieces != k * threads || units < smallest_share) return piece * units / pieces;
    const std::size_t round = piece / threads, index = piece % threads;
    const std::size_t size = round + 1 < k ? std::size_t{1} << (k - 2 - round) : 1;  // in 1 / smallest_share
    const std::size_t before = threads * ((std::size_t{1} << (k - 1)) - (std::size_t{1} << (k - 1 - round))) + index * size;
    return units / smallest_share * before + units % smallest_share * before / smallest_share;
}

/// How a nest is cut: dimension `dimension` (of `size` indices, `units` blocks of `unit` indices, the last block
/// taking the rest) into `pieces` ranges of whole blocks (piece_begin, for `threads` threads). pieces ≤ 1: not cut.
struct nest_cut {
    std::size_t dimension = 0;
    std::size_t pieces = 1;
    std::size_t units = 1;
    std::size_t unit = 1;
    std::size_t size = 0;
    std::size_t threads = 1;

    [[nodiscard]] std::size_t begin(std::size_t piece) const noexcept { return piece_begin(piece, pieces, units, threads) * unit; }
    [[nodiscard]] std::size_t end(std::size_t piece) const noexcept { return piece + 1 == pieces ? size : begin(piece + 1); }
};

/// How many pieces `bytes` of memory traffic are worth on `exec`: at least min_piece_bytes each, at most
/// pieces_per_thread per thread; 1 on a sequential executor.
[[nodiscard]] inline std::size_t wanted_pieces(const executor_ref& exec, std::size_t bytes) noexcept {
    if (exec.concurrency() <= 1) return 1;
    return std::max<std::size_t>(1, std::min(bytes / exec.min_piece_bytes(), pieces_per_thread * exec.concurrency()));
}

/// Chooses the cut of `nest` into `wanted` pieces for an executor of `threads` threads (the pieces' sizes:
/// piece_begin): among the `independent` dimensions, the outermost that gives that many, else the one that gives the
/// most.
template <std::size_t Operands>
[[nodiscard]] nest_cut choose_cut(const iter::loop_nest<Operands>& nest, iter::axis_set independent, std::size_t wanted, std::size_t threads) {
    nest_cut cut;
    cut.threads = threads;
    if (nest.rank == 0) return cut;
    if (wanted < 2) return cut;
    const std::size_t last = nest.rank - 1;
    std::size_t best_units = 1;
    for (std::size_t d = 0; d < nest.rank; ++d) {
        if (!independent.test(d)) continue;
        const std::size_t units = d == last ? nest.sizes[d] / line_block : nest.sizes[d];
        if (units <= best_units) continue;
        best_units = units;
        cut.dimension = d;
        if (units >= wanted) break;
    }
    if (best_units < 2) return cut;
    cut.pieces = std::min(wanted, best_units);
    cut.units = best_units;
    cut.unit = cut.dimension == last ? line_block : 1;
    cut.size = nest.sizes[cut.dimension];
    return cut;
}

/// Runs body(piece) for pieces of `nest` through `exec` (see the file comment); body(nest) itself, on this
/// thread, when the nest is not worth cutting. body must only write the outputs of the piece it is given.
template <std::size_t Operands, class Body>
void for_each_piece(const executor_ref& exec, const iter::loop_nest<Operands>& nest, iter::axis_set independent, std::size_t bytes,
                    const Body& body) {
    const nest_cut cut = choose_cut(nest, independent, wanted_pieces(exec, bytes), exec.concurrency());
    if (cut.pieces <= 1) {
        body(nest);
        return;
    }
    exec.parallel_for(cut.pieces, [&](std::size_t piece) {
        body(iter::restrict_dimension(nest, cut.dimension, cut.begin(piece), cut.end(piece)));
    });
}

}  // namespace tensorops::detail
