// tensorops/ops/detail/tuning.hpp — the kernels' tuning constants, in one place: vector accumulators, block and chunk
// sizes, the limits that choose between layouts' kernels, row fusion and pairing distances.
//
// Several of them fix where a result's operations are grouped (cascade_block, inner_accumulators, run_chunk_elements,
// line_fold_block, lse_stretch, lse_block_rows, the short-row and narrow-row limits, short_row_chains,
// narrow_row_bytes, far_pair_bytes): changing one changes floating results in their last bits (never integer ones), so
// they are constants of the library, not options; each says so in its line. The others only change speed. Measurements
// behind the values are in bench/journal/ (notes-reduce-shared-and-argmax.md for those moved out of these comments).
#pragma once

#include <cstddef>
#include <algorithm>

#include "../../simd/pack.hpp"

namespace tensorops::detail {

/// Elements (per lane) summed sequentially before a block joins the cascade: a short sequential error, and the
/// cascade's carries rare; changes floating results.
inline constexpr std::size_t cascade_block = 128;

/// Vector accumulators of the inner kernel: enough independent chains to hide the latency of the deepest combine (a
/// NaN-propagating max, three instructions deep); changes floating results.
inline constexpr std::size_t inner_accumulators = 8;

/// Runs per chunk of a group of many runs (accumulate_run_chunks): as many whole runs as make run_chunk_elements
/// elements, at least one; fixed by the group alone: chunks fall alike for any thread count; changes floating results.
inline constexpr std::size_t run_chunk_elements = 65536;

/// Elements per block of a run of log-sum-exp or a floating product (a multiple of every vector step): enough blocks to
/// share a long run between threads, each long enough that its restart is negligible; changes floating results.
inline constexpr std::size_t line_fold_block = std::size_t{1} << 16;

/// Elements per log-sum-exp stretch: read once (log_sum_exp_one_pass), again from L1 when the one pass does not serve;
/// its sums hold 2048 / 16 = 128 terms a lane at AVX2 (cascade_block, the float sums' bound); changes floating results.
inline constexpr std::size_t lse_stretch = 2048;

/// Rows of at most this many vectors of up to 32 bytes take the short-row kernel: beyond, a row's own loop amortises
/// its horizontal step and the general kernel is as fast; changes floating results.
inline constexpr std::size_t short_row_vectors = 64;

/// Rows of at most this many elements take the short-row kernel: short_row_vectors vectors of 32 bytes, also with
/// 64-byte registers (eight rows of 4 KiB at a time would be eight page streams); changes floating results.
template <class T>
inline constexpr std::size_t short_row_elements = short_row_vectors * std::min<std::size_t>(simd::lanes<T>, 32 / sizeof(simd::compute_t<T>));

/// Rows reduced together by the short-row kernel: eight, or a register's lane count if smaller — each row a lane of
/// one horizontal step for the group (simd::reduce_lanes_of_rows).
template <class T>
inline constexpr std::size_t short_row_group = std::min<std::size_t>(simd::lanes<T>, 8);

/// Rows of at least this many vectors and short_rows_one_by_one_bytes bytes are read one after the other in the
/// short-row kernel (see above), shorter ones side by side: a row this long fills its chains; changes floating results.
inline constexpr std::size_t short_rows_one_by_one_vectors = 6;

/// The bytes of that least row (three cache lines): one stream a row pays only for rows of several lines, not for
/// 16-bit rows of eight widened vectors (128 bytes); changes floating results.
inline constexpr std::size_t short_rows_one_by_one_bytes = 192;

/// The short-row reductions hint the lines of the rows they read one by one (where simd::line_hints_pay) for rows of at
/// least this many bytes (four cache lines) and inputs of at least short_row_hints_min_bytes: shorter rows came from
/// memory near the speed of long ones without them. Speed only.
inline constexpr std::size_t short_row_hints_row_bytes = 256;

/// Inputs of this size or more are mostly read from memory, where the short rows' line hints pay; smaller ones stay in
/// the caches (L3 included), where the same hints only cost. Speed only.
inline constexpr std::size_t short_row_hints_min_bytes = std::size_t{16} << 20;

/// Accumulators of a row read on its own in the short-row kernel: independent chains, so that the latency of the
/// combining instruction does not bound the row; changes floating results.
inline constexpr std::size_t short_row_chains = 4;

/// Back-to-back rows of up to this many elements (fewer than a register's lanes) take the narrow-row kernel: its blends
/// grow as L² (7 would pay too, but doubles its instantiations); changes floating results.
inline constexpr std::size_t narrow_row_max = 4;

/// Groups of rows whose finish (a logarithm for log-sum-exp and LOG_SUM, a call that spills every live vector) the
/// short-row kernel defers to the end of a batch, one call for many groups (see reduce_short_rows).
inline constexpr std::size_t short_row_batch = 8;

/// Stack bytes an outer reduction may use for its rows of accumulators: no more than a 32 KiB L1 data cache, where the
/// rows are meant to live while the input streams past.
inline constexpr std::size_t outer_row_budget = 32 * 1024;

/// Bytes of accumulators per stretch of a row wider than the outer kernel's L1 panel (reduce_wide_rows): each row's
/// stream then runs 64 pages of f32 before the walk moves to the next row (a stream that restarts costs the
/// prefetchers' ramp every time), while the running row stays within a core's L2 (its block and total rows, touched once
/// every cascade_block rows, may fall out of it).
inline constexpr std::size_t outer_stretch_bytes = std::size_t{256} << 10;

/// Lines of at most this many rows (not fused) are reduced a strip of columns at a time with every accumulator in
/// registers (reduce_few_rows): rows a multiple of an L1 way apart put a strip's lines of every row in one L1 set, and
/// four rows' lines, with the lines the prefetchers bring for the next strip, fit the eight ways of the smallest L1s;
/// more rows are walked a row (or group) at a time (reduce_wide_rows).
inline constexpr std::size_t few_rows_max = 4;

/// Vectors per strip of reduce_few_rows: four independent chains of combines, two cache lines of f32 per row, their
/// running vectors and loads well within the 16 registers of AVX2.
inline constexpr std::size_t few_rows_strip_vectors = 4;

/// Rows per log-sum-exp block: enough that a block's own exponentials per lane (log_sum_exp_merge) are rare, few enough
/// that a vector redone by log_sum_exp_block finds the block in L2 or L3; changes floating results.
inline constexpr std::size_t lse_block_rows = 256;

/// Rows log_sum_exp_block takes at once, so that a vector's top, sum and reference stay in registers across them (its
/// sum adds their terms in row order all the same).
inline constexpr std::size_t lse_row_group = 8;

/// Rows of at least this many bytes (a page) are streamed one by one; narrower back-to-back rows, streams ending inside
/// a page, are taken `fused_rows` at a time as one wide row (see reduce_rows); changes floating results.
inline constexpr std::size_t narrow_row_bytes = 4096;

/// Rows the outer kernel folds two at a time are at least this far apart (bytes, a 2 MiB page; see row_units): two
/// streams far apart, for neighbouring rows read in pairs are slower; changes floating results.
inline constexpr std::size_t far_pair_bytes = std::size_t{2} << 20;

/// Log-sum-exp rows of at most this many elements take its short-row kernel (a quarter of short_row_elements): its one
/// pass per row, whose terms hold their accumulators and constants in registers, reads longer rows from memory slower
/// than the inner kernel's one pass, which takes them one at a time. Changes floating results.
template <class T>
inline constexpr std::size_t log_sum_exp_short_row_elements = short_row_elements<T> / 4;

// argmax / argmin

/// Elements per block of the inner argmax (locate_extreme): long enough that its horizontal step a block is rare,
/// short enough that step numbers fit in lanes as wide as the values (int8 included).
inline constexpr std::size_t arg_block = 2048;

/// How far ahead (bytes) locate_extreme hints each line (where simd::line_hints_pay): between stretches the prefetchers
/// idle and start each page over; 16 KiB, not 4: with two threads reading, a line takes longer to arrive.
inline constexpr std::ptrdiff_t arg_lines_ahead = 16384;

/// Stretches shorter than this take the page hints alone: over short rows the line hints cost more than they save.
inline constexpr std::size_t arg_lines_min_bytes = 2048;

/// Elements a row of the short-row argmax (locate_in_short_row) may have: eight vectors, and at most 64 (lane_bits).
template <class T>
inline constexpr std::size_t short_arg_row = std::min<std::size_t>(64, 8 * simd::lanes<T>);

/// Rows the outer argmax kernel walks alone before it starts a second running best (arg_walk_rows): the second starts
/// as a copy of the first, so it does not begin by replacing lanes at most rows (see arg_reduce_rows_in_bands).
inline constexpr std::size_t arg_warm_rows = 64;

/// Rows a fresh running best sees before its walk branches (arg_update): until then a replacement (~W / i at row i) is
/// likely enough that a mispredict costs more than storing both selects; after it, the selects cost more.
inline constexpr std::size_t arg_branchless_rows = 96;

static_assert(arg_branchless_rows > arg_warm_rows);

/// Back-to-back rows narrower than this (bytes) are fused by the outer argmax kernel (arg_fused_rows); wider ones are
/// walked one at a time (in far-apart pairs, or in bands that start from an earlier band's answer), which serves them
/// better on two threads.
inline constexpr std::size_t arg_fused_row_bytes = 128;

/// Rows the outer argmax kernel compares with its running best per load and store of it, where rows are at least
/// arg_grouped_row_bytes apart (arg_update_rows_in_turn).
inline constexpr std::size_t arg_group_rows = 4;

/// Rows this far apart (bytes) or more are taken by the outer argmax kernel arg_group_rows at a time: a running best
/// and index row as wide as they are (16 KiB and 16 KiB of 32-bit lanes) fill a 32 KiB L1 data cache, the smallest of
/// x86-64's, and a second best for far-apart pairs would need as much again.
inline constexpr std::size_t arg_grouped_row_bytes = std::size_t{16} << 10;

/// Bytes of the running best and index panel (together) that the outer argmax kernel allocates for a walk in groups
/// whose rows are wider than its stack rows: within the L2 of current x86-64 cores (512 KiB to 2 MiB), which the
/// grouped walk reads it from once per arg_group_rows rows.
inline constexpr std::size_t arg_heap_panel_bytes = std::size_t{512} << 10;

/// Walks that read less than this (bytes) keep the stack's panel: no allocation for small tensors.
inline constexpr std::size_t arg_heap_panel_min_bytes = std::size_t{1} << 20;

/// Columns per panel of arg_find_extremes, whose rows (the extremes and the found flags in T, the answers in 64 bits:
/// 10 KiB) stay in L1 while the input streams past.
inline constexpr std::size_t arg_extreme_panel = 1024;

// cumulative scans (ops/detail/scan/). The block and band sizes fix where a long floating scan is rounded; the
// others only change speed. Measurements: bench/journal/notes-scan-and-tuples.md.

/// Bytes (of the input element type) per block of a long contiguous line: on several threads part of a block is
/// written before the prefix entering it arrives and offset from the core's L2 afterwards, so a block must fit in
/// L2 with room to spare. Part of the semantics: floating results of long scans are rounded at these blocks (the
/// same for every thread count and build), so it is a fixed constant, never a build option.
inline constexpr std::size_t scan_block_bytes = std::size_t{512} << 10;

/// Bytes per part of a line block scanned in parallel, the prefix looked for before each part: small against a
/// block, so a block switches to prefixed output soon after its prefix arrives. A multiple of twice every vector
/// width, dividing scan_block_bytes.
inline constexpr std::size_t line_part_bytes = std::size_t{8} << 10;

static_assert(scan_block_bytes >= 2 * line_part_bytes && (scan_block_bytes & (scan_block_bytes - 1)) == 0,
              "scan_block_bytes must be a power of two of at least two line parts");

/// Bytes (of the input element type) per band of rows scanned across, at least one row: four line blocks, because
/// threads scanning neighbouring bands at once read streams that close together slowly (as reduce/outer.hpp's
/// row_units keep paired rows far apart). Part of the semantics as scan_block_bytes is: a fixed constant.
inline constexpr std::size_t scan_band_bytes = std::size_t{2} << 20;

/// Bytes of the compute type per column block of the carry-buffer kernel: a band walks its rows once per column
/// block, and reading every row in narrow pieces is served slowly, so blocks are wide while the carry row still
/// stays in L1 or L2 (it is read and written once per row).
inline constexpr std::size_t carry_block_bytes = std::size_t{16} << 10;

/// Bytes of the compute type per panel of columns of a scan in bands (scan_rows_in_bands): its prefix and total rows,
/// read and written whole by every band, are a panel wide, so they stay in cache however wide the rows are (rows up
/// to a panel are walked as without panels).
inline constexpr std::size_t band_panel_bytes = std::size_t{256} << 10;

/// Rows per group of the carry-buffer kernel for scans that stay in cache: each vector of the carry row passes through
/// a register for this many rows (one carry load and store per group, not per row).
inline constexpr std::size_t carry_group_rows = 4;

/// Bytes of the compute type per column block of the carried-by-output kernel over at most carried_few_rows rows: the
/// output row just written, which is the running value, is still in L1 when the next row reads it.
inline constexpr std::size_t carried_block_bytes = 8192;

/// Rows beyond which the carried-by-output kernel takes column blocks of carried_wide_block_bytes: a block restarts an
/// input and an output stream in every row, and with more rows than this the prefetchers meet more streams, restarted
/// more often, than they keep ahead of in blocks of L1's size.
inline constexpr std::size_t carried_few_rows = 4;

/// Bytes of the compute type per column block of the carried-by-output kernel over more than carried_few_rows rows:
/// streams of 64 pages, the output row just written still in a core's L2 (256 KiB: the smallest of x86-64's) when the
/// next row reads it.
inline constexpr std::size_t carried_wide_block_bytes = std::size_t{256} << 10;

/// Scans whose input is larger than this stream their rows from memory, so the band kernel takes their rows one at a
/// time (one read and one write stream) instead of in groups of carry_group_rows (four of each) — unless their carry
/// rows are wide (grouped_carry_bytes).
inline constexpr std::size_t grouped_rows_limit = std::size_t{4} << 20;

/// Bytes of a column block's carry row (the compute type) from which the band kernel groups its rows even when the scan
/// streams from memory: a band reads and writes its carry row at every row and, prefixed, reads its prefix row too;
/// two rows of this size fill a 32 KiB L1 data cache (the smallest of x86-64's), so taken one at a time every row
/// would reload them from L2, while a group of carry_group_rows loads them once.
inline constexpr std::size_t grouped_carry_bytes = std::size_t{16} << 10;

/// Rows of at most this many vectors are scanned across with their whole running row in registers
/// (scan_rows_in_registers), at any size: the row is the tile, so the walk down the rows is one stream.
inline constexpr std::size_t register_row_vectors = 2;

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

/// The least share of each row a thread takes when an across-rows scan is cut by columns (ops/cumulative.hpp): a
/// narrower strip breaks each row's stream into pieces the hardware prefetchers follow badly.
inline constexpr std::size_t min_strip_bytes = std::size_t{16} << 10;

/// Bytes of a re-sharded piece that tensorops::mpi receives, lays out and reduces at a time (mpi/detail/reshard.hpp):
/// with its staging copy within a core's share of the last-level cache, so that the piece is reduced from cache and
/// its two buffers are faulted in once, whatever the tensor's size (fresh pages cost a fault each); speed only.
inline constexpr std::size_t reshard_chunk_bytes = std::size_t{1} << 20;

}  // namespace tensorops::detail
