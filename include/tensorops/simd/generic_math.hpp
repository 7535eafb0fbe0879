// tensorops/simd/generic_math.hpp — the implementations of math.hpp's exponentials, logarithm and product_error for any
// xsimd register (isa::generic): algorithms written in xsimd's portable operations and in the instruction sets' kernels
// (fma, fnma, fms, the clamp, the eighths table), which is why implementations.hpp includes this file after every
// instruction set's. None of xsimd's math functions: their results differ between its releases. The contracts are
// math.hpp's; the algorithms are here.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../core/inline.hpp"
#include "generic.hpp"
#include "isa.hpp"
#include "math_constants.hpp"
#include "portable.hpp"
#include "register.hpp"
#include "warnings.hpp"

TENSOROPS_SIMD_WARNINGS_BEGIN  // simd/warnings.hpp
#if TENSOROPS_HAS_XSIMD
namespace tensorops::simd {

namespace detail {
/// Steps per unit of exp_over_power_of_two's rounded argument: eighths where the register can look a lane up in an
/// eight-entry table (kernel::has_eighth_table: AVX2 and AVX-512 `vpermd`), whole numbers elsewhere.
template <class P>
inline constexpr int exp2_steps = kernel::has_eighth_table(isa_of<P>{}) ? 8 : 1;

/// round_to_biased_steps_of(exp2_steps<P>) (math_constants.hpp).
template <class P>
inline constexpr float round_to_biased_steps = round_to_biased_steps_of(exp2_steps<P>);

/// a · b + c per floating lane, rounded once where the register fuses multiply-add (kernel::fma of its instruction set:
/// the same instruction whatever the xsimd version and the compiler).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P multiply_add(const P& a, const P& b, const P& c) noexcept {
    return kernel::fma(a, b, c, isa_of<P>{});
}

/// c − a · b per floating lane, rounded once where the register fuses multiply-add (kernel::fnma).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P negated_multiply_add(const P& a, const P& b, const P& c) noexcept {
    return kernel::fnma(a, b, c, isa_of<P>{});
}

/// The polynomial with float coefficients `highest`, rest… (highest degree first, the constant last) at f, per lane,
/// by Horner's rule: one fused multiply-add per coefficient after the first.
template <class P, class... Rest>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P horner(const P& f, float highest, Rest... rest) noexcept {
    P p(highest);
    ((p = detail::multiply_add(p, f, P(rest))), ...);
    return p;
}

/// 2^f per float lane for f in [−½, ½] (a little beyond costs accuracy), the last step of the float exponentials
/// below: a degree-5 polynomial fitted for least maximum relative error (1.8·10⁻⁷, about 1.5 ulp), five fused
/// multiply-adds. NaN for NaN f.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P polynomial_exp2(const P& f) noexcept {
    return horner(f, 0x1.5ce202p-10f, 0x1.3cea90p-7f, 0x1.c6b426p-5f, 0x1.ebf9bcp-3f, 0x1.62e42cp-1f, 1.0f);
}

/// 2^(f/8) per float lane for f in [−½, ½]: a degree-3 polynomial fitted for least maximum relative error
/// (2.8·10⁻⁸), three fused multiply-adds. NaN for NaN f.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P polynomial_exp2_eighth(const P& f) noexcept {
    constexpr const float* c = exp2_eighth_coefficients;
    return horner(f, c[0], c[1], c[2], c[3]);
}

/// 2^(n + f) per float lane, for f in [−½, ½] and `biased` = n + 1.5 · 2^23 whose low mantissa bits hold 2^22 + n,
/// −126 ≤ n ≤ 127: the last step of exp_shifted. 2^f is polynomial_exp2; 2^n is added to its exponent field as
/// an integer (a NaN f with payload bits in biased may come out as a number: exp_shifted's x are never NaN).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P exp2_reduced(const P& f, const P& biased) noexcept {
    using I = xsimd::as_integer_t<P>;
    const P p = polynomial_exp2(f);
    const I exponent = xsimd_compat::bitwise_cast<I>(biased) << 23;  // n · 2^23: the low bits of biased hold 2^22 + n
    return xsimd_compat::bitwise_cast<P>(xsimd_compat::bitwise_cast<I>(p) + exponent);
}

