// tensorops/ops/detail/scan/contiguous.hpp — the scan along a contiguous axis (stride +1 or −1 for both operands):
// in-register prefix scans with a decoupled carry, a line at a time in its fixed blocks (policy.hpp, "Blocks").
#pragma once

#include <algorithm>
#include <cstddef>

#include "../../../simd/pack.hpp"
#include "../../../simd/prefetch.hpp"
#include "../../../simd/scan.hpp"
#include "../../../simd/shuffle.hpp"
#include "../tuning.hpp"
#include "policy.hpp"

namespace tensorops::detail {

// Algorithm. Two vectors a, b (2W consecutive elements of the line) are scanned in registers independently of
// everything before them: sa, sb (simd::scan_lanes), with ta the last lane of sa broadcast. The outputs are
// carry∘sa and carry∘(ta∘sb), and the next carry is carry∘last(ta∘sb). Only that last combination depends on
// the previous iteration, so the loop-carried chain is one vector operation per 2W elements, not one per
// element; everything else overlaps across iterations. An operation that says carry ∘ x = carry for every lane x of a
// and b (Scan::absorbs, where it has one: a running extreme not beaten) writes the carry and skips the scans — the
// same outputs, as carry ∘ (anything made of those lanes and the identity) is the carry. An exclusive scan shifts each local scan up by one
// lane (identity entering), which is the same data one position later. A backward line (stride −1, a
// DECREASING scan over contiguous memory) is the mirror image: blocks are taken from the top down, scanned
// from the highest lane, and "last" is the lowest lane. Each step hints the input's and the output's page
// simd::page_prefetch_distance ahead in the walk's direction (simd::prefetch_stream_ahead; the output's for writing):
// the hardware prefetchers stop at page boundaries, so a stream crossing pages is hinted a page ahead, along the walk
// and not per line (measurements: bench/journal/notes-scan-and-tuples.md). A block of the one-pass parallel scan
// hints only within itself (block_hints, below).

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
    // Absorbing operations: after a pair that was not absorbed the test is left out for the next `skip` pairs, skip
    // doubling (to 15) while tested pairs are not absorbed and 0 again once one is — on data with a trend (every pair
    // beats the carry) the test is paid on one pair in sixteen. The outputs are the same either way.
    [[maybe_unused]] std::size_t skip = 0, untested = 0;
    std::size_t i = 0;
    if constexpr (W > 1) {
        for (; i + 2 * W <= n; i += 2 * W) {
            const std::size_t low = Backward ? i + W : i;  // the step's lowest block
            if (i < hint_end) {
                simd::prefetch_stream_ahead<false, Backward>(block(input, low), 2 * W * sizeof(T));
                if constexpr (Output != block_output::none) simd::prefetch_stream_ahead<true, Backward>(block(output, low), 2 * W * sizeof(T));
            }
            const P a = simd::load(block(input, i)), b = simd::load(block(input, i + W));
            if constexpr (requires { scan.absorbs(carry, a, b); }) {
                if (untested != 0) {
                    --untested;
                } else if (scan.absorbs(carry, a, b)) [[likely]] {  // carry ∘ (any lane of a, b) = carry: every output is the carry, as is the next
                    emit(i, carry);
                    emit(i + W, carry);
                    skip = 0;
                    continue;
                } else {
                    untested = skip;
                    skip = std::min<std::size_t>(2 * skip + 1, 15);
                }
            }
            const P scan_a = scan_register<Backward>(scan, a, identity);
            const P scan_b = scan_register<Backward>(scan, b, identity);
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
/// output lines away from the core writing them).
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

/// Block `b` of a contiguous line of n elements on several threads (blocked.hpp), where the compute type is the
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

}  // namespace tensorops::detail
