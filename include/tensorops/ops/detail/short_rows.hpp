// tensorops/ops/detail/short_rows.hpp — what the short-row kernels of reduce and log-sum-exp share: a group of short
// contiguous rows combined into one register (lane p: row p), and the walk of a tensor's rows in groups and batches.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>

#include "../../core/inline.hpp"
#include "../../iter/nd_loop.hpp"
#include "../../iter/plan.hpp"
#include "../../iter/unroll.hpp"
#include "../../simd/horizontal.hpp"
#include "../../simd/pack.hpp"
#include "../../simd/prefetch.hpp"
#include "cascade.hpp"
#include "stream_hints.hpp"
#include "tuning.hpp"

namespace tensorops::detail {

// ---------------------------------------------------------------------------------------------
// Short rows: the group is one contiguous run of at most short_row_elements elements (2 KiB of floats).
//
// Algorithm. Per output, the general inner kernel sets up inner_accumulators accumulators, combines them and takes one
// horizontal step, and runs shorter than a vector went to the scalar kernel: for runs of a few vectors that costs more
// than reading them, many times over (the figures: bench/journal/notes-reduce-and-log-sum-exp.md). Here the rows are
// taken short_row_group at a time: each row's vectors are combined in order into one accumulator (longer rows: in
// several, below) — its last, partial vector read as the row's last W elements with the lanes already counted set to
// the identity, a run shorter than a vector as one vector with the lanes past it set to the identity (read whole where
// the rows after it are the input's, else by a partial load) — and the group's accumulators are folded into one
// register by simd::reduce_lanes_of_rows, lane p holding row p's combination, which is finished lane-wise and written.
// Each row hints the pages simd::page_prefetch_distance past it (the rows to come, when they lie back to back; a hint
// per line 4 KiB ahead instead measured slower where memory is in 4 KiB pages). Reductions' rows read one by one (below)
// also hint their lines inner_lines_ahead on, as the general kernel hints its steps, where the CPU's prefetchers need
// line hints (hints_lines) and the rows and the input are long enough (hints_short_row_lines): rows of a few lines are
// read in bursts that the hardware prefetchers alone did not keep ahead of on such a CPU, while from its L3 the same
// hints cost (tuning.hpp; the figures: bench/journal/2026-12-02-short-rows-zen5.md). A row's arithmetic does not
// depend on its group (a short group repeats its last row), so pieces of the outputs on any executor compute what the
// whole does.
// Log-sum-exp takes rows of two registers or more in one pass, each row's terms over a reference from its first vector
// (log_sum_exp_short_rows_one_pass), and shorter rows, or rows that reference does not serve, in two: the group's
// maxima, then the sums of e^(x − shift) (from L1); groups are finished (the logarithm) in batches
// (reduce_short_rows_log_sum_exp, log_sum_exp/short_rows.hpp).
// Float sums: one accumulator of ≤ 64 elements per lane, then the lanes pairwise (the general kernel sums up to
// cascade_block = 128 per lane). Rows of short_rows_one_by_one_vectors vectors and short_rows_one_by_one_bytes bytes or
// more (other than log-sum-exp's) are read one after the other instead, not side by side (combine_row_alone): each in
// short_row_chains accumulators (after the first vector, vectors 1, 5, 9, … join the first, 2, 6, 10, … the second, …;
// whole vectors left over and the last, partial one join the first), combined pairwise at the row's end — so a float
// lane's chain sums at most 20 elements, not 64. Read side by side — the group's eight rows a vector each at a time —
// such rows are eight streams through memory at once, and came from memory markedly slower than one by one (in L2 the
// two orders are alike; shorter rows measured slower one by one), on a CPU that does not take the line hints. There,
// line hints 16 KiB ahead did not help the side-by-side reads, nor did two rows side by side (the figures:
// bench/journal/notes-reduce-and-log-sum-exp.md); on one that takes them, see above
// (bench/journal/2026-12-02-short-rows-zen5.md).

/// Whether the short-row kernel reads rows of `length` elements of T, `lanes` a vector, one after the other
/// (combine_row_alone) rather than side by side: rows of short_rows_one_by_one_vectors vectors and
/// short_rows_one_by_one_bytes bytes or more.
template <class T>
[[nodiscard]] constexpr bool reads_rows_one_by_one(std::size_t length, std::size_t lanes) noexcept {
    return length >= short_rows_one_by_one_vectors * lanes && length * sizeof(T) >= short_rows_one_by_one_bytes;
}

/// The lanes of r's combination of the `length` (≥ W) contiguous elements at `row`, lifted with `shift`, in lanes of U
/// (as combine_short_rows): short_row_chains accumulators along the row (from the second vector on, vector i joins chain
/// (i − 1) mod short_row_chains; the first vector, whole vectors left over and the last, partial one, the first chain),
/// combined pairwise at its end.
template <class U, class T, class R, class Shift>
[[TENSOROPS_ALWAYS_INLINE]] inline simd::pack<U> combine_row_alone(const T* row, std::size_t length, const R& r,
                                                                   const Shift& shift) {
    using P = simd::pack<U>;
    using C = simd::compute_t<U>;
    constexpr std::size_t W = P::size, Q = short_row_chains;
    const P identity(static_cast<C>(r.identity()));
    simd::prefetch_stream_ahead(row, length * sizeof(T));
    std::array<P, Q> chain;
    chain[0] = r.lift_lanes(simd::load_as<U>(row), shift);
    iter::unrolled<Q - 1>([&](auto q) TENSOROPS_INLINE_STEP { chain[q + 1] = identity; });
    std::size_t j = W;
    for (; j + Q * W <= length; j += Q * W)
        iter::unrolled<Q>([&](auto q) TENSOROPS_INLINE_STEP { chain[q] = r.combine_lanes(chain[q], r.lift_lanes(simd::load_as<U>(row + j + q * W), shift)); });
    for (; j + W <= length; j += W) chain[0] = r.combine_lanes(chain[0], r.lift_lanes(simd::load_as<U>(row + j), shift));
    if (j < length) {  // the last W elements, of which the first W − (length − j) were counted already
        const auto counted = simd::detail::lanes_below<P>(W - (length - j));
        chain[0] = r.combine_lanes(chain[0], simd::select(counted, identity, r.lift_lanes(simd::load_as<U>(row + length - W), shift)));
    }
    return combine_all(chain, [&](const P& a, const P& b) { return r.combine_lanes(a, b); });
}

/// Whether the short-row reductions hint the lines of `rows` rows of `length` elements of T (combine_rows_hinting_lines):
/// rows read one by one (reads_rows_one_by_one, `lanes` a vector) of at least short_row_hints_row_bytes, an input of at
/// least short_row_hints_min_bytes, and a CPU that takes line hints (hints_lines).
template <class T>
[[nodiscard]] inline bool hints_short_row_lines(std::size_t rows, std::size_t length, std::size_t lanes) noexcept {
    const std::size_t row_bytes = length * sizeof(T);
    return reads_rows_one_by_one<T>(length, lanes) && row_bytes >= short_row_hints_row_bytes &&
           rows * row_bytes >= short_row_hints_min_bytes && hints_lines(rows * row_bytes);
}

/// What combine_short_rows gives G rows read one by one (the same lanes, bit for bit), each row's lines first hinted
/// inner_lines_ahead on: for the inputs hints_short_row_lines picks (mostly in memory). A loop over the rows, out of
/// line, and a walk of its own (reduce_short_rows_in): inlined into combine_short_rows, eight copies of a row's code
/// with the hints slowed that function's other paths, and a branch to this loop slowed its unhinted one-by-one rows in
/// cache.
template <class U, class T, class R, std::size_t G, class Shift>
[[gnu::noinline]] simd::pack<U> combine_rows_hinting_lines(const std::array<const T*, G>& rows, std::size_t length, const R& r,
                                                           const Shift& shift_of) {
    std::array<simd::pack<U>, G> acc;
    for (std::size_t k = 0; k < G; ++k) {
        simd::prefetch_ahead(rows[k], inner_lines_ahead, length * sizeof(T));
        acc[k] = combine_row_alone<U>(rows[k], length, r, shift_of(k));
    }
    return simd::reduce_lanes_of_rows(acc, [&](const simd::pack<U>& a, const simd::pack<U>& b) { return r.combine_lanes(a, b); });
}

/// Lane p (p < G) = r's combination of the `length` (≥ 1) contiguous elements at rows[p], lifted with
/// shift_of(p) (a register; ignored by reductions that are not shifted). Rows shorter than a register are one
/// vector each, its lanes from `length` on set to the identity: read whole where `whole` (the caller knows that W
/// elements from each row's start are input elements: the rows after it), else by a partial load. The lanes that
/// count are the same either way, and so is the value. In lanes of U: T's own, or the 32-bit lanes 8- and 16-bit
/// integers widen to (simd::load_as; r is then the reduction over U). Rows of two registers or more are read
/// `SideBySide` at a time (0: the whole group), or, where `OneByOne` allows and reads_rows_one_by_one says so, one
/// after the other (combine_row_alone).
template <class U, std::size_t SideBySide = 0, bool OneByOne = true, class T, class R, std::size_t G, class Shift>
[[TENSOROPS_ALWAYS_INLINE]] inline simd::pack<U> combine_short_rows(const std::array<const T*, G>& rows,
                                                                    std::size_t length, const R& r,
                                                                    const Shift& shift_of, bool whole = false) {
    using P = simd::pack<U>;
    using C = simd::compute_t<U>;
    constexpr std::size_t W = P::size;
    const P identity(static_cast<C>(r.identity()));
    std::array<P, G> acc;
    if (length < W) {  // one vector per row
        const auto valid = simd::detail::lanes_below<P>(length);
        if (whole)
            iter::unrolled<G>([&](auto k) TENSOROPS_INLINE_STEP { acc[k] = simd::select(valid, r.lift_lanes(simd::load_as<U>(rows[k]), shift_of(k)), identity); });
        else
            iter::unrolled<G>([&](auto k) TENSOROPS_INLINE_STEP {
                acc[k] = simd::select(valid, r.lift_lanes(simd::load_partial_as<U>(rows[k], length), shift_of(k)), identity);
            });
    } else if (OneByOne && reads_rows_one_by_one<T>(length, W)) {
        iter::unrolled<G>([&](auto k) TENSOROPS_INLINE_STEP { acc[k] = combine_row_alone<U>(rows[k], length, r, shift_of(k)); });
    } else {
        // Rows S at a time (a reduction whose lift takes many constants, log-sum-exp's terms, reads fewer at once so that
        // its accumulators stay in registers).
        constexpr std::size_t S = SideBySide == 0 ? G : std::min<std::size_t>(G, SideBySide);
        iter::unrolled<G / S>([&](auto half) TENSOROPS_INLINE_STEP {
            constexpr std::size_t first = half * S;
            iter::unrolled<S>([&](auto i) TENSOROPS_INLINE_STEP {
                constexpr std::size_t k = first + i;
                simd::prefetch_stream_ahead(rows[k], length * sizeof(T));
                acc[k] = r.lift_lanes(simd::load_as<U>(rows[k]), shift_of(k));
            });
            std::size_t j = W;
            for (; j + W <= length; j += W)
                iter::unrolled<S>([&](auto i) TENSOROPS_INLINE_STEP {
                    constexpr std::size_t k = first + i;
                    acc[k] = r.combine_lanes(acc[k], r.lift_lanes(simd::load_as<U>(rows[k] + j), shift_of(k)));
                });
            if (j < length) {  // the last W elements, of which the first W − (length − j) were counted already
                const auto counted = simd::detail::lanes_below<P>(W - (length - j));
                iter::unrolled<S>([&](auto i) TENSOROPS_INLINE_STEP {
                    constexpr std::size_t k = first + i;
                    acc[k] = r.combine_lanes(acc[k], simd::select(counted, identity, r.lift_lanes(simd::load_as<U>(rows[k] + length - W), shift_of(k))));
                });
            }
        });
    }
    return simd::reduce_lanes_of_rows(acc, [&](const P& a, const P& b) { return r.combine_lanes(a, b); });
}

/// The short-row kernels' walk (reduce's and log-sum-exp's): the rows of `kept` — each `length` contiguous elements of T
/// at one element of the kept dimensions — along the innermost kept dimension, a line at a time. For each line,
/// line_kernel(x, y, n, out_step) may take the whole line (returns true: the narrow-row kernels); otherwise its rows are
/// taken in groups of G = short_row_group<U> rows (a line's last group repeats its last row) and batches of
/// short_row_batch groups: group(rows, whole, write) accumulates a group — `whole`: its rows, shorter than a register,
/// may be read a whole register each — and returns what is left to finish (a Pending), or writes its finished lanes at
/// once through write(lanes); after the batch, finish(pending, write) writes each group's lanes (lane k: the group's row
/// k). Finishing a batch after its groups keeps a finish that is a call (a logarithm) off the next group's loads.
/// Always inlined into the kernel that calls it, with its callbacks.
template <class U, class Pending, class T, class LineKernel, class Group, class Finish>
[[TENSOROPS_ALWAYS_INLINE]] inline void walk_short_row_groups(const T* input, T* output, const iter::loop_nest<2>& kept,
                                                              std::size_t length, LineKernel&& line_kernel,
                                                              Group&& group, Finish&& finish) {
    using P = simd::pack<U>;
    constexpr std::size_t G = short_row_group<U>;
    constexpr std::size_t B = short_row_batch;
    // The rows along the innermost kept dimension are taken G at a time with their pointers stepped here: a closure
    // call and a nest step per row cost more than a row of a few elements. A line's last group repeats its last row.
    const std::size_t inner = kept.rank == 0 ? 0 : kept.rank - 1;
    const std::size_t n = kept.rank == 0 ? 1 : kept.sizes[inner];
    const std::ptrdiff_t in_step = kept.rank == 0 ? 0 : kept.strides[1][inner];
    const std::ptrdiff_t out_step = kept.rank == 0 ? 0 : kept.strides[0][inner];
    const bool back_to_back = in_step == static_cast<std::ptrdiff_t>(length);
    iter::for_each_outer_index(kept, inner, [&](const std::array<std::ptrdiff_t, 2>& line) {
        const T* x = input + line[1];
        T* y = output + line[0];
        if (line_kernel(x, y, n, out_step)) return;
        // The G rows from row `first`, whose first is at `at` (a pointer stepped group by group: computed from `first`
        // for every group it measured slower for rows of a few elements), the last row repeated past the line's end.
        const auto group_rows = [&](const T* at, std::size_t first) TENSOROPS_INLINE_STEP {
            std::array<const T*, G> rows;
            if (first + G <= n) iter::unrolled<G>([&](auto k) { rows[k] = at + static_cast<std::ptrdiff_t>(k) * in_step; });
            else iter::unrolled<G>([&](auto k) { rows[k] = x + static_cast<std::ptrdiff_t>(std::min<std::size_t>(first + k, n - 1)) * in_step; });
            return rows;
        };
        // Whether the rows of the group from row `first`, shorter than a register, may be read a whole register each:
        // where the line's rows lie back to back and W elements from the group's last row end within the line, they
        // are the input's own elements (nothing past the line is read: it may be another tensor's, or unmapped). A
        // partial load of 8- and 16-bit lanes goes through memory, many times slower than reading the register whole
        // (the figures: bench/journal/notes-reduce-and-log-sum-exp.md).
        const auto whole_rows = [&](std::size_t first) TENSOROPS_INLINE_STEP {
            return length < P::size && back_to_back && (std::min(first + G, n) - 1) * length + P::size <= n * length;
        };
        // Row `row` … of the group: lane k's value to its output.
        const auto write = [&](std::size_t row, const P& finished) TENSOROPS_INLINE_STEP {
            const auto values = simd::to_array(finished);
            const std::size_t here = std::min(G, n - row);
            T* out = y + static_cast<std::ptrdiff_t>(row) * out_step;
            if (here == G) iter::unrolled<G>([&](auto k) { out[static_cast<std::ptrdiff_t>(k) * out_step] = static_cast<T>(values[k]); });
            else for (std::size_t k = 0; k < here; ++k) out[static_cast<std::ptrdiff_t>(k) * out_step] = static_cast<T>(values[k]);
        };
        const std::ptrdiff_t group_step = static_cast<std::ptrdiff_t>(G) * in_step;
        const T* at = x;
        for (std::size_t first = 0; first < n; first += G * B) {
            const std::size_t groups = std::min(B, (n - first + G - 1) / G);
            std::array<Pending, B> pending;
            for (std::size_t b = 0; b < groups; ++b, at += group_step) {
                const std::size_t row = first + b * G;
                pending[b] = group(group_rows(at, row), whole_rows(row), [&](const P& lanes) TENSOROPS_INLINE_STEP { write(row, lanes); });
            }
            for (std::size_t b = 0; b < groups; ++b) {
                const std::size_t row = first + b * G;
                finish(pending[b], [&](const P& lanes) TENSOROPS_INLINE_STEP { write(row, lanes); });
            }
        }
    });
}

}  // namespace tensorops::detail
