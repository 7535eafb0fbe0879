// tensorops/ops/detail/scan/outer.hpp — the scan across rows (the axis is an outer dimension, the innermost one
// contiguous): register tiles for a tensor within L1, rows narrower than a vector, and the choice among the
// across-rows kernels (outer_rows.hpp describes them).
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "../../../iter/unroll.hpp"
#include "../../../simd/pack.hpp"
#include "../tuning.hpp"
#include "outer_bands.hpp"
#include "outer_rows.hpp"
#include "policy.hpp"
#include "strided.hpp"

namespace tensorops::detail {

/// Register tiles, for a tensor that fits in L1: the running values of a tile of V vectors of columns stay in
/// registers while the tile walks down all n rows (one load and one store per vector and row, nothing else).
/// Only from L1: beyond it the column walk (a stride of one row, often a multiple of 4 KiB) maps every row of a
/// tile to the same cache set and aliases loads with earlier stores (register_tile_limit).
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

/// n rows of m columns in register tiles of 4 vectors, then of 1, the last columns one at a time.
template <bool Exclusive, class T, class Scan>
void scan_rows_in_register_tiles(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step,
                                 std::size_t m, const Scan& scan) {
    constexpr std::size_t W = simd::lanes<T>;
    std::size_t j = 0;
    for (; j + 4 * W <= m; j += 4 * W) scan_column_tile<4, Exclusive>(input + j, output + j, n, in_step, out_step, scan);
    for (; j + W <= m; j += W) scan_column_tile<1, Exclusive>(input + j, output + j, n, in_step, out_step, scan);
    for (; j < m; ++j) scan_column<Exclusive>(input + j, output + j, n, in_step, out_step, scan, scan.identity());
}

/// Rows narrower than a vector (m < lanes<T> columns, contiguous in both operands), scanned across: the running values
/// of every column in the low lanes of one register, each row read by one partial load and written by one partial
/// store — one pass down the rows, where the strided walk (scan_column) makes one pass per column, each reading every
/// line of the tensor again. Each column gets the strided walk's values: the same operation on the same values in the
/// same order, from the identity, the whole axis long (a strided layout has no blocks: policy.hpp).
/// Rows of 4, 8, 12 or 16 bytes (the common narrow rows) take a walk with their width a constant: the partial loads and
/// stores compose a row from pieces by its width, and a width known only at run time costs a few branches per row, as
/// many as the row's whole step takes when the rows are in cache.
template <bool Exclusive, class T, class Scan>
void scan_narrow_rows(const T* x, T* y, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step, std::size_t m,
                      const Scan& scan) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    const C identity = static_cast<C>(scan.identity());
    const auto walk = [=, &scan](auto columns) {  // m, or m as a std::integral_constant; copies: no store of a row can
        const T* from = x;                          // be taken to change the walk's pointers, steps or count
        T* to = y;
        P running(identity);
        for (std::size_t i = 0; i < n; ++i, from += in_step, to += out_step) {
            const P value = simd::load_partial(from, columns, identity);  // read before the write: in place is safe
            scan_step<Exclusive>(running, value, [&](const P& a, const P& b) { return running_lanes(scan, a, b); },
                                 [&](const P& lanes) { simd::store_partial(to, lanes, columns); });
        }
    };
    const auto walk_if_width = [&](auto bytes) {  // true when the rows are `bytes` wide and a walk took them
        constexpr std::size_t columns = bytes() / sizeof(T);
        if constexpr (columns * sizeof(T) == bytes() && columns < simd::lanes<T>) {
            if (m == columns) {
                walk(std::integral_constant<std::size_t, columns>{});
                return true;
            }
        }
        return false;
    };
    using std::integral_constant;
    if (!walk_if_width(integral_constant<std::size_t, 8>{}) && !walk_if_width(integral_constant<std::size_t, 16>{}) &&
        !walk_if_width(integral_constant<std::size_t, 12>{}) && !walk_if_width(integral_constant<std::size_t, 4>{}))
        walk(m);
}

/// n rows of m columns scanned across, by the kernel their size and type call for. `band`: rows per band
/// (band_rows of the whole tensor's rows). Within one band, the kernels compute the same running values, so which one
/// runs (it depends on the size of the piece) never changes a result.
/// Bands of one row (rows of at least half a band's bytes) are no bands at all where the running values are the
/// outputs: band b's prefix is the output row before it (P_b = P_b−1 ∘ total_b−1, the same operations as the running
/// value's), and it writes P_b ∘ (e ∘ x_b) where the running-value kernels write out_b−1 ∘ x_b, the same value — e ∘ x
/// is x for ∘ with identity e, but for a sum's −0 (e + −0 = +0), which changes nothing added to a running sum that is
/// never −0 (it starts from +0 and is −0 only as the sum of two −0). Those rows take the kernels without bands, which
/// keep no prefix or total rows and read each input row once, in column blocks (policy.hpp, "Blocks"; the parallel
/// scan keeps its bands: the same values).
template <bool Exclusive, class T, class Scan>
void scan_across_rows(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step,
                      std::size_t m, std::size_t band, const Scan& scan) {
    const bool in_place = static_cast<const void*>(input) == static_cast<const void*>(output) && in_step == out_step;
    // The carried-by-output kernel's outputs are its running values: not for float16, bfloat16 (rounded outputs) nor an in-place
    // exclusive scan (see outer_rows.hpp).
    const bool outputs_are_running = std::is_same_v<simd::compute_t<T>, T> && !(Exclusive && in_place);
    if (n > band && !(band == 1 && outputs_are_running))
        scan_rows_in_bands<Exclusive>(input, output, n, in_step, out_step, m, band, scan);
    else if (m <= register_row_vectors * simd::lanes<T>)
        scan_band_in_registers<block_output::plain, Exclusive>(input, output, n, in_step, out_step, m, scan, nullptr, nullptr);
    else if (2 * n * m * sizeof(T) <= register_tile_limit)
        scan_rows_in_register_tiles<Exclusive>(input, output, n, in_step, out_step, m, scan);
    else if (outputs_are_running)
        scan_rows_carried_by_output<Exclusive>(input, output, n, in_step, out_step, m, scan);
    else
        scan_band<block_output::plain, Exclusive>(input, output, n, in_step, out_step, m, scan, nullptr, nullptr, groups_rows<T>(n, m));
}

}  // namespace tensorops::detail
