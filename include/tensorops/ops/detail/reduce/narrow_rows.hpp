// tensorops/ops/detail/reduce/narrow_rows.hpp — reduce's kernel for back-to-back rows of 2 to narrow_row_max elements,
// fewer than a register's lanes: W rows at a time in L registers (narrow_rows.hpp), each row's value bit for bit the
// short-row kernel's.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../../iter/plan.hpp"
#include "../../../iter/unroll.hpp"
#include "../../../simd/pack.hpp"
#include "../narrow_rows.hpp"
#include "../reductions.hpp"
#include "../tuning.hpp"

namespace tensorops::detail {

// Narrow rows back to back: rows of L elements, 2 ≤ L ≤ narrow_row_max and L < W (the register's lanes), each row
// right after the previous one (row stride L), in registers of 32- or 64-bit lanes — 8- and 16-bit integers widened to
// 32-bit lanes on load (narrow_row_lane_t).
//
// Algorithm. The short-row kernel reads each such row with a partial load of its own and folds eight rows' registers
// into one by a butterfly: for rows this narrow, slower than a plain loop (the figures:
// bench/journal/notes-reduce-and-log-sum-exp.md). Here W rows are L whole
// registers v[0 … L): component c of the W rows (lane p = element p·L + c, which is lane (p·L + c) mod W of register
// (p·L + c) div W) is assembled by constant blends and permutes (narrow_rows::components: the registers rotated so that
// a component's elements lie in distinct lanes — no rotation when L and W are coprime —, then L − 1 blends and one
// permute per component; the argmax kernel of narrow rows uses it too). Then each lane (row) is combined exactly as the
// short-row kernel combines a row shorter than a register: the lanes from L on the identity, folded by reduce_lanes'
// tree (lane i with lane i + K, K = W/2 … 1) — so a row's value is bit for bit what the short-row kernel gives it,
// whichever kernel a piece of the outputs takes. For that the elements are lifted (squared, |x|, e^(x − shift)) in
// the loaded registers, before the blends and permutes, as the short-row kernel lifts before its selects: a lift
// meeting a combination directly would let the compiler contract x·x + y into a fused multiply-add that the other
// kernel does not make. Log-sum-exp's shift, one per row (lane), is spread to the loaded registers' layout by a
// permute each. Rows after the last whole W are read by partial loads. Rows of 3 floats (AVX2): 3 loads, 3
// permutes, 6 blends and 6 adds per 8 rows, where a plain loop does 3 loads and 2 adds per row.

/// The narrow-row kernel (see above): n rows of L elements at x, back to back; row k's value to y[k · out_step]. Rows of
/// 8- and 16-bit integers in 32-bit lanes (narrow_row_lane_t), by reduction R rebound to them.
template <std::size_t L, class T, class TypedR>
void reduce_narrow_rows(const T* x, T* y, std::size_t n, std::ptrdiff_t out_step, const TypedR&) {
    using U = narrow_row_lane_t<T>;
    using R = rebind_reduction_t<TypedR, U>;
    using P = simd::pack<U>;
    using C = simd::compute_t<U>;
    constexpr std::size_t W = P::size;
    const R r{};
    // Row p's finished value in lane p, as the short-row kernel computes it for a row shorter than W.
    walk_narrow_rows<L>(x, y, n, out_step, [&](const std::array<P, L>& v) TENSOROPS_INLINE_STEP {
        const P no_shift(C(0));
        std::array<P, L> lifted;
        iter::unrolled<L>([&](auto s) { lifted[s] = r.lift_lanes(v[s], no_shift); });
        return r.finish_lanes(narrow_rows::fold_rows<W>(narrow_rows::components(lifted), r), L, no_shift);
    });
}

/// reduce_narrow_rows for the row length `length` (2 ≤ length ≤ narrow_reduce_row_max<T>).
template <class T, class R>
void reduce_narrow_rows(const T* x, T* y, std::size_t n, std::ptrdiff_t out_step, std::size_t length, const R& r) {
    with_narrow_row_length<T>(length, [&](auto l) { reduce_narrow_rows<decltype(l)::value>(x, y, n, out_step, r); });
}

}  // namespace tensorops::detail
