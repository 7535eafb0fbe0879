// tensorops/simd/widen.hpp — 8- and 16-bit integers loaded widened to the 32-bit lanes of pack<U> (load_as,
// load_partial_as, load_widened) and stored narrowed (store_narrowed): part of pack.hpp's vocabulary, include pack.hpp.
#pragma once

#include <cstddef>
#include <type_traits>

#include "../core/inline.hpp"
#include "implementations.hpp"
#include "pack.hpp"

namespace tensorops::simd {

/// Loads lanes<U> consecutive 8- or 16-bit integers from `source` (any alignment) into the 32-bit lanes of
/// pack<U>, sign-extended (signed T) or zero-extended: one vpmovsx/vpmovzx with SSE4.1, AVX2 or AVX-512, else
/// through an array.
template <class U, builtin_element T>
    requires(std::is_integral_v<T> && sizeof(T) < 4 && std::is_integral_v<U> && sizeof(U) == 4 && std::is_signed_v<T> == std::is_signed_v<U>)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline pack<U> load_widened(const T* source) noexcept {
    return kernel::load_widened<pack<U>>(source, isa_of<pack<U>>{});
}

/// load_widened of `count` (≤ lanes<U>) elements, 0 in the lanes above; reads nothing past source[count - 1]. With
/// SSE4.1 and registers of up to 32 bytes, the bytes composed in general registers (detail::load_low_bytes) and widened
/// as load_widened does; else through an array.
template <class U, builtin_element T>
    requires(std::is_integral_v<T> && sizeof(T) < 4 && std::is_integral_v<U> && sizeof(U) == 4 && std::is_signed_v<T> == std::is_signed_v<U>)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline pack<U> load_widened_partial(const T* source,
                                                                           std::size_t count) noexcept {
    return kernel::load_widened_partial<pack<U>>(source, count, isa_of<pack<U>>{});
}

/// pack<U> from lanes<U> consecutive elements T at `source`: simd::load where U is T, load_widened where U is the 32-bit
/// lane type 8- and 16-bit integers are widened to.
template <class U, builtin_element T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline pack<U> load_as(const T* source) noexcept {
    if constexpr (std::is_same_v<U, T>) return simd::load(source);
    else return simd::load_widened<U>(source);
}

/// load_as of `count` (< lanes<U>, as load_partial; load_widened_partial also takes lanes<U>) elements, 0 in the lanes
/// above; reads nothing past source[count - 1].
template <class U, builtin_element T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline pack<U> load_partial_as(const T* source, std::size_t count) noexcept {
    if constexpr (std::is_same_v<U, T>) return simd::load_partial(source, count, compute_t<T>(0));
    else return simd::load_widened_partial<U>(source, count);
}

/// Stores the 32-bit integer lanes of `value` truncated to lanes<U> consecutive 8- or 16-bit integers at
/// `destination` (any alignment): the inverse of load_widened. AVX2: one byte shuffle gathers each 128-bit half's
/// low bytes, one permute joins the halves; else through an array.
template <builtin_element T, class U>
    requires(std::is_integral_v<T> && sizeof(T) < 4 && std::is_integral_v<U> && sizeof(U) == 4)
[[TENSOROPS_ALWAYS_INLINE]] inline void store_narrowed(T* destination, const pack<U>& value) noexcept {
    kernel::store_narrowed(destination, value, isa_of<pack<U>>{});
}

}  // namespace tensorops::simd