/// e^d per double lane for d ≤ ~709.4 (the terms of a log-sum-exp: d = x − shift ≤ 0, or x − reference for its
/// one-pass kernels), at most 2 ulp from e^d; d below −708 (−inf too) gives e^−708 (~2^−1021.4: below half an ulp of
/// any sum that holds the group's own e^0 = 1); +inf or d above ln(DBL_MAX) gives +inf (d between ~709.4 and it, +inf
/// too); NaN gives NaN.
/// Algorithm: n = round(d · log2 e), by one fused multiply-add with 1.5 · 2^52 (n held in the low mantissa bits);
/// r = d − n · ln 2 in two steps (ln 2 split in a high part with 21 trailing zero bits, so n · ln2_hi is exact, and the
/// rest), |r| ≤ ½ ln 2; e^r by its Taylor polynomial of degree 13 (truncation below 5·10⁻¹⁸ on that interval: the
/// error is the evaluation's rounding); 2^n from biased's bits shifted into an exponent field, multiplied in (a NaN stays NaN).
/// Twenty-odd vector operations for four lanes, against a call of std::exp per lane. xsimd 8.1's own double exp is
/// not used: it converts ±inf to a 64-bit integer on AVX2 (undefined behaviour, see kernel::exp in generic.hpp).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P exp_double_lanes(const P& value) noexcept {
    using I = xsimd::as_integer_t<P>;
    constexpr double log2e = 1.4426950408889634074, ln2_high = 0x1.62e42feep-1, ln2_low = 0x1.a39ef35793c76p-33;
    constexpr double round_to_integer = 0x1.8p52;  // 1.5 · 2^52
    const P d = kernel::clamp_below_keeping_nan(value, P(-708.0), isa_of<P>{});
    const P biased = detail::multiply_add(d, P(log2e), P(round_to_integer));
    const P n = biased - P(round_to_integer);
    const P r = detail::negated_multiply_add(n, P(ln2_low), detail::negated_multiply_add(n, P(ln2_high), d));
    // Σ r^k / k!, k ≤ 13, by Estrin's scheme: pairs c_2i + c_2i+1·r, then pairs of those with r², r⁴, r⁸ — four
    // multiply-adds deep, not thirteen: a Horner chain's latency, not the ports, would set the kernels' pace.
    const auto pair = [&](double low, double high) { return detail::multiply_add(P(high), r, P(low)); };
    const P r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
    const P q0 = pair(1.0, 1.0), q1 = pair(1.0 / 2, 1.0 / 6), q2 = pair(1.0 / 24, 1.0 / 120), q3 = pair(1.0 / 720, 1.0 / 5040),
            q4 = pair(1.0 / 40320, 1.0 / 362880), q5 = pair(1.0 / 3628800, 1.0 / 39916800), q6 = pair(1.0 / 479001600, 1.0 / 6227020800);
    const P low = detail::multiply_add(detail::multiply_add(q3, r2, q2), r4, detail::multiply_add(q1, r2, q0));
    const P high = detail::multiply_add(q6, r4, detail::multiply_add(q5, r2, q4));
    const P p = detail::multiply_add(high, r8, low);
    const P power = xsimd_compat::bitwise_cast<P>((xsimd_compat::bitwise_cast<I>(biased) + I(1023)) << 52);  // 2^n: n + 1023 in the exponent
    return xsimd::select(value > P(709.782712893384), P(std::numeric_limits<double>::infinity()), p * power);
}

/// e^r per float lane for |r| ≤ ½ ln 2 (a little beyond costs little): its Taylor polynomial of degree 7 (truncation
/// below 6·10⁻⁹ relative on that interval, a tenth of an ulp) by Horner's rule, seven fused multiply-adds. NaN for NaN r.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P polynomial_exp(const P& r) noexcept {
    return horner(r, 1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f);
}

