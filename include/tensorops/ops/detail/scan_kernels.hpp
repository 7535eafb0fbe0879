// tensorops/ops/detail/scan_kernels.hpp — the kernels behind cumulative_sum / cumulative_product / cumulative_scan.
//
// Kernels never validate and never throw. They receive a planned loop nest (operand 0 = output,
// operand 1 = input; the scan axis kept whole, reversed already for a DECREASING scan, so every kernel scans
// "forward" along the strides it is given) and one of three layouts:
//   contiguous    the axis is the innermost dimension with stride +1 (or −1) for both operands: an
//                 in-register prefix scan per vector with a decoupled carry;
//   across rows   another dimension is innermost with stride 1 for both operands: vectorise across it,
//                 row[i] = row[i−1] ∘ x[i], with the running row in registers, the previous output row or a
//                 carry buffer (see below);
//   strided       anything else, and every user-defined element type: one scalar line at a time.
// In place (output == input exactly) is safe in all three: each element is read before it is written.
//
// Blocks. A long scan (a contiguous line of more than scan_block_bytes, or rows scanned across of more than
// scan_band_bytes: 512 KiB and 2 MiB unless a build defines otherwise) is computed
// in fixed blocks along its axis — lines in blocks of scan_block_bytes, rows in bands of band_rows(…) — each block
// scanned from the identity (its local running value r) and its outputs written as P ∘ r, where P, the prefix
// entering the block, is chained on from the block before: P₁ = total₀, P_b+1 = P_b ∘ total_b. The first
// block writes r itself, so a scan shorter than one block is computed exactly as without blocks. The blocks
// depend only on the shape and the element type, never on threads, so a parallel scan (ops/detail/blocked_scan.hpp:
// block totals first, then the blocks with their prefixes) gives the same bits as the sequential one, which walks
// the same blocks in order. Integer arithmetic wraps and is associative, so for integers blocks change nothing.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../core/element.hpp"
#include "../../iter/nd_loop.hpp"
#include "../../iter/plan.hpp"
#include "../../iter/unroll.hpp"
#include "../../simd/arithmetic.hpp"
#include "../../simd/pack.hpp"
#include "../../simd/prefetch.hpp"
#include "../../simd/scan.hpp"
#include "../../simd/shuffle.hpp"

