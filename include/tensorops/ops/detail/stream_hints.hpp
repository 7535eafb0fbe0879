// tensorops/ops/detail/stream_hints.hpp — the software prefetch hints of the kernels that stream up contiguous runs
// (the inner reduce kernel, log-sum-exp's one pass, argmax's stretches, the short-row reductions' rows read one by one:
// short_rows.hpp): how far ahead, and for which inputs.
#pragma once

#include <cstddef>

#include "../../core/inline.hpp"
#include "../../simd/cpu_profile.hpp"
#include "../../simd/prefetch.hpp"

namespace tensorops::detail {

/// How far ahead (bytes) the inner kernel's loop hints every cache line it will read, besides the page hints: where the
/// hardware prefetchers alone run too short a stream ahead (with two threads reading, on some cores), the line hints
/// keep more of it in flight. They come on top of the page hints, never instead of them: line hints without page hints
/// were no faster than the page hints alone (simd/prefetch.hpp). argmax's kernel hints its lines as far ahead. On some
/// CPUs the line hints cost instead: they are given where simd::line_hints_pay says so (the figures:
/// bench/journal/notes-simd-and-iter.md).
inline constexpr std::ptrdiff_t inner_lines_ahead = 16384;

/// Inputs (of a call, or of one piece of it) smaller than this stay in cache, where the line hints only cost: data in
/// cache needs no prefetch, and each hint is one more instruction in the loop.
inline constexpr std::size_t line_hints_min_bytes = std::size_t{1} << 20;

/// Whether a kernel reading `bytes` of input hints its lines: on a CPU where they pay (simd::line_hints_pay), for
/// inputs of line_hints_min_bytes or more.
[[nodiscard]] inline bool hints_lines(std::size_t bytes) noexcept { return bytes >= line_hints_min_bytes && simd::line_hints_pay(); }

/// The hints of one step of a loop streaming up a contiguous run, the step reading [x, x + bytes): the page
/// simd::page_prefetch_distance ahead (simd::prefetch_stream_ahead) and, when `lines`, every line inner_lines_ahead
/// ahead. The contiguous kernels' loops (inner_runs, reduce_contiguous, log_sum_exp_one_pass, reduce_line_in_chunks)
/// call it once per step; `lines` comes from the size of what their caller reads (hints_lines).
/// Log-sum-exp's one pass, whose arithmetic leaves the memory stream most to the hardware prefetchers, gains most from
/// the line hints.
template <class T>
[[TENSOROPS_ALWAYS_INLINE]] inline void hint_stream_step(const T* x, std::size_t bytes, bool lines) noexcept {
    simd::prefetch_stream_ahead(x, bytes);
    if (lines) simd::prefetch_ahead(x, inner_lines_ahead, bytes);
}

/// The outer log-sum-exp loops (log_sum_exp_block's row groups, at either register width) hint each line of the next
/// group of rows into L2 as they go, and touch the first line of each row of the group after that, into L1, so that the
/// next group's hints find their pages' address translations ready. A hint into L2 (prefetcht1) may be dropped where
/// its page is not in the TLB (some CPUs do so): the touch is a hint into L1 (prefetcht0), which runs the page walk
/// — as prefetcht1 the same touch does nothing there. Rows of 4 KiB (1024 floats) are a page each: a group enters as
/// many new pages as it has rows. The touch comes with the step that reads the group's third line, not before its
/// first: rows 4 KiB apart put the touched lines in the L1 set of the group's own first lines, which a touch at the
/// group's start would evict before they are read (the figures: bench/journal/notes-simd-and-iter.md).
inline constexpr std::size_t row_touch_groups_ahead = 2;

/// The row offset (elements of T) of the step that touches the rows row_touch_groups_ahead groups ahead.
template <class T>
inline constexpr std::size_t row_touch_offset = 2 * simd::cache_line_bytes / sizeof(T);

/// The rows that the group of `group` rows from row `i` of a block of `count` rows (pointers at `block`) touches: the
/// group row_touch_groups_ahead groups on, if the block has it whole (and groups are of more than a row), else null.
template <class T>
[[nodiscard]] constexpr const T* const* rows_to_touch(const T* const* block, std::size_t i, std::size_t group,
                                                      std::size_t count) noexcept {
    return group > 1 && i + (row_touch_groups_ahead + 1) * group <= count ? block + i + row_touch_groups_ahead * group : nullptr;
}

/// The touch itself: the first line of each of the `count` rows at `rows`, hinted into L1.
template <class T>
[[TENSOROPS_ALWAYS_INLINE]] inline void touch_rows(const T* const* rows, std::size_t count) noexcept {
    for (std::size_t k = 0; k < count; ++k) simd::prefetch_line_as<false>(rows[k]);
}

}  // namespace tensorops::detail