/// p · 2^n per float lane, for p within a factor of 2 of 1 (or NaN) and an integer n in [−151, 129] held in `biased` =
/// n + 1.5 · 2^23 (its low mantissa bits). 2^n is the product of two powers of two in the normal range, 2^⌊n/2⌋ and
/// 2^(n − ⌊n/2⌋), multiplied in one after the other: the first product is exact and the second rounds once, so a result
/// in the subnormal range is rounded once, one past the largest float is +inf and one below half the smallest
/// subnormal is 0. A NaN p gives NaN whatever biased holds.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P scale_by_power_of_two(const P& p, const P& biased) noexcept {
    using I = xsimd::as_integer_t<P>;
    constexpr std::int32_t rounding_bits = 0x4B400000;  // the bits of 1.5 · 2^23: biased's bits less these are n
    const I n = xsimd_compat::bitwise_cast<I>(biased) - I(rounding_bits);
    const I half = n >> 1;  // ⌊n/2⌋: an arithmetic shift
    const P first = xsimd_compat::bitwise_cast<P>((half + I(127)) << 23), second = xsimd_compat::bitwise_cast<P>((n - half + I(127)) << 23);
    return p * first * second;
}

/// x clamped to [low, high] per float lane, NaN kept (the exponentials' range: beyond it their results are 0 or +inf
/// either way).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P clamp_keeping_nan(const P& x, float low, float high) noexcept {
    const P above_low = kernel::clamp_below_keeping_nan(x, P(low), isa_of<P>{});
    return xsimd::select(above_low > P(high), P(high), above_low);
}

/// e^x per float lane, for every x: +inf past ln(FLT_MAX), subnormals rounded once, 0 below, NaN for NaN; about 1 ulp.
/// The library's own, so that every xsimd release gives the same bits (xsimd's float exp changed its results in 10.0
/// and 11.2).
/// Algorithm (Cody and Waite's reduction): x clamped to [−104, 89], keeping NaN (e^x rounds to 0 below and overflows
/// above either way); n = round(x · log2 e) by one multiply-add with 1.5 · 2^23 (n held in the low mantissa bits);
/// r = x − n · ln 2 in two steps, ln 2 split into a high part of 16 bits (n · ln2_high is exact, with or without fused
/// multiply-add) and the rest, |r| ≤ ½ ln 2 nearly; e^r by polynomial_exp; times 2^n by scale_by_power_of_two.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P exp_float_lanes(const P& x) noexcept {
    constexpr float round_to_integer = 12582912.0f, ln2_high = 0x1.62e4p-1f, ln2_low = 0x1.7f7d1cp-20f;
    const P clamped = clamp_keeping_nan(x, -104.0f, 89.0f);
    const P biased = detail::multiply_add(clamped, P(log2e_float), P(round_to_integer));
    const P n = biased - P(round_to_integer);
    const P r = detail::negated_multiply_add(n, P(ln2_low), detail::negated_multiply_add(n, P(ln2_high), clamped));
    return scale_by_power_of_two(polynomial_exp(r), biased);
}

/// 2^x per float lane, for every x: +inf from 128 on, subnormals rounded once, 0 below −150, NaN for NaN; about 1 ulp.
/// Algorithm: x clamped to [−151, 129], keeping NaN; n = round(x) by adding 1.5 · 2^23, f = x − n exact (|f| ≤ ½);
/// 2^f = e^(f · ln 2) by polynomial_exp; times 2^n by scale_by_power_of_two.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P exp2_float_lanes(const P& x) noexcept {
    constexpr float round_to_integer = 12582912.0f;
    const P clamped = clamp_keeping_nan(x, -151.0f, 129.0f);
    const P biased = clamped + P(round_to_integer);
    const P f = clamped - (biased - P(round_to_integer));
    return scale_by_power_of_two(polynomial_exp(f * P(ln2_float)), biased);
}

/// ln x = exponent · ln 2 + log_mantissa, for the float lanes of a positive normal x (log_float_parts).
template <class P>
struct log_parts {
    P exponent;      ///< k, an integer: x = 2^k · m with m in [2/3, 4/3)
    P log_mantissa;  ///< ln m
};

