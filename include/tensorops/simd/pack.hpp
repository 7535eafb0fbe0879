// tensorops/simd/pack.hpp — vector registers for every built-in element type, and their loads and stores.
//
// `pack<T>` is the register a kernel computes in for storage type T: an xsimd batch of T (of float for
// float16, which is widened on load and rounded once, to nearest even, on store), or a one-lane
// `scalar_pack` when xsimd is absent. Kernels are written once against this vocabulary:
//   pack<T>, mask_of<P>, lanes<T>, load, store, load_partial, store_partial, load_as (8/16-bit integers
//   widened to 32-bit lanes, load_widened), broadcast, select,
//   is_nan, any, to_array, from_array
// and the free functions of horizontal.hpp, minmax.hpp, shuffle.hpp and scan.hpp. Always call them
// qualified (`simd::select`) so argument-dependent lookup cannot pick xsimd's own overloads.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../core/element.hpp"
#include "config.hpp"

namespace tensorops::simd {

/// The type vector arithmetic runs in for storage type T: float for float16, T itself otherwise.
template <class T>
using compute_t = std::conditional_t<std::is_same_v<std::remove_cv_t<T>, float16>, float, std::remove_cv_t<T>>;

// ---------------------------------------------------------------------------------------------
// The one-lane fallback register.

/// One-lane mask (the fallback for xsimd::batch_bool).
struct scalar_mask {
    bool value;
    friend constexpr scalar_mask operator&(scalar_mask a, scalar_mask b) noexcept { return {a.value && b.value}; }
    friend constexpr scalar_mask operator|(scalar_mask a, scalar_mask b) noexcept { return {a.value || b.value}; }
    friend constexpr scalar_mask operator!(scalar_mask a) noexcept { return {!a.value}; }
};

/// One-lane register used when xsimd is absent. Integer arithmetic wraps (computed unsigned), exactly as
/// the vector instructions do, so both paths give the same results.
template <class C>
struct scalar_pack {
    using value_type = C;
    using batch_bool_type = scalar_mask;
    static constexpr std::size_t size = 1;
    C value;

    constexpr scalar_pack() noexcept = default;
    constexpr scalar_pack(C v) noexcept : value(v) {}  // NOLINT(google-explicit-constructor): broadcast, like xsimd

