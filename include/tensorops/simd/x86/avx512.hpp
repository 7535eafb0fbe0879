// tensorops/simd/x86/avx512.hpp — the implementations of the vocabulary for 64-byte x86 registers (isa::avx512, and
// isa::avx512bw for masked loads of 8- and 16-bit lanes). Compiled where the build targets AVX-512F (which implies
// AVX2, whose helpers it uses). Masks are bit masks (k registers), a bit a lane.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../core/float16.hpp"
#include "../../core/inline.hpp"
#include "../isa.hpp"
#include "../math_constants.hpp"
#include "../register.hpp"
#include "../warnings.hpp"
#include "avx2.hpp"

TENSOROPS_SIMD_WARNINGS_BEGIN  // simd/warnings.hpp
#if TENSOROPS_HAS_XSIMD && defined(__AVX512F__)
namespace tensorops::simd::kernel {

/// One masked blend on the registers (vblendmps / vblendmpd / vpblendmd / vpblendmq): a[i] where the mask's bit i is
/// set. Not xsimd 8.1's select: for AVX-512BW integer lanes it picks the blend by lane width in a `switch`, so its byte
/// and 16-bit blends are compiled for every lane type, and at -O0 GCC's intrinsics of those two are macros that cast
/// their operands C-style, which a batch of wider lanes does not take (a g++ -O0 build at x86-64-v4 did not compile).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P select(const typename P::batch_bool_type& condition, const P& a,
                                                       const P& b, isa::avx512) noexcept {
    using V = typename P::value_type;
    const auto bits = static_cast<typename P::batch_bool_type::register_type>(condition);
    if constexpr (std::is_same_v<V, float>) return P(_mm512_mask_blend_ps(bits, b, a));
    else if constexpr (std::is_same_v<V, double>) return P(_mm512_mask_blend_pd(bits, b, a));
    else if constexpr (sizeof(V) == 4)
        return detail::from_bytes<P>(_mm512_mask_blend_epi32(bits, detail::as_bytes(b), detail::as_bytes(a)));
    else if constexpr (sizeof(V) == 8)
        return detail::from_bytes<P>(_mm512_mask_blend_epi64(bits, detail::as_bytes(b), detail::as_bytes(a)));
    else return xsimd::select(condition, a, b);  // 8- and 16-bit lanes without AVX-512BW: xsimd's emulation
}

/// The same for byte and 16-bit lanes with AVX-512BW (vpblendmb / vpblendmw), their registers passed as registers.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P select(const typename P::batch_bool_type& condition, const P& a,
                                                       const P& b, isa::avx512bw) noexcept {
    using V = typename P::value_type;
    const auto bits = static_cast<typename P::batch_bool_type::register_type>(condition);
    if constexpr (sizeof(V) == 1)
        return detail::from_bytes<P>(_mm512_mask_blend_epi8(bits, detail::as_bytes(b), detail::as_bytes(a)));
    else if constexpr (sizeof(V) == 2)
        return detail::from_bytes<P>(_mm512_mask_blend_epi16(bits, detail::as_bytes(b), detail::as_bytes(a)));
    else return select<P>(condition, a, b, isa::avx512{});
}

/// select (above) of Q's lanes, reinterpreted as unsigned lanes of the mask's width.
template <class P, class Q>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline Q select_lanes(const typename P::batch_bool_type& condition, const Q& a,
                                                             const Q& b, isa::avx512) noexcept {
    using U = typename detail::unsigned_of_size<sizeof(typename P::value_type)>::type;
    using lanes = xsimd::batch<U, typename P::arch_type>;
    using mask = typename lanes::batch_bool_type;
    const mask bits(static_cast<typename P::batch_bool_type::register_type>(condition));
    const lanes a_lanes = xsimd_compat::bitwise_cast<lanes>(a), b_lanes = xsimd_compat::bitwise_cast<lanes>(b);
    return xsimd_compat::bitwise_cast<Q>(kernel::select<lanes>(bits, a_lanes, b_lanes, isa_of<lanes>{}));
}

template <class P>
    requires(P::size == 16)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_halves(const float16* source, isa::avx512) noexcept {
    return P(_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(source))));
}

template <class P>
    requires(P::size == 16)
[[TENSOROPS_ALWAYS_INLINE]] inline void store_halves(float16 * destination, const P& value, isa::avx512) noexcept {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(destination), _mm512_cvtps_ph(value, _MM_FROUND_TO_NEAREST_INT));
}