/// The parts of ln x for float lanes x positive and normal: other x give unspecified values, without undefined
/// behaviour. Algorithm (simd::log_of_normal adds them in one fused multiply-add): x = 2^k · m with m in [2/3, 4/3):
/// k = (bits(x) − bits(2/3)) >> 23 (arithmetic shift: the exponent of x relative to 2/3's), m's bits = bits(x) − k ·
/// 2^23 (its exponent field moved by −k). f = m − 1 is exact (m lies within a factor of 2 of 1), |f| ≤ 1/3, and ln m =
/// ln(1 + f) = f + f² · (−½ + f · Q(f)), Q of degree 6 fitted for least maximum relative error of ln(1 + f) on
/// [−1/3, 1/3] (3.7·10⁻⁸; about 1 ulp in float with the rounding of its evaluation). Its products feed fused
/// multiply-adds as multiplicands: nothing a compiler could contract differently in different inlined copies.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline log_parts<P> log_float_parts(const P& x) noexcept {
    using I = xsimd::as_integer_t<P>;
    constexpr std::int32_t two_thirds = 0x3F2AAAAB;  // the bits of 2/3 rounded to float
    const I bits = xsimd_compat::bitwise_cast<I>(x);
    const I k = (bits - I(two_thirds)) >> 23;
    const P f = xsimd_compat::bitwise_cast<P>(bits - (k << 23)) - P(1.0f);
    // Q by Estrin's scheme (pairs, then pairs of pairs with f², f⁴: four multiply-adds deep, not seven), its
    // coefficients the fit above rounded to float, the constant first.
    const P f2 = f * f, f4 = f2 * f2;
    const auto pair = [&](float low, float high) { return detail::multiply_add(P(high), f, P(low)); };
    const P q01 = pair(0x1.555528p-2f, -0x1.000b1cp-2f), q23 = pair(0x1.99c31ep-3f, -0x1.515a6ap-3f),
            q45 = pair(0x1.1f963cp-3f, -0x1.35b3e6p-3f);
    const P q = detail::multiply_add(detail::multiply_add(P(0x1.1b0962p-3f), f2, q45), f4, detail::multiply_add(q23, f2, q01));
    const P high = detail::multiply_add(f, q, P(-0.5f));
    return {xsimd::to_float(k), detail::multiply_add(f2, high, f)};
}

/// ln x per float lane, for every x: −inf for ±0, NaN for x < 0 and NaN (the quiet NaN of positive sign), +inf for
/// +inf; about 1 ulp. The library's own, so that every xsimd release gives the same bits (xsimd's float log changed its
/// results in 11.2). Algorithm: a subnormal x is first multiplied by 2^23 (exact) and its exponent taken 23 lower; then
/// log_float_parts, added in one fused multiply-add with ln 2 rounded to float (its error, |k| · 1.9·10⁻⁹, stays below a
/// tenth of an ulp of ln x for every k); the special values by selects.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P log_float_lanes(const P& x) noexcept {
    const auto subnormal = x < P(std::numeric_limits<float>::min());
    const auto parts = log_float_parts(xsimd::select(subnormal, x * P(0x1p23f), x));
    const P exponent = parts.exponent - xsimd::select(subnormal, P(23.0f), P(0.0f));
    const P logarithm = detail::multiply_add(exponent, P(ln2_float), parts.log_mantissa);
    const P infinity(std::numeric_limits<float>::infinity());
    const P finite_or_infinite = xsimd::select(x == infinity, infinity, xsimd::select(x == P(0.0f), -infinity, logarithm));
    return xsimd::select(x >= P(0.0f), finite_or_infinite, P(std::numeric_limits<float>::quiet_NaN()));
}

/// exp_shifted for float lanes, always inlined. The narrow-row and short-row kernels, which must agree bit for bit,
/// both call it, and g++ (-ffp-contract=fast by default) fuses a multiply and an add wherever it sees them, so an
/// inlined copy must hold nothing it could fuse differently from one caller to another: its one product, (x − shift)
/// · log2 e, feeds a maximum, the polynomial's multiply-adds are explicit, and the result comes from an integer add
/// (2^n into the exponent field), never from a product a caller's sum could absorb. (It was kept out of line with
/// exp and log, whose inlined copies g++ did contract differently; a call per vector cost the short-row kernels their
/// accumulators, which every call spills.) exp_double_lanes likewise has nothing contractible: its multiply-adds are
/// explicit, its other products only multiply, and the last one reaches the caller through a select (a blend), never an
/// addition.
/// Algorithm: t = (x − shift)·log2(e), clamped below at −125; adding 1.5·2^23 rounds it to an integer n held in the
/// low mantissa bits (no conversion instruction), so f = t − n ∈ [−½, ½]; 2^f is polynomial_exp2 and 2^n is added to
/// its exponent field as an integer: thirteen vector instructions, about half of xsimd's exp with its range checks.
/// (Degree 6 would be 1 ulp for one more fused multiply-add on the ports log-sum-exp is bound by.)
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P exp_shifted_float_lanes(const P& x, const P& shift) noexcept {
    const P log2e(log2e_float);
    const P t = xsimd_compat::max_or_second(P(-125.0f), (x - shift) * log2e);
    const P round_to_integer(12582912.0f);  // 1.5 · 2^23
    const P biased = t + round_to_integer;
    const P f = t - (biased - round_to_integer);
    return exp2_reduced(f, biased);
}
}  // namespace detail

