// tensorops/ops/detail/reduce/few_rows.hpp — the outer layout over a line of few wide rows: a strip of columns at a
// time, down every row, the whole of a lane's cascade in registers, each output written once.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>

#include "../../../core/inline.hpp"
#include "../../../iter/unroll.hpp"
#include "../../../simd/pack.hpp"
#include "../../../simd/prefetch.hpp"
#include "../row_walk.hpp"
#include "../tuning.hpp"
#include "row_units.hpp"

namespace tensorops::detail {

// Algorithm. reduce_rows folds a line's rows one at a time into rows of accumulators: for a line of few rows each
// accumulator row is filled, folded a few times, combined and finished — several passes over memory for every input
// row's one — and a row wider than the accumulator rows is read in pieces, each stream restarting at every piece. Over
// few rows the outputs are better computed a strip of columns at a time: the strip's vectors of every row, down the
// line, folded in registers in exactly the order reduce_rows folds each lane (running, block and total rows; every
// combine with the same operands in the same order, so the bits are reduce_rows'), finished and stored. Memory sees
// each row as one stream read once from end to end, side by side with the others, and the output as one stream
// written once. Many rows would be as many streams at once in the same L1 sets (rows of whole pages), which serve them
// badly: rows a few at a time are the walk for them (reduce_wide_rows); few_rows_max says how few.

/// The strip of S vectors at lane j of the `plan.visits` rows of the line `plan` describes (fuse 1, one unit), folded
/// and finished into y + j; load / store read and write one vector (partial ones at a row's end). Hints each row's page
/// simd::page_prefetch_distance bytes on. The order of reduce_rows for one unit: the running row folds the rows in turn
/// from the identity, joins the block row (the identity), which joins the total row (the identity), then the finish.
template <std::size_t S, class T, class R, class Load, class Store>
[[TENSOROPS_ALWAYS_INLINE]] inline void reduce_strip_of_rows(const T* x, T* y, std::size_t j, const row_units& plan,
                                                             std::size_t count, const R& r, const Load& load,
                                                             const Store& store) {
    using C = simd::compute_t<T>;
    using P = simd::pack<T>;
    constexpr std::size_t W = simd::lanes<T>;
    const P identity(static_cast<C>(r.identity())), no_shift(C(0));
    std::array<P, S> running;
    iter::fill_unrolled(running, identity);
    const T* row = x + j;
    for (std::size_t i = 0; i < plan.visits; ++i, row += plan.visit_step) {
        iter::unrolled<S>([&](auto s) { running[s] = r.combine_lanes(running[s], r.lift_lanes(P(load(row + s * W)), no_shift)); });
        simd::prefetch_stream_ahead(row, S * W * sizeof(T));
    }
    iter::unrolled<S>([&](auto s) {
        const P block = r.combine_lanes(identity, running[s]);  // unit_combiner::add
        const P total = r.combine_lanes(identity, block);       // unit_combiner::finish
        store(y + j + s * W, r.finish_lanes(total, count, no_shift));
    });
}

static_assert(few_rows_max < cascade_block, "reduce_few_rows walks lines of one unit, unpaired");

/// reduce_rows for a line of at most few_rows_max rows that are not fused (plan.fuse = 1): y[j] for j < width, a strip of
/// few_rows_strip_vectors vectors at a time, then single vectors, then the row's partial end. Bit-identical to
/// reduce_rows. Before the strips, the first page_prefetch_distance bytes of every row are hinted (the strips' own hints
/// reach that far ahead).
template <class T, class R>
void reduce_few_rows(const T* x, T* y, std::size_t width, const row_units& plan, std::size_t count, const R& r) {
    constexpr std::size_t W = simd::lanes<T>, S = few_rows_strip_vectors;
    const auto load = [](const auto* p) TENSOROPS_INLINE_STEP { return simd::load(p); };
    const auto store = [](auto* p, const auto& v) TENSOROPS_INLINE_STEP { simd::store(p, v); };
    const std::size_t start_bytes = std::min(width * sizeof(T), static_cast<std::size_t>(simd::page_prefetch_distance));
    for (std::size_t i = 0; i < plan.visits; ++i) simd::prefetch_stream_start(x + static_cast<std::ptrdiff_t>(i) * plan.visit_step, start_bytes);
    std::size_t j = 0;
    for (; j + S * W <= width; j += S * W) reduce_strip_of_rows<S>(x, y, j, plan, count, r, load, store);
    for (; j + W <= width; j += W) reduce_strip_of_rows<1>(x, y, j, plan, count, r, load, store);
    if (const std::size_t tail = width - j; tail != 0)
        reduce_strip_of_rows<1>(x, y, j, plan, count, r, [tail](const auto* p) { return simd::load_partial(p, tail, {}); },
                                [tail](auto* p, const auto& v) { simd::store_partial(p, v, tail); });
}

}  // namespace tensorops::detail
