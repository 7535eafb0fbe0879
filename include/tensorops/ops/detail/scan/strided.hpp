// tensorops/ops/detail/scan/strided.hpp — the strided scan: one scalar line at a time, its running value in a
// register. The path for every layout the vector kernels do not take and for every user-defined element type.
#pragma once

#include <array>
#include <cstddef>

#include "../../../iter/nd_loop.hpp"
#include "../../../iter/plan.hpp"
#include "policy.hpp"

namespace tensorops::detail {

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

/// Every line of `nest` along `axis`, each from the identity (operand 0 output, operand 1 input).
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

}  // namespace tensorops::detail
