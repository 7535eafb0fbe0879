// tensorops/ops/detail/arg_reduce/short_rows.hpp — the position of the extreme of a row of at most short_arg_row
// elements, in one pass over registers.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "../../../iter/unroll.hpp"
#include "../../../simd/pack.hpp"
#include "../tuning.hpp"
#include "contiguous.hpp"

namespace tensorops::detail {

/// Position of the first (Last: the last) extreme of the `count` contiguous elements at x, 1 ≤ count ≤
/// short_arg_row<T> (NaN is the extreme): the whole argmax of a short row, such as a row of class scores.
/// `whole_tail`: the vector that holds the row's end may be read whole (the elements past the row are the input's
/// own: see arg_reduce_inner).
/// Algorithm: the row in ⌈count / W⌉ vectors, the last with the extreme's identity in the lanes past the row (−inf
/// for a maximum of floats: read whole and those lanes replaced by a blend where `whole_tail`, for a masked load costs
/// more than a whole load and a blend; else read in part); their lane-wise extreme (NaN-propagating) and
/// its horizontal extreme are the target; each vector's lanes that match it (equal, or NaN for a NaN target) become
/// bits of one integer (simd::lane_bits), the bits past the row cleared (an identity lane may equal the target: a row
/// of −inf), and the lowest (Last: highest) set bit is the answer. One pass, the full vectors read again from L1; the
/// only branch on the data is whether the target is NaN.
/// Without it, rows narrower than a step of locate_extreme (four vectors) would go through its scalar tail and
/// find_in_block's element loop, one element at a time.
template <bool Maximum, bool Last, class T>
[[nodiscard]] std::size_t locate_in_short_row(const T* x, std::size_t count, bool whole_tail) {
    using P = simd::pack<T>;
    using C = simd::compute_t<T>;
    constexpr std::size_t W = P::size;
    const extreme_reduction<T, Maximum> extreme;
    const std::size_t full = count / W, tail = count % W;
    const C identity = static_cast<C>(extreme.identity());
    const P last = tail == 0   ? simd::load(x + (full - 1) * W)
                   : whole_tail ? simd::select(simd::detail::lanes_below<P>(tail), simd::load(x + full * W), P(identity))
                                : simd::load_partial(x + full * W, tail, identity);
    const std::size_t loaded = tail != 0 ? full : full - 1;  // full vectors before `last`
    P m = last;
    for (std::size_t k = 0; k < loaded; ++k) m = extreme.combine_lanes(m, simd::load(x + k * W));
    const C value = static_cast<C>(extreme.reduce_lanes(m));
    const auto bits_where = [&](const auto& hit) TENSOROPS_INLINE_STEP {  // the lanes of the row where hit(vector) holds
        std::uint64_t bits = simd::lane_bits(hit(last)) << (loaded * W);
        for (std::size_t k = 0; k < loaded; ++k) bits |= simd::lane_bits(hit(simd::load(x + k * W))) << (k * W);
        return count < 64 ? bits & ((std::uint64_t{1} << count) - 1) : bits;
    };
    const P target(value);
    const std::uint64_t bits = is_nan_value(value) ? bits_where([](const P& v) { return simd::is_nan(v); })
                                                   : bits_where([&](const P& v) { return v == target; });
    return Last ? static_cast<std::size_t>(63 - std::countl_zero(bits)) : static_cast<std::size_t>(std::countr_zero(bits));
}

}  // namespace tensorops::detail