/// The halves' bytes by detail::load_bytes_partial (AVX2), widened; the fill blended in above.
template <class P>
    requires(P::size == 16)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_halves_partial(const float16* source, std::size_t count,
                                                                    float fill, isa::avx512) noexcept {
    const P widened(_mm512_cvtph_ps(detail::load_bytes_partial<8>(source, count * sizeof(float16))));
    if (fill == 0.0f) return widened;  // the lanes above read as +0.0
    return kernel::select<P>(detail::lanes_below<P>(count), widened, P(fill), isa::avx512{});
}

/// A masked load of 32- or 64-bit lanes, the fill in the others.
template <class P, class T>
    requires(sizeof(T) == 4 || sizeof(T) == 8)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_partial(const T* source, std::size_t count,
                                                             typename P::value_type fill, isa::avx512) noexcept {
    const __m512i fill_lanes = detail::as_bytes(P(fill));
    if constexpr (sizeof(T) == 4) return detail::from_bytes<P>(_mm512_mask_loadu_epi32(fill_lanes, static_cast<__mmask16>((1u << count) - 1), source));
    else return detail::from_bytes<P>(_mm512_mask_loadu_epi64(fill_lanes, static_cast<__mmask8>((1u << count) - 1), source));
}

/// load_partial of at most 16 bytes of 32- or 64-bit lanes by plain loads (detail::load_low_bytes), for a count fixed
/// at compile time (simd::load_partial's overload): a masked load that misses the cache stalls on some x86 cores, where
/// a plain load's line is prefetched; a count known only at run time keeps the masked load (one instruction, where the
/// plain loads' composition would add a branch to every call).
template <class P, class T>
    requires(sizeof(T) == 4 || sizeof(T) == 8)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_low_partial(const T* source, std::size_t count,
                                                                 typename P::value_type fill, isa::avx512) noexcept {
    const __m512i low = _mm512_zextsi128_si512(detail::load_low_bytes(source, count * sizeof(T)));
    if (fill == typename P::value_type(0)) return detail::from_bytes<P>(low);  // the lanes above read as zero
    if constexpr (sizeof(T) == 4) return detail::from_bytes<P>(_mm512_mask_mov_epi32(detail::as_bytes(P(fill)), static_cast<__mmask16>((1u << count) - 1), low));
    else return detail::from_bytes<P>(_mm512_mask_mov_epi64(detail::as_bytes(P(fill)), static_cast<__mmask8>((1u << count) - 1), low));
}

/// A masked load of 8- or 16-bit lanes (AVX-512BW), the fill in the others.
template <class P, class T>
    requires(sizeof(T) == 1 || sizeof(T) == 2)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_partial(const T* source, std::size_t count,
                                                             typename P::value_type fill, isa::avx512bw) noexcept {
    const __m512i fill_lanes = detail::as_bytes(P(fill));
    if constexpr (sizeof(T) == 2)
        return detail::from_bytes<P>(_mm512_mask_loadu_epi16(fill_lanes, static_cast<__mmask32>((std::uint32_t{1} << count) - 1), source));
    else return detail::from_bytes<P>(_mm512_mask_loadu_epi8(fill_lanes, static_cast<__mmask64>((std::uint64_t{1} << count) - 1), source));
}

/// simd::store_partial of 32- or 64-bit lanes: a masked store (masked-out lanes not written).
template <class P, class T>
    requires(sizeof(T) == 4 || sizeof(T) == 8)
[[TENSOROPS_ALWAYS_INLINE]] inline void store_partial(T* destination, const P& value, std::size_t count, isa::avx512) noexcept {
    if constexpr (sizeof(T) == 4) _mm512_mask_storeu_epi32(destination, static_cast<__mmask16>((1u << count) - 1), detail::as_bytes(value));
    else _mm512_mask_storeu_epi64(destination, static_cast<__mmask8>((1u << count) - 1), detail::as_bytes(value));
}

/// store_partial of at most 16 bytes of 32- or 64-bit lanes by plain stores (detail::store_low_bytes), for a count fixed
/// at compile time (as load_low_partial: a masked store that misses the cache stalls as a masked load does).
template <class P, class T>
    requires(sizeof(T) == 4 || sizeof(T) == 8)
[[TENSOROPS_ALWAYS_INLINE]] inline void store_low_partial(T* destination, const P& value, std::size_t count, isa::avx512) noexcept {
    detail::store_low_bytes(destination, _mm512_castsi512_si128(detail::as_bytes(value)), count * sizeof(T));
}

