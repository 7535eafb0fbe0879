// tensorops/ops/detail/log_sum_exp/outer.hpp — log-sum-exp over the rows (outer layout): blocks of lse_block_rows rows
// in one pass against a reference row, merged into running (maximum, sum) rows; on an executor, blocks in pieces.
//
// The rows (reduce/outer.hpp walks them for the other functions) are taken in blocks of lse_block_rows: in one pass the block's maximum and Σ e^(x − reference)
// against a reference row from its first rows (log_sum_exp_block), merged into a running (maximum, sum) pair of
// rows the way log_sum_exp_state merges stretches.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <memory>
#include <type_traits>

#include "../../../exec/executor.hpp"
#include "../../../exec/split.hpp"
#include "../../../iter/unroll.hpp"
#include "../../../simd/cpu_profile.hpp"
#include "../../../simd/pack.hpp"
#include "../../../simd/prefetch.hpp"
#include "../reduce_nest.hpp"
#include "../reductions.hpp"
#include "../row_walk.hpp"
#include "../stream_hints.hpp"
#include "../tuning.hpp"
#include "avx512.hpp"

namespace tensorops::detail {

/// Rows of accumulators of the outer log-sum-exp kernel (running maximum and sum; the block's maximum, shift, sums),
/// placed apart from the input (accumulator_rows::place_apart_from, lines 0–4); log_sum_exp_block's two rows of
/// references go after them.
inline constexpr std::size_t lse_accumulator_rows = 5;

/// One log-sum-exp block of the outer kernel: `count` rows (pointers in `block`) of `w` lanes → the block's
/// maximum row `top` (NaN where a lane holds one), `shift` = shift_for(top) and the row of sums Σ e^(x − shift)
/// (e^top — +inf, 0 or NaN — where top is not finite), as a two-pass block (maximum, then terms) would give them.
///
/// Algorithm: one pass from memory. A reference row comes from the maximum of the block's first (up to) four
/// rows (log_sum_exp_reduction::reference_for_lanes); then, row by row, top = max(top, x) and sums +=
/// e^x over the reference — so the block is read once and its exponentials overlap the memory stream (the
/// maximum first and the terms in a second pass from L2, as this kernel did before, is slower: the first pass waits
/// on memory with nothing to overlap). Each lane's sum is then brought to top's
/// shift (at_top). The row loop is what bounds the kernel (compute, not memory, at AVX2 width), so it does the
/// least per vector: top is a plain maximum, blind to NaN, and NaN and +inf elements are caught instead by the
/// sum they make NaN or +inf (term_lanes' promise; otherwise finite: terms of served lanes stay below 2^96).
/// A vector of lanes whose sum is not finite, or where some finite top is out of its reference's reach
/// (reference_serves: a −inf first-rows estimate replaced by 0 far from the rest, or first rows ~60 or more
/// below it), is redone from cache: its top with NaN-propagating maxima, then — where some top is finite — its
/// sum with the exact shift. One vector's second pass over the block, not the block's. A lane whose top is not
/// finite takes its known sum.
/// Accuracy: float lanes keep the reference as a power of two and round no distance from it (see
/// simd::exp_over_power_of_two), so the result is within a few ulp of the two-pass block's, whatever the distance
/// (an earlier version with exp_shifted against the estimate lost up to 80 ulp of a result near 2 when the first
/// rows lay 60 below the rest).
/// Where this build's registers are AVX2's and the CPU has AVX-512F, float rows go through the same row loop on 512-bit
/// registers (avx512::log_sum_exp_block_rows, avx512.hpp): the same bits in half the instructions (the figures:
/// bench/journal/notes-reduce-and-log-sum-exp.md).
template <class T>
void log_sum_exp_block(const T* const* block, std::size_t count, std::size_t w, simd::compute_t<T>* top, simd::compute_t<T>* shift,
                       simd::compute_t<T>* sums) {
    using C = simd::compute_t<T>;
    using P = simd::pack<T>;
    using lse = log_sum_exp_reduction<T>;
    constexpr C infinity = std::numeric_limits<C>::infinity();
    fill_row(shift, w, -infinity);
    for (std::size_t i = 0; i < std::min<std::size_t>(count, 4); ++i) fold_row(block[i], shift, w, extreme_reduction<T, true>{});
    for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        store(shift + j, lse::reference_for_lanes(load(shift + j)));
    });
    // term_reference_lanes of the reference, once for the block's rows: two rows of lanes for float lanes
    // (simd::power_of_two_reference), one for double lanes (the reference).
    constexpr bool two_rows = std::is_same_v<C, float>;
    accumulator_rows<C, 2> references;
    references.place_apart_from(block[0], lse_accumulator_rows);
    C* const first = references.row(0);
    C* const second = references.row(1);
    for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        const auto r = lse::term_reference_lanes(load(shift + j));
        if constexpr (two_rows) {
            store(first + j, r.lowest);
            store(second + j, r.k_less_rounding);
        } else {
            store(first + j, r);
        }
    });
    const auto reference_at = [&](std::size_t j, const auto& load) {
        if constexpr (two_rows) return simd::power_of_two_reference<P>{load(first + j), load(second + j)};
        else return load(first + j);
    };
    fill_row(top, w, -infinity);
    fill_row(sums, w, C(0));
    // Rows lse_row_group at a time, so that a vector's top, sum and reference stay in registers across them; the
    // next group's rows are hinted a cache line at a time (without, the stream from memory is slower and its time
    // varies from run to run), into L2: hinted into L1, the next group's lines of rows 4 KiB apart and the group's own
    // fall in the same L1 set, more than its ways, and rows of such a pitch slow down where rows of another do not
    // (the figures: bench/journal/notes-reduce-and-log-sum-exp.md). The rows of the group after the next are touched
    // once (touch_rows, stream_hints.hpp), so that the next group's hints find their pages translated.
    std::size_t i = 0;
    const auto add_rows = [&]<std::size_t Rows>(std::integral_constant<std::size_t, Rows>) {
        std::array<const T*, Rows> rows;
        for (std::size_t k = 0; k < Rows; ++k) rows[k] = block[i + k];
        const bool hint_next = Rows > 1 && i + 2 * Rows <= count;
        const T* const* const touched = rows_to_touch(block, i, Rows, count);
        for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
            if (hint_next && j % (simd::cache_line_bytes / sizeof(T)) == 0)
                for (std::size_t k = 0; k < Rows; ++k) simd::prefetch_line_to_l2(block[i + Rows + k] + j);
            if (touched != nullptr && j == row_touch_offset<T>) touch_rows(touched, Rows);
            const auto reference = reference_at(j, load);
            P t = load(top + j), sum = load(sums + j);
            iter::unrolled<Rows>([&](auto k) {
                const P x = load(rows[k] + j);
                t = simd::max_ignoring_nan(t, x);
                sum = lse::add_term_lanes(sum, x, reference);
            });
            store(top + j, t);
            store(sums + j, sum);
        });
        i += Rows;
    };
    bool walked = false;
    if constexpr (has_avx512_log_sum_exp<T>) {
        if (simd::avx512_kernels_run()) {  // the same loop on 512-bit registers: the same bits (avx512.hpp)
            avx512::log_sum_exp_block_rows<lse_row_group>(block, count, w, first, second, top, sums);
            walked = true;
        }
    }
    if (!walked) {
        while (i + lse_row_group <= count) add_rows(std::integral_constant<std::size_t, lse_row_group>{});
        while (i < count) add_rows(std::integral_constant<std::size_t, 1>{});
    }
    for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        P t = load(top + j);
        const P reference = load(shift + j), sum = load(sums + j);
        const auto finite = [](const P& v) { return simd::abs(v) < P(infinity); };
        const bool caught = simd::any(!finite(sum));  // a NaN or +inf element (or an unserved lane's term)
        if (caught) {
            t = load(block[0] + j);
            for (std::size_t k = 1; k < count; ++k) t = simd::max_propagate_nan(t, load(block[k] + j));
            store(top + j, t);
        }
        const P exact = lse::shift_for_lanes(t);
        store(shift + j, exact);
        if (caught || simd::any(finite(t) & !lse::reference_serves(t, reference))) {
            P redone(C(0));
            if (simd::any(finite(t)))
                for (std::size_t k = 0; k < count; ++k) redone = redone + lse{}.lift_lanes(load(block[k] + j), exact);
            store(sums + j, lse::sum_for_non_finite_lanes(t, redone));
        } else {
            store(sums + j, lse::sum_for_non_finite_lanes(t, lse::at_top(sum, reference, t)));
        }
    });
}