    friend constexpr scalar_pack operator+(scalar_pack a, scalar_pack b) noexcept { return combine(a, b, [](auto x, auto y) { return x + y; }); }
    friend constexpr scalar_pack operator-(scalar_pack a, scalar_pack b) noexcept { return combine(a, b, [](auto x, auto y) { return x - y; }); }
    friend constexpr scalar_pack operator*(scalar_pack a, scalar_pack b) noexcept { return combine(a, b, [](auto x, auto y) { return x * y; }); }
    friend constexpr scalar_pack operator/(scalar_pack a, scalar_pack b) noexcept requires std::is_floating_point_v<C> { return {a.value / b.value}; }
    friend constexpr scalar_pack operator-(scalar_pack a) noexcept { return combine(scalar_pack(C(0)), a, [](auto x, auto y) { return x - y; }); }
    constexpr scalar_pack& operator+=(scalar_pack b) noexcept { return *this = *this + b; }
    constexpr scalar_pack& operator-=(scalar_pack b) noexcept { return *this = *this - b; }
    constexpr scalar_pack& operator*=(scalar_pack b) noexcept { return *this = *this * b; }
    friend constexpr scalar_mask operator==(scalar_pack a, scalar_pack b) noexcept { return {a.value == b.value}; }
    friend constexpr scalar_mask operator!=(scalar_pack a, scalar_pack b) noexcept { return {a.value != b.value}; }
    friend constexpr scalar_mask operator<(scalar_pack a, scalar_pack b) noexcept { return {a.value < b.value}; }
    friend constexpr scalar_mask operator<=(scalar_pack a, scalar_pack b) noexcept { return {a.value <= b.value}; }
    friend constexpr scalar_mask operator>(scalar_pack a, scalar_pack b) noexcept { return {a.value > b.value}; }
    friend constexpr scalar_mask operator>=(scalar_pack a, scalar_pack b) noexcept { return {a.value >= b.value}; }

private:
    template <class Op>
    static constexpr scalar_pack combine(scalar_pack a, scalar_pack b, Op op) noexcept {
        if constexpr (std::is_integral_v<C>) {
            return {from_accumulator<C>(op(to_accumulator(a.value), to_accumulator(b.value)))};
        } else {
            return {static_cast<C>(op(a.value, b.value))};
        }
    }
};

// ---------------------------------------------------------------------------------------------
// Register and mask types.

namespace detail {
template <class C>
struct pack_of {
#if TENSOROPS_HAS_XSIMD
    using type = xsimd::batch<C>;
#else
    using type = scalar_pack<C>;
#endif
};
}  // namespace detail

#if TENSOROPS_X86_INTRINSICS
namespace detail {
/// The raw integer register (__m128i / __m256i / __m512i) of any x86 pack, and back: free reinterpretations
/// for the intrinsics that only exist on integer registers (byte shifts, shuffles, integer multiplies).
template <class P>
[[nodiscard, gnu::always_inline]] inline auto as_bytes(const P& value) noexcept {
    using bytes = xsimd::batch<std::uint8_t, typename P::arch_type>;
    return static_cast<typename bytes::register_type>(xsimd::bitwise_cast<bytes>(value));
}
template <class P, class Register>
[[nodiscard, gnu::always_inline]] inline P from_bytes(Register bits) noexcept {
    using bytes = xsimd::batch<std::uint8_t, typename P::arch_type>;
    return xsimd::bitwise_cast<P>(bytes(bits));
}

/// Which x86 register a pack is: the intrinsics a kernel may use on it.
template <class P>
inline constexpr bool is_avx2_register =
    std::is_base_of_v<xsimd::avx2, typename P::arch_type> && sizeof(typename P::register_type) == 32;
template <class P>
inline constexpr bool is_sse2_register =
    std::is_base_of_v<xsimd::sse2, typename P::arch_type> && sizeof(typename P::register_type) == 16;
#if defined(__AVX512F__)
template <class P>
inline constexpr bool is_avx512_register =
    std::is_base_of_v<xsimd::avx512f, typename P::arch_type> && sizeof(typename P::register_type) == 64;
#else
template <class P>
inline constexpr bool is_avx512_register = false;
#endif
}  // namespace detail
#endif

/// The register kernels compute in for built-in element type T.
template <builtin_element T>
using pack = typename detail::pack_of<compute_t<T>>::type;

/// The comparison-result type of register P.
template <class P>
using mask_of = typename P::batch_bool_type;

/// Lanes in pack<T> (1 without xsimd).
template <builtin_element T>
inline constexpr std::size_t lanes = pack<T>::size;

// ---------------------------------------------------------------------------------------------
// Moving lanes between registers and arrays.

/// The lanes of `value`, lowest first.
template <class P>
[[nodiscard, gnu::always_inline]] inline std::array<typename P::value_type, P::size> to_array(const P& value) noexcept {
    std::array<typename P::value_type, P::size> lanes_out;
    if constexpr (P::size == 1 && std::is_same_v<P, scalar_pack<typename P::value_type>>) lanes_out[0] = value.value;
    else value.store_unaligned(lanes_out.data());
    return lanes_out;
}

/// A register holding `values`, lowest lane first.
template <class P>
[[nodiscard, gnu::always_inline]] inline P from_array(const std::array<typename P::value_type, P::size>& values) noexcept {
    if constexpr (std::is_same_v<P, scalar_pack<typename P::value_type>>) return P(values[0]);
    else return P::load_unaligned(values.data());
}

/// Every lane set to `value`.
template <builtin_element T>
[[nodiscard, gnu::always_inline]] inline pack<T> broadcast(compute_t<T> value) noexcept {
    return pack<T>(value);
}

/// Loads lanes<T> consecutive elements from `source` (any alignment). float16 is widened exactly to float
/// (F16C when the compiler targets it).
template <builtin_element T>
[[nodiscard, gnu::always_inline]] inline pack<T> load(const T* source) noexcept {
    using P = pack<T>;
    if constexpr (std::is_same_v<T, float16>) {
#if TENSOROPS_X86_INTRINSICS && defined(__F16C__)
        if constexpr (P::size == 8) {
            return P(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(source))));
        } else if constexpr (P::size == 4) {
            return P(_mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(source))));
        }
