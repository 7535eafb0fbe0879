// tensorops/ops/detail/stream_hints.hpp — the software prefetch hints of the kernels that stream up contiguous runs
// (the inner reduce kernel, log-sum-exp's one pass, argmax's stretches): how far ahead, and for which inputs.
#pragma once

#include <cstddef>

#include "../../simd/prefetch.hpp"

namespace tensorops::detail {

/// How far ahead (bytes) the inner kernel's loop hints every cache line it will read, besides the page hints: with two
/// threads reading, the hardware prefetchers alone ran too short a stream ahead. 64 MiB of f32 rows of 1024 on a
/// two-thread pool, AMD Zen 5 guest, median of 80 calls against a two-thread read probe after each (alternated, three
/// rounds), page hints alone → and lines 16 KiB ahead: MAX 0.92–0.96 → 1.06–1.22 (0.92–1.00 → 0.83–0.87 ms), SUM
/// 1.03–1.08 → 1.11–1.16 (0.94–1.09 → 0.83–0.88 ms); one thread MAX 1.80–1.82 → 1.65–1.68 ms, SUM alike (1.02–1.07
/// of its probe either way). Once, on an Intel host, lines 8 KiB ahead without page hints were slower than the page
/// hints alone (simd/prefetch.hpp); both together are what pays here. argmax's kernel hints its lines as far ahead.
/// On an AMD Zen 4 the line hints cost 10–30 % instead: they are given where simd::line_hints_pay says so.
inline constexpr std::ptrdiff_t inner_lines_ahead = 16384;

/// Inputs (of a call, or of one piece of it) smaller than this stay in cache, where the line hints only cost: 64 KiB of
/// f32 rows of 1024 summed 15–25 % slower with them (every function of the suite's 64 KiB cases).
inline constexpr std::size_t line_hints_min_bytes = std::size_t{1} << 20;

/// Whether a kernel reading `bytes` of input hints its lines: on a CPU where they pay (simd::line_hints_pay: the
/// figures above are Zen 5's; on Zen 4 they cost 10–30 %), for inputs of line_hints_min_bytes or more.
[[nodiscard]] inline bool hints_lines(std::size_t bytes) noexcept { return bytes >= line_hints_min_bytes && simd::line_hints_pay(); }

/// The hints of one step of a loop streaming up a contiguous run, the step reading [x, x + bytes): the page
/// simd::page_prefetch_distance ahead (simd::prefetch_stream_ahead) and, when `lines`, every line inner_lines_ahead
/// ahead. The contiguous kernels' loops (inner_runs, reduce_contiguous, log_sum_exp_one_pass, reduce_line_in_chunks)
/// call it once per step; `lines` comes from the size of what their caller reads (hints_lines).
/// Log-sum-exp's one pass, whose arithmetic leaves the memory stream most to the hardware prefetchers, gained most from
/// the line hints: 64 MiB of f32 rows of 1024, two-thread pool (alternated, three rounds), 2.43–2.52 → 1.49–1.52 ms,
/// one thread 4.8 → 2.9–3.5 ms.
template <class T>
[[gnu::always_inline]] inline void hint_stream_step(const T* x, std::size_t bytes, bool lines) noexcept {
    simd::prefetch_stream_ahead(x, bytes);
    if (lines) simd::prefetch_ahead(x, inner_lines_ahead, bytes);
}

/// The outer log-sum-exp loops (log_sum_exp_block's row groups, at either register width) hint each line of the next
/// group of rows into L2 as they go, and touch the first line of each row of the group after that, into L1, so that the
/// next group's hints find their pages' address translations ready. On an AMD Zen 4 guest the hints into L2
/// (prefetcht1) behave as if dropped where the page is not in the TLB: touching the rows two groups ahead with
/// prefetcht1 changed nothing, with prefetcht0 (a hint into L1, which runs the page walk) it pays, and the same input
/// in 2 MiB pages ran the loop without it 10–20 % faster than in 4 KiB pages. 64 MiB of f32 rows of 1024 (4 KiB: a page
/// a row), paired rounds alternated in one process, the touch against none: one thread 0.89–0.91 of the time from
/// memory at 512 bits, 0.89–0.90 at AVX2; two threads 0.97–1.02; in L2 0.99–1.03. The touch comes with the step that
/// reads the group's third line, not before its first: rows 4 KiB apart put the touched lines in the L1 set of the
/// group's own first lines, and touched at the group's start they cost the AVX2 loop 4 % in L2.
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
[[gnu::always_inline]] inline void touch_rows(const T* const* rows, std::size_t count) noexcept {
    for (std::size_t k = 0; k < count; ++k) simd::prefetch_line_as<false>(rows[k]);
}

}  // namespace tensorops::detail
