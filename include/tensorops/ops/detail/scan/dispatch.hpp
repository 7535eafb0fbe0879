// tensorops/ops/detail/scan/dispatch.hpp — the scan's decision table: which layout a planned nest has
// (contiguous, across rows, strided) and the kernel that runs it (run_scan).
#pragma once

#include <array>
#include <cstddef>

#include "../../../iter/nd_loop.hpp"
#include "../../../iter/plan.hpp"
#include "../../../simd/pack.hpp"
#include "../tuning.hpp"
#include "contiguous.hpp"
#include "outer.hpp"
#include "policy.hpp"
#include "strided.hpp"

namespace tensorops::detail {

/// Which kernel scans `nest` along `axis` (operand 0 output, operand 1 input). Strided includes rows narrower than a
/// vector (run_scan takes their columns together: scan_narrow_rows), scanned as every strided line is, without blocks.
enum class scan_layout { contiguous, across_rows, strided };

/// The contiguous layout where the axis is innermost with stride ±1 for both operands, across rows where another
/// dimension is innermost with stride 1 for both and at least a vector wide; else (and for user types) strided.
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
        // Strided, but the rows are contiguous and narrower than a vector: all their columns in one pass (the same
        // values as the strided walk's, which takes one column at a time).
        const std::size_t m = nest.sizes[last];
        if (axis != last && nest.inner_is_contiguous({0, 1}) && m >= 2) {
            iter::axis_set handled;
            handled.set(axis);
            handled.set(last);
            iter::for_each_element(iter::remove_dimensions(nest, handled), [&](const std::array<std::ptrdiff_t, 2>& rows) {
                scan_narrow_rows<Exclusive>(input + rows[1], output + rows[0], nest.sizes[axis], in_step, out_step, m, scan);
            });
            return;
        }
    }
    scan_strided<Exclusive>(input, output, nest, axis, scan);
}

}  // namespace tensorops::detail
