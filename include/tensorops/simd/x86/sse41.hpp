// tensorops/simd/x86/sse41.hpp — the implementations of the vocabulary for 16-byte x86 registers in builds that target
// SSE4.1 (isa::sse41): immediate blends, and 8- and 16-bit integers widened by one pmovsx/pmovzx.
#pragma once

#include <cstddef>
#include <type_traits>

#include "../../core/inline.hpp"
#include "../isa.hpp"
#include "../register.hpp"
#include "../warnings.hpp"
#include "sse2.hpp"

TENSOROPS_SIMD_WARNINGS_BEGIN  // simd/warnings.hpp
#if TENSOROPS_HAS_XSIMD && defined(__SSE4_1__)
namespace tensorops::simd {

namespace detail {
/// The immediate of an x86 blend whose elements are `Element` bytes wide (the blend instruction's granule) for the
/// lanes of P that Pattern selects: bit e set where element e lies in a selected lane.
template <class Pattern, class P, std::size_t Element>
inline constexpr int blend_immediate = [] {
    constexpr std::size_t lane = sizeof(typename P::value_type), per_lane = lane / Element;
    int bits = 0;
    for (std::size_t i = 0; i < P::size; ++i)
        if (Pattern::get(static_cast<unsigned>(i), P::size))
            for (std::size_t e = 0; e < per_lane; ++e) bits |= 1 << (i * per_lane + e);
    return bits;
}();

/// The 8- or 16-bit integers T in the low bytes of `in` sign-extended (signed T) or zero-extended to the four 32-bit
/// lanes of P: one pmovsx/pmovzx.
template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P widen_low_128(__m128i in) noexcept {
    if constexpr (sizeof(T) == 1) return from_bytes<P>(std::is_signed_v<T> ? _mm_cvtepi8_epi32(in) : _mm_cvtepu8_epi32(in));
    else return from_bytes<P>(std::is_signed_v<T> ? _mm_cvtepi16_epi32(in) : _mm_cvtepu16_epi32(in));
}
}  // namespace detail

namespace kernel {

/// pblendw: registers of 16-bit lanes or wider (see simd::select_constant).
template <class Pattern, class P>
    requires(sizeof(typename P::value_type) >= 2)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P select_constant(const P& a, const P& b, isa::sse41) noexcept {
    constexpr int immediate = detail::blend_immediate<Pattern, P, 2>;  // named: clang's intrinsics are macros
    return detail::from_bytes<P>(_mm_blend_epi16(detail::as_bytes(b), detail::as_bytes(a), immediate));
}

template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_widened(const T* source, isa::sse41) noexcept {
    return detail::widen_low_128<P, T>(detail::load_low<P::size * sizeof(T)>(source));
}

template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_widened_partial(const T* source, std::size_t count,
                                                                     isa::sse41) noexcept {
    return detail::widen_low_128<P, T>(detail::load_low_bytes(source, count * sizeof(T)));
}

}  // namespace kernel
}  // namespace tensorops::simd
#endif
TENSOROPS_SIMD_WARNINGS_END