#if defined(__AVX512F__)
        else if constexpr (P::size == 16) {
            return P(_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(source))));
        }
#endif
#endif
        std::array<float, P::size> widened;
        for (std::size_t i = 0; i < P::size; ++i) widened[i] = static_cast<float>(source[i]);
        return from_array<P>(widened);
    } else if constexpr (std::is_same_v<P, scalar_pack<T>>) {
        return P(*source);
    } else {
        return P::load_unaligned(source);
    }
}

/// Stores the lanes of `value` to lanes<T> consecutive elements at `destination` (any alignment).
/// float16 is rounded once, to nearest even.
template <builtin_element T>
[[gnu::always_inline]] inline void store(T* destination, const pack<T>& value) noexcept {
    using P = pack<T>;
    if constexpr (std::is_same_v<T, float16>) {
#if TENSOROPS_X86_INTRINSICS && defined(__F16C__)
        if constexpr (P::size == 8) {
            _mm_storeu_si128(reinterpret_cast<__m128i*>(destination), _mm256_cvtps_ph(value, _MM_FROUND_TO_NEAREST_INT));
            return;
        } else if constexpr (P::size == 4) {
            _mm_storel_epi64(reinterpret_cast<__m128i*>(destination), _mm_cvtps_ph(value, _MM_FROUND_TO_NEAREST_INT));
            return;
        }
#if defined(__AVX512F__)
        else if constexpr (P::size == 16) {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(destination), _mm512_cvtps_ph(value, _MM_FROUND_TO_NEAREST_INT));
            return;
        }
#endif
#endif
        const auto lanes_in = to_array(value);
        for (std::size_t i = 0; i < P::size; ++i) destination[i] = float16(lanes_in[i]);
    } else if constexpr (std::is_same_v<P, scalar_pack<T>>) {
        *destination = value.value;
    } else {
        value.store_unaligned(destination);
    }
}

namespace detail {
/// Mask of the lanes below `count`: compares the lane numbers with `count` (constants the compiler folds).
template <class P>
[[nodiscard, gnu::always_inline]] inline mask_of<P> lanes_below(std::size_t count) noexcept {
    using C = typename P::value_type;
    std::array<C, P::size> lane_numbers;
    for (std::size_t i = 0; i < P::size; ++i) lane_numbers[i] = static_cast<C>(i);
    return from_array<P>(lane_numbers) < P(static_cast<C>(count));
}
}  // namespace detail