namespace kernel {

/// Dekker's two-product: one fused multiply-subtract where fused multiply-add is an instruction, else Veltkamp's split
/// of a and b into halves whose products are exact (ten more operations).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P product_error(const P& a, const P& b, const P& p,
                                                              isa::generic) noexcept {
    if constexpr (fused_multiply_add<P>) {
        return kernel::fms(a, b, p, isa_of<P>{});
    } else {
        using C = typename P::value_type;
        const P splitter(std::is_same_v<C, float> ? C(4097) : C(134217729));  // 2^12 + 1, 2^27 + 1
        const auto split = [&](const P& v, P& low) {
            const P scaled = v * splitter;
            const P high = scaled - (scaled - v);
            low = v - high;
            return high;
        };
        P a_low, b_low;
        const P a_high = split(a, a_low), b_high = split(b, b_low);
        return ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low;
    }
}

/// e^x: detail::exp_float_lanes for float lanes; for double lanes std::exp lane by lane (xsimd 8.1's double exp and log
/// convert ±inf to a 64-bit integer on AVX2: undefined behaviour, caught by UBSan for log(0) and exp(−inf)). Nothing of
/// xsimd's math library, whose results differ between its releases.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P exp(const P& value, isa::generic) noexcept {
    if constexpr (std::is_same_v<typename P::value_type, double>)
        return detail::each_lane(value, [](double x) { return std::exp(x); });
    else
        return detail::exp_float_lanes(value);
}