namespace tensorops::detail {

// ---------------------------------------------------------------------------------------------
// Scan operations: how to combine accumulators and lanes, and the identity.

/// Running sums: integers wrap (unsigned accumulator), float16 carries a float.
template <class T>
struct sum_scan {
    using accumulator = accumulator_t<T>;
    static constexpr bool vectorizable = builtin_element<T>;
    [[nodiscard]] accumulator identity() const { return element_identity<accumulator>::zero(); }
    [[nodiscard]] accumulator operator()(const accumulator& a, const accumulator& b) const { return a + b; }
    template <class P>
    [[nodiscard]] P lanes(const P& a, const P& b) const { return simd::add(a, b); }
};

/// Running products: integers wrap (unsigned accumulator), float16 carries a float.
template <class T>
struct product_scan {
    using accumulator = accumulator_t<T>;
    static constexpr bool vectorizable = builtin_element<T>;
    [[nodiscard]] accumulator identity() const { return element_identity<accumulator>::one(); }
    [[nodiscard]] accumulator operator()(const accumulator& a, const accumulator& b) const { return a * b; }
    template <class P>
    [[nodiscard]] P lanes(const P& a, const P& b) const { return simd::mul(a, b); }
};

/// A caller's associative operation, computed in T itself on the strided path.
template <class T, class Operation>
struct custom_scan {
    using accumulator = T;
    static constexpr bool vectorizable = false;
    Operation operation;
    T identity_value;
    [[nodiscard]] T identity() const { return identity_value; }
    [[nodiscard]] T operator()(const T& a, const T& b) const { return static_cast<T>(std::invoke(operation, a, b)); }
};

// ---------------------------------------------------------------------------------------------
// Blocks of a long scan (see the file comment).

/// Size of a block of a long contiguous line, in bytes of the input element type (bands of rows: scan_band_bytes,
/// below). On several threads the blocks are scanned interleaved, each written plain until
/// the prefix entering it arrives and that part offset by it from the core's L2 afterwards (blocked_scan.hpp): about
/// 40 % of each block on two threads, so a block must stay in L2 for that long (1 MiB per core on Zen 5), and each
/// thread's stream hops to a new place at every block. 64 MiB on two threads, Zen 5 guest, best of 10, hints kept
/// within each block: an f32 line in blocks of 64 KiB 3.5–3.8 ms, 128 KiB 2.8–3.1, 256 KiB 2.4–2.5, 512 KiB 2.15–2.4,
/// 1 and 2 MiB 2.1–2.4 (f64, int8 and int64 at 512 KiB 2.1–2.5, against 3.1–3.5 with 128 KiB blocks and the hints
/// running on into the next block); f32 [16384, 1024] over the rows, bands of 256 KiB / 512 KiB / 1 MiB / 2 MiB:
/// 3.5–3.6 / 3.2–3.4 / 3.1–3.15 / 3.0–3.1 ms (3.9–4.1 before the hints stayed within the band) — bands are 2 MiB
/// now (scan_band_bytes). One thread is the same with any of them.
/// TENSOROPS_SCAN_BLOCK_BYTES (a power of two of at least 16 KiB) overrides it, for a core whose L2 is another size;
/// floating results of long scans change with it (the blocks are where they are rounded), never with the threads.
#ifndef TENSOROPS_SCAN_BLOCK_BYTES
#define TENSOROPS_SCAN_BLOCK_BYTES (std::size_t{512} << 10)
#endif
inline constexpr std::size_t scan_block_bytes = TENSOROPS_SCAN_BLOCK_BYTES;

/// A block of a contiguous line scanned in parallel is written in parts of this many bytes, the prefix entering the
/// block looked for before each (blocked_scan.hpp). A multiple of twice every vector width, dividing scan_block_bytes.
inline constexpr std::size_t line_part_bytes = std::size_t{8} << 10;
static_assert(scan_block_bytes >= 2 * line_part_bytes && (scan_block_bytes & (scan_block_bytes - 1)) == 0,
              "TENSOROPS_SCAN_BLOCK_BYTES must be a power of two of at least 16 KiB");

/// Elements per block of a contiguous line (a power of two: a multiple of twice every vector width).
template <class T>
inline constexpr std::size_t line_scan_block = scan_block_bytes / sizeof(T);

/// Size of a band of rows scanned across, in bytes of the input element type (at least one row). Four line blocks:
/// the threads scan neighbouring bands at once, and streams this close together read slowly on this kind of host
/// (the outer reduce kernel pairs rows at least 2 MiB apart for that reason, reduce/outer.hpp, row_units). f32
/// [16384, 1024] along the rows on a two-thread pool, AMD Zen 5 guest, median of 60 calls against a two-thread copy
/// probe after each (binaries alternated, two rounds): bands of 512 KiB 0.64–0.71 (2.9–3.2 ms), 1 MiB 0.78–0.82,
/// 2 MiB 0.82–0.88 (2.3–2.5 ms), 4 MiB 0.78–0.81; one thread unchanged (1.01 of its copy probe). Lines keep blocks of
/// 512 KiB: one line of 16 Mi floats ran at 0.76–0.82 with them, 0.79–0.86 with 1 MiB, 0.71–0.74 with 2 MiB.
/// TENSOROPS_SCAN_BAND_BYTES (at least 1 KiB) overrides it, as TENSOROPS_SCAN_BLOCK_BYTES does the blocks (some test
/// builds set both small, so that the tests meet their edges in small tensors: tools/run-tests.sh).
#ifndef TENSOROPS_SCAN_BAND_BYTES
#define TENSOROPS_SCAN_BAND_BYTES (std::size_t{2} << 20)
#endif
inline constexpr std::size_t scan_band_bytes = TENSOROPS_SCAN_BAND_BYTES;
static_assert(scan_band_bytes >= 1024, "TENSOROPS_SCAN_BAND_BYTES must be at least 1 KiB");

/// Rows per band of an across-rows scan whose rows are m elements of `element_size` bytes. Always taken from the
/// whole tensor's rows: a piece that has some of the columns keeps the bands of the whole.
[[nodiscard]] constexpr std::size_t band_rows(std::size_t m, std::size_t element_size) noexcept {
    return std::max<std::size_t>(1, scan_band_bytes / std::max<std::size_t>(1, m * element_size));
}

/// What a block writes: its running values (the first block), the prefix combined with them (later blocks), or
/// nothing (only its total is wanted: the first pass of a parallel scan).
enum class block_output { plain, prefixed, none };

// ---------------------------------------------------------------------------------------------
// Strided: one scalar line at a time.

/// One step of a running scan: `store` receives the running value before (Exclusive) or after it is combined with
/// `value`. Every kernel's element or vector step is this one, so inclusive and exclusive are decided in one place.
template <bool Exclusive, class Running, class Combine, class Store>
[[gnu::always_inline]] inline void scan_step(Running& running, const Running& value, const Combine& combine, const Store& store) {
    if constexpr (Exclusive) {
        store(running);
        running = combine(running, value);
    } else {
        running = combine(running, value);
        store(running);
    }
}

/// One scalar line of n elements (x, y stepping by in_step, out_step), its running value — starting at `running`
/// (the identity, or the carry of what came before) — in a register.
template <bool Exclusive, class T, class Scan>
void scan_column(const T* x, T* y, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step, const Scan& scan,
                 typename Scan::accumulator running) {
    using accumulator = typename Scan::accumulator;
    for (std::size_t i = 0; i < n; ++i, x += in_step, y += out_step) {
        const auto value = static_cast<accumulator>(*x);  // read before the write: in place is safe
        scan_step<Exclusive>(running, value, scan, [&](const accumulator& v) { *y = static_cast<T>(v); });
    }
}

template <bool Exclusive, class T, class Scan>
void scan_strided(const T* input, T* output, const iter::loop_nest<2>& nest, std::size_t axis, const Scan& scan) {
    const std::size_t n = nest.sizes[axis];
    const std::ptrdiff_t out_step = nest.strides[0][axis], in_step = nest.strides[1][axis];
    iter::axis_set along;
    along.set(axis);
    iter::for_each_element(iter::remove_dimensions(nest, along), [&](const std::array<std::ptrdiff_t, 2>& line) {
        scan_column<Exclusive>(input + line[1], output + line[0], n, in_step, out_step, scan, scan.identity());
    });
}

// ---------------------------------------------------------------------------------------------
// Contiguous: in-register prefix scans with a decoupled carry.
//
// Algorithm. Two vectors a, b (2W consecutive elements of the line) are scanned in registers independently of
// everything before them: sa, sb (simd::scan_lanes), with ta the last lane of sa broadcast. The outputs are
// carry∘sa and carry∘(ta∘sb), and the next carry is carry∘last(ta∘sb). Only that last combination depends on
// the previous iteration, so the loop-carried chain is one vector operation per 2W elements, not one per
// element; everything else overlaps across iterations. An exclusive scan shifts each local scan up by one
// lane (identity entering), which is the same data one position later. A backward line (stride −1, a
// DECREASING scan over contiguous memory) is the mirror image: blocks are taken from the top down, scanned
// from the highest lane, and "last" is the lowest lane. Each step hints the input's and the output's page
// simd::page_prefetch_distance ahead in the walk's direction (simd::prefetch_stream_ahead; the output's for writing):
// 64 MiB of f32 on an AMD Zen 5 guest in 4 KiB pages, one line 22–25 → 27–30 GB/s (read + written), rows of 1024
// 22–25 → 28–29, backward 23–25 → 29–33 (best of 12, three rounds, alternated). (Hints per line had been tried
// before: 2 KiB ahead gained ~13 % on the Intel host of the first measurements but cost 5–15 % on the Zen 5.)
// A block of the one-pass parallel scan hints only within itself (block_hints, below).

/// One block of a contiguous line: the n elements at traversal positions [0, n) from input / output (stepping
/// backwards when Backward), scanned from `entering` (the identity for a whole block; the running value of the
/// elements before, for the later part of a block cut at a multiple of 2W elements, which then computes exactly what
/// the whole block does). Writes what Output says (`prefix` is the prefix of a prefixed block) and returns the
/// running value after the last element (for a whole block, its total).
/// Steps at traversal positions from `hint_end` on hint nothing ahead (n or more: every step hints).
template <block_output Output, bool Exclusive, bool Backward, class T, class Scan>
typename Scan::accumulator scan_contiguous_block(const T* input, T* output, std::size_t n, const Scan& scan,
                                                 const typename Scan::accumulator& prefix, const typename Scan::accumulator& entering,
                                                 std::size_t hint_end) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    using accumulator = typename Scan::accumulator;
    constexpr std::size_t W = P::size;
    const C identity = static_cast<C>(scan.identity());
    const auto op = [&](const P& a, const P& b) { return scan.lanes(a, b); };
    const auto last = [](const P& scanned) {
        if constexpr (Backward) return simd::broadcast_first(scanned);
        else return simd::broadcast_last(scanned);
    };
    const auto one_later = [&](const P& scanned) {
        if constexpr (Backward) return simd::shift_lanes_down<1>(scanned, identity);
        else return simd::shift_lanes_up<1>(scanned, identity);
    };
    // Address of the W elements at traversal positions [i, i + W).
    const auto block = [](auto* base, std::size_t i) {
        if constexpr (Backward) return base - static_cast<std::ptrdiff_t>(i + W - 1);
        else return base + i;
    };
    const P prefix_lanes(static_cast<C>(prefix));
    const auto emit = [&](std::size_t i, const P& running) {
        if constexpr (Output == block_output::plain) simd::store(block(output, i), running);
        else if constexpr (Output == block_output::prefixed) simd::store(block(output, i), op(prefix_lanes, running));
    };

