// tensorops/simd/x86/avx2.hpp — the implementations of the vocabulary for 32-byte x86 registers with AVX2 (isa::avx2).
// Compiled where the build targets AVX2. (FMA is the register's own: xsimd's fma3<avx2>, simd::fused_multiply_add;
// float16 conversions need F16C too: x86/f16c_packs.hpp.)
//
// Most of AVX2's shuffles work within each 128-bit half: shifts and scans across the whole register work within the
// halves and fix up the crossing with one cross-half permute (vperm2i128), cheaper than a general permute.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../../core/inline.hpp"
#include "../isa.hpp"
#include "../math_constants.hpp"
#include "../register.hpp"
#include "../warnings.hpp"
#include "sse41.hpp"

TENSOROPS_SIMD_WARNINGS_BEGIN  // simd/warnings.hpp
#if TENSOROPS_HAS_XSIMD && defined(__AVX2__)
namespace tensorops::simd {

namespace detail {
/// The `bytes` (< 4 · Words) bytes at source in the low bytes of a register of Words 32-bit words (4: __m128i, 8:
/// __m256i), zero above; reads nothing past them. Up to 16 bytes by plain loads (load_low_bytes: a masked load that
/// misses the cache stalls on some x86 cores); more: the whole words by a masked load (masked-out words are not read,
/// so they cannot fault), the last word's 1–3 bytes by byte loads, broadcast and blended into its word.
template <std::size_t Words>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline auto load_bytes_partial(const void* source, std::size_t bytes) noexcept {
    static_assert(Words == 4 || Words == 8);
    if constexpr (Words == 4) {
        return load_low_bytes(source, bytes);
    } else {
        if (bytes <= 16) return _mm256_zextsi128_si256(load_low_bytes(source, bytes));
        const auto* first = static_cast<const unsigned char*>(source);
        const auto whole = static_cast<int>(bytes / 4);
        const unsigned char* rest = first + 4 * static_cast<std::size_t>(whole);
        std::uint32_t last = 0;
        for (std::size_t k = 0; k < bytes % 4; ++k) last |= std::uint32_t{rest[k]} << (8 * k);
        const __m256i word = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), count = _mm256_set1_epi32(whole);
        const __m256i loaded = _mm256_maskload_epi32(reinterpret_cast<const int*>(first), _mm256_cmpgt_epi32(count, word));
        return _mm256_blendv_epi8(loaded, _mm256_set1_epi32(static_cast<int>(last)), _mm256_cmpeq_epi32(count, word));
    }
}

/// The 8- or 16-bit integers T in the low bytes of `in` sign-extended (signed T) or zero-extended to the eight 32-bit
/// lanes of P: one vpmovsx/vpmovzx.
template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P widen_low_256(__m128i in) noexcept {
    if constexpr (sizeof(T) == 1) return from_bytes<P>(std::is_signed_v<T> ? _mm256_cvtepi8_epi32(in) : _mm256_cvtepu8_epi32(in));
    else return from_bytes<P>(std::is_signed_v<T> ? _mm256_cvtepi16_epi32(in) : _mm256_cvtepu16_epi32(in));
}

/// Calls f(std::integral_constant<int, bytes>) for bytes = LaneBytes, 2·LaneBytes, … below 16: the shift
/// distances of a scan inside one 128-bit half.
template <std::size_t LaneBytes, int Bytes = static_cast<int>(LaneBytes), class F>
[[TENSOROPS_ALWAYS_INLINE]] inline void for_each_in_half_step(F&& f) {
    if constexpr (Bytes < 16) {
        f(std::integral_constant<int, Bytes>{});
        for_each_in_half_step<LaneBytes, Bytes * 2>(f);
    }
}
}  // namespace detail

namespace kernel {

/// For 32- and 64-bit lanes: up to 16 bytes by plain loads (detail::load_low_bytes: a masked load that misses the cache
/// stalls on some x86 cores), more by a masked load (vpmaskmovd / vpmaskmovq, masked-out lanes not read); the fill
/// blended in. Chosen at run time: the masked load's mask takes a compare and its fill a blend, against which the
/// predicted branch costs nothing (AVX-512's one-instruction masked load keeps its form unless the count is a
/// constant: x86/avx512.hpp). detail::load_bytes_partial for 8- and 16-bit lanes.
template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_partial(const T* source, std::size_t count,
                                                             typename P::value_type fill, isa::avx2) noexcept {
    using C = typename P::value_type;
    if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
        if (count * sizeof(T) <= 16) {
            const P low = detail::from_bytes<P>(_mm256_zextsi128_si256(detail::load_low_bytes(source, count * sizeof(T))));
            if (fill == C(0)) return low;  // the lanes above read as zero
            return xsimd::select(detail::lanes_below<P>(count), low, P(fill));
        }
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
        if (fill == C(0)) return loaded;  // masked-out lanes read as zero
        return detail::from_bytes<P>(_mm256_blendv_epi8(detail::as_bytes(P(fill)), detail::as_bytes(loaded), wanted));
    } else {
        const P loaded = detail::from_bytes<P>(detail::load_bytes_partial<8>(source, count * sizeof(T)));
        if (fill == C(0)) return loaded;  // the lanes above read as zero
        return xsimd::select(detail::lanes_below<P>(count), loaded, P(fill));
    }
}

