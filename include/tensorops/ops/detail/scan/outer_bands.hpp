// tensorops/ops/detail/scan/outer_bands.hpp — the carry-buffer kernel of a scan across rows: a band of rows walked in
// column blocks with the running values in a carry row; bands chained by their prefixes (policy.hpp, "Blocks"),
// sequentially here and as a band whose prefix arrives while it is scanned (the one-pass parallel scan, blocked.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "../../../core/inline.hpp"
#include "../../../simd/pack.hpp"
#include "../../../simd/prefetch.hpp"
#include "../tuning.hpp"
#include "outer_rows.hpp"
#include "policy.hpp"

namespace tensorops::detail {

/// Columns per block of the carry-buffer kernel: carry_block_bytes of the compute type, a whole number of vectors.
template <class T>
inline constexpr std::size_t carry_block_width =
    std::max<std::size_t>(simd::lanes<T>, carry_block_bytes / sizeof(simd::compute_t<T>) / simd::lanes<T> * simd::lanes<T>);

/// Columns per panel of a scan in bands (scan_rows_in_bands): band_panel_bytes of the compute type, a whole number of
/// column blocks.
template <class T>
inline constexpr std::size_t band_panel_width = std::max(carry_block_width<T>, band_panel_bytes / sizeof(simd::compute_t<T>) /
                                                                                   carry_block_width<T> * carry_block_width<T>);

/// Whether scan_band groups the rows of a scan of n rows of m elements (see there): where the scan stays in cache
/// (grouped_rows_limit), or its column blocks' carry rows are too wide to stay in L1 beside the prefix row
/// (grouped_carry_bytes).
template <class T>
[[nodiscard]] constexpr bool groups_rows(std::size_t n, std::size_t m) noexcept {
    return n * m * sizeof(T) <= grouped_rows_limit ||
           std::min(m, carry_block_width<T>) * sizeof(simd::compute_t<T>) >= grouped_carry_bytes;
}

/// The column blocks of a band of m columns whose output rows start `head` columns before a vector boundary
/// (columns_before_vector_boundary): those columns as a block of their own, if any, then blocks of carry_block_width<T>
/// columns, each beginning on a vector boundary of the output and (where the carry is a row aligned as the output's:
/// carry_row_aligned_at) of its carry row.
template <class T>
struct carry_blocks {
    static constexpr std::size_t block_width = carry_block_width<T>;
    std::size_t m = 0, head = 0;

