// tensorops/simd/arithmetic.hpp — lane-wise arithmetic whose xsimd form is unsafe or slow.
//
// xsimd 8.1 multiplies 8-bit lanes (AVX2), 64-bit lanes (AVX2) and every integer lane (SSE2) one lane at a time
// in the signed element type: signed overflow, i.e. undefined behaviour, and slow. `simd::mul` multiplies
// integer lanes modulo 2^N with vector instructions instead (x86/sse2.hpp and x86/avx2.hpp say how); other
// registers multiply lane by lane in unsigned arithmetic (portable.hpp). Floating lanes use the ordinary multiply.
#pragma once

#include <type_traits>

#include "../core/inline.hpp"
#include "implementations.hpp"
#include "pack.hpp"

namespace tensorops::simd {

/// Lane-wise product; integer lanes wrap modulo 2^N (no undefined behaviour on any path).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P mul(const P& a, const P& b) noexcept {
    if constexpr (std::is_floating_point_v<typename P::value_type> || P::size == 1) return a * b;  // scalar_pack wraps integers itself
    else return kernel::multiply_integers(a, b, isa_of<P>{});
}

/// Lane-wise a + b. For float lanes of registers that fuse multiply-add (fused_multiply_add) this is computed as
/// fma(a, 1, b), which is bit-identical (a·1 is exact, so one rounding of a + b) but may issue on the multiply-add
/// ports as well as the add ports: in shuffle-heavy kernels (in-register scans) the add ports are the bottleneck.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P add(const P& a, const P& b) noexcept {
    return kernel::add(a, b, isa_of<P>{});
}

/// Lane-wise a + b as one add instruction, for a chain of dependent additions (a running value carried from row to row),
/// whose speed is the instruction's latency: an add's is no longer than a multiply-add's on any x86 core, and shorter
/// on most, while add's fma(a, 1, b) only helps kernels bound by the add ports. Bit-identical to add.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P add_in_chain(const P& a, const P& b) noexcept {
    return kernel::add(a, b, isa::portable{});
}

}  // namespace tensorops::simd
