// tensorops/core/narrow_float.hpp — what float16 and bfloat16 have in common: 16-bit floating storage types that widen
// exactly to float, compute there, and round once back (SEMANTICS.md §4). The kernels ask `narrow_float<T>`, never
// for one of the two types by name, so that one template serves both.
//
// Also here: the one rounding routine both types use to narrow a wider binary format (float or double fields) to
// their 16 bits, parameterised by the 16-bit layout.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

namespace tensorops {

/// Set to true by the header of each of the library's 16-bit floating storage types (float16.hpp, bfloat16.hpp).
/// Not a customisation point: the vector loads and stores (simd/) have instructions for those two types only.
template <class T>
inline constexpr bool enable_narrow_float = false;

/// The conversions of a narrow float: explicit widening to float, construction from float and double, and its bits.
template <class T>
concept narrow_float_conversions = requires(const T x, float f, double d, std::uint16_t bits) {
    { static_cast<float>(x) } -> std::same_as<float>;
    T(f);
    T(d);
    { T::from_bits(bits) } -> std::same_as<T>;
    { x.to_bits() } -> std::same_as<std::uint16_t>;
};

/// A 16-bit floating storage type that widens exactly to float (`static_cast<float>(x)`) and is rounded once from
/// float or double to nearest even (`T(f)`): float16 and bfloat16. Kernels load it into float lanes, accumulate in
/// float (accumulator_t<T> is float) and round once per output.
template <class T>
concept narrow_float =
    enable_narrow_float<T> && sizeof(T) == 2 && std::is_trivially_copyable_v<T> && narrow_float_conversions<T>;

/// The arithmetic and comparisons of a narrow float T, one definition for float16 and bfloat16 (each derives from
/// `narrow_float_arithmetic<T>`; the operators are hidden friends, found through the base). Every operation widens
/// to float, computes there and rounds once back to T, which is the correctly rounded result; compound assignments
/// round the same once. Negation flips the sign bit exactly (zeros and NaNs too). Comparisons follow IEEE: any
/// comparison with a NaN is false except !=, and +0 == -0 — six plain operators rather than a partial_ordering <=>:
/// GCC 12 miscompiles chains of relational tests synthesised from float <=> when an operand is NaN.
template <class T>
struct narrow_float_arithmetic {
    friend constexpr T operator+(T a, T b) noexcept { return T(float(a) + float(b)); }
    friend constexpr T operator-(T a, T b) noexcept { return T(float(a) - float(b)); }
    friend constexpr T operator*(T a, T b) noexcept { return T(float(a) * float(b)); }
    friend constexpr T operator/(T a, T b) noexcept { return T(float(a) / float(b)); }
    friend constexpr T operator-(T a) noexcept {
        return T::from_bits(static_cast<std::uint16_t>(a.to_bits() ^ 0x8000u));
    }
    friend constexpr T operator+(T a) noexcept { return a; }

    friend constexpr T& operator+=(T& a, T b) noexcept { return a = a + b; }
    friend constexpr T& operator-=(T& a, T b) noexcept { return a = a - b; }
    friend constexpr T& operator*=(T& a, T b) noexcept { return a = a * b; }
    friend constexpr T& operator/=(T& a, T b) noexcept { return a = a / b; }

