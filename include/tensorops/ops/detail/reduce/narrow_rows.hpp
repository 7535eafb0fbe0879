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
// into one by a butterfly: ~9 cycles per row of 3 floats with AVX2, three times a plain loop. Here W rows are L whole
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

/// The lanes reduce's narrow-row kernel computes rows of T in: T's own, or 32-bit lanes for 8- and 16-bit integers
/// (sign- or zero-extended on load, simd::load_widened). Integer reductions keep their value modulo 2^n in wider
/// lanes (sums, products: every T's reduction wraps) or exactly (max, min), so the truncated results are the narrow
/// lanes' bit for bit; and eight uint8 rows of 3 become three registers of eight lanes, which the 32-bit permutes
/// and blends take apart (reduce_narrow_rows), where the short-row kernel read one 32-lane register a row and folded
/// it: 1.8 ns a row against ~0.2 for float rows.
template <class T>
using narrow_row_lane_t =
    std::conditional_t<std::is_integral_v<T> && (sizeof(T) < 4), std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>, T>;

/// Whether reduce has the narrow-row kernel for rows of T (in narrow_row_lane_t lanes), and for how many elements a
/// row at most: narrow_row_max, below a register's lanes.
template <class T>
inline constexpr bool has_narrow_reduce_kernel = [] {
    if constexpr (builtin_element<T>) return has_narrow_row_kernel<narrow_row_lane_t<T>>;
    else return false;
}();

template <class T>
inline constexpr std::size_t narrow_reduce_row_max = [] {
    if constexpr (has_narrow_reduce_kernel<T>) return std::min(narrow_row_max, simd::lanes<narrow_row_lane_t<T>> - 1);
    else return std::size_t{0};
}();

/// The narrow-row kernel (see above): n rows of L elements at x, back to back; row k's value to y[k · out_step]. Rows of
/// 8- and 16-bit integers in 32-bit lanes (narrow_row_lane_t), by reduction R rebound to them.
template <std::size_t L, class T, class TypedR>
void reduce_narrow_rows(const T* x, T* y, std::size_t n, std::ptrdiff_t out_step, const TypedR&) {
    using U = narrow_row_lane_t<T>;
    using R = rebind_reduction_t<TypedR, U>;
    using P = simd::pack<U>;
    using C = simd::compute_t<U>;
    constexpr std::size_t W = P::size;
    constexpr bool widened = !std::is_same_v<U, T>;
    static_assert(L >= 2 && L < W);
    const R r{};
    // Row p's finished value in lane p, as the short-row kernel's group_values computes it for a row shorter than W.
    const auto rows_of = [&](const std::array<P, L>& v) TENSOROPS_INLINE_STEP {
        const P no_shift(C(0));
        std::array<P, L> lifted;
        if constexpr (R::shifted) {  // log-sum-exp: the maxima, then Σ e^(x − shift) where the maximum is finite
            const P top = narrow_rows::fold_rows<W>(narrow_rows::components(v), extreme_reduction<U, true>{});
            const P shift = R::shift_for_lanes(top);
            iter::unrolled<L>([&](auto s) { lifted[s] = r.lift_lanes(v[s], simd::permute_constant<narrow_rows::row_of_lane<L, s>>(shift)); });
            return r.finish_lanes(R::sum_for_non_finite_lanes(top, narrow_rows::fold_rows<W>(narrow_rows::components(lifted), r)), L, shift);
        } else {
            iter::unrolled<L>([&](auto s) { lifted[s] = r.lift_lanes(v[s], no_shift); });
            return r.finish_lanes(narrow_rows::fold_rows<W>(narrow_rows::components(lifted), r), L, no_shift);
        }
    };
    // A whole register to consecutive outputs at once, otherwise element by element (float16: simd::store and the
    // element conversion round alike, NaN payloads included — core/float16.hpp; widened lanes: truncated to T, the
    // value modulo 2^n).
    const auto store = [&](T* out, const P& values, std::size_t count) TENSOROPS_INLINE_STEP {
        if (out_step == 1 && count == W) {
            if constexpr (widened) return simd::store_narrowed<T, U>(out, values);
            else return simd::store(out, values);
        }
        const auto lanes = simd::to_array(values);
        for (std::size_t k = 0; k < count; ++k) out[static_cast<std::ptrdiff_t>(k) * out_step] = static_cast<T>(lanes[k]);
    };
    std::size_t i = 0;
    for (; i + W <= n; i += W, x += W * L, y += static_cast<std::ptrdiff_t>(W) * out_step) {
        std::array<P, L> v;
        iter::unrolled<L>([&](auto s) { v[s] = simd::load_as<U>(x + s * W); });
        store(y, rows_of(v), W);
    }
    if (const std::size_t rest = n - i; rest != 0) {  // partial loads; the lanes past the rows are not stored
        std::array<P, L> v;
        iter::unrolled<L>([&](auto s) {
            const std::size_t first = s * W, available = rest * L > first ? std::min(W, rest * L - first) : 0;
            if (available == W) v[s] = simd::load_as<U>(x + first);  // load_partial takes fewer than W
            else v[s] = available == 0 ? P(C(0)) : simd::load_partial_as<U>(x + first, available);
        });
        store(y, rows_of(v), rest);
    }
}

/// reduce_narrow_rows for the row length `length` (2 ≤ length ≤ narrow_reduce_row_max<T>).
template <class T, class R>
void reduce_narrow_rows(const T* x, T* y, std::size_t n, std::ptrdiff_t out_step, std::size_t length, const R& r) {
    iter::unrolled<narrow_row_max - 1>([&](auto k) {
        constexpr std::size_t L = k + 2;
        if constexpr (L <= narrow_reduce_row_max<T>) {
            if (length == L) reduce_narrow_rows<L>(x, y, n, out_step, r);
        }
    });
}

/// Whether the short-row kernel's rows of `length` elements (the innermost dimension of `kept`) go to the narrow-row
/// kernel: back to back, 2 ≤ length ≤ narrow_reduce_row_max<T>.
template <class T>
[[nodiscard]] bool takes_narrow_row_kernel(const iter::loop_nest<2>& kept, std::size_t length) noexcept {
    const bool back_to_back = kept.rank != 0 && kept.strides[1][kept.rank - 1] == static_cast<std::ptrdiff_t>(length);
    return has_narrow_reduce_kernel<T> && back_to_back && length >= 2 && length <= narrow_reduce_row_max<T>;
}

}  // namespace tensorops::detail
