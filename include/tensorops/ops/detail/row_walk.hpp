// tensorops/ops/detail/row_walk.hpp — what the outer kernels (reduce, log-sum-exp, argmax/argmin over the rows) share:
// rows of accumulators in L1, a row's walk a vector at a time with its page hints, and lane-wise folds of rows.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../../core/inline.hpp"
#include "../../iter/unroll.hpp"
#include "../../simd/pack.hpp"
#include "../../simd/prefetch.hpp"
#include "tuning.hpp"

namespace tensorops::detail {

/// `Rows` rows of accumulator lanes, `panel` lanes each (a power of two, at least a vector), left uninitialised,
/// in `Budget` bytes (and a way of L1 more, for place_apart_from).
template <class C, std::size_t Rows, std::size_t Budget = outer_row_budget>
struct accumulator_rows {
    static constexpr std::size_t panel = std::bit_floor(Budget / (Rows * sizeof(C)));
    static constexpr std::size_t line_lanes = simd::cache_line_bytes / sizeof(C);

    [[nodiscard]] C* row(std::size_t k) noexcept { return first_row + k * pitch; }

    /// Moves the rows (their contents are lost) so that lane j of row k lies in the L1 set half a way plus
    /// `lines_after` + k lines (to within one) after the set of `input` + j lanes: never in the set of the input's
    /// line of the same lanes, nor in one another's. For the outer kernels whose rows of input lie a multiple of
    /// l1_way_bytes apart (rows of 1024 floats, 512 doubles…; exactly where the input's lanes are as wide as C's, over
    /// a stretch of lanes where they are narrower — float16): a vector's lines from a group of eight rows fill eight
    /// ways of one set, and rows of accumulators placed wherever the stack happens to be (Linux moves its start by up
    /// to 8 KiB from process to process) may fall in that set too, one or two lines more than its ways: the kernel's
    /// speed would then depend on the stack's offset. Placed apart, it does not.
    void place_apart_from(const void* input, std::size_t lines_after) noexcept {
        const std::uintptr_t wanted = reinterpret_cast<std::uintptr_t>(input) + simd::l1_way_bytes / 2 + lines_after * simd::cache_line_bytes;
        const std::uintptr_t offset = (wanted - reinterpret_cast<std::uintptr_t>(lanes)) % simd::l1_way_bytes / simd::cache_line_bytes;
        first_row = lanes + offset * line_lanes;
        pitch = panel + line_lanes;
    }

    /// The lanes the rows lie in, wherever they are placed.
    static constexpr std::size_t storage_lanes = Rows * (panel + line_lanes) + simd::l1_way_bytes / sizeof(C);
    [[nodiscard]] const C* storage() const noexcept { return lanes; }

