// tensorops/simd/math.hpp — lane-wise absolute value, square root, fused multiply-subtract, rounding, exponentials
// and logarithm.
//
// Floating lanes use the library's own exponentials and logarithm (generic_math.hpp, where their algorithms are
// described; about 1 ulp in float), never xsimd's math library, whose results differ between its releases: every
// xsimd gives the same bits. Double lanes' exp and log are <cmath>'s lane by lane; the one-lane register uses <cmath>
// (scalar.hpp). Integer absolute value wraps: |min| = min (SEMANTICS.md §4), computed as a select between x and 0 − x,
// which vector instructions evaluate modulo 2^N.
#pragma once

#include <type_traits>

#include "../core/inline.hpp"
#include "implementations.hpp"
#include "math_constants.hpp"
#include "minmax.hpp"
#include "pack.hpp"

namespace tensorops::simd {

/// |x| per lane; for signed integers |min| wraps to min; unsigned lanes are returned unchanged.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P abs(const P& value) noexcept {
    using C = typename P::value_type;
    if constexpr (std::is_unsigned_v<C>) return value;
    else if constexpr (std::is_integral_v<C>) return simd::select(value < P(C(0)), P(C(0)) - value, value);
    else return kernel::abs_floating(value, isa_of<P>{});
}

/// √x per lane (floating lanes).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P sqrt(const P& value) noexcept {
    return kernel::sqrt(value, isa_of<P>{});
}

/// a · b − c per floating lane, rounded once (a fused multiply-subtract) where the register fuses multiply-add
/// (fused_multiply_add), else a multiply and a subtract.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P fms(const P& a, const P& b, const P& c) noexcept {
    return kernel::fms(a, b, c, isa_of<P>{});
}

/// a · b − p exactly, per floating lane, for p = a · b rounded (Dekker's two-product): one fused multiply-subtract
/// where fused multiply-add is an instruction, else Veltkamp's split of a and b into halves whose products are
/// exact (ten more operations). For |a|, |b| below 2^−12 · the largest finite value (the split's 4097 · a).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P product_error(const P& a, const P& b, const P& p) noexcept {
    return kernel::product_error(a, b, p, isa_of<P>{});
}

/// x rounded to the nearest integer (ties to even) per floating lane.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P round_to_integer(const P& value) noexcept {
    return kernel::round_to_integer(value, isa_of<P>{});
}

/// e^x per lane (floating lanes).
/// Never inlined: its last operation is a product, which a compiler may contract with a caller's sum differently in
/// each inlined copy (see detail::exp_shifted_float_lanes). Left to g++'s choice (when this was xsimd's exp), a unity
/// build at x86-64-v4 inlined exp or log into one of the two kernels that must agree bit for bit (narrow rows, short
/// rows) and not the other, and their log-sum-exp of rows of 3 and 4 floats differed in the last bits. The call is the
/// price of that agreement.
template <class P>
[[nodiscard, gnu::noinline]] P exp(const P& value) noexcept {
    return kernel::exp(value, isa_of<P>{});
}

/// ln x per lane (floating lanes).
/// Never inlined: as exp.
template <class P>
[[nodiscard, gnu::noinline]] P log(const P& value) noexcept {
    return kernel::log(value, isa_of<P>{});
}

/// e^(x − shift) per lane, the term of a log-sum-exp whose shift is the group's maximum: for a finite `shift`
/// not below any lane of x (x = −inf allowed). Other inputs give unspecified values — a log-sum-exp whose
/// maximum is ±inf or NaN has a known sum (e^maximum) and must not call this.
/// Accuracy (float lanes, detail::exp_shifted_float_lanes): x − shift is exact where x lies within a factor of 2 of
/// shift (the terms that matter), and t = (x − shift)·log2(e) carries one rounding, a relative error of |t|·2^−24:
/// |t|·2^−24·ln 2 in a term of weight 2^t, at most ~2^−25 of the sum in all — whatever the shift. (t = x·log2(e) −
/// shift·log2(e) in one fused multiply-subtract, as this was, put shift·log2(e)'s rounding into every term: garbage,
/// NaN even, once |shift| passed ~2^23.) Terms below 2^−125 come out as 2^−125·2^f instead of their value (−inf
/// too): next to the group's own e^0 = 1 they are below half an ulp of any sum. Double lanes:
/// detail::exp_double_lanes(x − shift).
/// Inline: nothing in it a compiler could contract differently from one caller to another (see
/// detail::exp_shifted_float_lanes).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P exp_shifted(const P& x, const P& shift) noexcept {
    return kernel::exp_shifted(x, shift, isa_of<P>{});
}