#if TENSOROPS_X86_INTRINSICS && defined(__AVX2__)
namespace detail {
/// The `bytes` (< 4 · Words) bytes at source in the low bytes of a register of Words 32-bit words (4: __m128i, 8:
/// __m256i), zero above; reads nothing past them. The whole words by a masked load (masked-out words are not read,
/// so they cannot fault), the last word's 1–3 bytes by byte loads, broadcast and blended into its word.
template <std::size_t Words>
[[nodiscard, gnu::always_inline]] inline auto load_bytes_partial(const void* source, std::size_t bytes) noexcept {
    const auto* first = static_cast<const unsigned char*>(source);
    const auto whole = static_cast<int>(bytes / 4);
    const unsigned char* rest = first + 4 * static_cast<std::size_t>(whole);
    std::uint32_t last = 0;
    for (std::size_t k = 0; k < bytes % 4; ++k) last |= std::uint32_t{rest[k]} << (8 * k);
    if constexpr (Words == 8) {
        const __m256i word = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), count = _mm256_set1_epi32(whole);
        const __m256i loaded = _mm256_maskload_epi32(reinterpret_cast<const int*>(first), _mm256_cmpgt_epi32(count, word));
        return _mm256_blendv_epi8(loaded, _mm256_set1_epi32(static_cast<int>(last)), _mm256_cmpeq_epi32(count, word));
    } else {
        static_assert(Words == 4);
        const __m128i word = _mm_setr_epi32(0, 1, 2, 3), count = _mm_set1_epi32(whole);
        const __m128i loaded = _mm_maskload_epi32(reinterpret_cast<const int*>(first), _mm_cmpgt_epi32(count, word));
        return _mm_blendv_epi8(loaded, _mm_set1_epi32(static_cast<int>(last)), _mm_cmpeq_epi32(count, word));
    }
}
}  // namespace detail
#endif

/// Loads `count` (< lanes<T>) elements into the low lanes and `fill` into the others. Reads nothing past
/// source[count - 1]: a masked load (AVX-512: 32- and 64-bit lanes, with AVX-512BW 8- and 16-bit lanes too; AVX2:
/// 32- and 64-bit lanes; AVX2 8- and 16-bit lanes and F16C float16: detail::load_bytes_partial), else through an
/// array (a store-forwarding stall per load, and narrow lanes filled one by one: the last resort).
template <builtin_element T>
[[nodiscard, gnu::always_inline]] inline pack<T> load_partial(const T* source, std::size_t count, compute_t<T> fill) noexcept {
#if TENSOROPS_X86_INTRINSICS && defined(__AVX512F__)
    if constexpr (!std::is_same_v<T, float16> && sizeof(compute_t<T>) == sizeof(T) && sizeof(typename pack<T>::register_type) == 64) {
        using P = pack<T>;
        const __m512i fill_lanes = detail::as_bytes(P(fill));
        if constexpr (sizeof(T) == 4) {
            return detail::from_bytes<P>(_mm512_mask_loadu_epi32(fill_lanes, static_cast<__mmask16>((1u << count) - 1), source));
        } else if constexpr (sizeof(T) == 8) {
            return detail::from_bytes<P>(_mm512_mask_loadu_epi64(fill_lanes, static_cast<__mmask8>((1u << count) - 1), source));
        }
#if defined(__AVX512BW__)
        else if constexpr (sizeof(T) == 2) {
            return detail::from_bytes<P>(_mm512_mask_loadu_epi16(fill_lanes, static_cast<__mmask32>((std::uint32_t{1} << count) - 1), source));
        } else if constexpr (sizeof(T) == 1) {
            return detail::from_bytes<P>(_mm512_mask_loadu_epi8(fill_lanes, static_cast<__mmask64>((std::uint64_t{1} << count) - 1), source));
        }
#endif
    }
#endif
#if TENSOROPS_X86_INTRINSICS && defined(__AVX2__)
    using P = pack<T>;
    if constexpr (!std::is_same_v<T, float16> && sizeof(typename P::register_type) == 32 && (sizeof(T) == 4 || sizeof(T) == 8)) {
        const auto n = static_cast<std::int64_t>(count);
        P loaded;
        __m256i wanted;
        if constexpr (sizeof(T) == 4) {
            wanted = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
            if constexpr (std::is_same_v<T, float>) loaded = P(_mm256_maskload_ps(source, wanted));
            else loaded = detail::from_bytes<P>(_mm256_maskload_epi32(reinterpret_cast<const int*>(source), wanted));
        } else {
            wanted = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
            if constexpr (std::is_same_v<T, double>) loaded = P(_mm256_maskload_pd(source, wanted));
            else loaded = detail::from_bytes<P>(_mm256_maskload_epi64(reinterpret_cast<const long long*>(source), wanted));
        }
        if (fill == compute_t<T>(0)) return loaded;  // masked-out lanes read as zero
        return detail::from_bytes<P>(_mm256_blendv_epi8(detail::as_bytes(P(fill)), detail::as_bytes(loaded), wanted));
    } else if constexpr (!std::is_same_v<T, float16> && sizeof(typename P::register_type) == 32 && (sizeof(T) == 1 || sizeof(T) == 2)) {
        const P loaded = detail::from_bytes<P>(detail::load_bytes_partial<8>(source, count * sizeof(T)));
        if (fill == compute_t<T>(0)) return loaded;  // the lanes above read as zero
        return xsimd::select(detail::lanes_below<P>(count), loaded, P(fill));
    }
#if defined(__F16C__)
    else if constexpr (std::is_same_v<T, float16> && (P::size == 8
#if defined(__AVX512F__)
                                                      || P::size == 16
#endif
                                                      )) {
        P widened;
        if constexpr (P::size == 8) widened = P(_mm256_cvtph_ps(detail::load_bytes_partial<4>(source, count * sizeof(T))));
#if defined(__AVX512F__)
        else widened = P(_mm512_cvtph_ps(detail::load_bytes_partial<8>(source, count * sizeof(T))));
#endif
        if (fill == 0.0f) return widened;  // the lanes above read as +0.0
        return xsimd::select(detail::lanes_below<P>(count), widened, P(fill));
    }
#endif
#endif
    std::array<compute_t<T>, lanes<T>> values;
    for (std::size_t i = 0; i < lanes<T>; ++i) values[i] = i < count ? static_cast<compute_t<T>>(source[i]) : fill;
    return from_array<pack<T>>(values);
}

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

