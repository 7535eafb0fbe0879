// tensorops/core/float16.hpp — IEEE 754 binary16 ("half") storage type.
//
// `float16` stores 16 bits: 1 sign, 5 exponent (bias 15), 10 fraction. It is a storage and exchange type:
// arithmetic widens to float, computes there and rounds once back to half. For + - * / that single
// rounding gives the correctly rounded half result, because float carries at least 2 * 11 + 2 bits of
// significand (so rounding first to float and then to half never double-rounds for these operations).
//
// Conversions round to nearest, ties to even; subnormals are kept (no flush to zero); NaN stays NaN with
// its sign. Every conversion is constexpr. At run time, when the compiler targets F16C (e.g.
// -march=x86-64-v3), float <-> half uses the hardware instructions, which give the same bits as the
// portable routines in `detail` (the tests check this over every half and millions of floats).
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../simd/x86/f16c.hpp"
#include "narrow_float.hpp"

namespace tensorops {

namespace detail {

inline constexpr std::uint16_t half_sign_mask = 0x8000;
inline constexpr std::uint16_t half_exponent_mask = 0x7C00;  // also the bits of +infinity
inline constexpr std::uint16_t half_fraction_mask = 0x03FF;
inline constexpr int half_fraction_bits = 10;
inline constexpr int half_exponent_bias = 15;

/// float → half bits, round to nearest even, without hardware support; usable in constant evaluation.
/// (round_fields_to_narrow_bits, narrow_float.hpp: its algorithm comment.)
constexpr std::uint16_t float_to_half_bits_portable(float value) noexcept {
    return round_float_to_narrow_bits<binary16_format>(std::bit_cast<std::uint32_t>(value));
}

/// double → half bits, rounded once, directly from the double (never through float).
constexpr std::uint16_t double_to_half_bits(double value) noexcept {
    return round_double_to_narrow_bits<binary16_format>(std::bit_cast<std::uint64_t>(value));
}

/// half bits → float, exact, without hardware support; usable in constant evaluation.
///
/// Algorithm. Normal halves re-bias the exponent (15 → 127) and widen the fraction by 13 bits.
/// Subnormal halves (fraction f · 2^−24) become normal floats: with w = bit_width(f), the leading bit
/// moves to the implicit position and the float exponent is w − 25. Infinity maps to infinity; NaN keeps
/// its sign and payload and is quietened, as the F16C instruction does.
constexpr float half_bits_to_float_portable(std::uint16_t half) noexcept {
    const std::uint32_t sign = static_cast<std::uint32_t>(half & half_sign_mask) << 16;
    const std::uint32_t exponent = (half & half_exponent_mask) >> half_fraction_bits;
    const std::uint32_t fraction = half & half_fraction_mask;
    std::uint32_t bits = 0;
    if (exponent == 0x1F) {
        const std::uint32_t quiet = fraction != 0 ? 0x400000u : 0u;
        bits = sign | 0x7F800000u | quiet | (fraction << 13);
    } else if (exponent != 0) {
        bits = sign | ((exponent + (127 - half_exponent_bias)) << 23) | (fraction << 13);
    } else if (fraction != 0) {
        const auto width = static_cast<std::uint32_t>(std::bit_width(fraction));  // 1 … 10
        const std::uint32_t float_exponent = width + 127 - 25;
        const std::uint32_t float_fraction = (fraction << (24 - width)) & 0x7FFFFF;
        bits = sign | (float_exponent << 23) | float_fraction;
    } else {
        bits = sign;  // ±0
    }
    return std::bit_cast<float>(bits);
}

/// float → half bits: F16C at run time when available, the portable routine otherwise (same result).
constexpr std::uint16_t float_to_half_bits(float value) noexcept {
    if constexpr (simd::f16c::targeted)
        if (!std::is_constant_evaluated()) return simd::f16c::float_to_half_bits(value);
    return float_to_half_bits_portable(value);
}

/// half bits → float: F16C at run time when available, the portable routine otherwise (same result).
constexpr float half_bits_to_float(std::uint16_t half) noexcept {
    if constexpr (simd::f16c::targeted)
        if (!std::is_constant_evaluated()) return simd::f16c::half_bits_to_float(half);
    return half_bits_to_float_portable(half);
}

}  // namespace detail

/// IEEE binary16 value. Trivially copyable, standard layout, two bytes; default construction leaves
/// the value uninitialised, like `float`. All conversions are explicit.
struct float16 : narrow_float_arithmetic<float16> {
    float16() = default;