    /// The storage as one row of `whole_panel` lanes instead (a power of two, at least `panel`; the rows' contents and
    /// this row's are one another's).
    static constexpr std::size_t whole_panel = std::bit_floor(storage_lanes);
    [[nodiscard]] C* whole() noexcept { return lanes; }

private:
    alignas(64) C lanes[storage_lanes];
    C* first_row = lanes;
    std::size_t pitch = panel;
};

/// Calls step_lanes(j, load, store) for j = 0, W, 2W, … below `width` (W = lanes<T>): load(p) reads the vector
/// at p and store(p, v) writes it — a partial one at the row's end, which touches nothing past `width` lanes.
/// p may point to any element type with W-lane packs (input, accumulator or index rows).
/// Always inlined: the step's captures (row pointers, accumulator row) must become registers of the caller's
/// loop — called through a closure pointer, each step reloaded them, since its stores might alias them. For the same
/// reason every step passed here is TENSOROPS_INLINE_STEP (core/inline.hpp): called at two or three sites, GCC 12 -O2
/// otherwise kept some of them out of line.
template <class T, class Step>
[[TENSOROPS_ALWAYS_INLINE]] inline void for_each_row_vector(std::size_t width, Step&& step_lanes) {
    constexpr std::size_t W = simd::lanes<T>;
    std::size_t j = 0;
    for (; j + W <= width; j += W)
        step_lanes(j, [](const auto* p) { return simd::load(p); }, [](auto* p, const auto& v) { simd::store(p, v); });
    if (const std::size_t tail = width - j; tail != 0)
        step_lanes(j, [tail](const auto* p) { return simd::load_partial(p, tail, {}); },
                   [tail](auto* p, const auto& v) { simd::store_partial(p, v, tail); });
}

/// for_each_row_vector, walking the rows whose lanes start at `row` (and, if not null, `beside`: a second row read in
/// the same steps) a cache line at a time and hinting each row's stretch `ahead` bytes on (simd::rows_ahead_bytes;
/// 0: none): its first line, then each page that begins in it (the hints of simd::prefetch_page_ahead at every line,
/// counted by simd::page_hint_walk, after the line's loads). What the outer kernels read, one vector per step_lanes; a
/// line's steps are unrolled.
/// Pages, not lines: where memory is in 4 KiB pages the hardware prefetchers stop at each page's end, and a hint per
/// page carries the stream across it; a hint per line a few KiB ahead (what this walk did before) does not. Where the
/// rows are not back to back (read a panel at a time, the stream breaking at each row's end) hints per line as well as
/// per page gain nothing over the page hints.
/// The page test of each line is counted (simd::page_hint_walk: one compare a line, the same hints) and comes after the
/// line's loads. Computed at every line it would take five of the sixteen instructions of a line of f32 SUM and bind
/// the loop by its instructions rather than by memory; issued before the line's loads, the hint of a row that begins a
/// page falls on the row's first line and delays those loads.
/// Unrolled: GCC 12 at -O2 otherwise keeps a line's four float16 steps a loop. Placing the same hints between stretches
/// of lines instead of testing at every line (no test in the loop) measured slower for L1 and SUM (float16 pairs
/// unchanged): not kept (the figures: bench/journal/notes-reduce-shared-and-argmax.md).
template <class T, class Step>
[[TENSOROPS_ALWAYS_INLINE]] inline void for_each_row_vector_prefetching(const T* row, const T* beside,
                                                                        std::ptrdiff_t ahead, std::size_t width,
                                                                        Step&& step_lanes) {
    constexpr std::size_t W = simd::lanes<T>;
    constexpr std::size_t per_line = std::max<std::size_t>(1, simd::cache_line_bytes / (W * sizeof(T)));  // vectors per line
    constexpr std::size_t line_lanes = per_line * W;
    constexpr std::size_t line_bytes = line_lanes * sizeof(T);
    const auto load = [](const auto* p) { return simd::load(p); };
    const auto store = [](auto* p, const auto& v) { simd::store(p, v); };
    const auto hint = [&](std::size_t j, std::size_t bytes) TENSOROPS_INLINE_STEP {
        simd::prefetch_page_ahead(row + j, ahead, bytes);
        if (beside != nullptr) simd::prefetch_page_ahead(beside + j, ahead, bytes);
    };
    std::size_t j = 0;
    // The whole lines, each followed by after_line(line): its hints, after its loads (see above).
    const auto walk_lines = [&](auto&& after_line) TENSOROPS_INLINE_STEP {
        for (std::size_t line = 0; j + line_lanes <= width; j += line_lanes, ++line) {
            iter::unrolled<per_line>([&](auto k) { step_lanes(j + k * W, load, store); });
            after_line(line);
        }
    };
    if (ahead == 0) {
        walk_lines([](std::size_t) {});
    } else {
        simd::prefetch_ahead(row, ahead, 1);  // the page the row ahead starts in, then prefetch_page_ahead's hints, counted
        simd::page_hint_walk<line_bytes> row_hints(row, ahead);
        if (beside == nullptr) {
            walk_lines([&](std::size_t line) { row_hints.at(line); });
        } else {
            simd::prefetch_ahead(beside, ahead, 1);
            simd::page_hint_walk<line_bytes> beside_hints(beside, ahead);
            walk_lines([&](std::size_t line) {
                row_hints.at(line);
                beside_hints.at(line);
            });
        }
    }
    if (j == width) return;
    if (ahead != 0) hint(j, line_bytes);  // the last line, less than whole
    for_each_row_vector<T>(width - j, [&](std::size_t i, const auto& load_rest, const auto& store_rest) TENSOROPS_INLINE_STEP { step_lanes(j + i, load_rest, store_rest); });
}

/// row[0 … width) = value. In vector stores where C has a vector register (GCC 12 -O2 leaves std::fill a scalar loop,
/// and the outer kernels refill their accumulator rows at every panel: over few rows, a visible share of the work).
template <class C>
void fill_row(C* row, std::size_t width, C value) {
    std::size_t j = 0;
    if constexpr (std::is_arithmetic_v<C> && simd::vectorized) {
        using P = simd::pack<C>;
        const P lanes(value);
        for (; j + P::size <= width; j += P::size) simd::store(row + j, lanes);
    }
    std::fill(row + j, row + width, value);
}

/// accumulators[j] ∘= the input row's lane j lifted, for lanes 0 … width − 1 (reductions that are not shifted);
/// hints the row `ahead` bytes on (simd::rows_ahead_bytes; 0: none).
template <class T, class R>
void fold_row(const T* row, simd::compute_t<T>* accumulators, std::size_t width, const R& r, std::ptrdiff_t ahead = 0) {
    static_assert(!R::shifted, "log-sum-exp folds its rows in log_sum_exp_block");
    using P = simd::pack<T>;
    const P no_shift(simd::compute_t<T>(0));
    for_each_row_vector_prefetching<T>(row, nullptr, ahead, width, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        store(accumulators + j, r.combine_lanes(P(load(accumulators + j)), r.lift_lanes(P(load(row + j)), no_shift)));
    });
}