/// Stores the low `count` (≤ lanes<T>) lanes; writes nothing past destination[count - 1].
template <builtin_element T>
[[gnu::always_inline]] inline void store_partial(T* destination, const pack<T>& value, std::size_t count) noexcept {
    const auto values = to_array(value);
    for (std::size_t i = 0; i < count; ++i) destination[i] = static_cast<T>(values[i]);
}

// ---------------------------------------------------------------------------------------------
// Lane-wise selection and tests.

/// Lane i is a[i] where condition[i], else b[i].
template <class P>
[[nodiscard, gnu::always_inline]] inline P select(const mask_of<P>& condition, const P& a, const P& b) noexcept {
#if TENSOROPS_HAS_XSIMD
    return xsimd::select(condition, a, b);
#else
    return condition.value ? a : b;
#endif
}

namespace detail {
/// The unsigned integer of `Bytes` bytes.
template <std::size_t Bytes>
struct unsigned_of_size;
template <> struct unsigned_of_size<1> { using type = std::uint8_t; };
template <> struct unsigned_of_size<2> { using type = std::uint16_t; };
template <> struct unsigned_of_size<4> { using type = std::uint32_t; };
template <> struct unsigned_of_size<8> { using type = std::uint64_t; };

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
}  // namespace detail

/// Lane i is a[i] where Pattern::get(i, P::size), else b[i]: a mask fixed at compile time.
/// x86 applies it as an immediate blend where one exists for the lanes: AVX2 registers of 32- or 64-bit lanes
/// (vpblendd), SSE4.1 registers of 16-bit lanes or wider (pblendw) — written here with intrinsics, one instruction
/// that is always inlined: xsimd 8.1's select of a constant mask is an ordinary function, which GCC 12 -O2 left out
/// of line in large kernels (the narrow-row argmax: a call per blend).
/// Elsewhere, with a vector mask (not AVX-512's k registers), the mask comes from a constant in memory: one load and a
/// variable blend (or, without SSE4.1, and / and-not / or) — xsimd builds one from a bool a lane at run time for byte
/// and 16-bit integer lanes, a call that GCC 12 -O2 leaves out of line (in the loop of an int8 SUM over rows, among
/// others). With AVX-512 masks, byte and 16-bit lanes get their mask as an immediate; other lanes xsimd's select.
template <class Pattern, class P>
[[nodiscard, gnu::always_inline]] inline P select_constant(const P& a, const P& b) noexcept {
#if TENSOROPS_HAS_XSIMD
    using V = typename P::value_type;
    constexpr bool vector_mask = sizeof(mask_of<P>) == sizeof(P);  // a mask in a vector register (not AVX-512's k)
#if TENSOROPS_X86_INTRINSICS && defined(__AVX2__)
    constexpr bool blend_dwords = detail::is_avx2_register<P> && sizeof(V) >= 4;
#else
    constexpr bool blend_dwords = false;
#endif
#if TENSOROPS_X86_INTRINSICS && defined(__SSE4_1__)
    constexpr bool blend_words = detail::is_sse2_register<P> && sizeof(V) >= 2;
#else
    constexpr bool blend_words = false;
#endif
    if constexpr (blend_dwords) {
#if TENSOROPS_X86_INTRINSICS && defined(__AVX2__)
        constexpr int immediate = detail::blend_immediate<Pattern, P, 4>;  // named: clang's intrinsics are macros
        return detail::from_bytes<P>(_mm256_blend_epi32(detail::as_bytes(b), detail::as_bytes(a), immediate));
#endif
    } else if constexpr (blend_words) {
#if TENSOROPS_X86_INTRINSICS && defined(__SSE4_1__)
        constexpr int immediate = detail::blend_immediate<Pattern, P, 2>;
        return detail::from_bytes<P>(_mm_blend_epi16(detail::as_bytes(b), detail::as_bytes(a), immediate));
#endif
    } else if constexpr (vector_mask) {
        using U = typename detail::unsigned_of_size<sizeof(V)>::type;
        alignas(64) static constexpr std::array<U, P::size> lanes = [] {
            std::array<U, P::size> values{};
            for (std::size_t i = 0; i < P::size; ++i) values[i] = Pattern::get(static_cast<unsigned>(i), P::size) ? static_cast<U>(~U(0)) : U(0);
            return values;
        }();
        const P bits = xsimd::bitwise_cast<P>(xsimd::batch<U, typename P::arch_type>::load_aligned(lanes.data()));
        return xsimd::select(mask_of<P>(static_cast<typename P::register_type>(bits)), a, b);
    } else if constexpr (std::is_integral_v<V> && sizeof(V) <= 2) {
        // AVX-512 with byte or 16-bit lanes: xsimd builds the mask register from bools too; give it as an immediate.
        constexpr std::uint64_t bits = [] {
            std::uint64_t set = 0;
            for (std::size_t i = 0; i < P::size; ++i)
                if (Pattern::get(static_cast<unsigned>(i), P::size)) set |= std::uint64_t{1} << i;
            return set;
        }();
        return xsimd::select(mask_of<P>(static_cast<typename mask_of<P>::register_type>(bits)), a, b);
    } else {
        return xsimd::select(xsimd::make_batch_bool_constant<P, Pattern>(), a, b);
    }
#else
    return Pattern::get(0, 1) ? a : b;
#endif
}

