// tensorops/ops/detail/arg_reduce/parallel.hpp — argmax/argmin cut into pieces for an executor, bit-identical to the
// sequential kernels: bands of rows, chunks of one long line.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "../../../exec/executor.hpp"
#include "../../../exec/split.hpp"
#include "../reduce_nest.hpp"
#include "../row_walk.hpp"
#include "contiguous.hpp"
#include "outer_by_extreme.hpp"

namespace tensorops::detail {

/// arg_reduce_rows_by_extreme for a group of one line of `n` rows (`step` apart, flat indices index_base + i ·
/// index_step) on an executor: bands of rows (guided pieces: piece_begin) each find every column's extreme and its
/// first (last) index within the band (arg_find_extremes); the calling thread merges the bands in walk order
/// (arg_merge_rows: a later band's tie wins only with Last) — exact, as every argmax. Bands, not pieces of columns
/// (exec/split.hpp): a piece of columns walks every row for a cache line of it, and two threads that way were no
/// faster than one (the figures: bench/journal/notes-reduce-shared-and-argmax.md).
template <bool Maximum, bool Last, class T>
void arg_reduce_rows_by_extreme_in_bands(const executor_ref& exec, const T* x, const index_output& y, std::size_t width, std::size_t n,
                                         std::ptrdiff_t step, std::ptrdiff_t index_step, std::ptrdiff_t index_base) {
    const std::size_t bands = std::min(n / 4, wanted_pieces(exec, n * width * sizeof(T))), threads = exec.concurrency();
    const std::unique_ptr<T[]> extremes(new T[bands * width]);
    const std::unique_ptr<std::int64_t[]> answers(new std::int64_t[bands * width]);
    exec.parallel_for(bands, [&](std::size_t band) {
        const std::size_t first = piece_begin(band, bands, n, threads), end = piece_begin(band + 1, bands, n, threads);
        const row_line line{static_cast<std::ptrdiff_t>(first) * step, static_cast<std::ptrdiff_t>(first) * index_step};
        for (std::size_t start = 0; start < width; start += arg_extreme_panel)
            arg_find_extremes<Maximum, Last>(x + start, std::span<const row_line>(&line, 1), end - first, step, index_step, index_base,
                                             std::min(arg_extreme_panel, width - start), extremes.get() + band * width + start,
                                             answers.get() + band * width + start);
    });
    for (std::size_t band = 1; band < bands; ++band)
        arg_merge_rows<Maximum, Last>(extremes.get(), answers.get(), extremes.get() + band * width, answers.get() + band * width, width);
    y.put_contiguous(0, answers.get(), width);
}

/// The outer kernel for a group of one line of `n` rows (`step` apart, flat indices index_base + i · index_step)
/// on an executor: bands of rows are shared out, each finds every column's best value and its index (arg_update_row,
/// one row at a time, in walk order), and the calling thread takes the bands in walk order.
///
/// Algorithm. A band that started from its own first row would replace its running best often at first (on random data
/// row i of a walk replaces some lane of a vector with probability ≈ W / i), and each replacement is a mispredicted
/// branch: bands that each start afresh pay the many replacements of a walk's first rows once per band where the
/// sequential walk pays them once. So a band starts instead from the answer of the latest band before it that has
/// finished, when there is one (`finished`): its running best is then already that of many rows. Its answer covers
/// those earlier rows too, so the bands overlap; the calling thread combines them in order, and a band's answer
/// replaces the running one only where it is better or, with Last, ties at a later index. That is exact whichever bands
/// finished before which: the running answer after band b is the first (last) extreme of every row up to b's end — an
/// earlier row that b's answer came from is one of them, and a tie with it keeps the running answer — so the answer is
/// the sequential one.
template <bool Maximum, bool Last, class T>
void arg_reduce_rows_in_bands(const executor_ref& exec, const T* x, const index_output& y, std::size_t width, std::size_t n,
                              std::ptrdiff_t step, std::ptrdiff_t index_step, std::ptrdiff_t index_base) {
    using C = simd::compute_t<T>;
    using L = typename simd::lane_index_pack<simd::pack<T>>::value_type;
    const std::size_t bands = std::min(n / 4, wanted_pieces(exec, n * width * sizeof(T)));
    std::vector<C> best(bands * width);
    std::vector<L> best_index(bands * width);
    const std::unique_ptr<std::atomic<bool>[]> finished(new std::atomic<bool>[bands]());
    exec.parallel_for(bands, [&](std::size_t band) {
        const std::size_t first_row = band * n / bands, end = (band + 1) * n / bands;
        C* values = best.data() + band * width;
        L* indices = best_index.data() + band * width;
        bool fresh = true;
        for (std::size_t earlier = band; fresh && earlier-- > 0;) {
            if (!finished[earlier].load(std::memory_order_acquire)) continue;
            std::copy_n(best.data() + earlier * width, width, values);
            std::copy_n(best_index.data() + earlier * width, width, indices);
            fresh = false;
        }
        // arg_walk_rows' second running best, for the far-apart halves of a band that it walks in pairs.
        const bool pairs = arg_walks_pairs(end - first_row, pitch_bytes<T>(step));
        std::vector<C> other_values(pairs ? width : 0);
        std::vector<L> other_indices(pairs ? width : 0);
        arg_walk_rows<Maximum, Last>(x, step, index_base, index_step, first_row, end, values, indices, other_values.data(), other_indices.data(),
                                     width, fresh);
        finished[band].store(true, std::memory_order_release);
    });
    for (std::size_t band = 1; band < bands; ++band)  // see above: a tie from an earlier row loses
        arg_merge_rows<Maximum, Last>(best.data(), best_index.data(), best.data() + band * width, best_index.data() + band * width, width);
    y.put_contiguous(0, best_index.data(), width);
}

/// The outer kernel for a line of `n` back-to-back rows of `width` columns fused `fuse` at a time (arg_walk_fused_rows;
/// flat indices index_base + i · index_step) on an executor: bands of whole groups, each walked from nothing into a
/// running best of its own (fuse · width lanes); the calling thread merges them in walk order lane by lane (each lane of
/// a later band holds later rows: arg_merge_rows), then finishes the line as the sequential kernel does
/// (arg_finish_fused_rows) — exact, the same answer. Needs n / fuse ≥ 2.
template <bool Maximum, bool Last, class T>
void arg_reduce_fused_rows_in_bands(const executor_ref& exec, const T* x, const index_output& y, std::size_t width, std::size_t n,
                                    std::size_t fuse, std::ptrdiff_t index_step, std::ptrdiff_t index_base) {
    using C = simd::compute_t<T>;
    using L = typename simd::lane_index_pack<simd::pack<T>>::value_type;
    const std::size_t lanes = fuse * width, groups = n / fuse;
    const std::size_t bands = std::min(groups, wanted_pieces(exec, n * width * sizeof(T)));
    std::vector<C> best(bands * lanes);
    std::vector<L> best_index(bands * lanes), offsets(lanes);
    segment_offsets(offsets.data(), width, fuse, index_step);
    exec.parallel_for(bands, [&](std::size_t band) {
        arg_walk_fused_rows<Maximum, Last>(x, width, fuse, index_base, index_step, band * groups / bands, (band + 1) * groups / bands,
                                           best.data() + band * lanes, best_index.data() + band * lanes, offsets.data());
    });
    for (std::size_t band = 1; band < bands; ++band)
        arg_merge_rows<Maximum, Last>(best.data(), best_index.data(), best.data() + band * lanes, best_index.data() + band * lanes, lanes);
    arg_finish_fused_rows<Maximum, Last>(x, n, width, fuse, index_base, index_step, best.data(), best_index.data());
    y.put_contiguous(0, best_index.data(), width);
}

/// Argmax / argmin of one contiguous line of `length` elements (flat indices index_base + i) into output element 0,
/// on an executor: pieces of whole arg_blocks find their best site as arg_reduce_inner does (locate_extreme per
/// block, compared in order with `replaces`); the calling thread takes the pieces' winners in order with the same
/// rule and searches the winning site once. Comparisons are exact: the answer is the sequential one. Returns false
/// (nothing done) when the line is too short to be worth it.
template <bool Maximum, bool Last, class T>
bool arg_reduce_line_in_chunks(const executor_ref& exec, const T* x, const index_output& output, std::size_t length,
                               std::ptrdiff_t index_base) {
    using C = simd::compute_t<T>;
    const std::size_t blocks = (length + arg_block - 1) / arg_block;
    const std::size_t pieces = std::min(blocks / 2, wanted_pieces(exec, length * sizeof(T)));
    if (pieces < 2) return false;
    std::vector<extreme_site<C>> winners(pieces);  // sites with `start` relative to x
    exec.parallel_for(pieces, [&](std::size_t piece) {
        extreme_site<C> best{};
        for (std::size_t b = piece * blocks / pieces; b < (piece + 1) * blocks / pieces; ++b) {
            const std::size_t start = b * arg_block;
            auto site = locate_extreme<Maximum, Last>(x + start, std::min(arg_block, length - start));
            site.start += start;
            if (b == piece * blocks / pieces || replaces_value<Maximum, Last>(site.value, best.value)) best = site;
        }
        winners[piece] = best;
    });
    extreme_site<C> best = winners[0];
    for (std::size_t piece = 1; piece < pieces; ++piece)
        if (replaces_value<Maximum, Last>(winners[piece].value, best.value)) best = winners[piece];
    const std::size_t position = find_in_block<Last>(x + best.start, best.length, best.value);
    output.put(0, index_base + static_cast<std::ptrdiff_t>(best.start + position));
    return true;
}

}  // namespace tensorops::detail
