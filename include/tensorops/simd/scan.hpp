// tensorops/simd/scan.hpp — inclusive prefix scans inside one register.
//
// Algorithm (Hillis–Steele): log2(W) steps; step k combines every lane with the lane k below it
// (shift_lanes_up<k>, identity entering at the bottom): after the steps with k = 1, 2, 4, …, lane i holds
// x0 ∘ … ∘ xi. The lanes of a float sum are therefore added in a tree order, not left to right; the error
// bound is that of a pairwise sum of W terms. (AVX2 registers scan faster by halves: x86/avx2.hpp.)
#pragma once

#include <cstddef>

#include "../core/inline.hpp"
#include "arithmetic.hpp"
#include "implementations.hpp"
#include "pack.hpp"
#include "shuffle.hpp"

namespace tensorops::simd {

/// Lane i of the result is op(x0, …, xi) for an associative `op` whose identity is `identity`.
template <std::size_t Step = 1, class P, class Op>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P inclusive_scan(const P& value, Op op,
                                                               typename P::value_type identity) noexcept {
    if constexpr (Step < P::size) {
        return inclusive_scan<Step * 2>(op(value, shift_lanes_up<Step>(value, identity)), op, identity);
    } else {
        return value;
    }
}

/// Lane i of the result is op(xi, …, x(W−1)): the scan taken from the highest lane down (the form a backward
/// scan over memory needs). Same steps as inclusive_scan, with shift_lanes_down.
template <std::size_t Step = 1, class P, class Op>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P inclusive_suffix_scan(const P& value, Op op,
                                                                      typename P::value_type identity) noexcept {
    if constexpr (Step < P::size) {
        return inclusive_suffix_scan<Step * 2>(op(value, shift_lanes_down<Step>(value, identity)), op, identity);
    } else {
        return value;
    }
}

namespace kernel {
/// The generic form of scan_lanes: inclusive_scan or inclusive_suffix_scan.
template <bool Backward, class P, class Op>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P scan_lanes(const P& value, Op op, typename P::value_type identity,
                                                           isa::portable) noexcept {
    if constexpr (Backward) return simd::inclusive_suffix_scan(value, op, identity);
    else return simd::inclusive_scan(value, op, identity);
}
}  // namespace kernel

/// The fastest in-register scan for this register: forward (Backward = false) lane i = x0 ∘ … ∘ xi,
/// backward lane i = xi ∘ … ∘ x(W−1). `op` must be associative and commutative (+, ×); the lanes of a float
/// sum are combined in a tree order, whose error bound is that of a pairwise sum of W terms.
template <bool Backward, class P, class Op>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P scan_lanes(const P& value, Op op,
                                                           typename P::value_type identity) noexcept {
    return kernel::scan_lanes<Backward>(value, op, identity, isa_of<P>{});
}

/// Lane i of the result is x0 + … + xi (integers wrap).
template <class P>
[[nodiscard]] P inclusive_scan_add(const P& value) noexcept {
    return inclusive_scan(value, [](const P& a, const P& b) { return a + b; }, typename P::value_type(0));
}

/// Lane i of the result is x0 · … · xi (integers wrap).
template <class P>
[[nodiscard]] P inclusive_scan_mul(const P& value) noexcept {
    return inclusive_scan(value, [](const P& a, const P& b) { return simd::mul(a, b); }, typename P::value_type(1));
}

}  // namespace tensorops::simd
