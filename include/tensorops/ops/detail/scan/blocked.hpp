// tensorops/ops/detail/scan/blocked.hpp — one long scan (a long contiguous line, or many rows scanned across)
// cut into its fixed blocks and run on an executor, bit-identical to the sequential kernels.
//
// Algorithm. The kernels already compute a long scan in fixed blocks (policy.hpp, "Blocks"): block b is
// scanned from the identity and written as P_b ∘ running, with P₁ = total₀ and P_b+1 = P_b ∘ total_b. In
// parallel, the same blocks are computed by the same functions, so only the order of the work changes:
//   - on an executor that starts pieces in increasing order (claims_in_order(), as tensorops::thread_pool does),
//     one pass: piece b reads block b for its total, waits until the prefix entering it is published, publishes
//     the next prefix and scans the block, which the total has just brought into cache. Block 0 scans at once
//     and publishes its total, so in the steady state no piece waits (each finishes its total while the one
//     before it publishes), and memory is read once and written once — a chained scan. Where the compute type is
//     the element type it goes one better: a block is written at once as its plain running values (giving the
//     total) until the prefix entering it is published — a line block in parts of line_part_bytes, a band of rows
//     row by row — the rest prefixed as it is scanned, and once the prefix is known the plain outputs are offset by
//     it, which is exactly what the prefixed kernel stores: each element is scanned once, and the block read from
//     memory once. Waiting spins before it sleeps (exec/spin_wait.hpp): a hand-over is short next to a sleep;
//   - on any other executor, two passes: every block's total, the prefixes chained on the calling thread, then
//     every block scanned with its prefix (the input is read twice).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <vector>

#include "../../../exec/executor.hpp"
#include "../../../exec/spin_wait.hpp"
#include "../../../iter/nd_loop.hpp"
#include "../../../iter/plan.hpp"
#include "../../../simd/pack.hpp"
#include "contiguous.hpp"
#include "dispatch.hpp"
#include "outer_bands.hpp"
#include "policy.hpp"