/// Merges a block (top, shift, sums) into the running (maximum m, sum s) rows: both sums rescaled to the new
/// shift; an empty or all −inf sum adds nothing (and must not turn 0 · e^big into NaN). A vector of lanes whose
/// running maximum the block does not pass (the common case after the first blocks) keeps its shift and adds the
/// block's sum rescaled: one exponential, not two.
template <class T>
void log_sum_exp_merge(simd::compute_t<T>* m, simd::compute_t<T>* s, const simd::compute_t<T>* top, const simd::compute_t<T>* shift,
                       const simd::compute_t<T>* sums, std::size_t w) {
    using C = simd::compute_t<T>;
    using P = simd::pack<T>;
    using lse = log_sum_exp_reduction<T>;
    for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        const P old_max = load(m + j), old_sum = load(s + j), block_top = load(top + j), block_sum = load(sums + j);
        const auto rescaled = [&](const P& sum, const P& from, const P& to) {
            return simd::select(sum == P(C(0)), P(C(0)), sum * simd::exp(from - to));
        };
        const P old_shift = lse::shift_for_lanes(old_max);
        if (!simd::any(!(block_top <= old_max))) {  // no lane grows, none is NaN: e^(old shift − new shift) = 1
            store(s + j, old_sum + rescaled(block_sum, load(shift + j), old_shift));
            return;
        }
        const P new_max = simd::max_propagate_nan(old_max, block_top);
        const P new_shift = lse::shift_for_lanes(new_max);
        store(m + j, new_max);
        store(s + j, rescaled(old_sum, old_shift, new_shift) + rescaled(block_sum, load(shift + j), new_shift));
    });
}

