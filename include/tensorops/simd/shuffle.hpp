// tensorops/simd/shuffle.hpp — moving lanes within a register: shifts by whole lanes and broadcasting the
// last lane (the building blocks of in-register prefix scans and of their carries), and permutations fixed at
// compile time (the narrow-row reduce kernel's regrouping of back-to-back rows).
//
// On x86 the shifts are byte shifts of the whole register, the same instructions for every element type:
// SSE2 `pslldq`/`psrldq`; AVX2 shifts within each 128-bit half and takes the bytes that cross the middle from
// a half-swapped copy (`vperm2i128` + `vpalignr`), which is cheaper than a general permute; AVX-512 `valignd` by whole
// 32-bit words. Other shifts go through memory (correct, slower).
#pragma once

#include <array>
#include <cstddef>

#include "../core/inline.hpp"
#include "implementations.hpp"
#include "pack.hpp"

namespace tensorops::simd {

namespace detail {
/// Whether register P shifts by Bytes in the register (kernel::shift_bytes_up/down): SSE2 and AVX2 registers by any
/// byte count, 64-byte registers by whole 32-bit words. Other shifts go through memory — a store-forwarding stall per
/// shift, which a short-row kernel's horizontal step pays once per row (for 64-byte registers: shifts by part of a word).
template <class P, std::size_t Bytes>
inline constexpr bool has_byte_shifts = kernel::shifts_bytes_in_register(isa_of<P>{}, Bytes);
}  // namespace detail

/// Lane i of the result is lane i − K of `value` for i ≥ K, and `fill` for i < K (0 < K < P::size).
template <std::size_t K, class P>
    requires(K > 0 && K < P::size)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P shift_lanes_up(const P& value, typename P::value_type fill) noexcept {
    using C = typename P::value_type;
    if constexpr (detail::has_byte_shifts<P, K * sizeof(C)>) {
        const P shifted = kernel::shift_bytes_up<K * sizeof(C)>(value, isa_of<P>{});
        if (fill == C(0)) return shifted;
        return simd::select(detail::lanes_below<P>(K), P(fill), shifted);
    } else {
        const auto in = to_array(value);
        std::array<C, P::size> out;
        for (std::size_t i = 0; i < P::size; ++i) out[i] = i < K ? fill : in[i - K];
        return from_array<P>(out);
    }
}

/// Lane i of the result is lane i + K of `value` for i < P::size − K, and `fill` above (0 < K < P::size).
template <std::size_t K, class P>
    requires(K > 0 && K < P::size)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P shift_lanes_down(const P& value, typename P::value_type fill) noexcept {
    using C = typename P::value_type;
    if constexpr (detail::has_byte_shifts<P, K * sizeof(C)>) {
        const P shifted = kernel::shift_bytes_down<K * sizeof(C)>(value, isa_of<P>{});
        if (fill == C(0)) return shifted;
        return simd::select(detail::lanes_below<P>(P::size - K), shifted, P(fill));
    } else {
        const auto in = to_array(value);
        std::array<C, P::size> out;
        for (std::size_t i = 0; i < P::size; ++i) out[i] = i + K < P::size ? in[i + K] : fill;
        return from_array<P>(out);
    }
}

/// Every lane set to the last (highest) lane of `value`.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P broadcast_last(const P& value) noexcept {
    return kernel::broadcast_last(value, isa_of<P>{});
}

/// Every lane set to the first (lowest) lane of `value`.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P broadcast_first(const P& value) noexcept {
    return kernel::broadcast_first(value, isa_of<P>{});
}

/// Whether permute_constant moves the lanes of register P in one instruction (x86 registers of 32- or 64-bit lanes),
/// rather than through memory: for kernels that have a form without permutations for the other registers.
template <class P>
inline constexpr bool permutes_in_register = kernel::permutes_in_register(isa_of<P>{}, sizeof(typename P::value_type));

/// Lane i of the result is lane Pattern::get(i, P::size) of `value` (< P::size): a permutation fixed at compile time,
/// for registers of 32- or 64-bit lanes one instruction on x86 (SSE2 `pshufd`, AVX2 `vpermd` / `vpermq`, AVX-512
/// `vpermd` / `vpermq` with a constant index register); other registers go through memory (correct, slower).
template <class Pattern, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P permute_constant(const P& value) noexcept {
    if constexpr (P::size == 1) return value;
    else return kernel::permute_constant<Pattern>(value, isa_of<P>{});
}

}  // namespace tensorops::simd
