// tensorops/ops/detail/tuning.hpp — the kernels' tuning constants, in one place: vector accumulators, block and chunk
// sizes, the limits that choose between layouts' kernels, row fusion and pairing distances.
//
// Several of them fix where a result's operations are grouped (cascade_block, run_chunk_elements, line_fold_block,
// lse_stretch, lse_block_rows, the short-row and narrow-row limits, narrow_row_bytes, far_pair_bytes): changing one
// changes floating results in their last bits (never integer ones), so they are constants of the library, not options.
// The others only change speed. Measurements behind the values are in bench/journal/.
#pragma once

#include <cstddef>
#include <algorithm>

#include "../../simd/pack.hpp"

namespace tensorops::detail {

/// Elements (per lane) summed sequentially before a block joins the cascade.
inline constexpr std::size_t cascade_block = 128;

/// Vector accumulators of the inner kernel.
inline constexpr std::size_t inner_accumulators = 8;

/// Runs per chunk of a group of many runs (accumulate_run_chunks): as many whole runs as make run_chunk_elements
/// elements, at least one. Fixed by the group alone, so chunks fall in the same places whatever the thread count.
inline constexpr std::size_t run_chunk_elements = 65536;

/// Elements per block of a run of log-sum-exp or a floating product (a multiple of every vector step).
inline constexpr std::size_t line_fold_block = std::size_t{1} << 16;

/// Elements per log-sum-exp stretch: read once (log_sum_exp_one_pass), a second time from L1 when the one pass does
/// not serve; its sums hold 2048 / 16 = 128 terms a lane with AVX2 (cascade_block, the float sums' bound).
inline constexpr std::size_t lse_stretch = 2048;

/// Rows of at most this many vectors of up to 32 bytes take the short-row kernel (beyond, the general kernel was as fast
/// with AVX2).
inline constexpr std::size_t short_row_vectors = 64;

/// Rows of at most this many elements take the short-row kernel: short_row_vectors vectors of up to 32 bytes (2 KiB
/// of floats with AVX2). With 64-byte registers the limit stays 2 KiB rather than 64 vectors: rows of 4 KiB taken
/// eight at a time are eight streams of whole pages, which an AMD Zen 5 read at 0.71–0.86× the speed of a plain
/// 64 MiB sum where the general kernel, one row after the other, reads at 0.91–1.07× (SUM of 64 MiB of f32 rows of
/// 1024, -march=native, best of 30, three rounds).
template <class T>
inline constexpr std::size_t short_row_elements = short_row_vectors * std::min<std::size_t>(simd::lanes<T>, 32 / sizeof(simd::compute_t<T>));

/// Rows reduced together by the short-row kernel: eight, or a register's lane count if smaller.
template <class T>
inline constexpr std::size_t short_row_group = std::min<std::size_t>(simd::lanes<T>, 8);

/// Rows of at least this many vectors and short_rows_one_by_one_bytes bytes are read one after the other in the
/// short-row kernel (see above), shorter ones side by side.
inline constexpr std::size_t short_rows_one_by_one_vectors = 6;

/// The bytes of that least row: rows of 64 float16 or int16 elements (eight vectors of the 32-bit lanes they widen to,
/// 128 bytes) ran 4–14 % slower one by one, from memory and in L2; of 256, 2.6–3.4× faster from memory.
inline constexpr std::size_t short_rows_one_by_one_bytes = 192;

/// Accumulators of a row read on its own in the short-row kernel: independent chains, so that the latency of the
/// combining instruction does not bound the row.
inline constexpr std::size_t short_row_chains = 4;

/// Back-to-back rows of up to this many elements (and fewer than a register's lanes) take the narrow-row kernel: its
/// blends grow as L² where the short-row kernel's work per row barely grows with L. (Since components take 2L permutes,
/// 7 measured faster for SUM of f32 rows of 5–7 — 1.3–1.7 → 0.3–0.8 ns a row — but doubles this kernel's
/// instantiations; left at 4, see bench/RESULTS.md 2026-11-27 16:30.)
inline constexpr std::size_t narrow_row_max = 4;

/// Groups of rows whose finish the short-row kernel defers to the end of a batch (see reduce_short_rows).
inline constexpr std::size_t short_row_batch = 8;

/// Stack bytes an outer reduction may use for its rows of accumulators.
inline constexpr std::size_t outer_row_budget = 32 * 1024;

/// Rows per log-sum-exp block (a block of 1024-lane float rows is 1 MiB: a vector redone by log_sum_exp_block
/// finds it in L2 or L3). Each block costs a few exponentials per lane besides its rows' (the end of
/// log_sum_exp_block, log_sum_exp_merge): blocks of 64 rows ran 10 % slower than of 128 in cache, and 128 4–5 %
/// slower than 256 from memory (64 MiB of f32, Zen 5; 512 gained nothing more).
inline constexpr std::size_t lse_block_rows = 256;

/// Rows log_sum_exp_block takes at once (a vector's sum adds their terms in row order all the same).
inline constexpr std::size_t lse_row_group = 8;

/// Rows of at least this many bytes are streamed one by one; narrower rows that lie back to back in memory are
/// taken `fused_rows` at a time as one wide row (see reduce_rows).
inline constexpr std::size_t narrow_row_bytes = 4096;

/// Rows the outer kernel folds two at a time are at least this far apart (bytes; see row_units).
inline constexpr std::size_t far_pair_bytes = std::size_t{2} << 20;

// argmax / argmin

inline constexpr std::size_t arg_block = 2048;

/// How far ahead (bytes) locate_extreme hints every cache line of a stretch of at least arg_lines_min_bytes as it reads
/// the stretch: the rows a few on, for back-to-back rows. Between the end of one stretch and the start of the next,
/// the horizontal reductions and the search of the winning site leave the hardware prefetchers idle, and they start
/// each page over: argmax of 64 MiB of f32 rows (AMD Zen 5 guest, best of 10, alternated, the page hints alone → with these)
/// of 512 floats 5.9–6.0 → 2.6 ms, of 1024 (a 4 KiB page each) 3.6–4.8 → 2.2–2.5 (SUM of the same bytes 1.4–2.0),
/// of 4096 2.9–3.1 → 2.2–2.5, one line of 16M 2.3–6.6 → 1.6–2.4 (4, 8 or 16 KiB ahead alike). Rows of 256 floats
/// ran ~10 % slower with them: below arg_lines_min_bytes the page hints alone. The hints go with the steps that are
/// arg_lines_ahead bytes before their lines (four a pair of steps), not all at the stretch's start: a loop of one hint
/// a line there had taken a quarter of the instructions of a row of 1024 floats. In L2 (256 KiB of such rows, AMD Zen
/// 5 guest) 47–49 → 54 GB/s; 64 MiB on a two-thread pool, median against a two-thread read probe after each call
/// (binaries alternated, 15 rounds of 150 calls): 0.65–0.85 → 0.69–0.86, above in 11 of the 15. 16 KiB ahead, not 4:
/// with both threads reading, a line takes longer to arrive. Two-thread pool, 64 MiB of f32 rows, median of 80 calls
/// (alternated, five rounds), 4 / 8 / 16 / 32 KiB ahead: rows of 1024, op 1.06–1.33 / 0.85–0.96 / 0.85–0.97 /
/// 0.91–0.98 ms, against the probe 0.87–0.98 / 0.93–1.08 / 1.04–1.16 / 0.92–0.96; rows of 512 1.04–1.07 → 0.99–1.01
/// ms, of 4096 0.85–0.89 → 0.75–0.77, one line of 16 Mi 0.83–0.84 either; one thread, rows of 1024 0.80–0.87 →
/// 1.11–1.14 of its probe. All on Zen 5: on a Zen 4 the hints made rows of 1024 7–9 % slower on one thread, equal on
/// two; they are given where simd::line_hints_pay says so.
inline constexpr std::ptrdiff_t arg_lines_ahead = 16384;

inline constexpr std::size_t arg_lines_min_bytes = 2048;

/// Elements a row of the short-row argmax (locate_in_short_row) may have: eight vectors, and at most 64 (lane_bits).
template <class T>
inline constexpr std::size_t short_arg_row = std::min<std::size_t>(64, 8 * simd::lanes<T>);

/// Rows the outer argmax kernel walks alone before it starts a second running best (arg_walk_rows): the second starts
/// as a copy of the first, so it does not begin by replacing lanes at most rows (see arg_reduce_rows_in_bands).
inline constexpr std::size_t arg_warm_rows = 64;

/// Rows a running best that started from nothing has seen before its walk takes the branching update (arg_update):
/// until then a replacement is likely enough (~W / i at row i on random rows) that a mispredicted branch costs
/// more than storing both selects every time; after it, the selects (0.70 ns a vector of 8 f32 in L2, against 0.45 for
/// the branching test: a fresh walk's rows stream from memory slower than a seeded one's) cost more than the
/// mispredicts. Measured on the AMD Zen 5 guest, f32 rows of 4 KiB on one thread from memory, a walk from nothing
/// against the same walk seeded with an answer (nine interleaved runs of 1024, 2048 and 4096 rows, best of 40 each):
/// the fresh walk's extra time summed 241 µs with 64 rows, 132 with 96, 270 with 128 and 382 with 256 (the value
/// before, chosen on 16 rows in cache, where every choice above 16 is the same); with no branchless rows 1.7–1.8× the
/// seeded time. A sequential argmax over 1024 such rows (4 MiB, from L3) 46–50 → 61 GB/s.
inline constexpr std::size_t arg_branchless_rows = 96;

static_assert(arg_branchless_rows > arg_warm_rows);

/// Columns per panel of arg_find_extremes (its rows: the extremes and the found flags in T, the answers in 64 bits:
/// 10 KiB).
inline constexpr std::size_t arg_extreme_panel = 1024;

// cumulative scans (ops/detail/scan/). The block and band sizes fix where a long floating scan is rounded; the
// others only change speed. Measurements: bench/journal/notes-scan-and-tuples.md.

/// Bytes (of the input element type) per block of a long contiguous line: on several threads part of a block is
/// written before the prefix entering it arrives and offset from the core's L2 afterwards, so a block must fit in
/// L2 with room to spare. TENSOROPS_SCAN_BLOCK_BYTES (a power of two of at least 16 KiB) overrides it, for a core
/// whose L2 is another size; floating results of long scans change with it, never with the threads.
#ifndef TENSOROPS_SCAN_BLOCK_BYTES
#define TENSOROPS_SCAN_BLOCK_BYTES (std::size_t{512} << 10)
#endif
inline constexpr std::size_t scan_block_bytes = TENSOROPS_SCAN_BLOCK_BYTES;

/// Bytes per part of a line block scanned in parallel, the prefix looked for before each part: small against a
/// block, so a block switches to prefixed output soon after its prefix arrives. A multiple of twice every vector
/// width, dividing scan_block_bytes.
inline constexpr std::size_t line_part_bytes = std::size_t{8} << 10;

static_assert(scan_block_bytes >= 2 * line_part_bytes && (scan_block_bytes & (scan_block_bytes - 1)) == 0,
              "TENSOROPS_SCAN_BLOCK_BYTES must be a power of two of at least 16 KiB");

/// Bytes (of the input element type) per band of rows scanned across, at least one row: four line blocks, because
/// threads scanning neighbouring bands at once read streams that close together slowly (as reduce/outer.hpp's
/// row_units keep paired rows far apart). TENSOROPS_SCAN_BAND_BYTES (at least 1 KiB) overrides it, as
/// TENSOROPS_SCAN_BLOCK_BYTES does the blocks (some test builds set both small, so that the tests meet their edges
/// in small tensors: tools/run-tests.sh).
#ifndef TENSOROPS_SCAN_BAND_BYTES
#define TENSOROPS_SCAN_BAND_BYTES (std::size_t{2} << 20)
#endif
inline constexpr std::size_t scan_band_bytes = TENSOROPS_SCAN_BAND_BYTES;

static_assert(scan_band_bytes >= 1024, "TENSOROPS_SCAN_BAND_BYTES must be at least 1 KiB");

/// Bytes of the compute type per column block of the carry-buffer kernel: a band walks its rows once per column
/// block, and reading every row in narrow pieces is served slowly, so blocks are wide while the carry row still
/// stays in L1 or L2 (it is read and written once per row).
inline constexpr std::size_t carry_block_bytes = std::size_t{16} << 10;

/// Rows per group of the carry-buffer kernel for scans that stay in cache: each vector of the carry row passes through
/// a register for this many rows (one carry load and store per group, not per row).
inline constexpr std::size_t carry_group_rows = 4;

/// Bytes of the compute type per column block of the carried-by-output kernel: the output row just written, which
/// is the running value, is still in L1 when the next row reads it.
inline constexpr std::size_t carried_block_bytes = 8192;

/// Scans whose input is larger than this stream their rows from memory, so the band kernel takes their rows one at a
/// time (one read and one write stream) instead of in groups of carry_group_rows (four of each).
inline constexpr std::size_t grouped_rows_limit = std::size_t{4} << 20;

/// Tensors up to this many bytes (input and output together: within any x86 L1 data cache) take the register
/// tiles; beyond L1 the tiles' column walk maps every row to the same cache set, so larger ones stream rows.
inline constexpr std::size_t register_tile_limit = std::size_t{32} << 10;

// scatter-ND / gather-ND (ops/detail/tuples/). Speed only. Measurements: bench/journal/notes-scan-and-tuples.md.

/// Tuples per chunk of pass 2, whose offsets live on the stack (256 bytes): small on purpose, since computing a
/// chunk's offsets never misses the cache and applying it mostly does, and the out-of-order window must hold both
/// phases for the misses of consecutive chunks to overlap.
inline constexpr std::size_t tuple_chunk = 32;

/// for_each_tuple_chunk consumes a chunk of slices of several lines in groups of this many tuples, each after the
/// hints for as many tuples of the next chunk: hints go out a few at a time, as the work frees the miss buffers.
inline constexpr std::size_t hint_group = 8;

}  // namespace tensorops::detail
