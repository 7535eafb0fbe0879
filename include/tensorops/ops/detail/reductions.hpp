// tensorops/ops/detail/reductions.hpp — the twelve reduce functions as policies the kernels are written against.
//
// A reduction R over elements of type T provides, for scalars (every T) and lanes (built-in T):
//   accumulator          what is carried: float for float16 and bfloat16, the unsigned type for integer sums and products
//   identity()           the accumulator of an empty group
//   lift(x, shift)       an element's contribution (x, x², |x|, e^(x − shift), …)
//   combine(a, b)        +, ×, max or min
//   finish(a, n, shift)  the output value (a, √a, a / n, ln a, shift + ln a, …), rounded once to T
//   pairwise             float sums: combine completed blocks pairwise (a cascade) for accuracy
//   has_identity         false for max/min over user types without numeric_limits: start from the first element
//   shifted              log-sum-exp: the kernels first find each group's maximum and pass it as `shift`
//   row_blocks           the outer kernel fixes its order of operations in blocks of rows (what lets threads share
//                        the rows, bit-identically); false for floating products, which would pass through
//                        subnormals again in every block (slow arithmetic on data in [0, 1))
//   line_blocks          the inner kernel likewise: every cascade_block steps its accumulators go into a cascade of
//                        blocks whose tree does not depend on where a line is cut (what lets threads share one long
//                        line); pairwise sums need it anyway, max/min and integer sums and products take it (their
//                        values do not depend on the order; NaN payloads and the sign of a zero max would), floating
//                        products do not (subnormals, as for row_blocks)
// The lane versions (lift_lanes, combine_lanes, reduce_lanes, finish_lanes) mirror them on simd packs. Log-sum-exp
// adds reference_for_lanes, term_lanes, reference_serves and at_top for the outer kernel's one-pass blocks, whose
// terms are taken against an estimate of the maximum and brought to the maximum's shift after.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <type_traits>

#include "../../core/element.hpp"
#include "../../core/inline.hpp"
#include "../../simd/arithmetic.hpp"
#include "../../simd/horizontal.hpp"
#include "../../simd/math.hpp"
#include "../../simd/minmax.hpp"
#include "../../simd/pack.hpp"

namespace tensorops::detail {

/// float64, float32, the narrow floats (float16, bfloat16) and other floating types (long double).
template <class T>
inline constexpr bool floating_element = std::is_floating_point_v<T> || narrow_float<T>;

/// Every NaN a floating reduction writes is the positive quiet NaN of its type. Where two NaNs meet (an input's and
/// one that 0 · inf or inf − inf makes), which one an operation returns depends on the order of its operands (x86
/// returns the first operand's), an order the compiler may swap and the kernels of two layouts or two executors do
/// not share; one fixed NaN keeps every result bit-identical on every executor. Applied once per output, in finish.
/// (A reduction over no axes copies x where the function gives x: reduce/each_element.hpp.)
template <class A>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline A canonical_nan(const A& a) {
    if constexpr (std::is_floating_point_v<A>) return a != a ? std::numeric_limits<A>::quiet_NaN() : a;
    else return a;
}
/// canonical_nan lane by lane.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P canonical_nan_lanes(const P& a) {
    using C = typename P::value_type;
    if constexpr (std::is_floating_point_v<C>) return simd::select(simd::is_nan(a), P(std::numeric_limits<C>::quiet_NaN()), a);
    else return a;
}

// ---------------------------------------------------------------------------------------------
// Sums: SUM, SUM_SQUARE, L1, L2, AVERAGE, LOG_SUM.

enum class lift_kind { value, square, absolute };
enum class finish_kind { value, square_root, mean, logarithm };

template <class T, lift_kind Lift, finish_kind Finish>
struct sum_reduction {
    using accumulator = accumulator_t<T>;
    static constexpr bool vectorizable = builtin_element<T>;
    static constexpr bool pairwise = std::is_floating_point_v<accumulator>;
    static constexpr bool line_blocks = true;
    static constexpr bool row_blocks = true;
    static constexpr bool shifted = false;
    static constexpr bool has_identity = true;

