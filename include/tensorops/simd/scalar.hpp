// tensorops/simd/scalar.hpp — the one-lane register of builds without xsimd, and its implementation of the vocabulary
// (the overloads for isa::scalar): plain C++ on one value, integers wrapping as the vector instructions do, so that
// both paths give the same results.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../core/element.hpp"
#include "../core/inline.hpp"
#include "isa.hpp"
#include "math_constants.hpp"

namespace tensorops::simd {

/// One-lane mask (the fallback for xsimd::batch_bool).
struct scalar_mask {
    bool value;
    friend constexpr scalar_mask operator&(scalar_mask a, scalar_mask b) noexcept { return {a.value && b.value}; }
    friend constexpr scalar_mask operator|(scalar_mask a, scalar_mask b) noexcept { return {a.value || b.value}; }
    friend constexpr scalar_mask operator!(scalar_mask a) noexcept { return {!a.value}; }
};

/// One-lane register used when xsimd is absent. Integer arithmetic wraps (computed unsigned), exactly as
/// the vector instructions do, so both paths give the same results.
template <class C>
struct scalar_pack {
    using value_type = C;
    using batch_bool_type = scalar_mask;
    static constexpr std::size_t size = 1;
    C value;

    constexpr scalar_pack() noexcept = default;
    constexpr scalar_pack(C v) noexcept : value(v) {}  // NOLINT(google-explicit-constructor): broadcast, like xsimd