    [[nodiscard]] std::size_t count() const noexcept {
        return (head != 0 ? 1 : 0) + (m - head + block_width - 1) / block_width;
    }
    [[nodiscard]] std::size_t first(std::size_t k) const noexcept {
        if (head == 0) return k * block_width;
        return k == 0 ? 0 : head + (k - 1) * block_width;
    }
    [[nodiscard]] std::size_t width(std::size_t k) const noexcept {
        return head != 0 && k == 0 ? head : std::min(block_width, m - first(k));
    }
};

/// The carry blocks of a band whose output row `y` (rows `y_step` apart) has m columns.
template <class T>
[[nodiscard]] carry_blocks<T> carry_blocks_of(const T* y, std::ptrdiff_t y_step, std::size_t m) noexcept {
    return {m, columns_before_vector_boundary(y, y_step, m)};
}

/// `count` values in `storage`, placed so that value `head` begins a 64-byte line: a carry, prefix or total row whose
/// columns from `head` on are stored on the same boundaries as the output's (carry_blocks).
template <class C>
[[nodiscard]] C* carry_row_aligned_at(std::vector<C>& storage, std::size_t count, std::size_t head) {
    constexpr std::size_t slack = std::max<std::size_t>(1, 64 / sizeof(C));
    storage.resize(count + slack);
    C* row = storage.data();
    for (std::size_t k = 0; k < slack && reinterpret_cast<std::uintptr_t>(row + head) % 64 != 0; ++k) ++row;
    return row;
}

/// Calls rows(k, first, width, carry) for each column block k, [first, first + width), of `blocks`, in order (from the
/// last block down when `descending`: see scan_rows_into_carry): `carry` is the block's running row, set to the
/// identity — in `total` (m values), or in a buffer on the stack (carry_block_bytes, 64-byte aligned) when `total` is
/// null or CarryInTotal is false, and then copied to `total` if there is one. The parallel band scan keeps its carry on
/// the stack: its totals are the slots of neighbouring bands, which two threads would otherwise write at once, every
/// row (the gain is unconfirmed: bench/journal/notes-scan-and-tuples.md). One thread gains nothing from the copy: the
/// sequential kernels run in `total`.
template <class T, bool CarryInTotal = true, class Scan, class Rows>
[[TENSOROPS_ALWAYS_INLINE]] inline void for_each_carry_block(const carry_blocks<T>& blocks, bool descending,
                                                             simd::compute_t<T>* total, const Scan& scan,
                                                             const Rows& rows) {
    using C = simd::compute_t<T>;
    alignas(64) std::array<C, carry_blocks<T>::block_width> page;
    const C identity = static_cast<C>(scan.identity());
    const std::size_t count = blocks.count();
    for (std::size_t step = 0; step < count; ++step) {
        const std::size_t k = descending ? count - 1 - step : step;
        const std::size_t first = blocks.first(k), width = blocks.width(k);
        C* carry = CarryInTotal && total != nullptr ? total + first : page.data();
        std::fill(carry, carry + width, identity);
        rows(k, first, width, carry);
        if (!CarryInTotal && total != nullptr) std::copy(carry, carry + width, total + first);
    }
}

/// One band: the n rows from input / output (row steps in_step, out_step) of m columns, scanned from the identity, in
/// column blocks (carry_block_width) with the running values in a carry row — `total` (m values: it holds the band's
/// total afterwards) or, when that is null, a buffer on the stack. `grouped`: groups of carry_group_rows rows pass each
/// vector of the carry through a register (one carry load and store per group), for scans that stay in cache or whose
/// carry rows are wide; a scan of narrower rows that streams from memory takes its rows one at a time — one read and
/// one write stream rather than four of each (groups_rows). The running values are the same either way. No page hints:
/// this walk's step already loads and stores its carry besides the row, and the hints' page test at every vector step
/// cost more than the hints saved, on every row width and type measured (bench/journal/2026-11-28-wide-rows.md); the
/// one-pass parallel band keeps its hints (scan_band_as_prefix_arrives).
/// Writes what Output says; `prefix`: the band's prefix row (m values) when prefixed.
template <block_output Output, bool Exclusive, class T, class Scan>
void scan_band(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step, std::size_t m, const Scan& scan,
               const simd::compute_t<T>* prefix, simd::compute_t<T>* total, bool grouped) {
    using C = simd::compute_t<T>;
    constexpr std::size_t group = carry_group_rows;
    constexpr auto group_step = static_cast<std::ptrdiff_t>(group);  // steps may be negative: signed arithmetic
    // Writing nothing, the kernel still forms output addresses: give it the input's (never written through).
    T* const y_row = Output == block_output::none ? const_cast<T*>(input) : output;
    const std::ptrdiff_t y_step = Output == block_output::none ? in_step : out_step;
    if (m <= register_row_vectors * simd::lanes<T>) {  // the whole running row in registers
        scan_band_in_registers<Output, Exclusive>(input, y_row, n, in_step, y_step, m, scan, prefix, total);
        return;
    }
    for_each_carry_block<T>(carry_blocks_of(y_row, y_step, m), in_step < 0, total, scan,
                            [&](std::size_t, std::size_t first, std::size_t width, C* carry) {
        const C* before = Output == block_output::prefixed ? prefix + first : nullptr;
        const T* x = input + first;
        T* y = y_row + first;
        std::size_t i = 0;
        if (grouped)
            for (; i + group <= n; i += group, x += group_step * in_step, y += group_step * y_step)
                scan_rows_into_carry<group, Output, Exclusive>(x, y, in_step, y_step, width, carry, before, scan);
        for (; i < n; ++i, x += in_step, y += y_step)
            scan_rows_into_carry<1, Output, Exclusive>(x, y, in_step, y_step, width, carry, before, scan);
    });
}

/// scan_band for a band whose prefix row may become known while the band is scanned (the parallel one-pass scan,
/// where the compute type is the element type): in each column block of `blocks` (carry_blocks_of the output's rows),
/// rows are written plain until `arriving()` gives the prefix row (m values; it is asked before each row and never
/// waits), prefixed from then on. plain_rows[k] receives how many rows of column block k were written plain
/// (offset_rows brings them to what the prefixed band stores). Rows one at a time: the scans that run in parallel
/// stream from memory.
template <bool Exclusive, class T, class Scan, class Arriving>
void scan_band_as_prefix_arrives(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step,
                                 std::ptrdiff_t out_step, const carry_blocks<T>& blocks, const Scan& scan,
                                 simd::compute_t<T>* total, const Arriving& arriving, std::size_t* plain_rows) {
    using C = simd::compute_t<T>;
    const C* prefix = nullptr;
    for_each_carry_block<T, false>(blocks, in_step < 0, total, scan,
                                   [&](std::size_t k, std::size_t first, std::size_t width, C* carry) {
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
        plain_rows[k] = i;
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

/// More rows than one band: the bands in order, each one's prefix chained from the band before (policy.hpp, "Blocks"),
/// in panels of columns (band_panel_width): each panel walks every band before the next panel starts. Within a panel
/// the bands go one after the other and each band its column blocks, so the column blocks of a band follow each other
/// in every row (the memory a row's stream has run on into is read next, not after the whole tensor); the panel bounds
/// the prefix and total rows, which every band reads and writes whole, to what stays in cache whatever the rows' width.
/// A column's running values, prefixes and totals depend on that column alone: the panels change no result.
template <bool Exclusive, class T, class Scan>
void scan_rows_in_bands(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step, std::size_t m,
                        std::size_t band, const Scan& scan) {
    using C = simd::compute_t<T>;
    const std::size_t panel = std::min(m, band_panel_width<T>);
    // The prefix entering the band, and the band's total (then the next prefix); where the output's rows begin a few
    // columns before a vector boundary, each aligned as they are (its carry: carry_blocks; panels begin on vector
    // boundaries of the first).
    const std::size_t head = columns_before_vector_boundary(output, out_step, panel);
    constexpr std::size_t line = std::max<std::size_t>(1, 64 / sizeof(C));
    const std::size_t row_span = head == 0 ? panel : (panel + line - 1) / line * line;
    std::vector<C> storage;
    C* rows = nullptr;
    if (head == 0) {
        storage.resize(2 * row_span);
        rows = storage.data();
    } else {
        rows = carry_row_aligned_at(storage, 2 * row_span, head);
    }
    const bool grouped = groups_rows<T>(n, m);
    const std::size_t panels = (m + panel - 1) / panel;
    for (std::size_t k = 0; k < panels; ++k) {
        // From the last panel down when the rows are walked downwards (see scan_rows_into_carry).
        const std::size_t first = (in_step < 0 ? panels - 1 - k : k) * panel, width = std::min(panel, m - first);
        C* prefix = rows;
        C* total = rows + row_span;
        const T* x = input + first;
        T* y = output + first;
        scan_band<block_output::plain, Exclusive>(x, y, std::min(band, n), in_step, out_step, width, scan, nullptr, prefix, grouped);
        for (std::size_t b = 1; b * band < n; ++b) {
            const auto start = static_cast<std::ptrdiff_t>(b * band);
            scan_band<block_output::prefixed, Exclusive>(x + start * in_step, y + start * out_step, std::min(band, n - b * band), in_step, out_step,
                                                         width, scan, prefix, total, grouped);
            chain_prefix<T>(prefix, total, width, scan);
            std::swap(prefix, total);
        }
    }
}

}  // namespace tensorops::detail