    P carry(static_cast<C>(entering));  // every lane holds the running value (broadcast by `last` at each step)
    std::size_t i = 0;
    if constexpr (W > 1) {
        for (; i + 2 * W <= n; i += 2 * W) {
            const std::size_t low = Backward ? i + W : i;  // the step's lowest block
            if (i < hint_end) {
                simd::prefetch_stream_ahead<false, Backward>(block(input, low), 2 * W * sizeof(T));
                if constexpr (Output != block_output::none) simd::prefetch_stream_ahead<true, Backward>(block(output, low), 2 * W * sizeof(T));
            }
            const P scan_a = simd::scan_lanes<Backward>(simd::load(block(input, i)), op, identity);
            const P scan_b = simd::scan_lanes<Backward>(simd::load(block(input, i + W)), op, identity);
            const P total_a = last(scan_a);
            const P through_b = op(total_a, scan_b);  // a∘b up to each lane of b
            if constexpr (Exclusive) {
                emit(i, op(carry, one_later(scan_a)));
                emit(i + W, op(carry, op(total_a, one_later(scan_b))));
            } else {
                emit(i, op(carry, scan_a));
                emit(i + W, op(carry, through_b));
            }
            carry = op(carry, last(through_b));
        }
    }
    // The rest one element at a time (only the last block of a line has a rest: blocks are multiples of 2W).
    constexpr std::ptrdiff_t step = Backward ? -1 : 1;
    auto running = static_cast<accumulator>(simd::to_array(carry)[0]);
    for (; i < n; ++i) {
        const std::ptrdiff_t at = step * static_cast<std::ptrdiff_t>(i);
        const auto value = static_cast<accumulator>(input[at]);  // read before the write: in place is safe
        scan_step<Exclusive>(running, value, scan, [&](const accumulator& v) {
            if constexpr (Output == block_output::plain) output[at] = static_cast<T>(v);
            else if constexpr (Output == block_output::prefixed) output[at] = static_cast<T>(scan(prefix, v));
        });
    }
    return running;
}

/// Elements in block `b` of a contiguous line of n elements (line_scan_block, the last block the rest).
template <class T>
[[nodiscard]] constexpr std::size_t line_block_length(std::size_t n, std::size_t b) noexcept {
    return std::min(line_scan_block<T>, n - b * line_scan_block<T>);
}

/// How a block of a line hints the memory ahead of it: as one stream with the blocks after it (one thread scans them
/// all, in order; and the two-pass parallel scan, measured faster so), or only within itself, its first
/// page_prefetch_distance bytes hinted as it starts (the one-pass parallel scan, whose threads scan neighbouring
/// blocks at once: hints past the block's end would reach into another thread's block — for writing, taking its
/// output lines away from the core writing them. 64 MiB line on two threads, Zen 5 guest: without the output hints
/// 2.6–2.8 ms against 2.9–3.1 with them running on into the next block).
enum class block_hints { stream, within_block };

/// Elements [from, from + count) of block `b` of a contiguous line of n elements, scanned on from `entering`, the
/// running value of the block's elements before `from` (the identity at 0): what the whole block computes there,
/// for `from` a multiple of 2W (see scan_contiguous_block). Returns the running value after them.
template <block_output Output, bool Exclusive, bool Backward, class T, class Scan>
typename Scan::accumulator scan_contiguous_line_part(const T* input, T* output, std::size_t n, std::size_t b, std::size_t from, std::size_t count,
                                                     const Scan& scan, const typename Scan::accumulator& prefix,
                                                     const typename Scan::accumulator& entering, block_hints hints) {
    const std::ptrdiff_t at = (Backward ? -1 : 1) * static_cast<std::ptrdiff_t>(b * line_scan_block<T> + from);
    std::size_t hint_end = count;
    if (hints == block_hints::within_block) {
        constexpr std::size_t ahead = simd::page_prefetch_distance / sizeof(T);  // positions between a step and its hints
        const std::size_t rest = line_block_length<T>(n, b) - from;              // positions from `from` to the block's end
        hint_end = rest > ahead ? rest - ahead : 0;
        if (from == 0) {
            const std::size_t start_bytes = std::min(rest, ahead) * sizeof(T);
            simd::prefetch_stream_start<false, Backward>(input + at, start_bytes);
            if constexpr (Output != block_output::none) simd::prefetch_stream_start<true, Backward>(output + at, start_bytes);
        }
    }
    if constexpr (Output == block_output::none) return scan_contiguous_block<Output, Exclusive, Backward>(input + at, output, count, scan, prefix, entering, hint_end);
    else return scan_contiguous_block<Output, Exclusive, Backward>(input + at, output + at, count, scan, prefix, entering, hint_end);
}

