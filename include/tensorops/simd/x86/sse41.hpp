// tensorops/simd/x86/sse41.hpp — the implementations of the vocabulary for 16-byte x86 registers in builds that target
// SSE4.1 (isa::sse41): immediate blends, and 8- and 16-bit integers widened by one pmovsx/pmovzx. Its helpers for
// loading a few bytes serve the 32-byte registers too (x86/avx2.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
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

/// The `Bytes` (4, 8 or 16) bytes at source in the low bytes of a register, zero above.
template <std::size_t Bytes>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline __m128i load_low(const void* source) noexcept {
    if constexpr (Bytes == 4) {
        int word;
        std::memcpy(&word, source, 4);
        return _mm_cvtsi32_si128(word);
    } else if constexpr (Bytes == 8) {
        return _mm_loadl_epi64(static_cast<const __m128i*>(source));
    } else {
        static_assert(Bytes == 16);
        return _mm_loadu_si128(static_cast<const __m128i*>(source));
    }
}

/// The `bytes` (≤ 16) bytes at source in the low bytes of a register, zero above; reads nothing past them. Composed in
/// general registers: 8-byte loads while 8 bytes remain, then one 4-, one 2- and one 1-byte load as `bytes` has those
/// bits (a row length fixed for a whole call: the branches are predicted).
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline __m128i load_low_bytes(const void* source, std::size_t bytes) noexcept {
    const auto* at = static_cast<const unsigned char*>(source);
    const auto word_of = [](const unsigned char* from, std::size_t count) {  // count ≤ 8 bytes
        std::uint64_t word = 0;
        if (count == 8) {
            std::memcpy(&word, from, 8);
            return static_cast<long long>(word);
        }
        unsigned shift = 0;
        if (count & 4) {
            std::uint32_t four;
            std::memcpy(&four, from, 4);
            word = four;
            from += 4;
            shift = 32;
        }
        if (count & 2) {
            std::uint16_t two;
            std::memcpy(&two, from, 2);
            word |= std::uint64_t{two} << shift;
            from += 2;
            shift += 16;
        }
        if (count & 1) word |= std::uint64_t{*from} << shift;
        return static_cast<long long>(word);
    };
    if (bytes < 8) return _mm_set_epi64x(0, word_of(at, bytes));
    long long low;
    std::memcpy(&low, at, 8);
    return _mm_set_epi64x(word_of(at + 8, bytes - 8), low);
}

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
