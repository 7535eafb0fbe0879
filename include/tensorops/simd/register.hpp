// tensorops/simd/register.hpp — the registers kernels compute in, their tags, and moving their lanes to and from
// arrays: what every implementation of the vocabulary (scalar.hpp, portable.hpp, generic.hpp, x86/) is written
// against.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../core/element.hpp"
#include "../core/inline.hpp"
#include "config.hpp"
#include "isa.hpp"
#include "scalar.hpp"

namespace tensorops::simd {

/// The type vector arithmetic runs in for storage type T: float for the narrow floats (float16, bfloat16), T itself
/// otherwise.
template <class T>
using compute_t = std::conditional_t<narrow_float<std::remove_cv_t<T>>, float, std::remove_cv_t<T>>;

namespace detail {
/// The register of lane type C: one lane (scalar_pack) unless the vector paths exist (Vector), where generic.hpp
/// specialises it to xsimd's register of the width the build targets.
template <class C, bool Vector>
struct pack_of {
    using type = scalar_pack<C>;
};

/// The tag (isa.hpp) of register P: isa::scalar for the one-lane register; xsimd's registers are given theirs in
/// generic.hpp (xsimd_compat::register_isa).
template <class P>
struct register_isa;
template <class C>
struct register_isa<scalar_pack<C>> {
    using type = isa::scalar;
};

/// Whether simd::fms on register P rounds once: std::fma for the one-lane register; xsimd's registers in generic.hpp.
template <class P>
struct fuses_multiply_add;
template <class C>
struct fuses_multiply_add<scalar_pack<C>> : std::true_type {};

/// The unsigned integer of `Bytes` bytes.
template <std::size_t Bytes>
struct unsigned_of_size;
template <> struct unsigned_of_size<1> { using type = std::uint8_t; };
template <> struct unsigned_of_size<2> { using type = std::uint16_t; };
template <> struct unsigned_of_size<4> { using type = std::uint32_t; };
template <> struct unsigned_of_size<8> { using type = std::uint64_t; };

/// The unsigned integer register with the lanes of P (lane_index_pack): the one-lane one here, xsimd's in generic.hpp.
template <class P>
struct lane_index_of;
template <class C>
struct lane_index_of<scalar_pack<C>> {
    using type = scalar_pack<typename unsigned_of_size<sizeof(C)>::type>;
};
}  // namespace detail

/// The register kernels compute in for built-in element type T: an xsimd batch of compute_t<T> (float for float16 and
/// bfloat16, which are widened on load and rounded once, to nearest even, on store), or a one-lane scalar_pack without xsimd.
template <builtin_element T>
using pack = typename detail::pack_of<compute_t<T>, vectorized>::type;

/// The comparison-result type of register P.
template <class P>
using mask_of = typename P::batch_bool_type;

/// Lanes in pack<T> (1 without xsimd).
template <builtin_element T>
inline constexpr std::size_t lanes = pack<T>::size;

/// The instruction-set tag of register P (isa.hpp): the key by which the vocabulary picks P's implementation.
template <class P>
using isa_of = typename detail::register_isa<P>::type;

namespace detail {
template <class M>
struct mask_isa {
    using type = isa_of<typename M::batch_type>;
};
template <>
struct mask_isa<scalar_mask> {
    using type = isa::scalar;
};
}  // namespace detail

/// The instruction-set tag of mask M: its register's.
template <class M>
using mask_isa_of = typename detail::mask_isa<M>::type;

/// Whether simd::fms(a, b, c) on register P is rounded once (a fused multiply-subtract, or std::fma on one lane), where
/// otherwise it is a multiply and a subtract rounded twice: kernels that need a product's exact rounding error choose
/// their formula by it.
template <class P>
inline constexpr bool fused_multiply_add = detail::fuses_multiply_add<P>::value;

/// An unsigned integer register with the lanes of P (same count, same width): what per-lane positions are
/// kept in beside a register of values.
template <class P>
using lane_index_pack = typename detail::lane_index_of<P>::type;

/// The lanes of `value`, lowest first.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline std::array<typename P::value_type, P::size> to_array(
    const P& value) noexcept {
    std::array<typename P::value_type, P::size> lanes_out;
    if constexpr (P::size == 1 && std::is_same_v<P, scalar_pack<typename P::value_type>>) lanes_out[0] = value.value;
    else value.store_unaligned(lanes_out.data());
    return lanes_out;
}

/// A register holding `values`, lowest lane first.
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P from_array(
    const std::array<typename P::value_type, P::size>& values) noexcept {
    if constexpr (std::is_same_v<P, scalar_pack<typename P::value_type>>) return P(values[0]);
    else return P::load_unaligned(values.data());
}

namespace detail {
/// Mask of the lanes below `count`: compares the lane numbers with `count` (constants the compiler folds).
template <class P>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline mask_of<P> lanes_below(std::size_t count) noexcept {
    using C = typename P::value_type;
    std::array<C, P::size> lane_numbers;
    for (std::size_t i = 0; i < P::size; ++i) lane_numbers[i] = static_cast<C>(i);
    return from_array<P>(lane_numbers) < P(static_cast<C>(count));
}
}  // namespace detail

}  // namespace tensorops::simd