    /// Rounds to the nearest half, ties to even; overflow gives ±inf, NaN stays NaN.
    explicit constexpr float16(float value) noexcept : bits_(detail::float_to_half_bits(value)) {}

    /// Rounds the double once, directly to the nearest half (no intermediate float rounding).
    explicit constexpr float16(double value) noexcept : bits_(detail::double_to_half_bits(value)) {}

    /// Converts an integer, rounded to nearest even; magnitudes of 65520 and above give ±inf.
    /// (Through double: exact below 2^53, and anything larger overflows half regardless.)
    template <std::integral Integer>
    explicit constexpr float16(Integer value) noexcept : float16(static_cast<double>(value)) {}

    /// Exact widening (signalling NaNs come back quiet).
    explicit constexpr operator float() const noexcept { return detail::half_bits_to_float(bits_); }

    /// Exact widening (signalling NaNs come back quiet).
    explicit constexpr operator double() const noexcept { return static_cast<double>(static_cast<float>(*this)); }

    /// The value whose IEEE binary16 encoding is `bits`.
    static constexpr float16 from_bits(std::uint16_t bits) noexcept {
        float16 result;
        result.bits_ = bits;
        return result;
    }

    /// The IEEE binary16 encoding of this value.
    constexpr std::uint16_t to_bits() const noexcept { return bits_; }

private:
    std::uint16_t bits_;
};

static_assert(sizeof(float16) == 2 && std::is_trivially_copyable_v<float16> && std::is_standard_layout_v<float16>);
static_assert(std::is_trivially_default_constructible_v<float16>);

/// float16 is one of the library's two narrow floating types (narrow_float.hpp).
template <>
inline constexpr bool enable_narrow_float<float16> = true;

/// True for every NaN encoding (exponent all ones, fraction non-zero).
constexpr bool isnan(float16 x) noexcept {
    return (x.to_bits() & 0x7FFF) > detail::half_exponent_mask;
}
/// True for +inf and -inf.
constexpr bool isinf(float16 x) noexcept {
    return (x.to_bits() & 0x7FFF) == detail::half_exponent_mask;
}
/// True for zeros, subnormals and normals; false for infinities and NaNs.
constexpr bool isfinite(float16 x) noexcept {
    return (x.to_bits() & detail::half_exponent_mask) != detail::half_exponent_mask;
}
/// True when the sign bit is set (including -0 and negative NaNs).
constexpr bool signbit(float16 x) noexcept { return (x.to_bits() & detail::half_sign_mask) != 0; }

}  // namespace tensorops

/// Limits of IEEE binary16.
template <>
struct std::numeric_limits<tensorops::float16> {
    using half = tensorops::float16;
    static constexpr bool is_specialized = true;
    static constexpr bool is_signed = true;
    static constexpr bool is_integer = false;
    static constexpr bool is_exact = false;
    static constexpr bool has_infinity = true;
    static constexpr bool has_quiet_NaN = true;
    static constexpr bool has_signaling_NaN = true;
    static constexpr std::float_denorm_style has_denorm = std::denorm_present;
    static constexpr bool has_denorm_loss = false;
    static constexpr std::float_round_style round_style = std::round_to_nearest;
    static constexpr bool is_iec559 = true;
    static constexpr bool is_bounded = true;
    static constexpr bool is_modulo = false;
    static constexpr int digits = 11;
    static constexpr int digits10 = 3;
    static constexpr int max_digits10 = 5;
    static constexpr int radix = 2;
    static constexpr int min_exponent = -13;
    static constexpr int min_exponent10 = -4;
    static constexpr int max_exponent = 16;
    static constexpr int max_exponent10 = 4;
    static constexpr bool traps = false;
    static constexpr bool tinyness_before = false;

    static constexpr half min() noexcept { return half::from_bits(0x0400); }            // 2^-14
    static constexpr half max() noexcept { return half::from_bits(0x7BFF); }            // 65504
    static constexpr half lowest() noexcept { return half::from_bits(0xFBFF); }         // -65504
    static constexpr half epsilon() noexcept { return half::from_bits(0x1400); }        // 2^-10
    static constexpr half round_error() noexcept { return half::from_bits(0x3800); }    // 0.5
    static constexpr half infinity() noexcept { return half::from_bits(0x7C00); }
    static constexpr half quiet_NaN() noexcept { return half::from_bits(0x7E00); }
    static constexpr half signaling_NaN() noexcept { return half::from_bits(0x7D00); }
    static constexpr half denorm_min() noexcept { return half::from_bits(0x0001); }     // 2^-24
};