    [[nodiscard]] accumulator identity() const { return element_identity<accumulator>::zero(); }
    [[nodiscard]] accumulator lift(const T& x, const accumulator&) const {
        const auto a = static_cast<accumulator>(x);
        if constexpr (Lift == lift_kind::square) return a * a;
        else if constexpr (Lift == lift_kind::absolute) return absolute(x, a);
        else return a;
    }
    [[nodiscard]] accumulator combine(const accumulator& a, const accumulator& b) const { return a + b; }
    [[nodiscard]] T finish(const accumulator& a, std::size_t count, const accumulator&) const {
        using std::log;
        using std::sqrt;
        if constexpr (Finish == finish_kind::square_root) return static_cast<T>(canonical_nan(sqrt(a)));
        else if constexpr (Finish == finish_kind::mean) return static_cast<T>(canonical_nan(a / static_cast<accumulator>(count)));
        else if constexpr (Finish == finish_kind::logarithm) return static_cast<T>(canonical_nan(log(a)));
        else return static_cast<T>(canonical_nan(a));
    }

    template <class P>
    [[nodiscard]] P lift_lanes(const P& x, const P&) const {
        if constexpr (Lift == lift_kind::square) return simd::mul(x, x);
        else if constexpr (Lift == lift_kind::absolute) return simd::abs(x);
        else return x;
    }
    template <class P>
    [[nodiscard]] P combine_lanes(const P& a, const P& b) const { return a + b; }
    template <class P>
    [[nodiscard]] accumulator reduce_lanes(const P& a) const { return static_cast<accumulator>(simd::reduce_add(a)); }
    template <class P>
    [[nodiscard]] P finish_lanes(const P& a, std::size_t count, const P&) const {
        using C = typename P::value_type;
        if constexpr (Finish == finish_kind::square_root) return canonical_nan_lanes(simd::sqrt(a));
        else if constexpr (Finish == finish_kind::mean) return canonical_nan_lanes(a / P(static_cast<C>(count)));
        else if constexpr (Finish == finish_kind::logarithm) return canonical_nan_lanes(simd::log(a));
        else return canonical_nan_lanes(a);
    }

private:
    static accumulator absolute(const T& x, const accumulator& a) {
        if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return x < T(0) ? accumulator(0) - a : a;  // |min| wraps
        else if constexpr (std::is_integral_v<T>) return a;
        else {
            using std::fabs;
            return fabs(a);
        }
    }
};

// ---------------------------------------------------------------------------------------------
// MULTIPLY

template <class T>
struct product_reduction {
    using accumulator = accumulator_t<T>;
    static constexpr bool vectorizable = builtin_element<T>;
    static constexpr bool pairwise = false;  // relative error grows like n·ε in any order
    static constexpr bool line_blocks = !std::is_floating_point_v<accumulator>;
    static constexpr bool row_blocks = !std::is_floating_point_v<accumulator>;
    static constexpr bool shifted = false;
    static constexpr bool has_identity = true;

    [[nodiscard]] accumulator identity() const { return element_identity<accumulator>::one(); }
    [[nodiscard]] accumulator lift(const T& x, const accumulator&) const { return static_cast<accumulator>(x); }
    [[nodiscard]] accumulator combine(const accumulator& a, const accumulator& b) const { return a * b; }
    [[nodiscard]] T finish(const accumulator& a, std::size_t, const accumulator&) const { return static_cast<T>(canonical_nan(a)); }
    template <class P>
    [[nodiscard]] P lift_lanes(const P& x, const P&) const { return x; }
    template <class P>
    [[nodiscard]] P combine_lanes(const P& a, const P& b) const { return simd::mul(a, b); }
    template <class P>
    [[nodiscard]] accumulator reduce_lanes(const P& a) const { return static_cast<accumulator>(simd::reduce_mul(a)); }
    template <class P>
    [[nodiscard]] P finish_lanes(const P& a, std::size_t, const P&) const { return canonical_nan_lanes(a); }
};

// ---------------------------------------------------------------------------------------------
// MAX, MIN (NaN propagates for floating types, whatever the order).