namespace tensorops::detail {

/// The totals and prefixes of a blocked scan: slot b (b < blocks − 1) holds block b's total, then (chained) the
/// prefix entering block b + 1; each is `width` values.
template <class Slot>
class block_slots {
public:
    block_slots(std::size_t blocks, std::size_t width) : values_((blocks - 1) * width), width_(width) {}
    [[nodiscard]] Slot* operator()(std::size_t b) noexcept { return values_.data() + b * width_; }

private:
    std::vector<Slot> values_;
    std::size_t width_;
};

/// The one-pass protocol on an executor that claims pieces in order: piece b runs before_wait(b, total, arrived) —
/// for b = 0 its final outputs, with its total into `total`; for later blocks what needs no prefix, with the block's
/// total into `total` unless b is the last block (then null); arrived() gives the prefix entering block b if it is
/// published already, else null, without waiting — waits until the prefix entering block b is published, publishes
/// the next one (chain) and runs after_wait(b, prefix). Block 0 never waits, and block b only waits for block b − 1,
/// which started earlier on another thread (or ran earlier on this one): no deadlock.
template <class Slot, class BeforeWait, class AfterWait, class Chain>
void run_chained_scan(const executor_ref& exec, std::size_t blocks, std::size_t slot_width, const BeforeWait& before_wait,
                      const AfterWait& after_wait, const Chain& chain) {
    block_slots<Slot> slot(blocks, slot_width);
    const std::unique_ptr<std::atomic<bool>[]> published(new std::atomic<bool>[blocks - 1]());
    exec.parallel_for(blocks, [&](std::size_t b) {
        const bool last = b + 1 == blocks;
        const auto arrived = [&]() -> const Slot* {
            return b != 0 && published[b - 1].load(std::memory_order_acquire) ? slot(b - 1) : nullptr;
        };
        before_wait(b, last ? nullptr : slot(b), arrived);
        if (b != 0) {
            wait_until_set(published[b - 1]);
            if (!last) chain(slot(b - 1), slot(b));
        }
        if (!last) {
            published[b].store(true, std::memory_order_release);
            published[b].notify_all();
        }
        if (b != 0) after_wait(b, slot(b - 1));
    });
}

/// Runs the `blocks` (≥ 2) blocks of one scan on `exec`. A prefix or total is `slot_width` values of Slot.
///   total(b, Slot* out)                            block b's total into out (writes no output);
///   scan_block(b, const Slot* prefix, Slot* total) block b's outputs (prefix null for block 0), and its total
///                                                  into `total` unless that is null;
///   chain(const Slot* prefix, Slot* total)         total := prefix ∘ total (the prefix entering the next block).
/// None of them may throw (a piece waiting for a prefix would wait for ever).
template <class Slot, class Total, class ScanBlock, class Chain>
void run_blocked_scan(const executor_ref& exec, std::size_t blocks, std::size_t slot_width, const Total& total, const ScanBlock& scan_block,
                      const Chain& chain) {
    if (exec.claims_in_order()) {
        run_chained_scan<Slot>(
            exec, blocks, slot_width,
            [&](std::size_t b, Slot* out, const auto&) {
                if (b == 0) scan_block(0, nullptr, out);
                else if (out != nullptr) total(b, out);
            },
            [&](std::size_t b, const Slot* prefix) { scan_block(b, prefix, nullptr); }, chain);
        return;
    }
    block_slots<Slot> slot(blocks, slot_width);
    exec.parallel_for(blocks - 1, [&](std::size_t b) { total(b, slot(b)); });
    for (std::size_t b = 1; b + 1 < blocks; ++b) chain(slot(b - 1), slot(b));
    exec.parallel_for(blocks, [&](std::size_t b) { scan_block(b, b == 0 ? nullptr : slot(b - 1), nullptr); });
}

/// y[i] = prefix ∘ y[i] for the n elements from `y` up (one block of a line, already written as plain running
/// values): exactly what the prefixed block would have stored, where the compute type is the element type.
template <class T, class Scan>
void offset_block(T* y, std::size_t n, const typename Scan::accumulator& prefix, const Scan& scan) {
    using P = simd::pack<T>;
    using accumulator = typename Scan::accumulator;
    constexpr std::size_t W = P::size;
    const P prefix_lanes(static_cast<simd::compute_t<T>>(prefix));
    std::size_t i = 0;
    for (; i + W <= n; i += W) simd::store(y + i, scan.lanes(prefix_lanes, simd::load(y + i)));
    for (; i < n; ++i) y[i] = static_cast<T>(scan(prefix, static_cast<accumulator>(y[i])));
}

/// The first `plain` traversal positions of block `b` of the contiguous line at `y` (stepping backwards when Backward),
/// written as plain running values: offset by the prefix entering the block (offset_block).
template <bool Backward, class T, class Scan>
void offset_line_block_start(T* y, std::size_t b, std::size_t plain, const typename Scan::accumulator& prefix, const Scan& scan) {
    if (plain == 0) return;
    const std::size_t first = b * line_scan_block<T>;
    // The lowest address: a backward line runs down from y.
    T* lowest = Backward ? y - static_cast<std::ptrdiff_t>(first + plain - 1) : y + static_cast<std::ptrdiff_t>(first);
    offset_block(lowest, plain, prefix, scan);
}

/// `rows` rows from y (step out_step) of `width` columns, already written as their plain running values, offset by
/// the prefix entering their band (`width` values): y = prefix ∘ y, elementwise (chain_prefix's combination) — what
/// the prefixed band would have stored, where the compute type is the element type.
template <class T, class Scan>
void offset_rows(T* y, std::size_t rows, std::ptrdiff_t out_step, std::size_t width, const T* prefix, const Scan& scan) {
    static_assert(std::is_same_v<simd::compute_t<T>, T>, "plain outputs hold the running values only when they are of the compute type");
    for (std::size_t i = 0; i < rows; ++i, y += out_step) chain_prefix<T>(prefix, y, width, scan);
}

/// How many blocks the kernel computes the scan of `nest` along `axis` in (1: not blocked; see policy.hpp).
template <class T, class Scan>
[[nodiscard]] std::size_t scan_blocks(const iter::loop_nest<2>& nest, std::size_t axis) {
    const std::size_t n = nest.sizes[axis];
    switch (scan_layout_of<T, Scan>(nest, axis)) {
        case scan_layout::contiguous: return (n + line_scan_block<T> - 1) / line_scan_block<T>;
        case scan_layout::across_rows: {
            const std::size_t rows = across_rows_band<T>(nest, axis);
            return (n + rows - 1) / rows;
        }
        case scan_layout::strided: return 1;
    }
    return 1;
}

/// Runs the scan of `nest` (a contiguous or across-rows layout of more than one block) on `exec`, one line or
/// set of rows after another, the blocks of each in parallel: bit-identical to run_scan.
template <bool Exclusive, class T, class Scan>
void run_blocked_scans(const executor_ref& exec, const T* input, T* output, const iter::loop_nest<2>& nest, std::size_t axis, const Scan& scan) {
    using accumulator = typename Scan::accumulator;
    using C = simd::compute_t<T>;
    const std::size_t n = nest.sizes[axis], last = nest.rank - 1;
    const std::ptrdiff_t out_step = nest.strides[0][axis], in_step = nest.strides[1][axis];
    const std::size_t blocks = scan_blocks<T, Scan>(nest, axis);
    if (scan_layout_of<T, Scan>(nest, axis) == scan_layout::contiguous) {
        iter::axis_set along;
        along.set(axis);
        const auto line_scan = [&]<bool Backward>(const T* x, T* y) {
            if constexpr (std::is_same_v<C, T>) {
                if (exec.claims_in_order()) {
                    // No block is read twice or scanned twice (the in-register scan is what limits this kernel): a
                    // block is written plain until the prefix entering it is published, prefixed from then on, and
                    // its plain part offset by the prefix once it is known, while still in L2. On two threads a good
                    // part of each block is written before its prefix arrives (the block before it is being scanned
                    // at the same time), so offsetting every block whole would read it a second time.
                    std::vector<std::size_t> plain_elements(blocks);
                    run_chained_scan<accumulator>(
                        exec, blocks, 1,
                        [&](std::size_t b, accumulator* out, const auto& arrived) {
                            const accumulator t = scan_line_block_as_prefix_arrives<Exclusive, Backward>(x, y, n, b, scan, arrived, plain_elements[b]);
                            if (out != nullptr) *out = t;
                        },
                        [&](std::size_t b, const accumulator* prefix) { offset_line_block_start<Backward>(y, b, plain_elements[b], *prefix, scan); },
                        [&](const accumulator* prefix, accumulator* t) { *t = scan(*prefix, *t); });
                    return;
                }
            }
            // Two passes, the blocks' hints running on into the next block as in one thread's stream: here no other
            // thread is writing the next block at the same time, and hints kept within each block ran slower.
            run_blocked_scan<accumulator>(
                exec, blocks, 1,
                [&](std::size_t b, accumulator* out) {
                    *out = scan_contiguous_line_block<block_output::none, Exclusive, Backward>(x, y, n, b, scan, scan.identity());
                },
                [&](std::size_t b, const accumulator* prefix, accumulator* out) {
                    const accumulator t =
                        prefix == nullptr ? scan_contiguous_line_block<block_output::plain, Exclusive, Backward>(x, y, n, b, scan, scan.identity())
                                          : scan_contiguous_line_block<block_output::prefixed, Exclusive, Backward>(x, y, n, b, scan, *prefix);
                    if (out != nullptr) *out = t;
                },
                [&](const accumulator* prefix, accumulator* t) { *t = scan(*prefix, *t); });
        };
        iter::for_each_element(iter::remove_dimensions(nest, along), [&](const std::array<std::ptrdiff_t, 2>& line) {
            if (out_step == 1) line_scan.template operator()<false>(input + line[1], output + line[0]);
            else line_scan.template operator()<true>(input + line[1], output + line[0]);
        });
        return;
    }
    const std::size_t m = nest.sizes[last], band = across_rows_band<T>(nest, axis);
    iter::axis_set handled;
    handled.set(axis);
    handled.set(last);
    iter::for_each_element(iter::remove_dimensions(nest, handled), [&](const std::array<std::ptrdiff_t, 2>& rows) {
        const T* x = input + rows[1];
        T* y = output + rows[0];
        if constexpr (std::is_same_v<C, T>) {
            if (exec.claims_in_order()) {
                // As for a line, no band is read twice: its rows are written plain (their running values, which give
                // the band's total) until the prefix entering the band is published, prefixed from then on, and the
                // plain ones offset by the prefix once it is known, while still in cache. One thread, or a band
                // whose prefix is ready when it starts, writes every row prefixed: as sequentially. (Totals first
                // and then a prefixed scan of the band from cache, or every row plain and then offset, scan each
                // element twice.)
                const carry_blocks<T> band_blocks = carry_blocks_of(y, out_step, m);  // the same for every band
                const std::size_t column_blocks = band_blocks.count();
                std::vector<std::size_t> plain_rows(blocks * column_blocks);
                const auto rows_of = [&](std::size_t b) { return std::min(band, n - b * band); };
                const auto band_start = [&](std::size_t b) { return static_cast<std::ptrdiff_t>(b * band); };
                run_chained_scan<C>(
                    exec, blocks, m,
                    [&](std::size_t b, C* out, const auto& arrived) {
                        scan_band_as_prefix_arrives<Exclusive>(x + band_start(b) * in_step, y + band_start(b) * out_step, rows_of(b),
                                                               in_step, out_step, band_blocks, scan, out, arrived,
                                                               plain_rows.data() + b * column_blocks);
                    },
                    [&](std::size_t b, const C* prefix) {
                        for (std::size_t k = 0; k < column_blocks; ++k) {
                            const std::size_t first = band_blocks.first(k);
                            offset_rows(y + band_start(b) * out_step + static_cast<std::ptrdiff_t>(first),
                                        plain_rows[b * column_blocks + k], out_step, band_blocks.width(k), prefix + first, scan);
                        }
                    },
                    [&](const C* prefix, C* t) { chain_prefix<T>(prefix, t, m, scan); });
                return;
            }
        }
        run_blocked_scan<C>(
            exec, blocks, m,
            [&](std::size_t b, C* out) { scan_rows_band<block_output::none, Exclusive>(x, y, n, in_step, out_step, m, band, b, scan, nullptr, out); },
            [&](std::size_t b, const C* prefix, C* out) {
                if (prefix == nullptr) scan_rows_band<block_output::plain, Exclusive>(x, y, n, in_step, out_step, m, band, b, scan, nullptr, out);
                else scan_rows_band<block_output::prefixed, Exclusive>(x, y, n, in_step, out_step, m, band, b, scan, prefix, out);
            },
            [&](const C* prefix, C* t) { chain_prefix<T>(prefix, t, m, scan); });
    });
}

}  // namespace tensorops::detail
