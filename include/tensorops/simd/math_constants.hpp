// tensorops/simd/math_constants.hpp — the constants of the float exponentials (exponentials.hpp), shared by every
// instruction set's implementation of them.
#pragma once

#include <bit>
#include <cstdint>

namespace tensorops::simd {

/// log2 e and ln 2 rounded to float: the constants of the float exponentials (L in their comments).
inline constexpr float log2e_float = 1.44269504088896341f;
inline constexpr float ln2_float = 0.693147180559945309f;

/// What exp_over_power_of_two needs of its reference k (an integer-valued float, |k| ≤
/// largest_power_of_two_reference), computed once for the many x of one k (power_of_two_reference_of): the clamp
/// under x and k in steps less the rounding constant.
template <class P>
struct power_of_two_reference {
    P lowest;           ///< k·ln 2 − 125·ln 2: x is clamped here, the term 2^−125 · 2^f
    P k_less_rounding;  ///< steps · k − (1.5 · 2^23 + 127 · steps), an exact integer (detail::round_to_biased_steps)
};

namespace detail {

/// 1.5 · 2^23 + 127 · steps: added to (or subtracted under) a float t with |t| ≤ 2^21, rounds it to an integer m
/// held in the low mantissa bits as 2^22 + 127·steps + m — for steps = 1 the biased exponent of 2^m, for
/// steps = 8 that of 2^⌊m/8⌋ above three bits holding m mod 8 (−126·steps ≤ m < 128·steps).
[[nodiscard]] constexpr float round_to_biased_steps_of(int steps) noexcept { return 12582912.0f + 127.0f * static_cast<float>(steps); }

/// The coefficients of polynomial_exp2_eighth, the highest degree first (the last, the constant, is 1).
inline constexpr float exp2_eighth_coefficients[4] = {0x1.c6ac02p-14f, 0x1.ec0cdap-9f, 0x1.62e430p-4f, 1.0f};

/// 2^(j/8) for j = 0..7, rounded to float.
inline constexpr float exp2_eighths[8] = {0x1p+0f,         0x1.172b84p+0f, 0x1.306fe0p+0f, 0x1.4bfdaep+0f,
                                          0x1.6a09e6p+0f, 0x1.8ace54p+0f, 0x1.ae89fap+0f, 0x1.d5818ep+0f};

/// The table entry of j for a register that looks 2^(m/8) up in an eight-entry table (power_of_two_in_eighths):
/// 2^(j/8)'s mantissa bits, xor j's bits where `biased << 20` leaves them (20–22).
[[nodiscard]] constexpr std::int32_t eighth_table_entry(int j) noexcept {
    return (std::bit_cast<std::int32_t>(exp2_eighths[j]) - 0x3F800000) ^ (j << 20);
}

}  // namespace detail
}  // namespace tensorops::simd
