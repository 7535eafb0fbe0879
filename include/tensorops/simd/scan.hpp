// tensorops/simd/scan.hpp — inclusive prefix scans inside one register.
//
// Algorithm (Hillis–Steele): log2(W) steps; step k combines every lane with the lane k below it
// (shift_lanes_up<k>, identity entering at the bottom): after the steps with k = 1, 2, 4, …, lane i holds
// x0 ∘ … ∘ xi. The lanes of a float sum are therefore added in a tree order, not left to right; the error
// bound is that of a pairwise sum of W terms.
#pragma once

#include <cstddef>

#include "arithmetic.hpp"
#include "pack.hpp"
#include "shuffle.hpp"

namespace tensorops::simd {

/// Lane i of the result is op(x0, …, xi) for an associative `op` whose identity is `identity`.
template <std::size_t Step = 1, class P, class Op>
[[nodiscard, gnu::always_inline]] inline P inclusive_scan(const P& value, Op op, typename P::value_type identity) noexcept {
    if constexpr (Step < P::size) {
        return inclusive_scan<Step * 2>(op(value, shift_lanes_up<Step>(value, identity)), op, identity);
    } else {
        return value;
    }
}

/// Lane i of the result is op(xi, …, x(W−1)): the scan taken from the highest lane down (the form a backward
/// scan over memory needs). Same steps as inclusive_scan, with shift_lanes_down.
template <std::size_t Step = 1, class P, class Op>
[[nodiscard, gnu::always_inline]] inline P inclusive_suffix_scan(const P& value, Op op, typename P::value_type identity) noexcept {
    if constexpr (Step < P::size) {
        return inclusive_suffix_scan<Step * 2>(op(value, shift_lanes_down<Step>(value, identity)), op, identity);
    } else {
        return value;
    }
}

namespace detail {
#if TENSOROPS_X86_INTRINSICS
// AVX2: scan each 128-bit half with in-half byte shifts (vpalignr, identity entering), then add the lower
// half's total into the upper half (forward; the mirror image backward) with an in-half broadcast and one
// cross-half permute. Per register: log2(16/size) in-half shifts plus two shuffles — against 2·log2(W)
// shuffles, most of them cross-half, for the generic form. Shuffles compete for one port: their count sets
// the speed of an in-cache scan.
template <bool Backward, class P, class Op>
[[nodiscard, gnu::always_inline]] inline P scan_avx2(const P& value, Op op, typename P::value_type identity) noexcept {
    using C = typename P::value_type;
    const __m256i fill = as_bytes(P(identity));
    P scanned = value;
    for_each_in_half_step<sizeof(C)>([&](auto bytes) {
        const __m256i bits = as_bytes(scanned);
        const __m256i shifted = Backward ? _mm256_alignr_epi8(fill, bits, bytes.value)
                                         : _mm256_alignr_epi8(bits, fill, 16 - bytes.value);
        scanned = op(scanned, from_bytes<P>(shifted));
    });
    const __m256i bits = as_bytes(scanned);
    __m256i edge;  // every lane of each half: that half's total
    if constexpr (sizeof(C) == 4) edge = _mm256_shuffle_epi32(bits, Backward ? 0x00 : 0xFF);
    else if constexpr (sizeof(C) == 8) edge = _mm256_shuffle_epi32(bits, Backward ? 0x44 : 0xEE);
    else if constexpr (sizeof(C) == 2) edge = _mm256_shuffle_epi8(bits, _mm256_set1_epi16(Backward ? 0x0100 : 0x0F0E));
    else edge = _mm256_shuffle_epi8(bits, _mm256_set1_epi8(Backward ? 0 : 15));
    // Forward: [identity | low total] joins the high half; backward: [high total | identity] joins the low one.
    // (A single vpermd to broadcast the total and a blend measured slower here.)
    const __m256i other_half = Backward ? _mm256_permute2x128_si256(edge, fill, 0x31) : _mm256_permute2x128_si256(edge, fill, 0x02);
    return op(scanned, from_bytes<P>(other_half));
}
#endif
}  // namespace detail

/// The fastest in-register scan for this register: forward (Backward = false) lane i = x0 ∘ … ∘ xi,
/// backward lane i = xi ∘ … ∘ x(W−1). `op` must be associative and commutative (+, ×); the lanes of a float
/// sum are combined in a tree order, whose error bound is that of a pairwise sum of W terms.
template <bool Backward, class P, class Op>
[[nodiscard, gnu::always_inline]] inline P scan_lanes(const P& value, Op op, typename P::value_type identity) noexcept {
#if TENSOROPS_X86_INTRINSICS
    if constexpr (detail::is_avx2_register<P>) return detail::scan_avx2<Backward>(value, op, identity);
#endif
    if constexpr (Backward) return inclusive_suffix_scan(value, op, identity);
    else return inclusive_scan(value, op, identity);
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
