// tensorops/ops/detail/scan/outer_rows.hpp — the row steps of a scan across rows (the axis is an outer dimension and
// the innermost dimension is contiguous): combining rows, the kernel carried by the output, and groups of rows
// passing a carry row through registers. Bands and register tiles build on these (outer_bands.hpp, outer.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../../core/inline.hpp"
#include "../../../iter/unroll.hpp"
#include "../../../simd/pack.hpp"
#include "../../../simd/prefetch.hpp"
#include "../tuning.hpp"
#include "policy.hpp"

namespace tensorops::detail {

// Algorithm. out[i, j] = out[i−1, j] ∘ x[i, j] for every column j (exclusive: ∘ x[i−1, j]), vectorised across j.
// Four kernels, by size and type:
//   running row in      rows of one or two vectors, any size: the whole running row (and a band's prefix row) in
//   registers           registers down the rows of a band, one dependence step a row (scan_rows_in_registers);
//   register tiles      (input + output within L1) a tile of 4 vectors of columns walks down all rows with its
//                       running values in registers;
//   carried by output   each step streams one input row and the output row just written, which is still in L1
//                       (L2 over more than a few rows: carried_few_rows) because the columns are processed in blocks:
//                       the previous output row is the running value itself, so no carry is stored twice;
//   carry buffer        float16 and bfloat16, whose outputs are rounded but whose running value must stay a float, an
//                       in-place exclusive scan, which overwrites x[i−1] before it is needed, and every scan of
//                       more than one band (its outputs are prefix ∘ running, not the running value): the running
//                       row lives in a buffer of the compute type, and groups of carry_group_rows rows pass each
//                       vector of it through a register (one carry load and store per group, not per row).

/// How many of the first columns of `row` come before a vector boundary (an address that is a whole number of vectors
/// of lanes<T> elements) when every row, `row_step` elements apart, is as aligned as this one and enough columns are
/// left after them for their share to be small (four vectors); else 0. A kernel walks those columns on their own, one
/// at a time, so that every store of the others begins on a vector boundary: a vector store that straddles two cache
/// lines costs two, and a vector of a whole line (64 bytes) anywhere else always straddles. Columns are independent:
/// this changes no result. Always 0 where the vectors are narrower than a line (a misaligned one straddles at most
/// every other boundary, and the columns walked one at a time at both ends of a row cost more than that saves) and
/// for float16 and bfloat16 (one at a time, each of their columns is a scalar conversion each way).
template <class T>
[[nodiscard]] std::size_t columns_before_vector_boundary(const T* row, std::ptrdiff_t row_step,
                                                         std::size_t m) noexcept {
    constexpr std::size_t vector_bytes = simd::lanes<T> * sizeof(T);
    if constexpr (!simd::vectorized || !std::is_same_v<simd::compute_t<T>, T> || vector_bytes < 64) {
        return 0;
    } else {
        const auto address = reinterpret_cast<std::uintptr_t>(row);
        const std::size_t step_bytes =
            (row_step < 0 ? 0 - static_cast<std::size_t>(row_step) : static_cast<std::size_t>(row_step)) * sizeof(T);
        if (address % sizeof(T) != 0 || step_bytes % vector_bytes != 0) return 0;
        const std::size_t head = (vector_bytes - address % vector_bytes) % vector_bytes / sizeof(T);
        return head + 4 * simd::lanes<T> <= m ? head : 0;
    }
}

/// out[j] = left[j] ∘ right[j] for j < width, with `left` a row or (Broadcast) one value. The columns before out's first
/// vector boundary one at a time, the others in vectors stored whole on their boundaries
/// (columns_before_vector_boundary).
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
    for (const std::size_t head = columns_before_vector_boundary(out, 0, width); j < head; ++j)
        out[j] = static_cast<T>(scan(left_value(j), static_cast<accumulator>(right[j])));
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

/// The carried-by-output kernel: n rows of m columns, in column blocks (carried_block_bytes, or carried_wide_block_bytes
/// over more than carried_few_rows rows), each output row combined from the one just written (which is the running
/// value) and the next input row. Not for float16, bfloat16 (their outputs are rounded) nor an in-place exclusive scan
/// (see the algorithm above). A column's values depend on that column alone: the blocks change no result.
template <bool Exclusive, class T, class Scan>
void scan_rows_carried_by_output(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step,
                                 std::size_t m, const Scan& scan) {
    using C = simd::compute_t<T>;
    const std::size_t block_width =
        (n <= carried_few_rows ? carried_block_bytes : carried_wide_block_bytes) / sizeof(C);
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

/// n rows of m ≤ V · lanes<T> columns (V vectors, the last one partial when m is not a whole number of them), the
/// running row in V registers from the identity down all n rows: one load and one store per vector and row, and one
/// combine — a dependence chain of one step per row (running_lanes), where the kernels that carry the running row
/// through memory (a carry row, or the output row just written) add a store-to-load forwarding to every step of it,
/// which bounds rows this narrow. Writes what Output says (`prefix`: the band's prefix row, m values, when prefixed);
/// the final running row goes to `total` (m values) unless it is null. The same values as scan_band's and
/// scan_rows_carried_by_output's (each column's operations in the same order).
template <std::size_t V, block_output Output, bool Exclusive, class T, class Scan>
void scan_rows_in_registers(const T* x, T* y, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step, std::size_t m,
                            const Scan& scan, const simd::compute_t<T>* prefix, simd::compute_t<T>* total) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    constexpr std::size_t W = P::size;
    const std::size_t tail = m - (V - 1) * W;  // columns of the last vector: 1 to W
    const C identity = static_cast<C>(scan.identity());
    // The walk for a last vector whole or partial, chosen once: the partial load's code kept out of the loop that does
    // not need it (a compiler left to unswitch the loop on `tail` may not, and then keeps it in registers' way).
    const auto walk = [&](auto last_is_whole) {
        const auto load_vector = [&](const auto* at, std::size_t v) {
            if (last_is_whole || v + 1 < V) return simd::load(at + v * W);
            return simd::load_partial(at + v * W, tail, identity);
        };
        const auto store_vector = [&](auto* at, std::size_t v, const P& lanes) {
            if (last_is_whole || v + 1 < V) simd::store(at + v * W, lanes);
            else simd::store_partial(at + v * W, lanes, tail);
        };
        std::array<P, V> running, before;
        iter::unrolled<V>([&](auto v) {
            running[v] = P(identity);
            if constexpr (Output == block_output::prefixed) before[v] = load_vector(prefix, v);
        });
        for (std::size_t i = 0; i < n; ++i, x += in_step, y += out_step) {
            iter::unrolled<V>([&](auto v) {
                const P value = load_vector(x, v);  // read before the write: in place is safe
                scan_step<Exclusive>(running[v], value, [&](const P& a, const P& b) { return running_lanes(scan, a, b); },
                                     [&](const P& lanes) {
                                         if constexpr (Output == block_output::plain) store_vector(y, v, lanes);
                                         else if constexpr (Output == block_output::prefixed) store_vector(y, v, scan.lanes(before[v], lanes));
                                     });
            });
        }
        if (total != nullptr) iter::unrolled<V>([&](auto v) { store_vector(total, v, running[v]); });
    };
    if (tail == W) walk(std::true_type{});
    else walk(std::false_type{});
}

/// scan_rows_in_registers for rows of m ≤ register_row_vectors · lanes<T> columns (its V from m).
template <block_output Output, bool Exclusive, class T, class Scan>
void scan_band_in_registers(const T* x, T* y, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step, std::size_t m,
                      const Scan& scan, const simd::compute_t<T>* prefix, simd::compute_t<T>* total) {
    static_assert(register_row_vectors == 2);
    if (m <= simd::lanes<T>) scan_rows_in_registers<1, Output, Exclusive>(x, y, n, in_step, out_step, m, scan, prefix, total);
    else scan_rows_in_registers<2, Output, Exclusive>(x, y, n, in_step, out_step, m, scan, prefix, total);
}

/// The page hints of a walk along one row (scan_rows_into_carry with R = 1) for the rows some distance on: the input row
/// `in_ahead` bytes on and the output row `out_ahead` bytes on (simd::rows_ahead_bytes; 0: no hint), read or written in
/// the direction of the rows' pitch (downward when it is negative; the columns are walked downward when the input's is).
struct row_hints {
    std::ptrdiff_t in_ahead = 0, out_ahead = 0;