template <class T, bool Maximum>
struct extreme_reduction {
    using accumulator = accumulator_t<T, accumulation::ordering>;
    static constexpr bool vectorizable = builtin_element<T>;
    static constexpr bool pairwise = false;
    static constexpr bool line_blocks = true;
    static constexpr bool row_blocks = true;
    static constexpr bool shifted = false;
    /// Types without numeric_limits have no identity for max/min: their groups start from the first element.
    static constexpr bool has_identity = requires { element_identity<accumulator>::max_identity(); };

    [[nodiscard]] accumulator identity() const {
        if constexpr (has_identity)
            return Maximum ? element_identity<accumulator>::max_identity() : element_identity<accumulator>::min_identity();
        else
            return accumulator{};  // never used: see has_identity
    }
    [[nodiscard]] accumulator lift(const T& x, const accumulator&) const { return static_cast<accumulator>(x); }
    [[nodiscard]] accumulator combine(const accumulator& a, const accumulator& b) const {
        if constexpr (std::is_arithmetic_v<accumulator>)
            return Maximum ? simd::max_propagate_nan(a, b) : simd::min_propagate_nan(a, b);
        else
            return Maximum ? (a < b ? b : a) : (b < a ? b : a);
    }
    [[nodiscard]] T finish(const accumulator& a, std::size_t, const accumulator&) const { return static_cast<T>(canonical_nan(a)); }
    template <class P>
    [[nodiscard]] P lift_lanes(const P& x, const P&) const { return x; }
    template <class P>
    [[nodiscard, TENSOROPS_ALWAYS_INLINE]] P combine_lanes(const P& a, const P& b) const {
        return Maximum ? simd::max_propagate_nan(a, b) : simd::min_propagate_nan(a, b);
    }
    template <class P>
    [[nodiscard]] accumulator reduce_lanes(const P& a) const {
        return static_cast<accumulator>(Maximum ? simd::reduce_max(a) : simd::reduce_min(a));
    }
    template <class P>
    [[nodiscard]] P finish_lanes(const P& a, std::size_t, const P&) const { return canonical_nan_lanes(a); }
};

// ---------------------------------------------------------------------------------------------
// LOG_SUM_EXP: m + ln Σ e^(x − m) with m the group maximum, or 0 when that maximum is ±inf (SEMANTICS.md §2).

template <class T>
struct log_sum_exp_reduction {
    using accumulator = accumulator_t<T>;
    static constexpr bool vectorizable = builtin_element<T>;
    static constexpr bool pairwise = true;
    static constexpr bool line_blocks = true;
    static constexpr bool row_blocks = true;
    static constexpr bool shifted = true;
    static constexpr bool has_identity = true;

    /// The shift for a group whose maximum is `maximum`.
    [[nodiscard]] static accumulator shift_for(const accumulator& maximum) {
        using std::isinf;
        return isinf(maximum) ? accumulator(0) : maximum;
    }
    template <class P>
    [[nodiscard, TENSOROPS_ALWAYS_INLINE]] static P shift_for_lanes(const P& maximum) {
        using C = typename P::value_type;
        return simd::select(simd::abs(maximum) == P(std::numeric_limits<C>::infinity()), P(C(0)), maximum);
    }

    /// Σ e^(x − shift) of a group whose maximum is not finite, without looking at it: +inf (a +inf element, shift
    /// 0), 0 (every element −inf) or NaN — which is e^maximum. Kernels use it instead of lifting such groups.
    [[nodiscard]] static accumulator sum_for_non_finite(const accumulator& maximum) {
        using std::exp;
        return exp(maximum);
    }
    /// Lanes whose maximum is finite keep `sum`; the others get sum_for_non_finite (an exponential computed only
    /// when some lane needs it).
    template <class P>
    [[nodiscard, TENSOROPS_ALWAYS_INLINE]] static P sum_for_non_finite_lanes(const P& maximum, const P& sum) {
        using C = typename P::value_type;
        const auto finite = simd::abs(maximum) < P(std::numeric_limits<C>::infinity());
        if (!simd::any(!finite)) return sum;
        return simd::select(finite, sum, simd::exp(maximum));
    }