/// simd::store_partial: the low 16 bytes whole if the count has them, then the rest of the half that holds the last
/// element by detail::store_low_bytes (plain stores: vmaskmov stores are slow on some x86 cores).
template <class P, class T>
[[TENSOROPS_ALWAYS_INLINE]] inline void store_partial(T* destination, const P& value, std::size_t count, isa::avx2) noexcept {
    const __m256i bits = detail::as_bytes(value);
    const std::size_t bytes = count * sizeof(T);
    if (bytes < 16) {
        detail::store_low_bytes(destination, _mm256_castsi256_si128(bits), bytes);
        return;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(destination), _mm256_castsi256_si128(bits));
    detail::store_low_bytes(reinterpret_cast<unsigned char*>(destination) + 16, _mm256_extracti128_si256(bits, 1), bytes - 16);
}

template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_widened(const T* source, isa::avx2) noexcept {
    return detail::widen_low_256<P, T>(detail::load_low<P::size * sizeof(T)>(source));
}

template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_widened_partial(const T* source, std::size_t count,
                                                                     isa::avx2) noexcept {
    return detail::widen_low_256<P, T>(detail::load_low_bytes(source, count * sizeof(T)));
}

/// One byte shuffle gathers each 128-bit half's low bytes, one permute joins the halves.
template <class T, class P>
[[TENSOROPS_ALWAYS_INLINE]] inline void store_narrowed(T* destination, const P& value, isa::avx2) noexcept {
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
}

/// vpblendd: registers of 32- or 64-bit lanes (see simd::select_constant).
template <class Pattern, class P>
    requires(sizeof(typename P::value_type) >= 4)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P select_constant(const P& a, const P& b, isa::avx2) noexcept {
    constexpr int immediate = detail::blend_immediate<Pattern, P, 4>;  // named: clang's intrinsics are macros
    return detail::from_bytes<P>(_mm256_blend_epi32(detail::as_bytes(b), detail::as_bytes(a), immediate));
}

template <class M>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline M and_not(const M& a, const M& b, isa::avx2) noexcept {
    using lane = typename M::batch_type::value_type;
    if constexpr (std::is_same_v<lane, float>) return M(_mm256_andnot_ps(b, a));
    else if constexpr (std::is_same_v<lane, double>) return M(_mm256_andnot_pd(b, a));
    else return M(_mm256_andnot_si256(b, a));
}

/// vtestps / vtestpd: their carry flag tests b's complement and a (masks of float or double lanes).
template <class M>
    requires(std::is_floating_point_v<typename M::batch_type::value_type>)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline bool any_and_not(const M& a, const M& b, isa::avx2) noexcept {
    if constexpr (std::is_same_v<typename M::batch_type::value_type, float>) return _mm256_testc_ps(b, a) == 0;
    else return _mm256_testc_pd(b, a) == 0;
}

template <class M>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline std::uint64_t lane_bits(const M& mask, isa::avx2) noexcept {
    using lane = typename M::batch_type::value_type;
    const auto bits = static_cast<typename M::register_type>(mask);
    if constexpr (std::is_same_v<lane, float>) return static_cast<std::uint32_t>(_mm256_movemask_ps(bits));
    else if constexpr (std::is_same_v<lane, double>) return static_cast<std::uint32_t>(_mm256_movemask_pd(bits));
    else if constexpr (sizeof(lane) == 4) return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(bits)));
    else if constexpr (sizeof(lane) == 8) return static_cast<std::uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(bits)));
    else if constexpr (sizeof(lane) == 1) return static_cast<std::uint32_t>(_mm256_movemask_epi8(bits));
    else {  // 2-byte lanes: packed to bytes within each 128-bit half, [lanes 0–7, again, lanes 8–15, again]
        const auto bytes = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_packs_epi16(bits, bits)));
        return (bytes & 0xFFu) | ((bytes >> 8) & 0xFF00u);
    }
}