    /// The hints for the step that reads [x, x + bytes) and writes [y, y + bytes).
    template <class T>
    [[TENSOROPS_ALWAYS_INLINE]] void vector(const T* x, const T* y, std::size_t bytes) const noexcept {
        if (in_ahead > 0) simd::prefetch_page_ahead(x, in_ahead, bytes);
        else if (in_ahead < 0) simd::prefetch_page_below(x, -in_ahead, bytes);
        if (out_ahead > 0) simd::prefetch_page_ahead<true>(y, out_ahead, bytes);
        else if (out_ahead < 0) simd::prefetch_page_below<true>(y, -out_ahead, bytes);
    }
};

/// R consecutive rows (x, y at row 0; steps in_step, out_step) of the columns [j, j + W) or, scalar, of column j:
/// the running value comes from the carry, passes through the R rows in a register and goes back to the carry.
template <std::size_t R, bool Exclusive, class T, class Scan, class Running, class Load, class Store>
[[TENSOROPS_ALWAYS_INLINE]] inline Running scan_row_group(Running running, const T* x, T* y, std::ptrdiff_t in_step,
                                                          std::ptrdiff_t out_step, const Scan& scan, const Load& load,
                                                          const Store& store) {
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
/// steps are TENSOROPS_INLINE_STEP (core/inline.hpp): GCC 12 -O2 otherwise calls them through their closure, once per
/// vector, which costs more than the step itself.
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

}  // namespace tensorops::detail