/// ln x: detail::log_float_lanes for float lanes, std::log lane by lane for double lanes (as exp).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P log(const P& value, isa::generic) noexcept {
    if constexpr (std::is_same_v<typename P::value_type, double>)
        return detail::each_lane(value, [](double x) { return std::log(x); });
    else
        return detail::log_float_lanes(value);
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P exp_shifted(const P& x, const P& shift, isa::generic) noexcept {
    if constexpr (std::is_same_v<typename P::value_type, float>) return detail::exp_shifted_float_lanes(x, shift);
    else return detail::exp_double_lanes(x - shift);
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline power_of_two_reference<P> power_of_two_reference_of(
    const P& k, isa::generic) noexcept {
    constexpr float steps = static_cast<float>(detail::exp2_steps<P>), rounding = detail::round_to_biased_steps<P>;
    return {detail::multiply_add(k, P(ln2_float), P(-125.0f * ln2_float)), k * P(steps) - P(rounding)};
}

/// Algorithm: x is clamped below at r.lowest, keeping NaN (x·L − k ≥ −125: lanes below, −inf too, give
/// 2^−125 · 2^f). With s steps a unit (8 where the register can look a lane up in an eight-entry table, else 1),
/// one fused multiply-subtract, x·sL − (sk − R) with R = 1.5·2^23 + 127s, rounds the exact s(x·L − k) once to an
/// integer m, held as `biased` = m + R; biased + (sk − R) = sk + m exactly, so a second one gives the reduced
/// argument f = s·x·L − (sk + m) in [−½, ½], exact but for one rounding (without fused multiply-add, from the
/// rounded product and its exact error, product_error) — a few ulp of 2^(x·L − k) however far x lies above
/// 2^k, where f = t − m would carry t's rounding of |t| · 2^−24 (40–80 ulp of a log-sum-exp whose reference
/// lay 60 below its maximum). Then 2^(x·L − k) = 2^(m/s) · 2^(f/s): with eighths, 2^(f/8) is a degree-3
/// polynomial (polynomial_exp2_eighth) and 2^(m/8) comes from biased's bits and the table
/// (kernel::power_of_two_in_eighths); with whole steps, 2^f is the degree-5 polynomial_exp2 and 2^m is biased's low
/// bits shifted into an exponent field. The power multiplies the polynomial — exact, and unlike adding m to its
/// exponent as an integer, it cannot turn a NaN (whose payload bits biased carries) into a number. Eleven vector
/// instructions either way, six or eight of them on the multiply-add ports this is bound by: the eighths take the
/// six, so a loop of terms runs faster with the table wherever the register has one. The factor e^(x·δ),
/// δ = L·ln 2 − 1 ≈ 2^−26, against e^x / 2^k, cancels with power_of_two_over_exp's for the terms that matter (x near
/// top). The last product is added to `sum` in one fused multiply-add where the register fuses (the same instruction
/// whatever the compiler: see simd::add_exp_over_power_of_two).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P add_exp_over_power_of_two(const P& sum, const P& x,
                                                                          const power_of_two_reference<P>& r,
                                                                          isa::generic) noexcept {
    using I = xsimd::as_integer_t<P>;
    constexpr float steps = static_cast<float>(detail::exp2_steps<P>);
    const P scaled_log2e(steps * log2e_float);  // exact: steps is a power of two
    const P clamped = kernel::clamp_below_keeping_nan(x, r.lowest, isa_of<P>{});
    P biased, f;
    if constexpr (fused_multiply_add<P>) {
        biased = kernel::fms(clamped, scaled_log2e, r.k_less_rounding, isa_of<P>{});
        f = kernel::fms(clamped, scaled_log2e, biased + r.k_less_rounding, isa_of<P>{});
    } else {  // x·sL = product + its error exactly; product − (sk + m) is exact (the two lie within a factor of 2, or are small)
        const P product = clamped * scaled_log2e, rounding = kernel::product_error(clamped, scaled_log2e, product, isa_of<P>{});
        const P rounding_constant(detail::round_to_biased_steps<P>);
        const P k = r.k_less_rounding + rounding_constant;  // sk, exact: an integer below 2^24
        // s(x·L − k) before rounding it to an integer (rounding product − (sk − R) first, then adding the product's
        // error, could land a half away: f up to 0.75, where the polynomial is off by 10 ulp).
        biased = ((product - k) + rounding) + rounding_constant;
        f = (product - (biased + r.k_less_rounding)) + rounding;
    }
    const auto add_product = [&](const P& p, const P& power) {
        if constexpr (fused_multiply_add<P>) return detail::multiply_add(p, power, sum);
        else return sum + p * power;
    };
    if constexpr (detail::exp2_steps<P> == 8) {
        return add_product(detail::polynomial_exp2_eighth(f), kernel::power_of_two_in_eighths(biased, isa_of<P>{}));
    } else {
        const P power = xsimd_compat::bitwise_cast<P>(xsimd_compat::bitwise_cast<I>(biased) << 23);  // 2^m: low bits 127 + m, ≥ 2
        return add_product(detail::polynomial_exp2(f), power);
    }
}

/// Algorithm: top·L − k is formed as two floats, high + low with |low| ≤ 2^−18 (the product's rounding error, up to 1/8
/// for |top·L| near 2^22, by a fused multiply-subtract, the sums' by two-sums), so neither rounding reaches the
/// factor: 2^−high (detail::exp2_float_lanes, whose reduced argument high − n is exact) times 1 − low·ln 2.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P power_of_two_over_exp(const P& k, const P& top, isa::generic) noexcept {
    const P log2e(log2e_float), ln2(ln2_float);
    const auto two_sum = [](const P& a, const P& b, P& error) {  // a + b = sum + error exactly
        const P sum = a + b, b_part = sum - a;
        error = (a - (sum - b_part)) + (b - b_part);
        return sum;
    };
    const P product = top * log2e;
    const P rounding = kernel::product_error(top, log2e, product, isa_of<P>{});  // up to 1/8 for |top · L| near 2^22
    P difference_error, low;
    const P difference = two_sum(product, -k, difference_error);  // exact (error 0) unless |k| < 256
    const P high = two_sum(difference, difference_error + rounding, low);  // top·L − k = high + low, |low| ≤ 2^−18
    const P factor = detail::exp2_float_lanes(-high);
    return detail::negated_multiply_add(low * ln2, factor, factor);  // 2^(−high − low) = 2^−high · (1 − low·ln 2)
}

}  // namespace kernel
}  // namespace tensorops::simd
#endif
TENSOROPS_SIMD_WARNINGS_END
