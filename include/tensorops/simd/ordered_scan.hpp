// tensorops/simd/ordered_scan.hpp — inclusive prefix scans inside one register for an associative operation that
// need not be commutative: every combination takes the earlier lane (in scan order) as its first operand.
//
// Algorithm (Hillis–Steele, as simd/scan.hpp): log2(W) steps; step k combines every lane with the lane k before it
// in scan order, op(before, lane), the identity entering at the start. After the steps with k = 1, 2, 4, …, lane i
// holds x0 ∘ … ∘ xi with every operand in scan order. Built from shift_lanes_up / shift_lanes_down only, so it serves
// every register; simd::scan_lanes (scan.hpp) is the faster form for commutative operations (+, ×).
#pragma once

#include <cstddef>

#include "../core/inline.hpp"
#include "pack.hpp"
#include "shuffle.hpp"

namespace tensorops::simd {

/// Forward (Backward = false): lane i of the result is x0 ∘ x1 ∘ … ∘ xi; backward: lane i is x(W−1) ∘ … ∘ xi, the scan
/// taken from the highest lane down (a backward walk over memory). `op(earlier, later)` must be associative, with
/// `identity` its identity; it need not be commutative (a maximum that keeps the first of equal values).
template <bool Backward, std::size_t Step = 1, class P, class Op>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P scan_lanes_in_order(const P& value, const Op& op,
                                                                    typename P::value_type identity) noexcept {
    if constexpr (Step < P::size) {
        if constexpr (Backward) return scan_lanes_in_order<Backward, Step * 2>(op(shift_lanes_down<Step>(value, identity), value), op, identity);
        else return scan_lanes_in_order<Backward, Step * 2>(op(shift_lanes_up<Step>(value, identity), value), op, identity);
    } else {
        return value;
    }
}

namespace detail {
/// Step K of an idempotent scan: lane i takes lane i − K (forward) or i + K (backward), or itself where there is none.
template <std::size_t K, bool Backward>
struct earlier_lane_or_self {
    static constexpr unsigned get(unsigned lane, unsigned lanes) noexcept {
        if constexpr (Backward) return lane + K < lanes ? lane + static_cast<unsigned>(K) : lane;
        else return lane >= K ? lane - static_cast<unsigned>(K) : lane;
    }
};
}  // namespace detail

/// scan_lanes_in_order for an operation that is also idempotent (op(a, a) = a: a maximum or minimum). Step k combines
/// each lane with the lane k before it or, where there is none, with itself — which changes nothing, as the lanes
/// before it already hold their whole prefix — so a step is one constant permutation (one instruction where
/// simd::permutes_in_register: x86 registers of 32- and 64-bit lanes) instead of a shift and a blend with the identity.
/// Other registers take scan_lanes_in_order. Same results: both give each lane op over its prefix, in order.
template <bool Backward, std::size_t Step = 1, class P, class Op>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P scan_lanes_idempotent(const P& value, const Op& op,
                                                                      typename P::value_type identity) noexcept {
    if constexpr (permutes_in_register<P>) {
        if constexpr (Step < P::size)
            return scan_lanes_idempotent<Backward, Step * 2>(op(permute_constant<detail::earlier_lane_or_self<Step, Backward>>(value), value), op, identity);
        else
            return value;
    } else {
        return scan_lanes_in_order<Backward>(value, op, identity);
    }
}

}  // namespace tensorops::simd