    [[nodiscard]] accumulator identity() const { return accumulator(0); }
    [[nodiscard]] accumulator lift(const T& x, const accumulator& shift) const {
        using std::exp;
        return exp(static_cast<accumulator>(x) - shift);
    }
    [[nodiscard]] accumulator combine(const accumulator& a, const accumulator& b) const { return a + b; }
    [[nodiscard]] T finish(const accumulator& a, std::size_t, const accumulator& shift) const {
        using std::log;
        return static_cast<T>(canonical_nan(shift + log(a)));
    }
    /// Lanes of a group with a finite maximum (= shift) only: see simd::exp_shifted and sum_for_non_finite.
    /// Always inlined, as term_lanes: GCC 12 -O2 left double lanes' (exp_double_lanes inlined) a call per vector.
    template <class P>
    [[nodiscard, TENSOROPS_ALWAYS_INLINE]] P lift_lanes(const P& x, const P& shift) const {
        return simd::exp_shifted(x, shift);
    }

    // One-pass blocks (the outer kernel's log_sum_exp_block): terms are taken against a reference made from an
    // estimate of the block's maximum before its true maximum, top, is known, and brought to top's shift after.
    // Float lanes (float and float16 data) keep the reference as an integer power of two, k, so that neither the
    // terms nor the factor that brings them to top round a distance from the reference (simd::exp_over_power_of_two,
    // simd::power_of_two_over_exp); double lanes keep the estimate and lose ~2^−53 per unit of distance.

