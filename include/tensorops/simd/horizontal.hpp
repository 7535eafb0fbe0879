// tensorops/simd/horizontal.hpp — combining the lanes of one register into one value.
//
// Lanes combine as a balanced tree (lane i with lane i + W/2, then the halves again), so a float sum of
// the lanes has the error of a pairwise sum and the result does not depend on how the lanes were filled.
// Integer sums and products wrap (as the vector instructions do). The tree is built from lane shifts, in
// the register: it runs once per output, which for outputs of a few hundred elements is a visible share.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "../core/inline.hpp"
#include "../iter/unroll.hpp"
#include "arithmetic.hpp"
#include "minmax.hpp"
#include "pack.hpp"
#include "shuffle.hpp"

namespace tensorops::simd {

namespace detail {

/// Lane 0 after K, K/2, …, 1-lane steps of lane i ∘= lane i + K, in the register (lane shifts: one or two
/// shuffles each): the balanced tree above, without leaving the vector unit.
template <std::size_t K, class P, class Combine>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P fold_lanes(const P& value, Combine combine) noexcept {
    const P folded = combine(value, shift_lanes_down<K>(value, typename P::value_type(0)));
    if constexpr (K > 1) return fold_lanes<K / 2>(folded, combine);
    else return folded;
}

template <class P, class Combine>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline typename P::value_type reduce_lanes(const P& value,
                                                                                  Combine combine) noexcept {
    if constexpr (P::size == 1) return to_array(value)[0];
    else return to_array(fold_lanes<P::size / 2>(value, combine))[0];
}

}  // namespace detail

/// Sum of all lanes (pairwise; integers wrap).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline typename P::value_type reduce_add(const P& value) noexcept {
    return detail::reduce_lanes(value, [](const P& a, const P& b) { return a + b; });  // vector lanes wrap
}

/// Product of all lanes (pairwise; integers wrap).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline typename P::value_type reduce_mul(const P& value) noexcept {
    return detail::reduce_lanes(value, [](const P& a, const P& b) { return simd::mul(a, b); });
}

/// Largest lane; NaN if any lane is NaN.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline typename P::value_type reduce_max(const P& value) noexcept {
    return detail::reduce_lanes(value, [](const P& a, const P& b) { return max_propagate_nan(a, b); });
}

/// Smallest lane; NaN if any lane is NaN.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline typename P::value_type reduce_min(const P& value) noexcept {
    return detail::reduce_lanes(value, [](const P& a, const P& b) { return min_propagate_nan(a, b); });
}

namespace detail {

/// The low half of every 2K-lane segment (lanes whose number, modulo 2K, is below K), as a select_constant pattern.
template <std::size_t K>
struct low_halves_of_segments {
    static constexpr bool get(unsigned lane, unsigned) noexcept { return lane % (2 * K) < K; }
};

/// fold_lanes' levels K, K/2, …, down to Last (lane i ∘= lane i + K): lanes [0, Last) then hold the partial
/// combinations that fold_lanes' remaining levels would combine.
template <std::size_t K, std::size_t Last, class P, class Combine>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P fold_lanes_down_to(const P& value, Combine& combine) noexcept {
    const P folded = combine(value, shift_lanes_down<K>(value, typename P::value_type(0)));
    if constexpr (K > Last) return fold_lanes_down_to<K / 2, Last>(folded, combine);
    else return folded;
}

/// One butterfly level of reduce_lanes_of_rows: rows[i] for i < Count / 2 becomes, segment by segment (2K lanes),
/// the lane pairs (l, l + K) of rows[i] in the low half and of rows[i + Count / 2] in the high half, combined.
template <std::size_t K, std::size_t Count, class P, std::size_t G, class Combine>
[[TENSOROPS_ALWAYS_INLINE]] inline void fold_row_pairs(std::array<P, G>& rows, Combine& combine) noexcept {
    using low = low_halves_of_segments<K>;
    iter::unrolled<Count / 2>([&](auto i) TENSOROPS_INLINE_STEP {  // unrolled: see reduce_lanes_of_rows
        const P& u = rows[i];
        const P& v = rows[i + Count / 2];
        const P first = select_constant<low>(u, v);
        const P second = select_constant<low>(shift_lanes_down<K>(u, typename P::value_type(0)), shift_lanes_up<K>(v, typename P::value_type(0)));
        rows[i] = combine(first, second);
    });
    if constexpr (K > 1) fold_row_pairs<K / 2, Count / 2>(rows, combine);
}

}  // namespace detail

/// The horizontal combination of each of G registers at once: lane p (p < G) of the result is the combination of
/// all lanes of rows[p], by the same tree as reduce_lanes (lane i with lane i + K, K halving), whatever p is.
/// G is a power of two, at most P::size. Each row is first folded on its own down to G lanes; then log2(G)
/// butterfly levels each halve the number of registers, a 2K-lane segment of a register holding one row's
/// partial values (W − 1 combinations for W rows, against W·log2(W) one row at a time). `combine` must be
/// commutative: the upper half of a segment meets its pair in the other order.
template <std::size_t G, class P, class Combine>
    requires(G >= 1 && G <= P::size && (G & (G - 1)) == 0)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P reduce_lanes_of_rows(std::array<P, G> rows, Combine combine) noexcept {
    // Loops over the registers are unrolled (iter::unrolled): as run-time loops, GCC 12 -O2 kept `rows` on the stack
    // and did not inline the short-row kernel's group step that calls this.
    if constexpr (P::size > G)
        iter::unrolled<G>([&](auto k) TENSOROPS_INLINE_STEP { rows[k] = detail::fold_lanes_down_to<P::size / 2, G>(rows[k], combine); });
    if constexpr (G > 1) detail::fold_row_pairs<G / 2, G>(rows, combine);
    return rows[0];
}

}  // namespace tensorops::simd