    friend constexpr bool operator==(T a, T b) noexcept { return float(a) == float(b); }
    friend constexpr bool operator!=(T a, T b) noexcept { return float(a) != float(b); }
    friend constexpr bool operator<(T a, T b) noexcept { return float(a) < float(b); }
    friend constexpr bool operator<=(T a, T b) noexcept { return float(a) <= float(b); }
    friend constexpr bool operator>(T a, T b) noexcept { return float(a) > float(b); }
    friend constexpr bool operator>=(T a, T b) noexcept { return float(a) >= float(b); }
};

namespace detail {

/// The fields of a 16-bit IEEE 754-style binary format: 1 sign bit, 15 − FractionBits exponent bits (bias
/// 2^(exponent bits − 1) − 1), FractionBits fraction bits. binary16: 10; bfloat16: 7.
template <int FractionBits>
struct narrow_format {
    static constexpr int fraction_bits = FractionBits;
    static constexpr int exponent_bits = 15 - FractionBits;
    static constexpr int bias = (1 << (exponent_bits - 1)) - 1;
    static constexpr int min_normal_exponent = 1 - bias;  // unbiased exponent of the smallest normal
    static constexpr std::uint16_t sign_mask = 0x8000;
    static constexpr std::uint16_t exponent_mask =
        static_cast<std::uint16_t>(((1 << exponent_bits) - 1) << FractionBits);
    static constexpr std::uint16_t fraction_mask = static_cast<std::uint16_t>((1 << FractionBits) - 1);
    static constexpr std::uint16_t quiet_bit = static_cast<std::uint16_t>(1 << (FractionBits - 1));
};

using binary16_format = narrow_format<10>;
using bfloat16_format = narrow_format<7>;

/// Shifts `value` right by `shift` (1 ≤ shift ≤ 63), rounding the discarded bits to nearest, ties to
/// the even result.
constexpr std::uint64_t shift_right_round_even(std::uint64_t value, int shift) noexcept {
    const std::uint64_t kept = value >> shift;
    const std::uint64_t discarded = value & ((std::uint64_t{1} << shift) - 1);
    const std::uint64_t halfway = std::uint64_t{1} << (shift - 1);
    const bool round_up = discarded > halfway || (discarded == halfway && (kept & 1) != 0);
    return kept + (round_up ? 1 : 0);
}

/// Rounds a binary floating-point number of a wider format (`FractionBits` fraction bits, exponent `Bias`; given
/// as its raw `sign`, `biased_exponent` and `fraction`) to the bits of the 16-bit format `Narrow`, to nearest, ties
/// to even.
///
/// Algorithm. Non-finite inputs: infinity maps to infinity; NaN keeps its sign and the top fraction bits with the
/// quiet bit forced on (so a signalling NaN whose payload sits in low bits does not turn into infinity). Finite
/// inputs: the value is significand × 2^(e − FractionBits), with the implicit bit restored for normal inputs (a
/// subnormal input has e = 1 − Bias and no implicit bit). The narrow format spaces its values 2^(E − f) apart
/// (f its fraction bits), where E = max(e, its smallest normal exponent m): below m all its values are subnormal,
/// 2^(m − f) apart. Shifting the significand right by FractionBits − f + (E − e) with ties-to-even rounding gives
/// an integer r; the bits are ((E − m) << f) + r. For normal results r ∈ [2^f, 2^(f+1)] carries its implicit bit
/// into the exponent field, so r == 2^(f+1) moves up one binade, the largest finite value plus half an ulp and
/// above carry into the infinity pattern, and a subnormal result that rounds to r == 2^f becomes the smallest
/// normal. Values below 2^(m − f − 1) (half the smallest subnormal) round to a signed zero.
template <class Narrow, int FractionBits, int Bias>
constexpr std::uint16_t round_fields_to_narrow_bits(bool sign, int biased_exponent, std::uint64_t fraction) noexcept {
    constexpr int narrow_fraction_bits = Narrow::fraction_bits;
    static_assert(FractionBits > narrow_fraction_bits && FractionBits + 2 < 64);
    const std::uint16_t sign_bit = sign ? Narrow::sign_mask : 0;
    if (biased_exponent == 2 * Bias + 1) {
        if (fraction == 0) return sign_bit | Narrow::exponent_mask;
        const auto top_fraction = static_cast<std::uint16_t>(fraction >> (FractionBits - narrow_fraction_bits));
        return sign_bit | Narrow::exponent_mask | Narrow::quiet_bit | top_fraction;
    }
    if (biased_exponent == 0 && fraction == 0) return sign_bit;
    const bool subnormal = biased_exponent == 0;
    const int exponent = (subnormal ? 1 : biased_exponent) - Bias;
    constexpr int smallest = Narrow::min_normal_exponent;
    if (exponent < smallest - narrow_fraction_bits - 1) return sign_bit;   // below half the smallest subnormal: ±0
    if (exponent > Narrow::bias) return sign_bit | Narrow::exponent_mask;  // at least twice the largest binade: ±inf
    const std::uint64_t significand = fraction | (subnormal ? 0 : std::uint64_t{1} << FractionBits);
    const int narrow_exponent = exponent < smallest ? smallest : exponent;
    const int shift = FractionBits - narrow_fraction_bits + (narrow_exponent - exponent);
    const std::uint64_t rounded = shift_right_round_even(significand, shift);
    const auto exponent_field = static_cast<std::uint64_t>(narrow_exponent - smallest) << narrow_fraction_bits;
    return static_cast<std::uint16_t>(sign_bit | (exponent_field + rounded));
}

/// float → the bits of format Narrow, through round_fields_to_narrow_bits.
template <class Narrow>
constexpr std::uint16_t round_float_to_narrow_bits(std::uint32_t float_bits) noexcept {
    return round_fields_to_narrow_bits<Narrow, 23, 127>((float_bits >> 31) != 0,
                                                        static_cast<int>((float_bits >> 23) & 0xFF),
                                                        float_bits & 0x7FFFFF);
}

/// double → the bits of format Narrow, rounded once, directly from the double (never through float).
template <class Narrow>
constexpr std::uint16_t round_double_to_narrow_bits(std::uint64_t double_bits) noexcept {
    return round_fields_to_narrow_bits<Narrow, 52, 1023>((double_bits >> 63) != 0,
                                                         static_cast<int>((double_bits >> 52) & 0x7FF),
                                                         double_bits & 0xFFFFFFFFFFFFF);
}

}  // namespace detail
}  // namespace tensorops