/// The largest |k| a power_of_two_reference may have: steps · k + m is formed exactly below 2^24.
inline constexpr float largest_power_of_two_reference = 0x1p20f;

/// The power_of_two_reference (math_constants.hpp) of k: one fused multiply-add, one multiply and one subtraction.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline power_of_two_reference<P> power_of_two_reference_of(const P& k) noexcept {
    return kernel::power_of_two_reference_of(k, isa_of<P>{});
}

/// exp_over_power_of_two(x, r): 2^(x·L − k) per float lane, L = log2 e rounded to float, for the reference k of `r`
/// and x·L − k ≤ 120 (x = −inf allowed): e^x / 2^k, the term of a log-sum-exp block whose reference k (in powers of
/// two) lies anywhere below its maximum. NaN where x is NaN or +inf, whatever its bits (a block's sum of terms tells
/// those lanes apart). Other inputs give unspecified values, without undefined behaviour. Accuracy: 1.6·10⁻⁷
/// relative (eighths) or 1.9·10⁻⁷ (whole steps) at most, ~1 ulp, plus the reduced argument's one rounding — a few
/// ulp of 2^(x·L − k) however far x lies above 2^k (the algorithm: kernel::add_exp_over_power_of_two in
/// generic_math.hpp). The factor e^(x·δ), δ = L·ln 2 − 1 ≈ 2^−26, against e^x / 2^k, cancels with
/// power_of_two_over_exp's for the terms that matter (x near top).
/// (The term is computed by add_exp_over_power_of_two, below, with a zero sum.)
///
/// add_exp_over_power_of_two(sum, x, r): sum + exp_over_power_of_two(x, r) per float lane, the term's last product
/// added to `sum` in one fused multiply-add where the register fuses multiply-add (fused_multiply_add): rounded once, and
/// the same instruction whatever the compiler — GCC had fused a caller's sum into the product by itself
/// (-ffp-contract=fast), Clang not. Kernels that must give the same bits as others (log-sum-exp's 512-bit loops against
/// the AVX2 ones, ops/detail/log_sum_exp/avx512.hpp) cannot leave that to the compiler. With a zero sum it is the term
/// itself (0 + p·q is p·q rounded once).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P add_exp_over_power_of_two(const P& sum, const P& x,
                                                                          const power_of_two_reference<P>& r) noexcept {
    static_assert(std::is_same_v<typename P::value_type, float>);
    return kernel::add_exp_over_power_of_two(sum, x, r, isa_of<P>{});
}

/// exp_over_power_of_two(x, r), as documented above: add_exp_over_power_of_two with a zero sum.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P exp_over_power_of_two(const P& x,
                                                                      const power_of_two_reference<P>& r) noexcept {
    return simd::add_exp_over_power_of_two(P(0.0f), x, r);
}

/// exp_over_power_of_two with the reference's constants computed here.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P exp_over_power_of_two(const P& x, const P& k) noexcept {
    return simd::exp_over_power_of_two(x, simd::power_of_two_reference_of(k));
}

/// 2^(k − top·L) per float lane (L as in exp_over_power_of_two), for an integer-valued k with |k| ≤ 2^22 and
/// top·L − k in [−1, 120]: the factor that turns a sum of exp_over_power_of_two(x, k) into Σ e^(x − top), to a few
/// ulp (the algorithm: kernel::power_of_two_over_exp in generic_math.hpp).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P power_of_two_over_exp(const P& k, const P& top) noexcept {
    static_assert(std::is_same_v<typename P::value_type, float>);
    return kernel::power_of_two_over_exp(k, top, isa_of<P>{});
}

}  // namespace tensorops::simd
