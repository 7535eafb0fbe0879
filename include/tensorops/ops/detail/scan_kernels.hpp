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
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <type_traits>

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
// from the highest lane, and "last" is the lowest lane. The loop prefetches simd::prefetch_distance bytes ahead
// of its loads: the scan keeps the shuffle port busy and the hardware prefetchers alone then fall behind
// (64 MiB: ~87 % of memcpy without the hints, ~100 % with them).
template <bool Exclusive, bool Backward, class T, class Scan>
void scan_contiguous_line(const T* input, T* output, std::size_t n, const Scan& scan) {
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

    P carry(identity);
    std::size_t i = 0;
    if constexpr (W > 1) {
        for (; i + 2 * W <= n; i += 2 * W) {
            simd::prefetch_ahead(block(input, i), Backward ? -simd::prefetch_distance : simd::prefetch_distance, 2 * W * sizeof(T));
            const P scan_a = simd::scan_lanes<Backward>(simd::load(block(input, i)), op, identity);
            const P scan_b = simd::scan_lanes<Backward>(simd::load(block(input, i + W)), op, identity);
            const P total_a = last(scan_a);
            const P through_b = op(total_a, scan_b);  // a∘b up to each lane of b
            if constexpr (Exclusive) {
                simd::store(block(output, i), op(carry, one_later(scan_a)));
                simd::store(block(output, i + W), op(carry, op(total_a, one_later(scan_b))));
            } else {
                simd::store(block(output, i), op(carry, scan_a));
                simd::store(block(output, i + W), op(carry, through_b));
            }
            carry = op(carry, last(through_b));
        }
    }
    constexpr std::ptrdiff_t step = Backward ? -1 : 1;
    const auto done = step * static_cast<std::ptrdiff_t>(i);
    scan_column<Exclusive>(input + done, output + done, n - i, step, step, scan, static_cast<accumulator>(simd::to_array(carry)[0]));
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
//   carry buffer        float16, whose outputs are rounded but whose running value must stay a float, and an
//                       in-place exclusive scan, which overwrites x[i−1] before it is needed: the running row lives
//                       in a one-page buffer of the compute type, and groups of 4 rows pass each vector of it
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

/// Groups of R rows, each column block's running values kept in the carry row between groups.
template <std::size_t R, bool Exclusive, class T, class Scan>
void scan_rows_into_carry(const T* x, T* y, std::ptrdiff_t in_step, std::ptrdiff_t out_step, std::size_t width,
                          simd::compute_t<T>* carry, const Scan& scan) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    using accumulator = typename Scan::accumulator;
    constexpr std::size_t W = P::size;
    const auto vector_scan = [&](const P& a, const P& b) { return scan.lanes(a, b); };
    const auto vector_load = [](const T* at) { return simd::load(at); };
    const auto vector_store = [](T* at, const P& value) { simd::store(at, value); };
    const auto scalar_load = [](const T* at) { return static_cast<accumulator>(*at); };
    const auto scalar_store = [](T* at, const accumulator& value) { *at = static_cast<T>(value); };
    std::size_t j = 0;
    for (; j + W <= width; j += W)
        simd::store(carry + j, scan_row_group<R, Exclusive>(simd::load(carry + j), x + j, y + j, in_step, out_step, vector_scan,
                                                            vector_load, vector_store));
    for (; j < width; ++j)
        carry[j] = static_cast<C>(scan_row_group<R, Exclusive>(static_cast<accumulator>(carry[j]), x + j, y + j, in_step, out_step, scan,
                                                               scalar_load, scalar_store));
}

template <bool Exclusive, class T, class Scan>
void scan_rows_with_carry_buffer(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step,
                                 std::size_t m, const Scan& scan) {
    using C = simd::compute_t<T>;
    constexpr std::size_t W = simd::lanes<T>;
    constexpr std::size_t block_width = std::max<std::size_t>(W, 4096 / sizeof(C) / W * W);
    constexpr std::size_t group = 4;
    alignas(64) std::array<C, block_width> carry;
    const C identity = static_cast<C>(scan.identity());
    for (std::size_t first = 0; first < m; first += block_width) {
        const std::size_t width = std::min(block_width, m - first);
        std::fill(carry.begin(), carry.begin() + static_cast<std::ptrdiff_t>(width), identity);
        const T* x = input + first;
        T* y = output + first;
        std::size_t i = 0;
        constexpr auto group_step = static_cast<std::ptrdiff_t>(group);  // steps may be negative: signed arithmetic
        for (; i + group <= n; i += group, x += group_step * in_step, y += group_step * out_step)
            scan_rows_into_carry<group, Exclusive>(x, y, in_step, out_step, width, carry.data(), scan);
        for (; i < n; ++i, x += in_step, y += out_step) scan_rows_into_carry<1, Exclusive>(x, y, in_step, out_step, width, carry.data(), scan);
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

template <bool Exclusive, class T, class Scan>
void scan_across_rows(const T* input, T* output, std::size_t n, std::ptrdiff_t in_step, std::ptrdiff_t out_step,
                      std::size_t m, const Scan& scan) {
    const bool in_place = static_cast<const void*>(input) == static_cast<const void*>(output) && in_step == out_step;
    if (2 * n * m * sizeof(T) <= register_tile_limit)
        scan_rows_in_register_tiles<Exclusive>(input, output, n, in_step, out_step, m, scan);
    else if (std::is_same_v<simd::compute_t<T>, T> && !(Exclusive && in_place))
        scan_rows_carried_by_output<Exclusive>(input, output, n, in_step, out_step, m, scan);
    else
        scan_rows_with_carry_buffer<Exclusive>(input, output, n, in_step, out_step, m, scan);
}

// ---------------------------------------------------------------------------------------------
// Dispatch by layout.

/// Runs the scan over a planned nest (operand 0 output, operand 1 input) whose dimension `axis` is the
/// scan axis, walked in the order the strides give.
template <bool Exclusive, class T, class Scan>
void run_scan(const T* input, T* output, const iter::loop_nest<2>& nest, std::size_t axis, const Scan& scan) {
    if constexpr (Scan::vectorizable && simd::vectorized) {
        const std::size_t last = nest.rank - 1;
        const std::ptrdiff_t out_step = nest.strides[0][axis], in_step = nest.strides[1][axis];
        if (axis == last && out_step == in_step && (out_step == 1 || out_step == -1)) {
            iter::axis_set along;
            along.set(axis);
            const std::size_t n = nest.sizes[axis];
            iter::for_each_element(iter::remove_dimensions(nest, along), [&](const std::array<std::ptrdiff_t, 2>& line) {
                if (out_step == 1) scan_contiguous_line<Exclusive, false>(input + line[1], output + line[0], n, scan);
                else scan_contiguous_line<Exclusive, true>(input + line[1], output + line[0], n, scan);
            });
            return;
        }
        if (axis != last && nest.inner_is_contiguous({0, 1}) && nest.sizes[last] >= simd::lanes<T>) {
            iter::axis_set handled;
            handled.set(axis);
            handled.set(last);
            iter::for_each_element(iter::remove_dimensions(nest, handled), [&](const std::array<std::ptrdiff_t, 2>& rows) {
                scan_across_rows<Exclusive>(input + rows[1], output + rows[0], nest.sizes[axis], in_step, out_step,
                                            nest.sizes[last], scan);
            });
            return;
        }
    }
    scan_strided<Exclusive>(input, output, nest, axis, scan);
}

}  // namespace tensorops::detail