/// Block `b` of a contiguous line of n elements (see scan_contiguous_block; `prefix` is ignored for block 0).
template <block_output Output, bool Exclusive, bool Backward, class T, class Scan>
typename Scan::accumulator scan_contiguous_line_block(const T* input, T* output, std::size_t n, std::size_t b, const Scan& scan,
                                                      const typename Scan::accumulator& prefix) {
    return scan_contiguous_line_part<Output, Exclusive, Backward>(input, output, n, b, 0, line_block_length<T>(n, b), scan, prefix, scan.identity(),
                                                                  block_hints::stream);
}

/// Block `b` of a contiguous line of n elements on several threads (blocked_scan.hpp), where the compute type is the
/// element type: written in parts of line_part_bytes, as its plain running values until `arriving()` gives the prefix
/// entering the block (it is asked before each part and never waits), prefixed from then on; hints stay within the
/// block. Returns the block's total; `plain_elements` receives how many traversal positions were written plain
/// (offset_line_block_start brings them to what the prefixed block stores).
template <bool Exclusive, bool Backward, class T, class Scan, class Arriving>
typename Scan::accumulator scan_line_block_as_prefix_arrives(const T* input, T* output, std::size_t n, std::size_t b, const Scan& scan,
                                                             const Arriving& arriving, std::size_t& plain_elements) {
    using accumulator = typename Scan::accumulator;
    constexpr std::size_t part = line_part_bytes / sizeof(T);
    const std::size_t length = line_block_length<T>(n, b);
    accumulator running = scan.identity();
    const accumulator* prefix = nullptr;
    std::size_t done = 0;
    for (; done < length && (prefix = arriving()) == nullptr; done += std::min(part, length - done))
        running = scan_contiguous_line_part<block_output::plain, Exclusive, Backward>(input, output, n, b, done, std::min(part, length - done), scan,
                                                                                      scan.identity(), running, block_hints::within_block);
    plain_elements = done;
    if (done == length) return running;
    return scan_contiguous_line_part<block_output::prefixed, Exclusive, Backward>(input, output, n, b, done, length - done, scan, *prefix, running,
                                                                                  block_hints::within_block);
}

/// A whole contiguous line, its blocks in order.
template <bool Exclusive, bool Backward, class T, class Scan>
void scan_contiguous_line(const T* input, T* output, std::size_t n, const Scan& scan) {
    constexpr std::size_t K = line_scan_block<T>;
    auto prefix = scan_contiguous_line_block<block_output::plain, Exclusive, Backward>(input, output, n, 0, scan, scan.identity());
    for (std::size_t b = 1; b * K < n; ++b)
        prefix = scan(prefix, scan_contiguous_line_block<block_output::prefixed, Exclusive, Backward>(input, output, n, b, scan, prefix));
}

// ---------------------------------------------------------------------------------------------
// Across rows: the axis is an outer dimension and the innermost dimension is contiguous.
//
// Algorithm. out[i, j] = out[i−1, j] ∘ x[i, j] for every column j (exclusive: ∘ x[i−1, j]), vectorised across j.
// Three kernels, by size and type:
//   register tiles      (input + output within L1) a tile of 4 vectors of columns walks down all rows with its
//                       running values in registers;
//   carried by output   each step streams one input row and the output row just written, which is still in L1
//                       because the columns are processed in blocks of 8 KiB: the previous output row is the
//                       running value itself, so no carry is stored twice;
//   carry buffer        float16, whose outputs are rounded but whose running value must stay a float, an
//                       in-place exclusive scan, which overwrites x[i−1] before it is needed, and every scan of
//                       more than one band (its outputs are prefix ∘ running, not the running value): the running
//                       row lives in a buffer of the compute type, and groups of 4 rows pass each vector of it
//                       through a register (one carry load and store per 4 rows, not per row).

/// out[j] = left[j] ∘ right[j] for j < width, with `left` a row or (Broadcast) one value.
template <class T, class Scan, class Left>
void combine_rows(const Left& left, const T* right, T* out, std::size_t width, const Scan& scan) {
    using P = simd::pack<T>;
    using accumulator = typename Scan::accumulator;
    constexpr std::size_t W = P::size;
    constexpr bool broadcast = !std::is_pointer_v<Left>;
    const auto left_lanes = [&](std::size_t j) {
        if constexpr (broadcast) return P(static_cast<simd::compute_t<T>>(left));
        else return simd::load(left + j);
    };
    const auto left_value = [&](std::size_t j) {
        if constexpr (broadcast) return static_cast<accumulator>(left);
        else return static_cast<accumulator>(left[j]);
    };
    std::size_t j = 0;
    for (; j + 4 * W <= width; j += 4 * W) {
        const P r0 = scan.lanes(left_lanes(j), simd::load(right + j));
        const P r1 = scan.lanes(left_lanes(j + W), simd::load(right + j + W));
        const P r2 = scan.lanes(left_lanes(j + 2 * W), simd::load(right + j + 2 * W));
        const P r3 = scan.lanes(left_lanes(j + 3 * W), simd::load(right + j + 3 * W));
        simd::store(out + j, r0);
        simd::store(out + j + W, r1);
        simd::store(out + j + 2 * W, r2);
        simd::store(out + j + 3 * W, r3);
    }
    for (; j + W <= width; j += W) simd::store(out + j, scan.lanes(left_lanes(j), simd::load(right + j)));
    for (; j < width; ++j) out[j] = static_cast<T>(scan(left_value(j), static_cast<accumulator>(right[j])));
}