    friend constexpr scalar_pack operator+(scalar_pack a, scalar_pack b) noexcept { return combine(a, b, [](auto x, auto y) { return x + y; }); }
    friend constexpr scalar_pack operator-(scalar_pack a, scalar_pack b) noexcept { return combine(a, b, [](auto x, auto y) { return x - y; }); }
    friend constexpr scalar_pack operator*(scalar_pack a, scalar_pack b) noexcept { return combine(a, b, [](auto x, auto y) { return x * y; }); }
    friend constexpr scalar_pack operator/(scalar_pack a, scalar_pack b) noexcept requires std::is_floating_point_v<C> { return {a.value / b.value}; }
    friend constexpr scalar_pack operator-(scalar_pack a) noexcept { return combine(scalar_pack(C(0)), a, [](auto x, auto y) { return x - y; }); }
    constexpr scalar_pack& operator+=(scalar_pack b) noexcept { return *this = *this + b; }
    constexpr scalar_pack& operator-=(scalar_pack b) noexcept { return *this = *this - b; }
    constexpr scalar_pack& operator*=(scalar_pack b) noexcept { return *this = *this * b; }
    friend constexpr scalar_mask operator==(scalar_pack a, scalar_pack b) noexcept { return {a.value == b.value}; }
    friend constexpr scalar_mask operator!=(scalar_pack a, scalar_pack b) noexcept { return {a.value != b.value}; }
    friend constexpr scalar_mask operator<(scalar_pack a, scalar_pack b) noexcept { return {a.value < b.value}; }
    friend constexpr scalar_mask operator<=(scalar_pack a, scalar_pack b) noexcept { return {a.value <= b.value}; }
    friend constexpr scalar_mask operator>(scalar_pack a, scalar_pack b) noexcept { return {a.value > b.value}; }
    friend constexpr scalar_mask operator>=(scalar_pack a, scalar_pack b) noexcept { return {a.value >= b.value}; }

private:
    template <class Op>
    static constexpr scalar_pack combine(scalar_pack a, scalar_pack b, Op op) noexcept {
        if constexpr (std::is_integral_v<C>) {
            return {from_accumulator<C>(op(to_accumulator(a.value), to_accumulator(b.value)))};
        } else {
            return {static_cast<C>(op(a.value, b.value))};
        }
    }
};

/// The larger of a and b; NaN if either is NaN.
template <class C>
    requires std::is_arithmetic_v<C>
[[nodiscard]] constexpr C max_propagate_nan(C a, C b) noexcept {
    if constexpr (std::is_floating_point_v<C>)
        if (a != a || b != b) return a + b;  // a NaN operand makes the sum NaN
    return a < b ? b : a;
}

/// The smaller of a and b; NaN if either is NaN.
template <class C>
    requires std::is_arithmetic_v<C>
[[nodiscard]] constexpr C min_propagate_nan(C a, C b) noexcept {
    if constexpr (std::is_floating_point_v<C>)
        if (a != a || b != b) return a + b;
    return b < a ? b : a;
}

// The vocabulary's functions for the one-lane register; each vocabulary header states the contract.
namespace kernel {

template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load(const T* source, isa::scalar) noexcept {
    return P(*source);
}

template <class T, class P>
[[TENSOROPS_ALWAYS_INLINE]] inline void store(T* destination, const P& value, isa::scalar) noexcept {
    *destination = value.value;
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P select(const scalar_mask& condition, const P& a, const P& b,
                                                       isa::scalar) noexcept {
    return condition.value ? a : b;
}

template <class Pattern, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P select_constant(const P& a, const P& b, isa::scalar) noexcept {
    return Pattern::get(0, 1) ? a : b;
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline scalar_mask is_nan(const P& value, isa::scalar) noexcept {
    return scalar_mask{value.value != value.value};
}

template <class P, class Q>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline Q select_lanes(const scalar_mask& condition, const Q& a, const Q& b,
                                                             isa::scalar) noexcept {
    return condition.value ? a : b;
}

[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline scalar_mask and_not(const scalar_mask& a, const scalar_mask& b,
                                                                  isa::scalar) noexcept {
    return {a.value && !b.value};
}

[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline bool any(const scalar_mask& condition, isa::scalar) noexcept {
    return condition.value;
}

[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline std::uint64_t lane_bits(const scalar_mask& mask, isa::scalar) noexcept {
    return mask.value ? 1u : 0u;
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P max_propagate_nan(const P& a, const P& b, isa::scalar) noexcept {
    return P(simd::max_propagate_nan(a.value, b.value));
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P min_propagate_nan(const P& a, const P& b, isa::scalar) noexcept {
    return P(simd::min_propagate_nan(a.value, b.value));
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P max_ignoring_nan(const P& a, const P& b, isa::scalar) noexcept {
    return P(a.value < b.value ? b.value : a.value);
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P clamp_below_keeping_nan(const P& x, const P& floor,
                                                                        isa::scalar) noexcept {
    return P(x.value < floor.value ? floor.value : x.value);
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P abs_floating(const P& value, isa::scalar) noexcept {
    return P(std::fabs(value.value));
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P sqrt(const P& value, isa::scalar) noexcept {
    return P(std::sqrt(value.value));
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P fms(const P& a, const P& b, const P& c, isa::scalar) noexcept {
    return P(std::fma(a.value, b.value, -c.value));  // exact, if slow where the hardware lacks it
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P product_error(const P& a, const P& b, const P& p,
                                                              isa::scalar) noexcept {
    return kernel::fms(a, b, p, isa::scalar{});
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P round_to_integer(const P& value, isa::scalar) noexcept {
    return P(std::nearbyint(value.value));
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P exp(const P& value, isa::scalar) noexcept {
    return P(std::exp(value.value));
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P log(const P& value, isa::scalar) noexcept {
    return P(std::log(value.value));
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P exp_shifted(const P& x, const P& shift, isa::scalar) noexcept {
    return P(std::exp((x - shift).value));
}

// The exponentials in powers of two (exponentials.hpp) for one float lane: in double through <cmath>, whole steps
// (steps = 1: a scalar register has no table to look eighths up in).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline power_of_two_reference<P> power_of_two_reference_of(
    const P& k, isa::scalar) noexcept {
    constexpr float steps = 1.0f, rounding = detail::round_to_biased_steps_of(1);
    return {P(std::fma(k.value, ln2_float, -125.0f * ln2_float)), P(k.value * steps - rounding)};
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P add_exp_over_power_of_two(const P& sum, const P& x,
                                                                          const power_of_two_reference<P>& r,
                                                                          isa::scalar) noexcept {
    const double k = static_cast<double>(r.k_less_rounding.value) + static_cast<double>(detail::round_to_biased_steps_of(1));
    if (!(x.value < std::numeric_limits<float>::infinity())) return P(std::numeric_limits<float>::quiet_NaN());  // NaN, +inf
    const double clamped = std::max(x.value, r.lowest.value);
    return P(sum.value + static_cast<float>(std::exp2(clamped * static_cast<double>(log2e_float) - k)));
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P power_of_two_over_exp(const P& k, const P& top, isa::scalar) noexcept {
    return P(static_cast<float>(std::exp2(k.value - static_cast<double>(top.value) * static_cast<double>(log2e_float))));
}

}  // namespace kernel
}  // namespace tensorops::simd