/// Writes the finished log-sum-exp of the running rows (m, s) to y.
template <class T>
void log_sum_exp_finish(const simd::compute_t<T>* m, const simd::compute_t<T>* s, T* y, std::size_t w, std::size_t count) {
    const log_sum_exp_reduction<T> lse;
    for_each_row_vector<T>(w, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        store(y + j, lse.finish_lanes(load(s + j), count, log_sum_exp_reduction<T>::shift_for_lanes(load(m + j))));
    });
}

/// The outer kernel for log-sum-exp (see the algorithm above).
template <class T>
void reduce_rows_log_sum_exp(const T* x, T* y, std::size_t width, const iter::loop_nest<2>& group, std::size_t count) {
    using C = simd::compute_t<T>;
    enum : std::size_t { running_max, running_sum, block_max, block_shift, block_sum, row_count };
    static_assert(row_count == lse_accumulator_rows);
    accumulator_rows<C, row_count> rows;
    std::array<const T*, lse_block_rows> block;
    for (std::size_t start = 0; start < width; start += rows.panel) {
        const std::size_t w = std::min(rows.panel, width - start);
        rows.place_apart_from(x + start, 0);
        fill_row(rows.row(running_max), w, -std::numeric_limits<C>::infinity());
        fill_row(rows.row(running_sum), w, C(0));
        std::size_t pending = 0;
        const auto flush = [&] {
            log_sum_exp_block(block.data(), pending, w, rows.row(block_max), rows.row(block_shift), rows.row(block_sum));
            log_sum_exp_merge<T>(rows.row(running_max), rows.row(running_sum), rows.row(block_max), rows.row(block_shift), rows.row(block_sum), w);
            pending = 0;
        };
        for_each_group_line(x + start, group, [&](const T* line, std::size_t length, std::ptrdiff_t step) {
            for (std::size_t i = 0; i < length; ++i, line += step) {
                block[pending] = line;
                if (++pending == lse_block_rows) flush();
            }
        });
        if (pending != 0) flush();
        log_sum_exp_finish(rows.row(running_max), rows.row(running_sum), y + start, w, count);
    }
}