/// accumulators[j] ∘= (row lane j lifted ∘ `other` lane j lifted), for lanes 0 … width − 1: two rows for one load and
/// store of the accumulator (see row_units); hints both rows `ahead` bytes on.
template <class T, class R>
void fold_row_pair(const T* row, const T* other, simd::compute_t<T>* accumulators, std::size_t width, const R& r, std::ptrdiff_t ahead) {
    static_assert(!R::shifted, "log-sum-exp folds its rows in log_sum_exp_block");
    using P = simd::pack<T>;
    const P no_shift(simd::compute_t<T>(0));
    for_each_row_vector_prefetching<T>(row, other, ahead, width, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        const P pair = r.combine_lanes(r.lift_lanes(P(load(row + j)), no_shift), r.lift_lanes(P(load(other + j)), no_shift));
        store(accumulators + j, r.combine_lanes(P(load(accumulators + j)), pair));
    });
}

/// for_each_row_vector_prefetching over G rows read in the same steps (rows[0 … G)), each hinted `ahead` bytes on.
template <std::size_t G, class T, class Step>
[[TENSOROPS_ALWAYS_INLINE]] inline void for_each_row_vector_prefetching_rows(const std::array<const T*, G>& rows,
                                                                             std::ptrdiff_t ahead, std::size_t width,
                                                                             Step&& step_lanes) {
    constexpr std::size_t W = simd::lanes<T>;
    constexpr std::size_t per_line = std::max<std::size_t>(1, simd::cache_line_bytes / (W * sizeof(T)));  // vectors per line
    constexpr std::size_t line_lanes = per_line * W;
    constexpr std::size_t line_bytes = line_lanes * sizeof(T);
    const auto load = [](const auto* p) { return simd::load(p); };
    const auto store = [](auto* p, const auto& v) { simd::store(p, v); };
    for (const T* row : rows) simd::prefetch_ahead(row, ahead, 1);
    auto hints = [&]<std::size_t... K>(std::index_sequence<K...>) {
        return std::array<simd::page_hint_walk<line_bytes>, G>{simd::page_hint_walk<line_bytes>(rows[K], ahead)...};
    }(std::make_index_sequence<G>{});
    std::size_t j = 0;
    for (std::size_t line = 0; j + line_lanes <= width; j += line_lanes, ++line) {
        iter::unrolled<per_line>([&](auto k) { step_lanes(j + k * W, load, store); });
        iter::unrolled<G>([&](auto g) { hints[g].at(line); });
    }
    if (j == width) return;
    for (const T* row : rows) simd::prefetch_page_ahead(row + j, ahead, line_bytes);  // the last line, less than whole
    for_each_row_vector<T>(width - j, [&](std::size_t i, const auto& load_rest, const auto& store_rest) TENSOROPS_INLINE_STEP { step_lanes(j + i, load_rest, store_rest); });
}

/// accumulators[j] = (…(accumulators[j] ∘ rows[0] lane j lifted) ∘ …) ∘ rows[G − 1] lane j lifted, for lanes 0 … width − 1:
/// fold_row of each row in turn (the same operations in the same order), for one load and store of the accumulator;
/// hints every row `ahead` bytes on.
template <std::size_t G, class T, class R>
void fold_rows_in_turn(const std::array<const T*, G>& rows, simd::compute_t<T>* accumulators, std::size_t width, const R& r, std::ptrdiff_t ahead) {
    static_assert(!R::shifted, "log-sum-exp folds its rows in log_sum_exp_block");
    using P = simd::pack<T>;
    const P no_shift(simd::compute_t<T>(0));
    for_each_row_vector_prefetching_rows<G>(rows, ahead, width, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        P value(load(accumulators + j));
        iter::unrolled<G>([&](auto g) { value = r.combine_lanes(value, r.lift_lanes(P(load(rows[g] + j)), no_shift)); });
        store(accumulators + j, value);
    });
}

/// into[j] ∘= from[j] for lanes 0 … width − 1.
template <class T, class R>
void combine_rows(simd::compute_t<T>* into, const simd::compute_t<T>* from, std::size_t width, const R& r) {
    for_each_row_vector<T>(width, [&](std::size_t j, const auto& load, const auto& store) TENSOROPS_INLINE_STEP {
        store(into + j, r.combine_lanes(load(into + j), load(from + j)));
    });
}

/// Bytes between rows of T `step` elements apart, either way.
template <class T>
[[nodiscard]] constexpr std::size_t pitch_bytes(std::ptrdiff_t step) noexcept {
    return static_cast<std::size_t>(step < 0 ? -step : step) * sizeof(T);
}

/// How many back-to-back rows of `width` lanes, `step` elements apart, the outer kernels (reduce, argmax) fuse into one
/// wide row: 1 unless the rows are adjacent (step = width), narrower than narrow_row_bytes, and that many fit in a panel
/// of `panel` lanes.
template <class T>
[[nodiscard]] std::size_t fused_rows(std::size_t width, std::ptrdiff_t step, std::size_t panel) {
    if (width > panel || step != static_cast<std::ptrdiff_t>(width)) return 1;
    const std::size_t wanted = (narrow_row_bytes + width * sizeof(T) - 1) / (width * sizeof(T));
    return std::max<std::size_t>(1, std::min(wanted, panel / width));
}

}  // namespace tensorops::detail