template <bool Exclusive, class T, class Scan>
void scan_rows_carried_by_output(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step,
                                 std::size_t m, const Scan& scan) {
    using C = simd::compute_t<T>;
    constexpr std::size_t block_width = 8192 / sizeof(C);
    const auto identity = scan.identity();
    for (std::size_t first = 0; first < m; first += block_width) {
        const std::size_t width = std::min(block_width, m - first);
        const T* x = input + first;
        T* y = output + first;
        if constexpr (Exclusive) std::fill(y, y + width, static_cast<T>(identity));
        else combine_rows(identity, x, y, width, scan);
        for (std::size_t i = 1; i < n; ++i) {
            const T* previous = y;
            y += out_step;
            if constexpr (!Exclusive) x += in_step;
            combine_rows(previous, x, y, width, scan);  // exclusive: x is still row i − 1
            if constexpr (Exclusive) x += in_step;
        }
    }
}

/// The page hints of a walk along one row (scan_rows_into_carry with R = 1) for the rows some distance on: the input row
/// `in_ahead` bytes on and the output row `out_ahead` bytes on (simd::rows_ahead_bytes; 0: no hint), read or written in
/// the direction of the rows' pitch (downward when it is negative; the columns are walked downward when the input's is).
struct row_hints {
    std::ptrdiff_t in_ahead = 0, out_ahead = 0;

    /// The hints for the step that reads [x, x + bytes) and writes [y, y + bytes).
    template <class T>
    [[gnu::always_inline]] void vector(const T* x, const T* y, std::size_t bytes) const noexcept {
        if (in_ahead > 0) simd::prefetch_page_ahead(x, in_ahead, bytes);
        else if (in_ahead < 0) simd::prefetch_page_below(x, -in_ahead, bytes);
        if (out_ahead > 0) simd::prefetch_page_ahead<true>(y, out_ahead, bytes);
        else if (out_ahead < 0) simd::prefetch_page_below<true>(y, -out_ahead, bytes);
    }
};

/// R consecutive rows (x, y at row 0; steps in_step, out_step) of the columns [j, j + W) or, scalar, of column j:
/// the running value comes from the carry, passes through the R rows in a register and goes back to the carry.
template <std::size_t R, bool Exclusive, class T, class Scan, class Running, class Load, class Store>
[[gnu::always_inline]] inline Running scan_row_group(Running running, const T* x, T* y, std::ptrdiff_t in_step, std::ptrdiff_t out_step,
                                                     const Scan& scan, const Load& load, const Store& store) {
    iter::unrolled<R>([&](auto r) {
        const auto row = static_cast<std::ptrdiff_t>(r.value);
        const Running value = load(x + row * in_step);  // read before the write: in place is safe
        scan_step<Exclusive>(running, value, scan, [&](const Running& v) { store(y + row * out_step, v); });
    });
    return running;
}

/// Groups of R rows, each column's running value kept in the carry row between groups; the outputs are what
/// Output says (`prefix`: the prefix row of a prefixed band, else unused). Columns are taken from the highest down
/// when the rows are walked downwards in memory (in_step < 0, a DECREASING scan): the whole walk is then one
/// descending stream, not a sawtooth (up one row, down two). The columns are independent: same results. The column
/// steps are TENSOROPS_INLINE_STEP: called through their closure, once per vector, 64 MiB of f32 rows took 5.8–6.9 ms
/// at GCC 12 -O2 against 3.4–4.3 inlined (simd/config.hpp).
template <std::size_t R, block_output Output, bool Exclusive, class T, class Scan>
void scan_rows_into_carry(const T* x, T* y, std::ptrdiff_t in_step, std::ptrdiff_t out_step, std::size_t width,
                          simd::compute_t<T>* carry, const simd::compute_t<T>* prefix, const Scan& scan, const row_hints& hints = {}) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    using accumulator = typename Scan::accumulator;
    constexpr std::size_t W = P::size;
    const auto vector_scan = [&](const P& a, const P& b) { return scan.lanes(a, b); };
    const auto vector_load = [](const T* at) { return simd::load(at); };
    const auto scalar_load = [](const T* at) { return static_cast<accumulator>(*at); };
    const auto vector_columns = [&](std::size_t j) TENSOROPS_INLINE_STEP {
        P before;
        if constexpr (Output == block_output::prefixed) before = simd::load(prefix + j);
        const auto vector_store = [&](T* at, const P& running) TENSOROPS_INLINE_STEP {
            if constexpr (Output == block_output::plain) simd::store(at, running);
            else if constexpr (Output == block_output::prefixed) simd::store(at, scan.lanes(before, running));
        };
        hints.vector(x + j, y + j, W * sizeof(T));
        simd::store(carry + j, scan_row_group<R, Exclusive>(simd::load(carry + j), x + j, y + j, in_step, out_step, vector_scan,
                                                            vector_load, vector_store));
    };
    const auto scalar_column = [&](std::size_t j) TENSOROPS_INLINE_STEP {
        accumulator before{};
        if constexpr (Output == block_output::prefixed) before = static_cast<accumulator>(prefix[j]);
        const auto scalar_store = [&](T* at, const accumulator& running) TENSOROPS_INLINE_STEP {
            if constexpr (Output == block_output::plain) *at = static_cast<T>(running);
            else if constexpr (Output == block_output::prefixed) *at = static_cast<T>(scan(before, running));
        };
        carry[j] = static_cast<C>(scan_row_group<R, Exclusive>(static_cast<accumulator>(carry[j]), x + j, y + j, in_step, out_step, scan,
                                                               scalar_load, scalar_store));
    };
    const std::size_t vectors_end = width / W * W;
    if (in_step >= 0) {
        for (std::size_t j = 0; j < vectors_end; j += W) vector_columns(j);
        for (std::size_t j = vectors_end; j < width; ++j) scalar_column(j);
    } else {
        for (std::size_t j = width; j-- > vectors_end;) scalar_column(j);
        for (std::size_t j = vectors_end; j > 0;) vector_columns(j -= W);
    }
}