/// As the 16-byte form (x86/sse2.hpp), with vpmulld for 32-bit lanes.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P multiply_integers(const P& a, const P& b, isa::avx2) noexcept {
    constexpr std::size_t lane_bytes = sizeof(typename P::value_type);
    const __m256i x = detail::as_bytes(a), y = detail::as_bytes(b);
    if constexpr (lane_bytes == 2) {
        return detail::from_bytes<P>(_mm256_mullo_epi16(x, y));
    } else if constexpr (lane_bytes == 4) {
        return detail::from_bytes<P>(_mm256_mullo_epi32(x, y));
    } else if constexpr (lane_bytes == 8) {
        const __m256i low = _mm256_mul_epu32(x, y);
        const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(x, _mm256_srli_epi64(y, 32)), _mm256_mul_epu32(_mm256_srli_epi64(x, 32), y));
        return detail::from_bytes<P>(_mm256_add_epi64(low, _mm256_slli_epi64(cross, 32)));
    } else {
        const __m256i low_bytes = _mm256_set1_epi16(0x00FF);
        const __m256i even = _mm256_mullo_epi16(x, y);
        const __m256i odd = _mm256_mullo_epi16(_mm256_srli_epi16(x, 8), _mm256_srli_epi16(y, 8));
        return detail::from_bytes<P>(_mm256_or_si256(_mm256_and_si256(even, low_bytes), _mm256_slli_epi16(odd, 8)));
    }
}

/// Within each half by vpalignr, the bytes that cross the middle from a half-swapped copy: any byte count.
[[nodiscard]] constexpr bool shifts_bytes_in_register(isa::avx2, std::size_t) noexcept { return true; }

template <std::size_t Bytes, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P shift_bytes_up(const P& value, isa::avx2) noexcept {
    const __m256i bits = detail::as_bytes(value);
    const __m256i low_to_high = _mm256_permute2x128_si256(bits, bits, 0x08);  // [0, low half]
    if constexpr (Bytes < 16) return detail::from_bytes<P>(_mm256_alignr_epi8(bits, low_to_high, 16 - Bytes));
    else if constexpr (Bytes == 16) return detail::from_bytes<P>(low_to_high);
    else return detail::from_bytes<P>(_mm256_slli_si256(low_to_high, Bytes - 16));
}