/// Lanes holding NaN (none for integer registers). (xsimd's `!=` on floats is an ordered compare, false
/// for NaN, so `x != x` cannot be used to find NaN.)
template <class P>
[[nodiscard, gnu::always_inline]] inline mask_of<P> is_nan(const P& value) noexcept {
    if constexpr (!std::is_floating_point_v<typename P::value_type>) return mask_of<P>(false);
#if TENSOROPS_HAS_XSIMD
    else return xsimd::isnan(value);
#else
    else return scalar_mask{value.value != value.value};
#endif
}

namespace detail {
template <class P>
struct lane_index_of {
#if TENSOROPS_HAS_XSIMD
    using type = xsimd::batch<typename unsigned_of_size<sizeof(typename P::value_type)>::type, typename P::arch_type>;
#else
    using type = scalar_pack<typename unsigned_of_size<sizeof(typename P::value_type)>::type>;
#endif
};
}  // namespace detail

/// An unsigned integer register with the lanes of P (same count, same width): what per-lane positions are
/// kept in beside a register of values.
template <class P>
using lane_index_pack = typename detail::lane_index_of<P>::type;

/// Lane i is a[i] where condition[i], else b[i], for a register Q whose lanes line up with the mask's
/// register P (same lane width).
template <class P, class Q>
    requires(sizeof(typename P::value_type) == sizeof(typename Q::value_type) && P::size == Q::size)
