// tensorops/simd/math.hpp — lane-wise absolute value, square root, fused multiply-subtract, rounding, exponentials
// and logarithm.
//
// Floating lanes use xsimd's vectorised functions (exp and log accurate to a few ulp in float); the one-lane
// fallback uses <cmath>. Integer absolute value wraps: |min| = min (SEMANTICS.md §4), computed as a
// select between x and 0 − x, which vector instructions evaluate modulo 2^N.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "minmax.hpp"
#include "pack.hpp"

namespace tensorops::simd {

/// log2 e and ln 2 rounded to float: the constants of the float exponentials below (L in their comments).
inline constexpr float log2e_float = 1.44269504088896341f;
inline constexpr float ln2_float = 0.693147180559945309f;

/// |x| per lane; for signed integers |min| wraps to min; unsigned lanes are returned unchanged.
template <class P>
[[nodiscard, gnu::always_inline]] inline P abs(const P& value) noexcept {
    using C = typename P::value_type;
    if constexpr (std::is_unsigned_v<C>) {
        return value;
    } else if constexpr (std::is_integral_v<C>) {
        return simd::select(value < P(C(0)), P(C(0)) - value, value);
    } else {
#if TENSOROPS_HAS_XSIMD
        return xsimd::abs(value);
#else
        return P(std::fabs(value.value));
#endif
    }
}

/// √x per lane (floating lanes).
template <class P>
[[nodiscard, gnu::always_inline]] inline P sqrt(const P& value) noexcept {
#if TENSOROPS_HAS_XSIMD
    return xsimd::sqrt(value);
#else
    return P(std::sqrt(value.value));
#endif
}

/// a · b − c per floating lane, rounded once (a fused multiply-subtract) where the target has fused multiply-add
/// (TENSOROPS_FUSED_MULTIPLY_ADD), else a multiply and a subtract.
template <class P>
[[nodiscard, gnu::always_inline]] inline P fms(const P& a, const P& b, const P& c) noexcept {
#if TENSOROPS_HAS_XSIMD
#if TENSOROPS_X86_INTRINSICS && defined(__AVX512F__)
    if constexpr (sizeof(P) == 64) {  // xsimd 8.1 has no fused form for AVX-512 registers: it multiplies, then subtracts
        if constexpr (std::is_same_v<typename P::value_type, float>) return P(_mm512_fmsub_ps(a, b, c));
        else return P(_mm512_fmsub_pd(a, b, c));
    }
#endif
    return xsimd::fms(a, b, c);
#else
    return P(std::fma(a.value, b.value, -c.value));
#endif
}

/// a · b − p exactly, per floating lane, for p = a · b rounded (Dekker's two-product): one fused multiply-subtract
/// where fused multiply-add is an instruction, else Veltkamp's split of a and b into halves whose products are
/// exact (ten more operations). For |a|, |b| below 2^−12 · the largest finite value (the split's 4097 · a).
template <class P>
[[nodiscard, gnu::always_inline]] inline P product_error(const P& a, const P& b, const P& p) noexcept {
#if TENSOROPS_FUSED_MULTIPLY_ADD || !TENSOROPS_HAS_XSIMD
    return simd::fms(a, b, p);  // without xsimd, std::fma (exact, if slow where the hardware lacks it)
#else
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
#endif
}

/// x rounded to the nearest integer (ties to even) per floating lane.
template <class P>
[[nodiscard, gnu::always_inline]] inline P round_to_integer(const P& value) noexcept {
#if TENSOROPS_HAS_XSIMD
    return xsimd::nearbyint(value);
#else
    return P(std::nearbyint(value.value));
#endif
}

namespace detail {
/// Lane by lane through <cmath>. Used for double lanes: xsimd 8.1's double exp/log convert ±inf to a 64-bit
/// integer on AVX2 (undefined behaviour, caught by UBSan for log(0) and exp(−inf)).
template <class P, class F>
[[nodiscard]] P each_lane(const P& value, F f) noexcept {
    auto lanes = to_array(value);
    for (auto& lane : lanes) lane = f(lane);
    return from_array<P>(lanes);
}
#if TENSOROPS_HAS_XSIMD
/// The polynomial with float coefficients `highest`, rest… (highest degree first, the constant last) at f, per lane,
/// by Horner's rule: one fused multiply-add per coefficient after the first.
template <class P, class... Rest>
[[nodiscard, gnu::always_inline]] inline P horner(const P& f, float highest, Rest... rest) noexcept {
    P p(highest);
    ((p = xsimd::fma(p, f, P(rest))), ...);
    return p;
}

/// 2^f per float lane for f in [−½, ½] (a little beyond costs accuracy), the last step of the float exponentials
/// below: a degree-5 polynomial fitted for least maximum relative error (1.8·10⁻⁷, about 1.5 ulp), five fused
/// multiply-adds. NaN for NaN f.
template <class P>
[[nodiscard, gnu::always_inline]] inline P polynomial_exp2(const P& f) noexcept {
    return horner(f, 0x1.5ce202p-10f, 0x1.3cea90p-7f, 0x1.c6b426p-5f, 0x1.ebf9bcp-3f, 0x1.62e42cp-1f, 1.0f);
}

/// 2^(n + f) per float lane, for f in [−½, ½] and `biased` = n + 1.5 · 2^23 whose low mantissa bits hold 2^22 + n,
/// −126 ≤ n ≤ 127: the last step of exp_shifted. 2^f is polynomial_exp2; 2^n is added to its exponent field as
/// an integer (a NaN f with payload bits in biased may come out as a number: exp_shifted's x are never NaN).
template <class P>
[[nodiscard, gnu::always_inline]] inline P exp2_reduced(const P& f, const P& biased) noexcept {
    using I = xsimd::as_integer_t<P>;
    const P p = polynomial_exp2(f);
    const I exponent = xsimd::bitwise_cast<I>(biased) << 23;  // n · 2^23: the low bits of biased hold 2^22 + n
    return xsimd::bitwise_cast<P>(xsimd::bitwise_cast<I>(p) + exponent);
}
#endif
}  // namespace detail

#if TENSOROPS_HAS_XSIMD
namespace detail {
/// e^d per double lane for d ≤ ~709.4 (the terms of a log-sum-exp: d = x − shift ≤ 0, or x − reference for its
/// one-pass kernels), at most 2 ulp from e^d; d below −708 (−inf too) gives e^−708 (~2^−1021.4: below half an ulp of
/// any sum that holds the group's own e^0 = 1); +inf or d above ln(DBL_MAX) gives +inf (d between ~709.4 and it, +inf
/// too); NaN gives NaN.
/// Algorithm: n = round(d · log2 e), by one fused multiply-add with 1.5 · 2^52 (n held in the low mantissa bits);
/// r = d − n · ln 2 in two steps (ln 2 split in a high part with 21 trailing zero bits, so n · ln2_hi is exact, and the
/// rest), |r| ≤ ½ ln 2; e^r by its Taylor polynomial of degree 13 (truncation below 5·10⁻¹⁸ on that interval: the
/// error is the evaluation's rounding); 2^n from biased's bits shifted into an exponent field, multiplied in (a NaN stays NaN).
/// Twenty-odd vector operations for four lanes, against a call of std::exp per lane. xsimd 8.1's own double exp is
/// not used: it converts ±inf to a 64-bit integer on AVX2 (undefined behaviour, see each_lane).
template <class P>
[[nodiscard, gnu::always_inline]] inline P exp_double_lanes(const P& value) noexcept {
    using I = xsimd::as_integer_t<P>;
    constexpr double log2e = 1.4426950408889634074, ln2_high = 0x1.62e42feep-1, ln2_low = 0x1.a39ef35793c76p-33;
    constexpr double round_to_integer = 0x1.8p52;  // 1.5 · 2^52
    const P d = simd::clamp_below_keeping_nan(value, P(-708.0));
    const P biased = xsimd::fma(d, P(log2e), P(round_to_integer));
    const P n = biased - P(round_to_integer);
    const P r = xsimd::fnma(n, P(ln2_low), xsimd::fnma(n, P(ln2_high), d));
    // Σ r^k / k!, k ≤ 13, by Estrin's scheme: pairs c_2i + c_2i+1·r, then pairs of those with r², r⁴, r⁸ — four
    // multiply-adds deep, not thirteen: a Horner chain's latency, not the ports, would set the kernels' pace.
    const auto pair = [&](double low, double high) { return xsimd::fma(P(high), r, P(low)); };
    const P r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
    const P q0 = pair(1.0, 1.0), q1 = pair(1.0 / 2, 1.0 / 6), q2 = pair(1.0 / 24, 1.0 / 120), q3 = pair(1.0 / 720, 1.0 / 5040),
            q4 = pair(1.0 / 40320, 1.0 / 362880), q5 = pair(1.0 / 3628800, 1.0 / 39916800), q6 = pair(1.0 / 479001600, 1.0 / 6227020800);
    const P low = xsimd::fma(xsimd::fma(q3, r2, q2), r4, xsimd::fma(q1, r2, q0));
    const P high = xsimd::fma(q6, r4, xsimd::fma(q5, r2, q4));
    const P p = xsimd::fma(high, r8, low);
    const P power = xsimd::bitwise_cast<P>((xsimd::bitwise_cast<I>(biased) + I(1023)) << 52);  // 2^n: n + 1023 in the exponent
    return xsimd::select(value > P(709.782712893384), P(std::numeric_limits<double>::infinity()), p * power);
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
template <class P>
[[nodiscard, gnu::always_inline]] inline P exp_shifted_float_lanes(const P& x, const P& shift) noexcept {
    const P log2e(log2e_float);
    const P t = xsimd::max(P(-125.0f), (x - shift) * log2e);
    const P round_to_integer(12582912.0f);  // 1.5 · 2^23
    const P biased = t + round_to_integer;
    const P f = t - (biased - round_to_integer);
    return exp2_reduced(f, biased);
}
}  // namespace detail
#endif

/// e^x per lane (floating lanes).
/// Never inlined: xsimd's exp has products and sums a compiler may contract differently in each inlined copy, and with
/// a caller's sum (see detail::exp_shifted_float_lanes). Left to g++'s choice, a unity build at x86-64-v4 inlined
/// exp or log into one of the two kernels that must agree bit for bit (narrow rows, short rows) and not the other, and
/// their log-sum-exp of rows of 3 and 4 floats differed in the last bits. The call is the price of that agreement.
template <class P>
[[nodiscard, gnu::noinline]] P exp(const P& value) noexcept {
#if TENSOROPS_HAS_XSIMD
    if constexpr (std::is_same_v<typename P::value_type, double>)
        return detail::each_lane(value, [](double x) { return std::exp(x); });
    else
        return xsimd::exp(value);
#else
    return P(std::exp(value.value));
#endif
}

/// e^(x − shift) per lane, the term of a log-sum-exp whose shift is the group's maximum: for a finite `shift`
/// not below any lane of x (x = −inf allowed). Other inputs give unspecified values — a log-sum-exp whose
/// maximum is ±inf or NaN has a known sum (e^maximum) and must not call this.
///
/// Algorithm (float lanes): t = (x − shift)·log2(e), clamped below at −125; adding 1.5·2^23 rounds it to an
/// integer n held in the low mantissa bits (no conversion instruction), so f = t − n ∈ [−½, ½]; 2^f is
/// polynomial_exp2 and 2^n is added to its exponent field as an integer: thirteen vector instructions, about half
/// of xsimd's exp with its range checks. (Degree 6 would be 1 ulp for one more fused multiply-add on the ports
/// log-sum-exp is bound by.)
/// Accuracy: x − shift is exact where x lies within a factor of 2 of shift (the terms that matter), and t carries
/// one rounding, a relative error of |t|·2^−24: |t|·2^−24·ln 2 in a term of weight 2^t, at most ~2^−25 of the sum
/// in all — whatever the shift. (t = x·log2(e) − shift·log2(e) in one fused multiply-subtract, as this was, put
/// shift·log2(e)'s rounding into every term: garbage, NaN even, once |shift| passed ~2^23.) Terms below 2^−125
/// come out as 2^−125·2^f instead of their value (−inf too): next to the group's own e^0 = 1 they are below half
/// an ulp of any sum. Double lanes: detail::exp_double_lanes(x − shift).
/// Both inline: nothing in them a compiler could contract differently from one caller to another (see
/// detail::exp_shifted_float_lanes).
template <class P>
[[nodiscard, gnu::always_inline]] inline P exp_shifted(const P& x, const P& shift) noexcept {
#if TENSOROPS_HAS_XSIMD
    if constexpr (std::is_same_v<typename P::value_type, float>) return detail::exp_shifted_float_lanes(x, shift);
    else return detail::exp_double_lanes(x - shift);
#else
    return simd::exp(x - shift);
#endif
}

namespace detail {
#if TENSOROPS_X86_INTRINSICS
/// Whether float pack P can look a lane up in an eight-entry register table (AVX2 and AVX-512 `vpermd`): the
/// exponential of exp_over_power_of_two then takes 2^(j/8) from one and needs a shorter polynomial.
template <class P>
inline constexpr bool has_eighth_table = is_avx2_register<P> || is_avx512_register<P>;
#else
template <class P>
inline constexpr bool has_eighth_table = false;
#endif

/// Steps per unit of exp_over_power_of_two's rounded argument: eighths with a table, whole numbers without.
template <class P>
inline constexpr int exp2_steps = has_eighth_table<P> ? 8 : 1;

/// 1.5 · 2^23 + 127 · steps: added to (or subtracted under) a float t with |t| ≤ 2^21, rounds it to an integer m
/// held in the low mantissa bits as 2^22 + 127·steps + m — for steps = 1 the biased exponent of 2^m, for
/// steps = 8 that of 2^⌊m/8⌋ above three bits holding m mod 8 (−126·steps ≤ m < 128·steps).
template <class P>
inline constexpr float round_to_biased_steps = 12582912.0f + 127.0f * exp2_steps<P>;
}  // namespace detail

/// The largest |k| a power_of_two_reference may have: steps · k + m is formed exactly below 2^24.
inline constexpr float largest_power_of_two_reference = 0x1p20f;

/// What exp_over_power_of_two needs of its reference k (an integer-valued float, |k| ≤
/// largest_power_of_two_reference), computed once for the many x of one k: the clamp under x and k in steps less
/// the rounding constant.
template <class P>
struct power_of_two_reference {
    P lowest;           ///< k·ln 2 − 125·ln 2: x is clamped here, the term 2^−125 · 2^f
    P k_less_rounding;  ///< steps · k − (1.5 · 2^23 + 127 · steps), an exact integer (detail::round_to_biased_steps)
};

/// The power_of_two_reference of k: one fused multiply-add, one multiply and one subtraction.
template <class P>
[[nodiscard, gnu::always_inline]] inline power_of_two_reference<P> power_of_two_reference_of(const P& k) noexcept {
    constexpr float steps = static_cast<float>(detail::exp2_steps<P>), rounding = detail::round_to_biased_steps<P>;
#if TENSOROPS_HAS_XSIMD
    return {xsimd::fma(k, P(ln2_float), P(-125.0f * ln2_float)), k * P(steps) - P(rounding)};
#else
    return {P(std::fma(k.value, ln2_float, -125.0f * ln2_float)), P(k.value * steps - rounding)};
#endif
}

namespace detail {
/// The coefficients of polynomial_exp2_eighth, the highest degree first (the last, the constant, is 1).
inline constexpr float exp2_eighth_coefficients[4] = {0x1.c6ac02p-14f, 0x1.ec0cdap-9f, 0x1.62e430p-4f, 1.0f};
#if TENSOROPS_HAS_XSIMD
/// 2^(f/8) per float lane for f in [−½, ½]: a degree-3 polynomial fitted for least maximum relative error
/// (2.8·10⁻⁸), three fused multiply-adds. NaN for NaN f.
template <class P>
[[nodiscard, gnu::always_inline]] inline P polynomial_exp2_eighth(const P& f) noexcept {
    constexpr const float* c = exp2_eighth_coefficients;
    return horner(f, c[0], c[1], c[2], c[3]);
}
#endif

#if TENSOROPS_X86_INTRINSICS
/// 2^(j/8) for j = 0..7, rounded to float.
inline constexpr float exp2_eighths[8] = {0x1p+0f,         0x1.172b84p+0f, 0x1.306fe0p+0f, 0x1.4bfdaep+0f,
                                          0x1.6a09e6p+0f, 0x1.8ace54p+0f, 0x1.ae89fap+0f, 0x1.d5818ep+0f};
/// The table entry of j: 2^(j/8)'s mantissa bits, xor j's bits where `biased << 20` leaves them (20–22).
[[nodiscard]] constexpr std::int32_t eighth_table_entry(int j) noexcept {
    return (std::bit_cast<std::int32_t>(exp2_eighths[j]) - 0x3F800000) ^ (j << 20);
}

/// 2^(m/8) per lane from `biased` (round_to_biased_steps with steps = 8, whose low bits hold 127·8 + m): its
/// bits 3–10 shifted into the exponent field carry ⌊m/8⌋ + 127 and its bits 0–2 into the mantissa's top, and the
/// table entry of m mod 8 (vpermd takes the lane's low bits as the index) xors them into 2^(m mod 8 / 8)'s
/// mantissa: three instructions.
template <class P>
[[nodiscard, gnu::always_inline]] inline P power_of_two_in_eighths(const P& biased) noexcept {
    using I = xsimd::as_integer_t<P>;
    const I bits = xsimd::bitwise_cast<I>(biased);
    I entry;
    if constexpr (is_avx512_register<P>) {
        const __m512i table = _mm512_setr_epi32(
            eighth_table_entry(0), eighth_table_entry(1), eighth_table_entry(2), eighth_table_entry(3),
            eighth_table_entry(4), eighth_table_entry(5), eighth_table_entry(6), eighth_table_entry(7),
            eighth_table_entry(0), eighth_table_entry(1), eighth_table_entry(2), eighth_table_entry(3),
            eighth_table_entry(4), eighth_table_entry(5), eighth_table_entry(6), eighth_table_entry(7));
        entry = from_bytes<I>(_mm512_permutexvar_epi32(as_bytes(bits), table));  // index: the low 4 bits
    } else {
        const __m256i table = _mm256_setr_epi32(eighth_table_entry(0), eighth_table_entry(1), eighth_table_entry(2),
                                                eighth_table_entry(3), eighth_table_entry(4), eighth_table_entry(5),
                                                eighth_table_entry(6), eighth_table_entry(7));
        entry = from_bytes<I>(_mm256_permutevar8x32_epi32(table, as_bytes(bits)));  // index: the low 3 bits
    }
    return xsimd::bitwise_cast<P>((bits << 20) ^ entry);
}
#elif TENSOROPS_HAS_XSIMD
template <class P>
P power_of_two_in_eighths(const P& biased) noexcept;  // has_eighth_table is false: never instantiated
#endif
}  // namespace detail

/// exp_over_power_of_two(x, r): 2^(x·L − k) per float lane, L = log2 e rounded to float, for the reference k of `r` and x·L − k ≤ 120
/// (x = −inf allowed): e^x / 2^k, the term of a log-sum-exp block whose reference k (in powers of two) lies
/// anywhere below its maximum. NaN where x is NaN or +inf, whatever its bits (a block's sum of terms tells those
/// lanes apart). Other inputs give unspecified values, without undefined behaviour. Accuracy: 1.6·10⁻⁷ relative
/// (eighths) or 1.9·10⁻⁷ (whole steps) at most, ~1 ulp, plus the reduced argument's one rounding below.
///
/// Algorithm: x is clamped below at r.lowest, keeping NaN (x·L − k ≥ −125: lanes below, −inf too, give
/// 2^−125 · 2^f). With s steps a unit (8 where the register can look a lane up in an eight-entry table, else 1),
/// one fused multiply-subtract, x·sL − (sk − R) with R = 1.5·2^23 + 127s, rounds the exact s(x·L − k) once to an
/// integer m, held as `biased` = m + R; biased + (sk − R) = sk + m exactly, so a second one gives the reduced
/// argument f = s·x·L − (sk + m) in [−½, ½], exact but for one rounding (without fused multiply-add, from the
/// rounded product and its exact error, product_error) — a few ulp of 2^(x·L − k) however far x lies above
/// 2^k, where f = t − m would carry t's rounding of |t| · 2^−24 (40–80 ulp of a log-sum-exp whose reference
/// lay 60 below its maximum). Then 2^(x·L − k) = 2^(m/s) · 2^(f/s): with eighths, 2^(f/8) is a degree-3
/// polynomial (polynomial_exp2_eighth) and 2^(m/8) comes from biased's bits and the table
/// (power_of_two_in_eighths); with whole steps, 2^f is the degree-5 polynomial_exp2 and 2^m is biased's low bits
/// shifted into an exponent field. The power multiplies the polynomial — exact, and unlike adding m to its
/// exponent as an integer, it cannot turn a NaN (whose payload bits biased carries) into a number. Eleven vector
/// instructions either way, six or eight of them on the multiply-add ports this is bound by: the eighths take the
/// six, so a loop of terms runs faster with the table wherever the register has one. The factor e^(x·δ),
/// δ = L·ln 2 − 1 ≈ 2^−26, against e^x / 2^k, cancels with power_of_two_over_exp's for the terms that matter (x near
/// top).
/// (The term is computed by add_exp_over_power_of_two, below, with a zero sum.)
///
/// add_exp_over_power_of_two(sum, x, r): sum + exp_over_power_of_two(x, r) per float lane, the term's last product
/// added to `sum` in one fused multiply-add where the target has it (TENSOROPS_FUSED_MULTIPLY_ADD): rounded once, and
/// the same instruction whatever the compiler — GCC had fused a caller's sum into the product by itself
/// (-ffp-contract=fast), Clang not. Kernels that must give the same bits as others (log-sum-exp's 512-bit loops against
/// the AVX2 ones, ops/detail/log_sum_exp/avx512.hpp) cannot leave that to the compiler. With a zero sum it is the term
/// itself (0 + p·q is p·q rounded once).
template <class P>
[[nodiscard, gnu::always_inline]] inline P add_exp_over_power_of_two(const P& sum, const P& x, const power_of_two_reference<P>& r) noexcept {
    static_assert(std::is_same_v<typename P::value_type, float>);
#if TENSOROPS_HAS_XSIMD
    using I = xsimd::as_integer_t<P>;
    constexpr float steps = static_cast<float>(detail::exp2_steps<P>);
    const P scaled_log2e(steps * log2e_float);  // exact: steps is a power of two
    const P clamped = simd::clamp_below_keeping_nan(x, r.lowest);
#if TENSOROPS_FUSED_MULTIPLY_ADD
    const P biased = simd::fms(clamped, scaled_log2e, r.k_less_rounding);
    const P f = simd::fms(clamped, scaled_log2e, biased + r.k_less_rounding);
#else  // x·sL = product + its error exactly; product − (sk + m) is exact (the two lie within a factor of 2, or are small)
    const P product = clamped * scaled_log2e, rounding = product_error(clamped, scaled_log2e, product);
    const P rounding_constant(detail::round_to_biased_steps<P>);
    const P k = r.k_less_rounding + rounding_constant;  // sk, exact: an integer below 2^24
    // s(x·L − k) before rounding it to an integer (rounding product − (sk − R) first, then adding the product's
    // error, could land a half away: f up to 0.75, where the polynomial is off by 10 ulp).
    const P biased = ((product - k) + rounding) + rounding_constant;
    const P f = (product - (biased + r.k_less_rounding)) + rounding;
#endif
    const auto add_product = [&](const P& p, const P& power) {
#if TENSOROPS_FUSED_MULTIPLY_ADD
        return xsimd::fma(p, power, sum);
#else
        return sum + p * power;
#endif
    };
    if constexpr (detail::has_eighth_table<P>) {
        return add_product(detail::polynomial_exp2_eighth(f), detail::power_of_two_in_eighths(biased));
    } else {
        const P power = xsimd::bitwise_cast<P>(xsimd::bitwise_cast<I>(biased) << 23);  // 2^m: low bits 127 + m, ≥ 2
        return add_product(detail::polynomial_exp2(f), power);
    }
#else
    const double k = static_cast<double>(r.k_less_rounding.value) + static_cast<double>(detail::round_to_biased_steps<P>);
    if (!(x.value < std::numeric_limits<float>::infinity())) return P(std::numeric_limits<float>::quiet_NaN());  // NaN, +inf
    const double clamped = std::max(x.value, r.lowest.value);
    return P(sum.value + static_cast<float>(std::exp2(clamped * static_cast<double>(log2e_float) - k)));
#endif
}

/// exp_over_power_of_two(x, r), as documented above: add_exp_over_power_of_two with a zero sum.
template <class P>
[[nodiscard, gnu::always_inline]] inline P exp_over_power_of_two(const P& x, const power_of_two_reference<P>& r) noexcept {
    return simd::add_exp_over_power_of_two(P(0.0f), x, r);
}

/// exp_over_power_of_two with the reference's constants computed here.
template <class P>
[[nodiscard, gnu::always_inline]] inline P exp_over_power_of_two(const P& x, const P& k) noexcept {
    return simd::exp_over_power_of_two(x, simd::power_of_two_reference_of(k));
}

/// 2^(k − top·L) per float lane (L as in exp_over_power_of_two), for an integer-valued k with |k| ≤ 2^22 and
/// top·L − k in [−1, 120]: the factor that turns a sum of exp_over_power_of_two(x, k) into Σ e^(x − top), to a few
/// ulp. top·L − k is formed as two floats, high + low with |low| ≤ 2^−18 (the product's rounding error, up to 1/8
/// for |top·L| near 2^22, by a fused multiply-subtract, the sums' by two-sums), so neither rounding reaches the
/// factor: 2^−high (xsimd's exp2, whose reduced argument high − n is exact) times 1 − low·ln 2.
template <class P>
[[nodiscard, gnu::always_inline]] inline P power_of_two_over_exp(const P& k, const P& top) noexcept {
    static_assert(std::is_same_v<typename P::value_type, float>);
#if TENSOROPS_HAS_XSIMD
    const P log2e(log2e_float), ln2(ln2_float);
    const auto two_sum = [](const P& a, const P& b, P& error) {  // a + b = sum + error exactly
        const P sum = a + b, b_part = sum - a;
        error = (a - (sum - b_part)) + (b - b_part);
        return sum;
    };
    const P product = top * log2e;
    const P rounding = product_error(top, log2e, product);  // up to 1/8 for |top · L| near 2^22
    P difference_error, low;
    const P difference = two_sum(product, -k, difference_error);  // exact (error 0) unless |k| < 256
    const P high = two_sum(difference, difference_error + rounding, low);  // top·L − k = high + low, |low| ≤ 2^−18
    const P factor = xsimd::exp2(-high);
    return xsimd::fnma(low * ln2, factor, factor);  // 2^(−high − low) = 2^−high · (1 − low·ln 2)
#else
    return P(static_cast<float>(std::exp2(k.value - static_cast<double>(top.value) * static_cast<double>(log2e_float))));
#endif
}

/// ln x per lane (floating lanes).
/// Never inlined: as exp.
template <class P>
[[nodiscard, gnu::noinline]] P log(const P& value) noexcept {
#if TENSOROPS_HAS_XSIMD
    if constexpr (std::is_same_v<typename P::value_type, double>)
        return detail::each_lane(value, [](double x) { return std::log(x); });
    else
        return xsimd::log(value);
#else
    return P(std::log(value.value));
#endif
}

}  // namespace tensorops::simd