template <std::size_t Bytes, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P shift_bytes_down(const P& value, isa::avx2) noexcept {
    const __m256i bits = detail::as_bytes(value);
    const __m256i high_to_low = _mm256_permute2x128_si256(bits, bits, 0x81);  // [high half, 0]
    if constexpr (Bytes < 16) return detail::from_bytes<P>(_mm256_alignr_epi8(high_to_low, bits, Bytes));
    else if constexpr (Bytes == 16) return detail::from_bytes<P>(high_to_low);
    else return detail::from_bytes<P>(_mm256_srli_si256(high_to_low, Bytes - 16));
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P broadcast_last(const P& value, isa::avx2) noexcept {
    using C = typename P::value_type;
    const __m256i bits = detail::as_bytes(value);
    if constexpr (sizeof(C) == 4) {
        return detail::from_bytes<P>(_mm256_permutevar8x32_epi32(bits, _mm256_set1_epi32(7)));
    } else if constexpr (sizeof(C) == 8) {
        return detail::from_bytes<P>(_mm256_permute4x64_epi64(bits, 0xFF));
    } else {
        const __m256i high = _mm256_permute2x128_si256(bits, bits, 0x11);  // [high half, high half]
        const __m256i last_bytes = sizeof(C) == 2 ? _mm256_set1_epi16(0x0F0E) : _mm256_set1_epi8(15);
        return detail::from_bytes<P>(_mm256_shuffle_epi8(high, last_bytes));
    }
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P broadcast_first(const P& value, isa::avx2) noexcept {
    using C = typename P::value_type;
    const __m128i low = _mm256_castsi256_si128(detail::as_bytes(value));
    if constexpr (sizeof(C) == 1) return detail::from_bytes<P>(_mm256_broadcastb_epi8(low));
    else if constexpr (sizeof(C) == 2) return detail::from_bytes<P>(_mm256_broadcastw_epi16(low));
    else if constexpr (sizeof(C) == 4) return detail::from_bytes<P>(_mm256_broadcastd_epi32(low));
    else return detail::from_bytes<P>(_mm256_broadcastq_epi64(low));
}

/// vpermd / vpermq: 32- and 64-bit lanes.
[[nodiscard]] constexpr bool permutes_in_register(isa::avx2, std::size_t lane_bytes) noexcept { return lane_bytes == 4 || lane_bytes == 8; }

/// vpermd (with a constant index register) for 32-bit lanes, vpermq for 64-bit ones.
template <class Pattern, class P>
    requires(sizeof(typename P::value_type) == 4 || sizeof(typename P::value_type) == 8)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P permute_constant(const P& value, isa::avx2) noexcept {
    constexpr auto source = [](std::size_t lane) { return static_cast<int>(Pattern::get(static_cast<unsigned>(lane), static_cast<unsigned>(P::size))); };
    if constexpr (sizeof(typename P::value_type) == 4) {
        const __m256i lanes = _mm256_setr_epi32(source(0), source(1), source(2), source(3), source(4), source(5), source(6), source(7));
        return detail::from_bytes<P>(_mm256_permutevar8x32_epi32(detail::as_bytes(value), lanes));
    } else {
        constexpr int order = source(0) | source(1) << 2 | source(2) << 4 | source(3) << 6;
        return detail::from_bytes<P>(_mm256_permute4x64_epi64(detail::as_bytes(value), order));
    }
}

/// The in-register scan (see simd::scan_lanes): each 128-bit half scanned with in-half byte shifts (vpalignr, identity
/// entering), then the lower half's total added into the upper half (forward; the mirror image backward) with an
/// in-half broadcast and one cross-half permute. Per register: log2(16/size) in-half shifts plus two shuffles —
/// against 2·log2(W) shuffles, most of them cross-half, for the generic form. Shuffles compete for one port: their
/// count sets the speed of an in-cache scan.
template <bool Backward, class P, class Op>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P scan_lanes(const P& value, Op op, typename P::value_type identity,
                                                           isa::avx2) noexcept {
    using C = typename P::value_type;
    const __m256i fill = detail::as_bytes(P(identity));
    P scanned = value;
    detail::for_each_in_half_step<sizeof(C)>([&](auto bytes) {
        const __m256i bits = detail::as_bytes(scanned);
        const __m256i shifted = Backward ? _mm256_alignr_epi8(fill, bits, bytes.value)
                                         : _mm256_alignr_epi8(bits, fill, 16 - bytes.value);
        scanned = op(scanned, detail::from_bytes<P>(shifted));
    });
    const __m256i bits = detail::as_bytes(scanned);
    __m256i edge;  // every lane of each half: that half's total
    if constexpr (sizeof(C) == 4) edge = _mm256_shuffle_epi32(bits, Backward ? 0x00 : 0xFF);
    else if constexpr (sizeof(C) == 8) edge = _mm256_shuffle_epi32(bits, Backward ? 0x44 : 0xEE);
    else if constexpr (sizeof(C) == 2) edge = _mm256_shuffle_epi8(bits, _mm256_set1_epi16(Backward ? 0x0100 : 0x0F0E));
    else edge = _mm256_shuffle_epi8(bits, _mm256_set1_epi8(Backward ? 0 : 15));
    // Forward: [identity | low total] joins the high half; backward: [high total | identity] joins the low one.
    // (A single vpermd to broadcast the total and a blend measured slower here.)
    const __m256i other_half = Backward ? _mm256_permute2x128_si256(edge, fill, 0x31) : _mm256_permute2x128_si256(edge, fill, 0x02);
    return op(scanned, detail::from_bytes<P>(other_half));
}

/// vpermd looks a lane up in an eight-entry register table.
[[nodiscard]] constexpr bool has_eighth_table(isa::avx2) noexcept { return true; }

/// 2^(m/8) per lane from `biased` (see simd::detail::power_of_two_in_eighths in exponentials.hpp).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P power_of_two_in_eighths(const P& biased, isa::avx2) noexcept {
    using I = xsimd::as_integer_t<P>;
    using detail::eighth_table_entry;
    const I bits = xsimd_compat::bitwise_cast<I>(biased);
    const __m256i table = _mm256_setr_epi32(eighth_table_entry(0), eighth_table_entry(1), eighth_table_entry(2), eighth_table_entry(3),
                                            eighth_table_entry(4), eighth_table_entry(5), eighth_table_entry(6), eighth_table_entry(7));
    const I entry = detail::from_bytes<I>(_mm256_permutevar8x32_epi32(table, detail::as_bytes(bits)));  // index: the low 3 bits
    return xsimd_compat::bitwise_cast<P>((bits << 20) ^ entry);
}

}  // namespace kernel
}  // namespace tensorops::simd
#endif
TENSOROPS_SIMD_WARNINGS_END