/// simd::store_partial of 8- or 16-bit lanes (AVX-512BW): a masked store.
template <class P, class T>
    requires(sizeof(T) == 1 || sizeof(T) == 2)
[[TENSOROPS_ALWAYS_INLINE]] inline void store_partial(T* destination, const P& value, std::size_t count, isa::avx512bw) noexcept {
    // count may be every lane: a shift by the mask's width would be undefined.
    if constexpr (sizeof(T) == 2)
        _mm512_mask_storeu_epi16(destination, static_cast<__mmask32>(count >= 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << count) - 1),
                                 detail::as_bytes(value));
    else _mm512_mask_storeu_epi8(destination, static_cast<__mmask64>(count >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1),
                                 detail::as_bytes(value));
}

/// vpmovsx / vpmovzx from 16 bytes (8-bit integers) or 32 (16-bit ones).
template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_widened(const T* source, isa::avx512) noexcept {
    constexpr bool is_signed = std::is_signed_v<T>;
    if constexpr (sizeof(T) == 1) {
        const __m128i in = _mm_loadu_si128(reinterpret_cast<const __m128i*>(source));
        return detail::from_bytes<P>(is_signed ? _mm512_cvtepi8_epi32(in) : _mm512_cvtepu8_epi32(in));
    } else {
        const __m256i in = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(source));
        return detail::from_bytes<P>(is_signed ? _mm512_cvtepi16_epi32(in) : _mm512_cvtepu16_epi32(in));
    }
}

/// load_widened of `count` (≤ lanes<U>) elements, zero above: a masked load of the bytes load_widened reads (AVX-512BW:
/// the bytes masked out are not read, so nothing past source[count - 1]), then the same vpmovsx / vpmovzx. Not through
/// an array: a register stored and read back whole at every row stalls on the store (store-to-load forwarding fails).
template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_widened_partial(const T* source, std::size_t count,
                                                                     isa::avx512bw) noexcept {
    constexpr bool is_signed = std::is_signed_v<T>;
    const auto wanted = static_cast<__mmask64>((std::uint64_t{1} << count) - 1);  // count ≤ 16 lanes
    if constexpr (sizeof(T) == 1) {
        const __m128i in = _mm512_castsi512_si128(_mm512_maskz_loadu_epi8(wanted, source));
        return detail::from_bytes<P>(is_signed ? _mm512_cvtepi8_epi32(in) : _mm512_cvtepu8_epi32(in));
    } else {
        const __m256i in = _mm512_castsi512_si256(_mm512_maskz_loadu_epi16(static_cast<__mmask32>(wanted), source));
        return detail::from_bytes<P>(is_signed ? _mm512_cvtepi16_epi32(in) : _mm512_cvtepu16_epi32(in));
    }
}

/// A constant mask register loaded from an immediate, for every lane type, and select's blend (above). Not xsimd 8.1's
/// constant masks: for byte and 16-bit lanes it builds them from bools lane by lane, and its select of a constant mask
/// is an ordinary function that GCC left out of line at -O2 (a call per blend in the narrow-row kernels).
template <class Pattern, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P select_constant(const P& a, const P& b, isa::avx512) noexcept {
    using M = typename P::batch_bool_type;
    constexpr std::uint64_t bits = [] {
        std::uint64_t set = 0;
        for (std::size_t i = 0; i < P::size; ++i)
            if (Pattern::get(static_cast<unsigned>(i), P::size)) set |= std::uint64_t{1} << i;
        return set;
    }();
    return kernel::select<P>(M(static_cast<typename M::register_type>(bits)), a, b, isa_of<P>{});
}

/// The mask registers' bits, and-not in a general register (xsimd 8.1's bitwise_andnot of AVX-512 masks puts the
/// complement on the wrong operand, and its `^` of them is an or).
template <class M>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline M and_not(const M& a, const M& b, isa::avx512) noexcept {
    using bits = std::remove_cvref_t<decltype(a.data)>;
    return M(static_cast<bits>(a.data & ~b.data));
}

template <class M>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline std::uint64_t lane_bits(const M& mask, isa::avx512) noexcept {
    return static_cast<std::uint64_t>(static_cast<typename M::register_type>(mask));
}

/// valignd: whole 32-bit words only.
[[nodiscard]] constexpr bool shifts_bytes_in_register(isa::avx512, std::size_t bytes) noexcept { return bytes % 4 == 0; }

