// tensorops/simd/widen.hpp — 8- and 16-bit integers loaded widened to the 32-bit lanes of pack<U> (load_as,
// load_partial_as, load_widened) and stored narrowed (store_narrowed): part of pack.hpp's vocabulary, include pack.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "pack.hpp"

namespace tensorops::simd {

#if TENSOROPS_X86_INTRINSICS && defined(__SSE4_1__)
namespace detail {
/// The 8- or 16-bit integers T in the low bytes of `in` sign-extended (signed T) or zero-extended to the 32-bit lanes
/// of pack<U> (16 or 32 bytes): one vpmovsx/vpmovzx.
template <class U, class T>
[[nodiscard, gnu::always_inline]] inline pack<U> widen_low(__m128i in) noexcept {
    using P = pack<U>;
    constexpr bool is_signed = std::is_signed_v<T>;
    if constexpr (sizeof(typename P::register_type) == 16) {
        if constexpr (sizeof(T) == 1) return from_bytes<P>(is_signed ? _mm_cvtepi8_epi32(in) : _mm_cvtepu8_epi32(in));
        else return from_bytes<P>(is_signed ? _mm_cvtepi16_epi32(in) : _mm_cvtepu16_epi32(in));
    }
#if defined(__AVX2__)
    else {
        static_assert(sizeof(typename P::register_type) == 32);
        if constexpr (sizeof(T) == 1) return from_bytes<P>(is_signed ? _mm256_cvtepi8_epi32(in) : _mm256_cvtepu8_epi32(in));
        else return from_bytes<P>(is_signed ? _mm256_cvtepi16_epi32(in) : _mm256_cvtepu16_epi32(in));
    }
#endif
}

/// The `bytes` (≤ 16) bytes at source in the low bytes of a register, zero above; reads nothing past them. Composed in
/// general registers: 8-byte loads while 8 bytes remain, then one 4-, one 2- and one 1-byte load as `bytes` has those
/// bits (a row length fixed for a whole call: the branches are predicted).
[[nodiscard, gnu::always_inline]] inline __m128i load_low_bytes(const void* source, std::size_t bytes) noexcept {
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
}  // namespace detail
#endif

/// Loads lanes<U> consecutive 8- or 16-bit integers from `source` (any alignment) into the 32-bit lanes of
/// pack<U>, sign-extended (signed T) or zero-extended: one vpmovsx/vpmovzx with SSE4.1, AVX2 or AVX-512, else
/// through an array.
template <class U, builtin_element T>
    requires(std::is_integral_v<T> && sizeof(T) < 4 && std::is_integral_v<U> && sizeof(U) == 4 && std::is_signed_v<T> == std::is_signed_v<U>)
[[nodiscard, gnu::always_inline]] inline pack<U> load_widened(const T* source) noexcept {
    using P = pack<U>;
#if TENSOROPS_X86_INTRINSICS && defined(__SSE4_1__)
    constexpr std::size_t register_bytes = sizeof(typename P::register_type);
    constexpr std::size_t bytes = P::size * sizeof(T);
    const auto at = reinterpret_cast<const __m128i*>(source);
    if constexpr (register_bytes == 16 || register_bytes == 32) {
        __m128i in;
        if constexpr (bytes == 4) {
            int word;
            std::memcpy(&word, source, 4);
            in = _mm_cvtsi32_si128(word);
        } else if constexpr (bytes == 8) {
            in = _mm_loadl_epi64(at);
        } else {
            in = _mm_loadu_si128(at);
        }
        return detail::widen_low<U, T>(in);
    }
#if defined(__AVX512F__)
    else if constexpr (register_bytes == 64) {
        constexpr bool is_signed = std::is_signed_v<T>;
        if constexpr (sizeof(T) == 1) {
            const __m128i in = _mm_loadu_si128(at);
            return detail::from_bytes<P>(is_signed ? _mm512_cvtepi8_epi32(in) : _mm512_cvtepu8_epi32(in));
        } else {
            const __m256i in = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(source));
            return detail::from_bytes<P>(is_signed ? _mm512_cvtepi16_epi32(in) : _mm512_cvtepu16_epi32(in));
        }
    }
#endif
#endif
    std::array<U, P::size> values;
    for (std::size_t i = 0; i < P::size; ++i) values[i] = static_cast<U>(source[i]);
    return from_array<P>(values);
}

/// load_widened of `count` (≤ lanes<U>) elements, 0 in the lanes above; reads nothing past source[count - 1]. With
/// SSE4.1 and registers of up to 32 bytes, the bytes composed in general registers (detail::load_low_bytes) and widened
/// as load_widened does; else through an array.
template <class U, builtin_element T>
    requires(std::is_integral_v<T> && sizeof(T) < 4 && std::is_integral_v<U> && sizeof(U) == 4 && std::is_signed_v<T> == std::is_signed_v<U>)
[[nodiscard, gnu::always_inline]] inline pack<U> load_widened_partial(const T* source, std::size_t count) noexcept {
    using P = pack<U>;
#if TENSOROPS_X86_INTRINSICS && defined(__SSE4_1__)
    if constexpr (sizeof(typename P::register_type) == 16 || sizeof(typename P::register_type) == 32)
        return detail::widen_low<U, T>(detail::load_low_bytes(source, count * sizeof(T)));
#endif
    std::array<U, P::size> values{};
    for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<U>(source[i]);
    return from_array<P>(values);
}

/// pack<U> from lanes<U> consecutive elements T at `source`: simd::load where U is T, load_widened where U is the 32-bit
/// lane type 8- and 16-bit integers are widened to.
template <class U, builtin_element T>
[[nodiscard, gnu::always_inline]] inline pack<U> load_as(const T* source) noexcept {
    if constexpr (std::is_same_v<U, T>) return simd::load(source);
    else return simd::load_widened<U>(source);
}

/// load_as of `count` (< lanes<U>, as load_partial; load_widened_partial also takes lanes<U>) elements, 0 in the lanes
/// above; reads nothing past source[count - 1].
template <class U, builtin_element T>
[[nodiscard, gnu::always_inline]] inline pack<U> load_partial_as(const T* source, std::size_t count) noexcept {
    if constexpr (std::is_same_v<U, T>) return simd::load_partial(source, count, compute_t<T>(0));
    else return simd::load_widened_partial<U>(source, count);
}

/// Stores the 32-bit integer lanes of `value` truncated to lanes<U> consecutive 8- or 16-bit integers at
/// `destination` (any alignment): the inverse of load_widened. AVX2: one byte shuffle gathers each 128-bit half's
/// low bytes, one permute joins the halves; else through an array.
template <builtin_element T, class U>
    requires(std::is_integral_v<T> && sizeof(T) < 4 && std::is_integral_v<U> && sizeof(U) == 4)
[[gnu::always_inline]] inline void store_narrowed(T* destination, const pack<U>& value) noexcept {
    using P = pack<U>;
#if TENSOROPS_X86_INTRINSICS && defined(__AVX2__)
    if constexpr (sizeof(typename P::register_type) == 32) {
        const __m256i lanes_in = detail::as_bytes(value);
        if constexpr (sizeof(T) == 1) {
            const __m256i low_bytes = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                                       0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
            const __m256i joined = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(lanes_in, low_bytes), _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0));
            _mm_storel_epi64(reinterpret_cast<__m128i*>(destination), _mm256_castsi256_si128(joined));
        } else {
            const __m256i low_halves = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                                        0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
            const __m256i joined = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(lanes_in, low_halves), 0b1000);  // quadwords 0, 2
            _mm_storeu_si128(reinterpret_cast<__m128i*>(destination), _mm256_castsi256_si128(joined));
        }
        return;
    }
#endif
    const auto lanes_in = to_array(value);
    for (std::size_t i = 0; i < P::size; ++i) destination[i] = static_cast<T>(lanes_in[i]);
}

}  // namespace tensorops::simd