    /// The reference for lanes whose maximum is estimated (from below) by `estimate`: round(estimate · log2 e) for
    /// float lanes, the estimate itself otherwise; 0 where the estimate is ±inf, as shift_for_lanes.
    template <class P>
    [[nodiscard]] static P reference_for_lanes(const P& estimate) {
        using C = typename P::value_type;
        if constexpr (std::is_same_v<C, float>) return simd::round_to_integer(shift_for_lanes(estimate) * P(simd::log2e_float));
        else return shift_for_lanes(estimate);
    }
    /// What term_lanes needs of a reference, computed once for a block's rows: simd::power_of_two_reference for
    /// float lanes, the reference itself for double lanes.
    template <class P>
    [[nodiscard]] static auto term_reference_lanes(const P& reference) {
        if constexpr (std::is_same_v<typename P::value_type, float>) return simd::power_of_two_reference_of(reference);
        else return reference;
    }
    /// e^x over the reference, for lanes the reference serves (reference_serves); `r` =
    /// term_reference_lanes(reference). NaN where x is NaN, and NaN or +inf where x is +inf (float lanes: NaN, see
    /// simd::exp_over_power_of_two; double lanes compute e^(x − r)).
    template <class P, class Reference>
    [[nodiscard, TENSOROPS_ALWAYS_INLINE]] static P term_lanes(const P& x, const Reference& r) {
        if constexpr (std::is_same_v<typename P::value_type, float>) return simd::exp_over_power_of_two(x, r);
        else return simd::exp_shifted(x, r);
    }
    /// sum + term_lanes(x, r), for float lanes with the term's last product fused into the sum
    /// (simd::add_exp_over_power_of_two: the same instruction whatever the compiler, which the 512-bit loops of
    /// ops/detail/log_sum_exp/avx512.hpp must match bit for bit).
    template <class P, class Reference>
    [[nodiscard, TENSOROPS_ALWAYS_INLINE]] static P add_term_lanes(const P& sum, const P& x, const Reference& r) {
        if constexpr (std::is_same_v<typename P::value_type, float>) return simd::add_exp_over_power_of_two(sum, x, r);
        else return sum + simd::exp_shifted(x, r);
    }
    /// Lanes whose finite maximum `top` the reference serves: every term at most 2^96 (e^64 for double lanes), the
    /// largest at least 2^−1 — so a block's sum of terms is neither large nor small, and at_top applies. False where
    /// top is not finite.
    template <class P>
    [[nodiscard]] static simd::mask_of<P> reference_serves(const P& top, const P& reference) {
        using C = typename P::value_type;
        if constexpr (std::is_same_v<C, float>) {
            const P distance = simd::fms(top, P(simd::log2e_float), reference);
            return (simd::abs(reference) <= P(simd::largest_power_of_two_reference)) & (distance >= P(-1.0f)) &
                   (distance <= P(96.0f));
        } else {
            const P distance = top - reference;
            return (distance >= P(C(-1))) & (distance <= P(C(64)));
        }
    }
    /// The log-sum-exp of a whole group from `sum` = Σ term_lanes(x, reference) over it, for a reference that serves
    /// its maximum (reference_serves): ln(2^k · sum) = k · ln 2 + ln sum for float lanes (reference k; added in
    /// double and rounded once), reference + ln sum for double lanes. Neither the maximum nor at_top is needed.
    template <class C>
    [[nodiscard]] static T finish_from_reference(const C& sum, const C& reference) {
        using std::log;
        if constexpr (std::is_same_v<C, float>)
            return static_cast<T>(canonical_nan(static_cast<double>(reference) * std::numbers::ln2 + static_cast<double>(log(sum))));
        else return static_cast<T>(canonical_nan(reference + log(sum)));
    }
    /// finish_from_reference lane by lane, the logarithm a vector's (simd::log). Float lanes: k · ln 2 + ln sum to
    /// within half an ulp and ~2^−30 (as the double sum rounded once, without leaving float lanes): k · ln 2 as the
    /// float product of k and ln 2's float, its exact rounding error (simd::product_error) and k times ln 2's own
    /// error; the product and ln sum added with their exact error (two-sum), the small parts added to that error.
    /// Lanes the reference does not serve get unspecified values.
    template <class P>
    [[nodiscard, TENSOROPS_ALWAYS_INLINE]] static P finish_from_reference_lanes(const P& sum, const P& reference) {
        using C = typename P::value_type;
        const P logarithm = simd::log(sum);
        if constexpr (std::is_same_v<C, float>) {
            const P ln2_high(simd::ln2_float), ln2_low(static_cast<float>(std::numbers::ln2 - static_cast<double>(simd::ln2_float)));
            const P product = reference * ln2_high;
            const P low = reference * ln2_low + simd::product_error(reference, ln2_high, product);
            const P high = product + logarithm, logarithm_part = high - product;
            const P high_error = (product - (high - logarithm_part)) + (logarithm - logarithm_part);
            return canonical_nan_lanes(high + (high_error + low));
        } else {
            return canonical_nan_lanes(reference + logarithm);
        }
    }
    /// Σ e^(x − top) from `sum` = Σ term_lanes(x, reference), for lanes the reference serves.
    template <class P>
    [[nodiscard]] static P at_top(const P& sum, const P& reference, const P& top) {
        if constexpr (std::is_same_v<typename P::value_type, float>) return sum * simd::power_of_two_over_exp(reference, top);
        else return sum * simd::exp(reference - top);
    }
    template <class P>
    [[nodiscard]] P combine_lanes(const P& a, const P& b) const { return a + b; }
    template <class P>
    [[nodiscard]] accumulator reduce_lanes(const P& a) const { return static_cast<accumulator>(simd::reduce_add(a)); }
    template <class P>
    [[nodiscard]] P finish_lanes(const P& a, std::size_t, const P& shift) const { return canonical_nan_lanes(shift + simd::log(a)); }
};

// ---------------------------------------------------------------------------------------------
// The same function over another element type.

/// rebind_reduction_t<R, U>: reduction R's function over elements of type U (the narrow-row kernel computes 8- and
/// 16-bit integer rows in 32-bit lanes).
template <class R, class U>
struct rebind_reduction;
template <class T, lift_kind Lift, finish_kind Finish, class U>
struct rebind_reduction<sum_reduction<T, Lift, Finish>, U> {
    using type = sum_reduction<U, Lift, Finish>;
};
template <class T, class U>
struct rebind_reduction<product_reduction<T>, U> {
    using type = product_reduction<U>;
};
template <class T, bool Maximum, class U>
struct rebind_reduction<extreme_reduction<T, Maximum>, U> {
    using type = extreme_reduction<U, Maximum>;
};
template <class T, class U>
struct rebind_reduction<log_sum_exp_reduction<T>, U> {
    using type = log_sum_exp_reduction<U>;
};
template <class R, class U>
using rebind_reduction_t = typename rebind_reduction<R, U>::type;

}  // namespace tensorops::detail
