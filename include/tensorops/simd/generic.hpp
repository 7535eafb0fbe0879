// tensorops/simd/generic.hpp — the implementations of the vocabulary for any xsimd register (isa::generic): xsimd's own
// portable operations; and the xsimd registers' types and tags (pack<T>, isa_of, lane_index_pack).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../core/inline.hpp"
#include "isa.hpp"
#include "portable.hpp"
#include "register.hpp"
#include "warnings.hpp"
#include "xsimd_compat.hpp"

TENSOROPS_SIMD_WARNINGS_BEGIN  // simd/warnings.hpp
#if TENSOROPS_HAS_XSIMD
namespace tensorops::simd {

namespace detail {
template <class C>
struct pack_of<C, true> {
    using type = xsimd::batch<C>;
};
template <class T, class A>
struct register_isa<xsimd::batch<T, A>> {
    using type = xsimd_compat::register_isa<xsimd::batch<T, A>>;
};
template <class T, class A>
struct fuses_multiply_add<xsimd::batch<T, A>> : std::bool_constant<xsimd_compat::fuses_multiply_add<xsimd::batch<T, A>>> {};
template <class T, class A>
struct lane_index_of<xsimd::batch<T, A>> {
    using type = xsimd::batch<typename unsigned_of_size<sizeof(T)>::type, A>;
};
}  // namespace detail

// Each vocabulary header states the contracts.
namespace kernel {

template <class P, class T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load(const T* source, isa::generic) noexcept {
    return P::load_unaligned(source);
}

template <class T, class P>
[[TENSOROPS_ALWAYS_INLINE]] inline void store(T* destination, const P& value, isa::generic) noexcept {
    value.store_unaligned(destination);
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P select(const typename P::batch_bool_type& condition, const P& a,
                                                       const P& b, isa::generic) noexcept {
    return xsimd::select(condition, a, b);
}

/// With a mask in a vector register, the mask comes from a constant in memory: one load and a variable blend (or,
/// without SSE4.1, and / and-not / or) — xsimd builds one from a bool a lane at run time for byte and 16-bit integer
/// lanes, a call that GCC 12 -O2 leaves out of line (in the loop of an int8 SUM over rows, among others). Other masks:
/// xsimd's select of a constant mask.
template <class Pattern, class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P select_constant(const P& a, const P& b, isa::generic) noexcept {
    using V = typename P::value_type;
    if constexpr (sizeof(typename P::batch_bool_type) == sizeof(P)) {  // a mask in a vector register (not AVX-512's k)
        using U = typename detail::unsigned_of_size<sizeof(V)>::type;
        alignas(64) static constexpr std::array<U, P::size> lanes = [] {
            std::array<U, P::size> values{};
            for (std::size_t i = 0; i < P::size; ++i) values[i] = Pattern::get(static_cast<unsigned>(i), P::size) ? static_cast<U>(~U(0)) : U(0);
            return values;
        }();
        const P bits = xsimd_compat::bitwise_cast<P>(xsimd::batch<U, typename P::arch_type>::load_aligned(lanes.data()));
        return xsimd::select(typename P::batch_bool_type(static_cast<typename P::register_type>(bits)), a, b);
    } else {
        return xsimd::select(xsimd_compat::constant_mask<P, Pattern>(), a, b);
    }
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline typename P::batch_bool_type is_nan(const P& value,
                                                                                 isa::generic) noexcept {
    return xsimd::isnan(value);
}

template <class P, class Q>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline Q select_lanes(const typename P::batch_bool_type& condition, const Q& a,
                                                             const Q& b, isa::generic) noexcept {
    return xsimd_compat::bitwise_cast<Q>(xsimd::select(condition, xsimd_compat::bitwise_cast<P>(a), xsimd_compat::bitwise_cast<P>(b)));
}

template <class M>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline M and_not(const M& a, const M& b, isa::generic) noexcept {
    return a & !b;
}

template <class M>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline bool any(const M& condition, isa::generic) noexcept {
    return xsimd::any(condition);
}

template <class M>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline std::uint64_t lane_bits(const M& mask, isa::generic) noexcept {
    using P = typename M::batch_type;
    alignas(64) bool set[P::size];
    mask.store_aligned(set);
    std::uint64_t bits = 0;
    for (std::size_t i = 0; i < P::size; ++i) bits |= static_cast<std::uint64_t>(set[i]) << i;
    return bits;
}

/// Lane-wise a + b; for float lanes of a register that fuses multiply-add, fma(a, 1, b) (see simd::add).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P add(const P& a, const P& b, isa::generic) noexcept {
    if constexpr (std::is_floating_point_v<typename P::value_type> && P::size > 1 && fused_multiply_add<P>)
        return xsimd::fma(a, P(typename P::value_type(1)), b);
    else
        return a + b;
}

/// Maximum and minimum propagating NaN: two NaN tests, an or, an add and a blend; of two zeros the second (maxps's and
/// minps's operand order, fixed for every xsimd version by xsimd_compat).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P max_propagate_nan(const P& a, const P& b, isa::generic) noexcept {
    if constexpr (std::is_floating_point_v<typename P::value_type>)
        return xsimd::select(xsimd::isnan(a) | xsimd::isnan(b), a + b, xsimd_compat::max_or_second(a, b));
    else
        return xsimd::max(a, b);
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P min_propagate_nan(const P& a, const P& b, isa::generic) noexcept {
    if constexpr (std::is_floating_point_v<typename P::value_type>)
        return xsimd::select(xsimd::isnan(a) | xsimd::isnan(b), a + b, xsimd_compat::min_or_second(a, b));
    else
        return xsimd::min(a, b);
}

/// a where a > b, else b (x86: one maxps, b where either is NaN, as x86/avx512_on_avx2.hpp's form).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P max_ignoring_nan(const P& a, const P& b, isa::generic) noexcept {
    return xsimd_compat::max_or_second(a, b);
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P clamp_below_keeping_nan(const P& x, const P& floor,
                                                                        isa::generic) noexcept {
    return xsimd::select(x < floor, floor, x);
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P abs_floating(const P& value, isa::generic) noexcept {
    return xsimd::abs(value);
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P sqrt(const P& value, isa::generic) noexcept {
    return xsimd::sqrt(value);
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P fms(const P& a, const P& b, const P& c, isa::generic) noexcept {
    return xsimd::fms(a, b, c);
}

/// a · b + c and c − a · b (rounded once where the register fuses multiply-add: xsimd's fused forms; x86/avx512.hpp
/// has its own, xsimd 8.1 having none for AVX-512 registers).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P fma(const P& a, const P& b, const P& c, isa::generic) noexcept {
    return xsimd::fma(a, b, c);
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P fnma(const P& a, const P& b, const P& c, isa::generic) noexcept {
    return xsimd::fnma(a, b, c);
}

template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P round_to_integer(const P& value, isa::generic) noexcept {
    return xsimd::nearbyint(value);
}

}  // namespace kernel
}  // namespace tensorops::simd
#endif
TENSOROPS_SIMD_WARNINGS_END