/// Bytes of the compute type per column block of the carry-buffer kernel. A band walks its rows once per column
/// block, so narrower blocks read every row in pieces — a pattern this kind of host serves at half speed (AMD
/// Zen 5 guest: reading 4 KiB of every 8 KiB ran at ~21 GB/s, all of it at ~31). Against 4 KiB blocks, 64 MiB
/// along the rows, interleaved binaries: f32 rows of 16 KiB 7.9–8.4 → 5.3–5.4 ms, of 8 KiB 7.6–8.2 → 4.8 ms,
/// f64 rows of 8 KiB 7.7–7.9 → 5.2–5.3 ms, float16 rows of 4 KiB (8 KiB of float carry) 5.5–5.8 → 2.5 ms; rows of
/// 4 KiB and small tensors unchanged. The carry stays in L1 or L2 (it is read and written once per row).
inline constexpr std::size_t carry_block_bytes = std::size_t{16} << 10;

/// Columns per block of the carry-buffer kernel: carry_block_bytes of the compute type, a whole number of vectors.
template <class T>
inline constexpr std::size_t carry_block_width =
    std::max<std::size_t>(simd::lanes<T>, carry_block_bytes / sizeof(simd::compute_t<T>) / simd::lanes<T> * simd::lanes<T>);

/// Scans whose input is larger than this stream their rows from memory: the band kernel then takes the rows one at a
/// time (see scan_band).
inline constexpr std::size_t grouped_rows_limit = std::size_t{4} << 20;

/// Whether a scan of n rows of m elements stays in cache, where scan_band groups its rows (see there).
template <class T>
[[nodiscard]] constexpr bool groups_rows(std::size_t n, std::size_t m) noexcept {
    return n * m * sizeof(T) <= grouped_rows_limit;
}

/// Calls rows(first, width, carry) for each column block [first, first + width) of a band of m columns (blocks of
/// carry_block_width<T>), in order (from the last block down when `descending`: see scan_rows_into_carry): `carry`
/// is the block's running row, set to the identity — in `total` (m values), or in a buffer on the stack
/// (carry_block_bytes) when `total` is null or CarryInTotal is false, and then copied to `total` if there is one.
/// The parallel band scan keeps its carry on the stack: its totals are the slots of neighbouring bands, which two
/// threads write at once, every row. With the carry there, two threads took 3.6–4.5 ms against 2.2–3.2 ms (best of
/// 20, two binaries alternated, three rounds; float16 unchanged) on f32 [16384, 1024] along the rows (AMD Zen 5) —
/// but later runs of the suite and of an in-process harness gave 3.8 ms with the stack, as before: within this
/// host's noise, unconfirmed. One thread gains nothing from the copy (rows of 16 KiB lost 2–5 %): the sequential
/// kernels run in `total`.
template <class T, bool CarryInTotal = true, class Scan, class Rows>
[[gnu::always_inline]] inline void for_each_carry_block(std::size_t m, bool descending, simd::compute_t<T>* total, const Scan& scan,
                                                        const Rows& rows) {
    using C = simd::compute_t<T>;
    constexpr std::size_t block_width = carry_block_width<T>;
    alignas(64) std::array<C, block_width> page;
    const C identity = static_cast<C>(scan.identity());
    const std::size_t blocks = (m + block_width - 1) / block_width;
    for (std::size_t k = 0; k < blocks; ++k) {
        const std::size_t first = (descending ? blocks - 1 - k : k) * block_width;
        const std::size_t width = std::min(block_width, m - first);
        C* carry = CarryInTotal && total != nullptr ? total + first : page.data();
        std::fill(carry, carry + width, identity);
        rows(first, width, carry);
        if (!CarryInTotal && total != nullptr) std::copy(carry, carry + width, total + first);
    }
}

/// One band: the n rows from input / output (row steps in_step, out_step) of m columns, scanned from the identity,
/// in column blocks (carry_block_width) with the running values in a carry row — `total` (m values: it holds the
/// band's total afterwards) or, when that is null, a buffer on the stack. `grouped`: groups of 4 rows pass each
/// vector of the carry through a register (one carry load and store per 4 rows), for scans that stay in cache; a
/// scan that streams from memory takes its rows one at a time — one read and one write stream rather than four of
/// each (AMD Zen 5, [n, 1024] along n, best of 10–30: grouped 1.1–1.4× faster up to 4 MiB of input, float16 most;
/// from 8 MiB on 1.15–1.4× slower for f32, up to 2× for float16). The running values are the same either way.
/// Writes what Output says; `prefix`: the band's prefix row (m values) when prefixed.
template <block_output Output, bool Exclusive, class T, class Scan>
void scan_band(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step, std::size_t m, const Scan& scan,
               const simd::compute_t<T>* prefix, simd::compute_t<T>* total, bool grouped) {
    using C = simd::compute_t<T>;
    constexpr std::size_t group = 4;
    constexpr auto group_step = static_cast<std::ptrdiff_t>(group);  // steps may be negative: signed arithmetic
    for_each_carry_block<T>(m, in_step < 0, total, scan, [&](std::size_t first, std::size_t width, C* carry) {
        const C* before = Output == block_output::prefixed ? prefix + first : nullptr;
        const T* x = input + first;
        // Writing nothing, the kernel still forms output addresses: give it the input's (never written through).
        T* y = Output == block_output::none ? const_cast<T*>(x) : output + first;
        const std::ptrdiff_t y_step = Output == block_output::none ? in_step : out_step;
        std::size_t i = 0;
        if (grouped)
            for (; i + group <= n; i += group, x += group_step * in_step, y += group_step * y_step)
                scan_rows_into_carry<group, Output, Exclusive>(x, y, in_step, y_step, width, carry, before, scan);
        const row_hints hints{simd::rows_ahead_bytes<T>(in_step), Output == block_output::none ? 0 : simd::rows_ahead_bytes<T>(y_step)};
        for (; i < n; ++i, x += in_step, y += y_step)
            scan_rows_into_carry<1, Output, Exclusive>(x, y, in_step, y_step, width, carry, before, scan, hints);
    });
}