/// reduce_rows_log_sum_exp for a group of one line of `n` rows, `step` apart, on an executor: the blocks of
/// lse_block_rows rows are shared out (guided pieces of whole blocks: piece_begin), each block's maximum, shift and
/// sums rows computed exactly as the sequential kernel computes them and kept; the blocks are then merged in order
/// (log_sum_exp_merge: one or two exponentials per lane and block, against the kernel's 256), in strips of columns
/// shared out again — a lane's merges are its own, so a strip's thread merges them in the same order as the sequential
/// kernel. Bit-identical to reduce_rows_log_sum_exp.
/// The merges follow the last piece, a serial share of the call (the figures:
/// bench/journal/notes-reduce-and-log-sum-exp.md); the kept rows are not zeroed first (each is written once, and
/// zeroing them would be the caller's serial work before the pieces start).
template <class T>
void reduce_rows_log_sum_exp_in_bands(const executor_ref& exec, const T* x, T* y, std::size_t width, std::size_t n, std::ptrdiff_t step,
                                      std::size_t count) {
    using C = simd::compute_t<T>;
    const std::size_t blocks = (n + lse_block_rows - 1) / lse_block_rows;
    const std::unique_ptr<C[]> kept(new C[3 * blocks * width]);  // per block: maximum, shift, sums rows; each written once
    const auto row_of = [&](std::size_t b, std::size_t k) { return kept.get() + (3 * b + k) * width; };
    const std::size_t threads = exec.concurrency();
    const std::size_t pieces = std::min(blocks, wanted_pieces(exec, n * width * sizeof(T)));
    // Each block's rows are made in rows of the sequential kernel's panel placed apart from the input (kept's rows,
    // from the heap, lie where the input's do in L1 sets when both are whole pages) and copied out.
    exec.parallel_for(pieces, [&](std::size_t piece) {
        std::array<const T*, lse_block_rows> block;
        accumulator_rows<C, lse_accumulator_rows> own;
        for (std::size_t b = piece_begin(piece, pieces, blocks, threads); b < piece_begin(piece + 1, pieces, blocks, threads); ++b) {
            const std::size_t first = b * lse_block_rows, rows = std::min(lse_block_rows, n - first);
            for (std::size_t start = 0; start < width; start += own.panel) {
                const std::size_t w = std::min(own.panel, width - start);
                own.place_apart_from(x + start, 0);
                for (std::size_t i = 0; i < rows; ++i) block[i] = x + start + static_cast<std::ptrdiff_t>(first + i) * step;
                log_sum_exp_block(block.data(), rows, w, own.row(0), own.row(1), own.row(2));
                for (std::size_t k = 0; k < 3; ++k) std::copy_n(own.row(k), w, row_of(b, k) + start);
            }
        }
    });
    // Strips of whole line_blocks (a multiple of every vector width, so the lanes group into vectors as in the
    // sequential kernel's panels), at most one a thread.
    const std::size_t strip_units = (width + line_block - 1) / line_block, strips = std::min(threads, strip_units);
    exec.parallel_for(strips, [&](std::size_t strip) {
        const std::size_t strip_start = strip * strip_units / strips * line_block;
        const std::size_t strip_end = std::min(width, (strip + 1) * strip_units / strips * line_block);
        accumulator_rows<C, 2> running;
        for (std::size_t start = strip_start; start < strip_end; start += running.panel) {
            const std::size_t w = std::min(running.panel, strip_end - start);
            fill_row(running.row(0), w, -std::numeric_limits<C>::infinity());
            fill_row(running.row(1), w, C(0));
            for (std::size_t b = 0; b < blocks; ++b)
                log_sum_exp_merge<T>(running.row(0), running.row(1), row_of(b, 0) + start, row_of(b, 1) + start, row_of(b, 2) + start, w);
            log_sum_exp_finish(running.row(0), running.row(1), y + start, w, count);
        }
    });
}

/// Log-sum-exp's outer kernel: reduce_rows_log_sum_exp for each stretch of the innermost kept dimension.
template <class T>
void reduce_outer_log_sum_exp(const T* input, T* output, const reduce_nests<>& parts, std::size_t count) {
    for_each_kept_stretch(parts, [&](std::ptrdiff_t output_offset, std::ptrdiff_t input_offset, std::size_t columns) {
        reduce_rows_log_sum_exp(input + input_offset, output + output_offset, columns, parts.group, count);
    });
}

}  // namespace tensorops::detail
