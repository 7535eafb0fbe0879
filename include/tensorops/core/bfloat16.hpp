// tensorops/core/bfloat16.hpp — the bfloat16 ("brain floating point") storage type.
//
// `bfloat16` stores the top 16 bits of an IEEE binary32: 1 sign, 8 exponent (bias 127, float's range), 7 fraction
// bits. Like float16 it is a storage and exchange type (a narrow_float, narrow_float.hpp): arithmetic widens to float,
// computes there and rounds once back, which for + - * / is the correctly rounded bfloat16 result (float carries
// 24 ≥ 2 · 8 + 2 bits of significand, so the two roundings never differ from one).
//
// Conversions. Widening is exact: the 16 bits become a float's top half, the low half zero — for every pattern,
// NaNs included (a signalling NaN stays signalling in float, where float16's F16C widening quietens it; the first
// float operation quietens it either way). Narrowing rounds to nearest, ties to even: subnormals are kept (no flush to
// zero, bfloat16 has float's subnormals down to 2^−133), a magnitude of at least the largest bfloat16 plus half an ulp
// (0x1.ffp127 and above) becomes ±inf as IEEE does, and NaN stays NaN with its sign and its top seven payload bits,
// quiet bit set. Every conversion is constexpr; the vector paths (simd/x86/bf16.hpp) give the same bits.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "narrow_float.hpp"

namespace tensorops {

namespace detail {

/// float → bfloat16 bits, to nearest even (the integer form every vector path computes too).
///
/// Algorithm. bfloat16 keeps the float's top 16 bits, so rounding is integer arithmetic on the float's bits:
/// adding 0x7FFF plus the kept part's lowest bit carries into the kept bits exactly when the discarded half is above
/// 0x8000, or equal to it with an odd kept part (ties to even). This holds across binades and into the exponent
/// field, since float's encoding is monotonic in its bits: a subnormal rounds up to the smallest normal, the largest
/// finite floats carry into the infinity pattern 0x7F80, and infinities (discarded half 0) stay. NaNs are the one
/// exception (the carry could turn one into infinity): they keep their top bits, quiet bit 0x0040 set.
constexpr std::uint16_t float_to_bfloat16_bits(float value) noexcept {
    const auto bits = std::bit_cast<std::uint32_t>(value);
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
        return static_cast<std::uint16_t>((bits >> 16) | bfloat16_format::quiet_bit);
    const std::uint32_t kept_lowest_bit = (bits >> 16) & 1u;
    return static_cast<std::uint16_t>((bits + 0x7FFFu + kept_lowest_bit) >> 16);
}

/// double → bfloat16 bits, rounded once, directly from the double (never through float, which could round twice).
constexpr std::uint16_t double_to_bfloat16_bits(double value) noexcept {
    return round_double_to_narrow_bits<bfloat16_format>(std::bit_cast<std::uint64_t>(value));
}

/// bfloat16 bits → float, exact: the bits become the float's top half.
constexpr float bfloat16_bits_to_float(std::uint16_t bits) noexcept {
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

/// An integer → bfloat16 bits, rounded once to nearest even. Through double would round twice past 2^53; instead
/// the magnitude is rounded to 8 significant bits as an integer, which float then holds exactly (every 64-bit
/// magnitude is within float's range).
template <std::integral Integer>
constexpr std::uint16_t integer_to_bfloat16_bits(Integer value) noexcept {
    static_assert(sizeof(Integer) <= 8, "integers of up to 64 bits");
    bool negative = false;
    std::uint64_t magnitude = 0;
    if constexpr (std::is_signed_v<Integer>) {
        const auto wide = static_cast<std::int64_t>(value);
        negative = wide < 0;
        magnitude = negative ? 0u - static_cast<std::uint64_t>(wide) : static_cast<std::uint64_t>(wide);
    } else {
        magnitude = static_cast<std::uint64_t>(value);
    }
    const auto width = static_cast<int>(std::bit_width(magnitude));
    const int shift = width > 8 ? width - 8 : 0;
    const std::uint64_t significand = shift == 0 ? magnitude : shift_right_round_even(magnitude, shift);
    const float exact = static_cast<float>(significand) * static_cast<float>(std::uint64_t{1} << shift);  // ≤ 2^64
    return float_to_bfloat16_bits(negative ? -exact : exact);
}

}  // namespace detail

/// A bfloat16 value. Trivially copyable, standard layout, two bytes; default construction leaves the value
/// uninitialised, like `float`. All conversions are explicit.
struct bfloat16 : narrow_float_arithmetic<bfloat16> {
    bfloat16() = default;