template <std::size_t Bytes, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P shift_bytes_up(const P& value, isa::avx512) noexcept {
    static_assert(Bytes % 4 == 0 && Bytes < 64, "64-byte registers shift by whole 32-bit words");
    return detail::from_bytes<P>(_mm512_alignr_epi32(detail::as_bytes(value), _mm512_setzero_si512(), 16 - Bytes / 4));
}

template <std::size_t Bytes, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P shift_bytes_down(const P& value, isa::avx512) noexcept {
    static_assert(Bytes % 4 == 0 && Bytes < 64, "64-byte registers shift by whole 32-bit words");
    return detail::from_bytes<P>(_mm512_alignr_epi32(_mm512_setzero_si512(), detail::as_bytes(value), Bytes / 4));
}

/// vpermd / vpermq with a constant index register: 32- and 64-bit lanes.
[[nodiscard]] constexpr bool permutes_in_register(isa::avx512, std::size_t lane_bytes) noexcept { return lane_bytes == 4 || lane_bytes == 8; }

/// vpermd / vpermq with a constant index register.
template <class Pattern, class P>
    requires(sizeof(typename P::value_type) == 4 || sizeof(typename P::value_type) == 8)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P permute_constant(const P& value, isa::avx512) noexcept {
    constexpr auto source = [](std::size_t lane) { return static_cast<int>(Pattern::get(static_cast<unsigned>(lane), static_cast<unsigned>(P::size))); };
    if constexpr (sizeof(typename P::value_type) == 4) {
        const __m512i lanes = _mm512_setr_epi32(source(0), source(1), source(2), source(3), source(4), source(5), source(6), source(7), source(8),
                                                source(9), source(10), source(11), source(12), source(13), source(14), source(15));
        return detail::from_bytes<P>(_mm512_permutexvar_epi32(lanes, detail::as_bytes(value)));
    } else {
        const __m512i lanes = _mm512_setr_epi64(source(0), source(1), source(2), source(3), source(4), source(5), source(6), source(7));
        return detail::from_bytes<P>(_mm512_permutexvar_epi64(lanes, detail::as_bytes(value)));
    }
}

/// vfmsub, vfmadd, vfnmadd: xsimd 8.1 has no fused forms for AVX-512 registers (it multiplies, then adds: two roundings,
/// or one where the compiler contracts them — bits that would depend on the compiler and its flags).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P fms(const P& a, const P& b, const P& c, isa::avx512) noexcept {
    if constexpr (std::is_same_v<typename P::value_type, float>) return P(_mm512_fmsub_ps(a, b, c));
    else return P(_mm512_fmsub_pd(a, b, c));
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P fma(const P& a, const P& b, const P& c, isa::avx512) noexcept {
    if constexpr (std::is_same_v<typename P::value_type, float>) return P(_mm512_fmadd_ps(a, b, c));
    else return P(_mm512_fmadd_pd(a, b, c));
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P fnma(const P& a, const P& b, const P& c, isa::avx512) noexcept {
    if constexpr (std::is_same_v<typename P::value_type, float>) return P(_mm512_fnmadd_ps(a, b, c));
    else return P(_mm512_fnmadd_pd(a, b, c));
}

/// vpermd looks a lane up in a sixteen-entry register table: the eight entries twice.
[[nodiscard]] constexpr bool has_eighth_table(isa::avx512) noexcept { return true; }

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P power_of_two_in_eighths(const P& biased, isa::avx512) noexcept {
    using I = xsimd::as_integer_t<P>;
    using detail::eighth_table_entry;
    const I bits = xsimd_compat::bitwise_cast<I>(biased);
    const __m512i table = _mm512_setr_epi32(eighth_table_entry(0), eighth_table_entry(1), eighth_table_entry(2), eighth_table_entry(3),
                                            eighth_table_entry(4), eighth_table_entry(5), eighth_table_entry(6), eighth_table_entry(7),
                                            eighth_table_entry(0), eighth_table_entry(1), eighth_table_entry(2), eighth_table_entry(3),
                                            eighth_table_entry(4), eighth_table_entry(5), eighth_table_entry(6), eighth_table_entry(7));
    const I entry = detail::from_bytes<I>(_mm512_permutexvar_epi32(detail::as_bytes(bits), table));  // index: the low 4 bits
    return xsimd_compat::bitwise_cast<P>((bits << 20) ^ entry);
}

}  // namespace tensorops::simd::kernel
#endif
TENSOROPS_SIMD_WARNINGS_END
