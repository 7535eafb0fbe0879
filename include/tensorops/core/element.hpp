// tensorops/core/element.hpp — what an element type must offer, how it accumulates, and its identities.
//
// Built-in element types (float64, float32, float16, bfloat16 and the eight fixed-width integers) take the SIMD
// paths. Any other type works on the generic (strided scalar) path when it models the concept an operator
// names: `additive` for sums, `multiplicative` for products, `totally_ordered_element` for min/max/argmax.
// Identities are a customisation point: specialise `tensorops::element_identity<T>` for a type that is not
// constructible from the integers 0 and 1.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "bfloat16.hpp"
#include "float16.hpp"
#include "narrow_float.hpp"

namespace tensorops {

// ---------------------------------------------------------------------------------------------
// Classification of built-in element types.

/// The eight fixed-width integer types (int8_t … uint64_t). Other integral types (char, long long,
/// wchar_t, bool) are not SIMD elements; they may still be used as user types where they model a concept.
template <class T>
concept fixed_width_integer =
    std::same_as<T, std::int8_t> || std::same_as<T, std::int16_t> || std::same_as<T, std::int32_t> ||
    std::same_as<T, std::int64_t> || std::same_as<T, std::uint8_t> || std::same_as<T, std::uint16_t> ||
    std::same_as<T, std::uint32_t> || std::same_as<T, std::uint64_t>;

/// Binary floating types the library vectorises: double, float and the narrow floats (float16, bfloat16), which are
/// computed in float.
template <class T>
concept builtin_floating = std::same_as<T, double> || std::same_as<T, float> || narrow_float<T>;

/// Element types with a SIMD path.
template <class T>
concept builtin_element = fixed_width_integer<T> || builtin_floating<T>;

/// The element types of an index tensor — DirectML's INT32, INT64, UINT32 and UINT64: the output of
/// argmax / argmin and the `indices` of gather_nd and scatter_nd (where signed coordinates may count from
/// the end of a dimension: −1 is the last index).
template <class I>
concept index_element = std::same_as<I, std::int32_t> || std::same_as<I, std::int64_t> ||
                        std::same_as<I, std::uint32_t> || std::same_as<I, std::uint64_t>;

// ---------------------------------------------------------------------------------------------
// Identities (customisation point).

/// Identities of an element type. The primary template serves every type constructible from `int`
/// (and, for min/max, every type with `std::numeric_limits`). Specialise it for other types.
///   zero()        identity of +            one()          identity of ×
///   max_identity() identity of max: -inf for floating types, lowest() otherwise
///   min_identity() identity of min: +inf for floating types, max() otherwise
template <class T>
struct element_identity {
    static constexpr T zero() requires std::constructible_from<T, int> { return T(0); }
    static constexpr T one() requires std::constructible_from<T, int> { return T(1); }
    static constexpr T max_identity() requires std::numeric_limits<T>::is_specialized {
        if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
        else return std::numeric_limits<T>::lowest();
    }
    static constexpr T min_identity() requires std::numeric_limits<T>::is_specialized {
        if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
        else return std::numeric_limits<T>::max();
    }
};

// ---------------------------------------------------------------------------------------------
// Concepts for user-defined element types.

/// Anything the kernels can copy, assign and keep in a local variable.
template <class T>
concept element = std::copyable<T> && std::default_initializable<T>;

/// `a + b` yields a T and `element_identity<T>::zero()` exists.
template <class T>
concept additive = element<T> && requires(const T a, const T b) {
    { a + b } -> std::convertible_to<T>;
    { element_identity<T>::zero() } -> std::convertible_to<T>;
};

/// `a * b` yields a T and `element_identity<T>::one()` exists.
template <class T>
concept multiplicative = element<T> && requires(const T a, const T b) {
    { a * b } -> std::convertible_to<T>;
    { element_identity<T>::one() } -> std::convertible_to<T>;
};

/// `a < b` is a strict weak order on the values the caller passes (NaN aside, handled by the library
/// for the built-in floating types).
template <class T>
concept totally_ordered_element = element<T> && requires(const T a, const T b) {
    { a < b } -> std::convertible_to<bool>;
};

// ---------------------------------------------------------------------------------------------
// Accumulators.

/// What an accumulator is used for: arithmetic (sums, products, norms: integers wrap, so they are
/// computed in the unsigned type of the same width, which C++ defines for every value) or ordering
/// (min/max/argmax: compared in the element's own type).
enum class accumulation { arithmetic, ordering };

namespace detail {
template <class T, accumulation Kind>
struct accumulator_of {
    using type = T;  // user types and float/double accumulate in themselves
};
template <narrow_float T, accumulation Kind>
struct accumulator_of<T, Kind> {
    using type = float;  // one rounding per output (SEMANTICS.md §4)
};
template <fixed_width_integer T>
struct accumulator_of<T, accumulation::arithmetic> {
    // Two's-complement wrap-around without undefined behaviour. Types narrower than int use unsigned int:
    // uint16 × uint16 would otherwise promote to (signed) int and overflow. The low bits, which are all
    // that is kept on the way back, are the same.
    using type = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
};
}  // namespace detail

/// The type a kernel carries while combining elements of type T for the given purpose:
/// float16, bfloat16 → float; fixed-width integers → their unsigned type, at least unsigned int (arithmetic: `+` and
/// `*` on it are defined for every value and wrap), or themselves (ordering);
/// float, double and user types → themselves.
template <class T, accumulation Kind = accumulation::arithmetic>
using accumulator_t = typename detail::accumulator_of<T, Kind>::type;

namespace detail {
template <class T>
struct wrapping_kernel_of {
    using type = T;
};
template <std::signed_integral T>
struct wrapping_kernel_of<T> {
    using type = std::make_unsigned_t<T>;
};
}  // namespace detail

/// The element type whose kernels compute T's wrapping sums, squares and products: for a signed integer the
/// unsigned type of its width — two's-complement +, − and × give the same bits as unsigned ones, and an object
/// may be read and written through the unsigned type of its own ([basic.lval]) — so int32 and uint32 share one
/// instantiation of those kernels (half the integer code of cumulative sums and products, SUM, SUM_SQUARE and
/// MULTIPLY); T itself for every other type. Orderings (MAX, MIN, argmax) and L1 differ by sign: not shared.
template <class T>
using wrapping_kernel_t = typename detail::wrapping_kernel_of<T>::type;

/// Converts an element to its accumulator type (exact: widening, or same-width signed → unsigned).
template <class T, accumulation Kind = accumulation::arithmetic>
constexpr accumulator_t<T, Kind> to_accumulator(const T& value) {
    return static_cast<accumulator_t<T, Kind>>(value);
}

/// Converts an accumulator back to the element type: one rounding for float16 and bfloat16, modular for integers
/// (C++20 defines unsigned → signed conversion as two's complement).
template <class T, class Accumulator>
constexpr T from_accumulator(const Accumulator& value) {
    return static_cast<T>(value);
}

}  // namespace tensorops