/// scan_band for a band whose prefix row may become known while the band is scanned (the parallel one-pass scan,
/// where the compute type is the element type): in each column block, rows are written plain until `arriving()`
/// gives the prefix row (m values; it is asked before each row and never waits), prefixed from then on.
/// plain_rows[k] receives how many rows of column block k were written plain (offset_rows brings them to what the
/// prefixed band stores). Rows one at a time: the scans that run in parallel stream from memory.
template <bool Exclusive, class T, class Scan, class Arriving>
void scan_band_as_prefix_arrives(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step, std::size_t m,
                                 const Scan& scan, simd::compute_t<T>* total, const Arriving& arriving, std::size_t* plain_rows) {
    using C = simd::compute_t<T>;
    const C* prefix = nullptr;
    for_each_carry_block<T, false>(m, in_step < 0, total, scan, [&](std::size_t first, std::size_t width, C* carry) {
        const T* x = input + first;
        T* y = output + first;
        // Hints stay within the band (as a line block's: another thread scans the band after it). Each row hints the
        // row `ahead` rows on while there is one in the band; the band's first `ahead` rows are hinted as it starts.
        const row_hints hints{simd::rows_ahead_bytes<T>(in_step), simd::rows_ahead_bytes<T>(out_step)};
        const std::size_t ahead = std::max(simd::rows_ahead<T>(in_step), simd::rows_ahead<T>(out_step));
        for (std::size_t r = 0; r < std::min(ahead, n); ++r) {
            simd::prefetch_stream_start<false>(x + static_cast<std::ptrdiff_t>(r) * in_step, width * sizeof(T));
            simd::prefetch_stream_start<true>(y + static_cast<std::ptrdiff_t>(r) * out_step, width * sizeof(T));
        }
        const auto hints_of = [&](std::size_t i) { return i + ahead < n ? hints : row_hints{}; };
        std::size_t i = 0;
        for (; i < n && prefix == nullptr && (prefix = arriving()) == nullptr; ++i, x += in_step, y += out_step)
            scan_rows_into_carry<1, block_output::plain, Exclusive>(x, y, in_step, out_step, width, carry, nullptr, scan, hints_of(i));
        plain_rows[first / carry_block_width<T>] = i;
        for (; i < n; ++i, x += in_step, y += out_step)
            scan_rows_into_carry<1, block_output::prefixed, Exclusive>(x, y, in_step, out_step, width, carry, prefix + first, scan, hints_of(i));
    });
}

/// The prefix entering the band (or line block) after one: `total` (n values, the band's total) becomes
/// prefix ∘ total, elementwise. Sequential and parallel scans chain their blocks through this one function.
template <class T, class Scan>
void chain_prefix(const simd::compute_t<T>* prefix, simd::compute_t<T>* total, std::size_t n, const Scan& scan) {
    using C = simd::compute_t<T>;
    using accumulator = typename Scan::accumulator;
    constexpr std::size_t W = simd::lanes<T>;
    // The tail loop starts from a bound of its own: carried over from the vector loop, GCC 12 -O2 took `j` for
    // unbounded where this was inlined with constant sizes (a false -Waggressive-loop-optimizations error).
    const std::size_t vectors_end = simd::vectorized ? n / W * W : 0;
    for (std::size_t j = 0; j < vectors_end; j += W) simd::store(total + j, scan.lanes(simd::load(prefix + j), simd::load(total + j)));
    for (std::size_t j = vectors_end; j < n; ++j)
        total[j] = static_cast<C>(scan(static_cast<accumulator>(prefix[j]), static_cast<accumulator>(total[j])));
}

/// Band `b` (bands of `rows` rows; the last takes the rest) of an across-rows scan of n rows: see scan_band.
template <block_output Output, bool Exclusive, class T, class Scan>
void scan_rows_band(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step, std::size_t m, std::size_t rows,
                    std::size_t b, const Scan& scan, const simd::compute_t<T>* prefix, simd::compute_t<T>* total) {
    const auto start = static_cast<std::ptrdiff_t>(b * rows);
    T* y = Output == block_output::none ? output : output + start * out_step;
    scan_band<Output, Exclusive>(input + start * in_step, y, std::min(rows, n - b * rows), in_step, out_step, m, scan, prefix, total,
                                 groups_rows<T>(n, m));
}

/// More rows than one band: the bands in order, each one's prefix chained from the band before (file comment).
template <bool Exclusive, class T, class Scan>
void scan_rows_in_bands(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step, std::size_t m,
                        std::size_t band, const Scan& scan) {
    using C = simd::compute_t<T>;
    std::vector<C> rows(2 * m);  // the prefix entering the band, and the band's total (then the next prefix)
    C* prefix = rows.data();
    C* total = rows.data() + m;
    scan_rows_band<block_output::plain, Exclusive>(input, output, n, in_step, out_step, m, band, 0, scan, nullptr, prefix);
    for (std::size_t b = 1; b * band < n; ++b) {
        scan_rows_band<block_output::prefixed, Exclusive>(input, output, n, in_step, out_step, m, band, b, scan, prefix, total);
        chain_prefix<T>(prefix, total, m, scan);
        std::swap(prefix, total);
    }
}