    /// Rounds to the nearest bfloat16, ties to even; overflow gives ±inf, NaN stays NaN (quiet, sign kept).
    explicit constexpr bfloat16(float value) noexcept : bits_(detail::float_to_bfloat16_bits(value)) {}

    /// Rounds the double once, directly to the nearest bfloat16 (no intermediate float rounding).
    explicit constexpr bfloat16(double value) noexcept : bits_(detail::double_to_bfloat16_bits(value)) {}

    /// Converts an integer, rounded once to nearest even (every 64-bit integer is finite in bfloat16).
    template <std::integral Integer>
    explicit constexpr bfloat16(Integer value) noexcept : bits_(detail::integer_to_bfloat16_bits(value)) {}

    /// Exact widening (every pattern, NaN payloads and signalling NaNs as they are).
    explicit constexpr operator float() const noexcept { return detail::bfloat16_bits_to_float(bits_); }

    /// Exact widening.
    explicit constexpr operator double() const noexcept { return static_cast<double>(static_cast<float>(*this)); }

    /// The value whose bfloat16 encoding is `bits`.
    static constexpr bfloat16 from_bits(std::uint16_t bits) noexcept {
        bfloat16 result;
        result.bits_ = bits;
        return result;
    }

    /// The bfloat16 encoding of this value.
    constexpr std::uint16_t to_bits() const noexcept { return bits_; }

private:
    std::uint16_t bits_;
};

static_assert(sizeof(bfloat16) == 2 && std::is_trivially_copyable_v<bfloat16> && std::is_standard_layout_v<bfloat16>);
static_assert(std::is_trivially_default_constructible_v<bfloat16>);

/// bfloat16 is one of the library's two narrow floating types (narrow_float.hpp).
template <>
inline constexpr bool enable_narrow_float<bfloat16> = true;

/// True for every NaN encoding (exponent all ones, fraction non-zero).
constexpr bool isnan(bfloat16 x) noexcept { return (x.to_bits() & 0x7FFF) > detail::bfloat16_format::exponent_mask; }
/// True for +inf and -inf.
constexpr bool isinf(bfloat16 x) noexcept { return (x.to_bits() & 0x7FFF) == detail::bfloat16_format::exponent_mask; }
/// True for zeros, subnormals and normals; false for infinities and NaNs.
constexpr bool isfinite(bfloat16 x) noexcept {
    return (x.to_bits() & detail::bfloat16_format::exponent_mask) != detail::bfloat16_format::exponent_mask;
}
/// True when the sign bit is set (including -0 and negative NaNs).
constexpr bool signbit(bfloat16 x) noexcept { return (x.to_bits() & detail::bfloat16_format::sign_mask) != 0; }

}  // namespace tensorops

/// Limits of bfloat16: float's exponent range with 8 significant bits.
template <>
struct std::numeric_limits<tensorops::bfloat16> {
    using brain = tensorops::bfloat16;
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
    static constexpr bool is_iec559 = false;  // not an IEEE 754 interchange format (its binary16 is float16)
    static constexpr bool is_bounded = true;
    static constexpr bool is_modulo = false;
    static constexpr int digits = 8;
    static constexpr int digits10 = 2;
    static constexpr int max_digits10 = 4;
    static constexpr int radix = 2;
    static constexpr int min_exponent = -125;
    static constexpr int min_exponent10 = -37;
    static constexpr int max_exponent = 128;
    static constexpr int max_exponent10 = 38;
    static constexpr bool traps = false;
    static constexpr bool tinyness_before = false;

    static constexpr brain min() noexcept { return brain::from_bits(0x0080); }  // 2^-126
    static constexpr brain max() noexcept { return brain::from_bits(0x7F7F); }  // 0x1.fep127
    static constexpr brain lowest() noexcept { return brain::from_bits(0xFF7F); }
    static constexpr brain epsilon() noexcept { return brain::from_bits(0x3C00); }      // 2^-7
    static constexpr brain round_error() noexcept { return brain::from_bits(0x3F00); }  // 0.5
    static constexpr brain infinity() noexcept { return brain::from_bits(0x7F80); }
    static constexpr brain quiet_NaN() noexcept { return brain::from_bits(0x7FC0); }
    static constexpr brain signaling_NaN() noexcept { return brain::from_bits(0x7FA0); }
    static constexpr brain denorm_min() noexcept { return brain::from_bits(0x0001); }  // 2^-133
};
