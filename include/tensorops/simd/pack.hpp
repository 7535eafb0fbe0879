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

/// Stores the low `count` (≤ lanes<T>) lanes; writes nothing past destination[count - 1].
template <builtin_element T>
[[gnu::always_inline]] inline void store_partial(T* destination, const pack<T>& value, std::size_t count) noexcept {
    const auto values = to_array(value);
    for (std::size_t i = 0; i < count; ++i) destination[i] = static_cast<T>(values[i]);
}

// The vocabulary continues in widen.hpp (8- and 16-bit integers in 32-bit lanes) and select.hpp (lane-wise
// selection and tests), which this header includes at its end: include pack.hpp.

}  // namespace tensorops::simd

#include "widen.hpp"
#include "select.hpp"