/// Register tiles, for a tensor that fits in L1: the running values of a tile of V vectors of columns stay in
/// registers while the tile walks down all n rows (one load and one store per vector and row, nothing else).
/// Only from L1: beyond it the column walk (a stride of one row, often a multiple of 4 KiB) maps every row of a
/// tile to the same cache set and aliases loads with earlier stores; measured on [n, 1024] tensors, the tiles
/// were 1.2–1.9× slower than the row-streaming kernels from 64 KiB up, and faster only below 32 KiB.
template <std::size_t V, bool Exclusive, class T, class Scan>
void scan_column_tile(const T* x, T* y, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step, const Scan& scan) {
    using P = simd::pack<T>;
    constexpr std::size_t W = P::size;
    std::array<P, V> running;
    iter::unrolled<V>([&](auto v) { running[v] = P(static_cast<simd::compute_t<T>>(scan.identity())); });
    for (std::size_t i = 0; i < n; ++i, x += in_step, y += out_step) {
        iter::unrolled<V>([&](auto v) {
            const P value = simd::load(x + v * W);  // read before the write: in place is safe
            scan_step<Exclusive>(running[v], value, [&](const P& a, const P& b) { return scan.lanes(a, b); },
                                 [&](const P& lanes) { simd::store(y + v * W, lanes); });
        });
    }
}

template <bool Exclusive, class T, class Scan>
void scan_rows_in_register_tiles(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step,
                                 std::size_t m, const Scan& scan) {
    constexpr std::size_t W = simd::lanes<T>;
    std::size_t j = 0;
    for (; j + 4 * W <= m; j += 4 * W) scan_column_tile<4, Exclusive>(input + j, output + j, n, in_step, out_step, scan);
    for (; j + W <= m; j += W) scan_column_tile<1, Exclusive>(input + j, output + j, n, in_step, out_step, scan);
    for (; j < m; ++j) scan_column<Exclusive>(input + j, output + j, n, in_step, out_step, scan, scan.identity());
}

/// Tensors up to this many bytes (input and output together: within any x86 L1 data cache) take the register
/// tiles; larger ones stream rows.
inline constexpr std::size_t register_tile_limit = std::size_t{32} << 10;

/// `band`: rows per band (band_rows of the whole tensor's rows). Within one band, the three kernels compute the
/// same running values, so which one runs (it depends on the size of the piece) never changes a result.
template <bool Exclusive, class T, class Scan>
void scan_across_rows(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step,
                      std::size_t m, std::size_t band, const Scan& scan) {
    const bool in_place = static_cast<const void*>(input) == static_cast<const void*>(output) && in_step == out_step;
    if (n > band)
        scan_rows_in_bands<Exclusive>(input, output, n, in_step, out_step, m, band, scan);
    else if (2 * n * m * sizeof(T) <= register_tile_limit)
        scan_rows_in_register_tiles<Exclusive>(input, output, n, in_step, out_step, m, scan);
    else if (std::is_same_v<simd::compute_t<T>, T> && !(Exclusive && in_place))
        scan_rows_carried_by_output<Exclusive>(input, output, n, in_step, out_step, m, scan);
    else
        scan_band<block_output::plain, Exclusive>(input, output, n, in_step, out_step, m, scan, nullptr, nullptr, groups_rows<T>(n, m));
}

// ---------------------------------------------------------------------------------------------
// Dispatch by layout.

/// Which kernel scans `nest` along `axis` (operand 0 output, operand 1 input).
enum class scan_layout { contiguous, across_rows, strided };

template <class T, class Scan>
[[nodiscard]] scan_layout scan_layout_of(const iter::loop_nest<2>& nest, std::size_t axis) {
    if constexpr (Scan::vectorizable && simd::vectorized) {
        const std::size_t last = nest.rank - 1;
        const std::ptrdiff_t out_step = nest.strides[0][axis], in_step = nest.strides[1][axis];
        if (axis == last && out_step == in_step && (out_step == 1 || out_step == -1)) return scan_layout::contiguous;
        if (axis != last && nest.inner_is_contiguous({0, 1}) && nest.sizes[last] >= simd::lanes<T>) return scan_layout::across_rows;
    }
    return scan_layout::strided;
}

/// Rows per band of an across-rows scan of `nest` (see band_rows); a nest of at most register_tile_limit bytes is
/// one band (the register tiles take it whole).
template <class T>
[[nodiscard]] std::size_t across_rows_band(const iter::loop_nest<2>& nest, std::size_t axis) {
    const std::size_t m = nest.sizes[nest.rank - 1], n = nest.sizes[axis];
    if (2 * n * m * sizeof(T) <= register_tile_limit) return n;
    return band_rows(m, sizeof(T));
}

/// Runs the scan over a planned nest (operand 0 output, operand 1 input) whose dimension `axis` is the
/// scan axis, walked in the order the strides give. `band`: rows per band of an across-rows layout, taken from
/// the whole nest when this one is a piece of it (across_rows_band).
template <bool Exclusive, class T, class Scan>
void run_scan(const T* input, T* output, const iter::loop_nest<2>& nest, std::size_t axis, const Scan& scan, std::size_t band) {
    if constexpr (Scan::vectorizable && simd::vectorized) {
        const scan_layout layout = scan_layout_of<T, Scan>(nest, axis);
        const std::size_t last = nest.rank - 1;
        const std::ptrdiff_t out_step = nest.strides[0][axis], in_step = nest.strides[1][axis];
        if (layout == scan_layout::contiguous) {
            iter::axis_set along;
            along.set(axis);
            const std::size_t n = nest.sizes[axis];
            iter::for_each_element(iter::remove_dimensions(nest, along), [&](const std::array<std::ptrdiff_t, 2>& line) {
                if (out_step == 1) scan_contiguous_line<Exclusive, false>(input + line[1], output + line[0], n, scan);
                else scan_contiguous_line<Exclusive, true>(input + line[1], output + line[0], n, scan);
            });
            return;
        }
        if (layout == scan_layout::across_rows) {
            iter::axis_set handled;
            handled.set(axis);
            handled.set(last);
            iter::for_each_element(iter::remove_dimensions(nest, handled), [&](const std::array<std::ptrdiff_t, 2>& rows) {
                scan_across_rows<Exclusive>(input + rows[1], output + rows[0], nest.sizes[axis], in_step, out_step,
                                            nest.sizes[last], band, scan);
            });
            return;
        }
    }
    scan_strided<Exclusive>(input, output, nest, axis, scan);
}

}  // namespace tensorops::detail