[[nodiscard, gnu::always_inline]] inline Q select_lanes(const mask_of<P>& condition, const Q& a, const Q& b) noexcept {
#if TENSOROPS_HAS_XSIMD
    return xsimd::bitwise_cast<Q>(xsimd::select(condition, xsimd::bitwise_cast<P>(a), xsimd::bitwise_cast<P>(b)));
#else
    return condition.value ? a : b;
#endif
}

/// Lanes set in `a` and not in `b`. On x86 one and-not instruction: xsimd 8.1's `!` and `~` of an AVX2 float mask
/// compare its two halves with zero (four instructions), its bitwise_andnot puts the complement on `a` for vector
/// registers and on `b` for AVX-512 bit masks, and its `^` of AVX-512 masks is an or — none of them is used here.
template <class M>
[[nodiscard, gnu::always_inline]] inline M and_not(const M& a, const M& b) noexcept {
#if TENSOROPS_HAS_XSIMD
#if TENSOROPS_X86_INTRINSICS
    // Dispatch on the mask's size and lane type (vector register types as template arguments lose their attributes).
    using lane = typename M::batch_type::value_type;
    constexpr bool is_float = std::is_same_v<lane, float>, is_double = std::is_same_v<lane, double>;
    if constexpr (sizeof(M) <= 8) {  // an AVX-512 bit mask
        using bits = std::remove_cvref_t<decltype(a.data)>;
        return M(static_cast<bits>(a.data & ~b.data));
    } else if constexpr (sizeof(M) == 16) {
        if constexpr (is_float) return M(_mm_andnot_ps(b, a));
        else if constexpr (is_double) return M(_mm_andnot_pd(b, a));
        else return M(_mm_andnot_si128(b, a));
    }
#if defined(__AVX2__)
    else if constexpr (sizeof(M) == 32) {
        if constexpr (is_float) return M(_mm256_andnot_ps(b, a));
        else if constexpr (is_double) return M(_mm256_andnot_pd(b, a));
        else return M(_mm256_andnot_si256(b, a));
    }
#endif
    else return a & !b;
#else
    return a & !b;
#endif
#else
    return {a.value && !b.value};
#endif
}

/// True when any lane of the mask is set.
template <class M>
[[nodiscard, gnu::always_inline]] inline bool any(const M& condition) noexcept {
#if TENSOROPS_HAS_XSIMD
    return xsimd::any(condition);
#else
    return condition.value;
#endif
}

