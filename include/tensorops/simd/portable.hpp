// tensorops/simd/portable.hpp — the implementations of the vocabulary for any register (isa::portable): lane by lane
// through arrays. Correct for every register, one-lane ones included; the fallback of every tag that has nothing
// better (each costs a store-forwarding stall or a loop of scalar steps).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../core/element.hpp"
#include "../core/inline.hpp"
#include "isa.hpp"
#include "register.hpp"

namespace tensorops::simd {

namespace detail {
/// Lane by lane through <cmath>: f applied to every lane of `value`.
template <class P, class F>
[[nodiscard]] P each_lane(const P& value, F f) noexcept {
    auto lanes_out = to_array(value);
    for (auto& lane : lanes_out) lane = f(lane);
    return from_array<P>(lanes_out);
}
}  // namespace detail

// Each vocabulary header states the contracts.
namespace kernel {

// load_halves, store_halves, load_halves_partial: the narrow floats (float16, bfloat16), one element at a time through
// their scalar conversions.
template <class P, narrow_float T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_halves(const T* source, isa::portable) noexcept {
    std::array<float, P::size> widened;
    for (std::size_t i = 0; i < P::size; ++i) widened[i] = static_cast<float>(source[i]);
    return from_array<P>(widened);
}

template <class P, narrow_float T>
[[TENSOROPS_ALWAYS_INLINE]] inline void store_halves(T* destination, const P& value, isa::portable) noexcept {
    const auto lanes_in = to_array(value);
    for (std::size_t i = 0; i < P::size; ++i) destination[i] = T(lanes_in[i]);
}

template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_partial(const T* source, std::size_t count,
                                                             typename P::value_type fill, isa::portable) noexcept {
    std::array<typename P::value_type, P::size> values;
    for (std::size_t i = 0; i < P::size; ++i) values[i] = i < count ? static_cast<typename P::value_type>(source[i]) : fill;
    return from_array<P>(values);
}

/// simd::store_partial lane by lane (the narrow floats through their conversions).
template <class P, class T>
[[TENSOROPS_ALWAYS_INLINE]] inline void store_partial(T* destination, const P& value, std::size_t count, isa::portable) noexcept {
    const auto values = to_array(value);
    for (std::size_t i = 0; i < count; ++i) destination[i] = static_cast<T>(values[i]);
}

template <class P, narrow_float T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_halves_partial(const T* source, std::size_t count, float fill,
                                                                    isa::portable) noexcept {
    return kernel::load_partial<P>(source, count, fill, isa::portable{});
}

template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_widened(const T* source, isa::portable) noexcept {
    using U = typename P::value_type;
    std::array<U, P::size> values;
    for (std::size_t i = 0; i < P::size; ++i) values[i] = static_cast<U>(source[i]);
    return from_array<P>(values);
}

template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_widened_partial(const T* source, std::size_t count,
                                                                     isa::portable) noexcept {
    using U = typename P::value_type;
    std::array<U, P::size> values{};
    for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<U>(source[i]);
    return from_array<P>(values);
}

template <class T, class P>
[[TENSOROPS_ALWAYS_INLINE]] inline void store_narrowed(T* destination, const P& value, isa::portable) noexcept {
    const auto lanes_in = to_array(value);
    for (std::size_t i = 0; i < P::size; ++i) destination[i] = static_cast<T>(lanes_in[i]);
}

/// Integer lanes multiplied one by one in the unsigned accumulator (wrapping, no undefined behaviour).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P multiply_integers(const P& a, const P& b, isa::portable) noexcept {
    using C = typename P::value_type;
    const auto left = to_array(a), right = to_array(b);
    std::array<C, P::size> product;
    for (std::size_t i = 0; i < P::size; ++i) product[i] = from_accumulator<C>(to_accumulator(left[i]) * to_accumulator(right[i]));
    return from_array<P>(product);
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P add(const P& a, const P& b, isa::portable) noexcept {
    return a + b;
}

/// Whether shift_bytes_up/down shift a register by `bytes` bytes in the register: not without an instruction set's
/// byte shifts (the vocabulary then goes through memory).
[[nodiscard]] constexpr bool shifts_bytes_in_register(isa::portable, std::size_t) noexcept { return false; }
// Declared so that the vocabulary's discarded branches name something; never instantiated (shifts_bytes_in_register).
template <std::size_t Bytes, class P>
P shift_bytes_up(const P& value, isa::portable) noexcept;
template <std::size_t Bytes, class P>
P shift_bytes_down(const P& value, isa::portable) noexcept;

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P broadcast_last(const P& value, isa::portable) noexcept {
    return P(to_array(value)[P::size - 1]);
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P broadcast_first(const P& value, isa::portable) noexcept {
    return P(to_array(value)[0]);
}

template <class Pattern, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P permute_constant(const P& value, isa::portable) noexcept {
    constexpr std::size_t W = P::size;
    const auto in = to_array(value);
    std::array<typename P::value_type, W> out;
    for (std::size_t i = 0; i < W; ++i) out[i] = in[Pattern::get(static_cast<unsigned>(i), static_cast<unsigned>(W))];
    return from_array<P>(out);
}

/// Whether permute_constant moves a register's lanes of `lane_bytes` bytes in one instruction: not without an
/// instruction set's lane permutes (it goes through memory).
[[nodiscard]] constexpr bool permutes_in_register(isa::portable, std::size_t) noexcept { return false; }

/// Whether a float register looks 2^(m/8) up in an eight-entry register table (power_of_two_in_eighths): not without
/// an instruction set's lane permutes.
[[nodiscard]] constexpr bool has_eighth_table(isa::portable) noexcept { return false; }
// Declared only: has_eighth_table is false, so never instantiated.
template <class P>
P power_of_two_in_eighths(const P& biased, isa::portable) noexcept;

}  // namespace kernel
}  // namespace tensorops::simd