/// The lanes set in `mask` as the low bits of an integer, lane i at bit i (every register has at most 64 lanes). x86
/// vector masks (float lanes' in float registers, double lanes' in double registers, integer lanes' in integer ones)
/// in one movemask — of their floats or doubles for 4- and 8-byte lanes, of their bytes for 1-byte lanes,
/// of their 2-byte lanes packed to bytes first — and AVX-512's mask registers as they are; other masks lane by lane.
/// For a kernel that wants the first or last lane set among several vectors (locate_in_short_row), or the few set
/// lanes of one (for_each_set_lane).
template <class M>
[[nodiscard, gnu::always_inline]] inline std::uint64_t lane_bits(const M& mask) noexcept {
#if TENSOROPS_HAS_XSIMD
    using P = typename M::batch_type;
    using lane = typename P::value_type;
#if TENSOROPS_X86_INTRINSICS
    using R = typename M::register_type;
    constexpr bool mask_register = detail::is_avx512_register<P> && sizeof(M) != sizeof(P);  // a bit a lane
    if constexpr (mask_register || detail::is_avx2_register<P> || detail::is_sse2_register<P>) {
        const R bits = static_cast<R>(mask);
        if constexpr (mask_register) {
            return static_cast<std::uint64_t>(bits);
        } else if constexpr (sizeof(R) == 32) {
            if constexpr (std::is_same_v<lane, float>) return static_cast<std::uint32_t>(_mm256_movemask_ps(bits));
            else if constexpr (std::is_same_v<lane, double>) return static_cast<std::uint32_t>(_mm256_movemask_pd(bits));
            else if constexpr (sizeof(lane) == 4) return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(bits)));
            else if constexpr (sizeof(lane) == 8) return static_cast<std::uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(bits)));
            else if constexpr (sizeof(lane) == 1) return static_cast<std::uint32_t>(_mm256_movemask_epi8(bits));
            else {  // 2-byte lanes: packed to bytes within each 128-bit half, [lanes 0–7, again, lanes 8–15, again]
                const auto bytes = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_packs_epi16(bits, bits)));
                return (bytes & 0xFFu) | ((bytes >> 8) & 0xFF00u);
            }
        } else {
            if constexpr (std::is_same_v<lane, float>) return static_cast<std::uint32_t>(_mm_movemask_ps(bits));
            else if constexpr (std::is_same_v<lane, double>) return static_cast<std::uint32_t>(_mm_movemask_pd(bits));
            else if constexpr (sizeof(lane) == 4) return static_cast<std::uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(bits)));
            else if constexpr (sizeof(lane) == 8) return static_cast<std::uint32_t>(_mm_movemask_pd(_mm_castsi128_pd(bits)));
            else if constexpr (sizeof(lane) == 1) return static_cast<std::uint32_t>(_mm_movemask_epi8(bits));
            else return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(bits, bits))) & 0xFFu;
        }
    }
#endif
    alignas(64) bool set[P::size];
    mask.store_aligned(set);
    std::uint64_t bits = 0;
    for (std::size_t i = 0; i < P::size; ++i) bits |= static_cast<std::uint64_t>(set[i]) << i;
    return bits;
#else
    return mask.value ? 1u : 0u;
#endif
}

/// Calls f(i) for every lane i set in `mask`, in increasing order: the set bits of lane_bits(mask). For a kernel that
/// looks into the few lanes of a vector that matched (arg_reduce_rows_by_extreme): the work follows the set lanes, not
/// the register's width (32 lanes of int8 at AVX2).
template <class M, class F>
[[gnu::always_inline]] inline void for_each_set_lane(const M& mask, F&& f) {
    for (std::uint64_t bits = simd::lane_bits(mask); bits != 0; bits &= bits - 1) f(static_cast<std::size_t>(std::countr_zero(bits)));
}

/// True when some lane is set in `a` and not in `b`: any(and_not(a, b)), in one instruction where masks are vector
/// registers of floats or doubles and AVX is there (vtestps / vtestpd: their carry flag tests b's complement and a).
template <class M>
[[nodiscard, gnu::always_inline]] inline bool any_and_not(const M& a, const M& b) noexcept {
#if TENSOROPS_X86_INTRINSICS && defined(__AVX__)
    using lane = typename M::batch_type::value_type;  // masks of vector registers (AVX-512 has bit masks, of 1–8 bytes)
    constexpr bool is_float = std::is_same_v<lane, float>, is_double = std::is_same_v<lane, double>;
    if constexpr (sizeof(M) == 32 && is_float) return _mm256_testc_ps(b, a) == 0;
    else if constexpr (sizeof(M) == 32 && is_double) return _mm256_testc_pd(b, a) == 0;
    else if constexpr (sizeof(M) == 16 && is_float) return _mm_testc_ps(b, a) == 0;
    else if constexpr (sizeof(M) == 16 && is_double) return _mm_testc_pd(b, a) == 0;
    else return simd::any(simd::and_not(a, b));
#else
    return simd::any(simd::and_not(a, b));
#endif
}

}  // namespace tensorops::simd
