// tensorops/simd/pack.hpp — the vocabulary kernels are written in: vector registers for every built-in element type,
// and their loads and stores. The one header to include for the registers (widen.hpp and select.hpp come with it).
//
// `pack<T>` is the register a kernel computes in for storage type T: an xsimd batch of T (of float for the narrow
// floats float16 and bfloat16, which are widened on load and rounded once, to nearest even, on store), or a one-lane
// `scalar_pack` when xsimd is absent. Kernels are written once against this vocabulary:
//   pack<T>, mask_of<P>, lanes<T>, load, store, load_partial, store_partial (a count at run time or fixed), broadcast,
//   to_array, from_array (here);
//   load_widened, load_widened_partial, load_as, load_partial_as, store_narrowed (widen.hpp);
//   select, select_constant, select_lanes, is_nan, and_not, any, any_and_not, lane_bits, for_each_set_lane
//   (select.hpp); and the free functions of arithmetic.hpp, minmax.hpp, math.hpp, exponentials.hpp, shuffle.hpp,
//   scan.hpp and horizontal.hpp. Always call them qualified (`simd::select`) so argument-dependent lookup cannot pick
//   xsimd's own overloads.
//
// How the vocabulary finds an instruction set's code. The vocabulary headers hold each function's contract and no
// preprocessor test: a function calls its implementation, an overload of the same name in namespace simd::kernel,
// with the register's tag, `kernel::f(…, isa_of<P>{})` (isa.hpp, register.hpp). The implementations live one file
// per instruction set — scalar.hpp (no xsimd), portable.hpp (through arrays, any register), generic.hpp (xsimd's
// portable operations), x86/sse2.hpp, x86/sse41.hpp, x86/avx2.hpp, x86/f16c.hpp with x86/f16c_packs.hpp, x86/bf16.hpp,
// x86/avx512.hpp
// (and x86/avx512_on_avx2.hpp, 512-bit primitives for AVX2 builds) — each with one `#if`: does the compiler target
// this instruction set? Overload resolution then takes the most specific overload that exists for the register's tag
// (or whose `requires` the lanes meet) and falls back along the tag's bases (isa.hpp) to generic and portable code;
// implementations.hpp includes them all, in that order. A new instruction set (an Arm port: arm/neon.hpp) is a tag,
// a file and a line in implementations.hpp: no vocabulary function changes.
//
// Runtime dispatch (the compiled library, src/): the same kernel templates compiled once per instruction set, each
// level's translation units with its -march (x86-64, x86-64-v3, x86-64-v4), where xsimd's default register and hence
// every tag follow the flags and each ISA file's `#if` opens on its own. The instantiations of one template for two
// levels share a mangled name, so each level's objects are partially linked into one and every symbol made local but
// its entry function and the shared state (src/CMakeLists.txt): no COMDAT merging can send a baseline caller into
// AVX-512 code. The dispatcher reads the CPU once (cpu.hpp) and calls the chosen level's table (src/dispatch.cpp).
// Highway's other way, re-including the headers under `#pragma GCC target` for each target in one translation unit,
// would need the ISA files' `#if` to test a macro of the library's own (clang does not define __AVX2__ under the
// pragma) and headers that can be included more than once; the per-level objects need neither.
//
// xsimd itself is reached through xsimd_compat.hpp, the one home of what differs between its versions.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "../core/element.hpp"
#include "../core/inline.hpp"
#include "config.hpp"
#include "implementations.hpp"
#include "register.hpp"

namespace tensorops::simd {

/// Every lane set to `value`.
template <builtin_element T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline pack<T> broadcast(compute_t<T> value) noexcept {
    return pack<T>(value);
}

/// Loads lanes<T> consecutive elements from `source` (any alignment). A narrow float is widened exactly to float:
/// float16 by F16C or AVX-512F where the compiler targets it, bfloat16 by integer shifts (SSE2, AVX2, AVX-512F) —
/// kernel::load_halves, the name of the 16-bit floats' loads.
template <builtin_element T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline pack<T> load(const T* source) noexcept {
    using P = pack<T>;
    if constexpr (narrow_float<T>) return kernel::load_halves<P>(source, isa_of<P>{});
    else return kernel::load<P>(source, isa_of<P>{});
}

/// Stores the lanes of `value` to lanes<T> consecutive elements at `destination` (any alignment).
/// A narrow float is rounded once, to nearest even (NaN stays NaN, overflow gives ±inf, subnormals are kept): the
/// same bits as its scalar conversion on every instruction set.
template <builtin_element T>
[[TENSOROPS_ALWAYS_INLINE]] inline void store(T* destination, const pack<T>& value) noexcept {
    using P = pack<T>;
    if constexpr (narrow_float<T>) kernel::store_halves(destination, value, isa_of<P>{});
    else kernel::store(destination, value, isa_of<P>{});
}

/// Loads `count` (< lanes<T>) elements into the low lanes and `fill` into the others. Reads nothing past
/// source[count - 1]: a masked load (AVX-512: 32- and 64-bit lanes, with AVX-512BW 8- and 16-bit lanes too; AVX2:
/// 32- and 64-bit lanes; AVX2 8- and 16-bit lanes, float16 with F16C or AVX-512F and bfloat16 with AVX2 or AVX-512F:
/// detail::load_bytes_partial; SSE2 every lane type but float16's and bfloat16's, and bfloat16 with SSE4.1:
/// detail::load_low_bytes), else through an array (a store-forwarding stall per load, and narrow lanes filled one by
/// one: the last resort — float16 without F16C, the scalar build).
template <builtin_element T>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline pack<T> load_partial(const T* source, std::size_t count,
                                                                   compute_t<T> fill) noexcept {
    using P = pack<T>;
    if constexpr (narrow_float<T>) return kernel::load_halves_partial<P>(source, count, fill, isa_of<P>{});
    else return kernel::load_partial<P>(source, count, fill, isa_of<P>{});
}

/// Stores the low `count` (≤ lanes<T>) lanes; writes nothing past destination[count - 1]. A masked store (AVX-512: 32-
/// and 64-bit lanes, with AVX-512BW 8- and 16-bit lanes too), plain stores of the low bytes (SSE2, AVX2:
/// detail::store_low_bytes), else lane by lane through an array (float16 and bfloat16, through their conversions;
/// the scalar build).
template <builtin_element T>
[[TENSOROPS_ALWAYS_INLINE]] inline void store_partial(T* destination, const pack<T>& value,
                                                      std::size_t count) noexcept {
    using P = pack<T>;
    if constexpr (narrow_float<T>) kernel::store_partial<P>(destination, value, count, isa::portable{});
    else kernel::store_partial<P>(destination, value, count, isa_of<P>{});
}

/// load_partial and store_partial with the count fixed at compile time (a kernel specialised for one row width): the
/// same values and the same bytes touched; where the instruction set masks its partial accesses (AVX-512) and the
/// count's bytes fit 16, plain loads and stores instead (kernel::load_low_partial, store_low_partial: a masked access
/// that misses the cache stalls on some x86 cores; with the count a constant the plain composition has no branch).
namespace kernel {  // the names for every build; an instruction set with plain forms overloads them (x86/avx512.hpp)
struct no_low_partial {};
template <class P> void load_low_partial(no_low_partial) = delete;
template <class P> void store_low_partial(no_low_partial) = delete;
}  // namespace kernel

template <builtin_element T, std::size_t Count>
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline pack<T> load_partial(const T* source, std::integral_constant<std::size_t, Count>,
                                                                   compute_t<T> fill) noexcept {
    using P = pack<T>;
    if constexpr (Count * sizeof(T) <= 16 && requires { kernel::load_low_partial<P>(source, Count, fill, isa_of<P>{}); })
        return kernel::load_low_partial<P>(source, Count, fill, isa_of<P>{});
    else return load_partial(source, Count, fill);
}

template <builtin_element T, std::size_t Count>
[[TENSOROPS_ALWAYS_INLINE]] inline void store_partial(T* destination, const pack<T>& value,
                                                      std::integral_constant<std::size_t, Count>) noexcept {
    using P = pack<T>;
    if constexpr (Count * sizeof(T) <= 16 && requires { kernel::store_low_partial<P>(destination, value, Count, isa_of<P>{}); })
        kernel::store_low_partial<P>(destination, value, Count, isa_of<P>{});
    else store_partial(destination, value, Count);
}

// The vocabulary continues in widen.hpp (8- and 16-bit integers in 32-bit lanes) and select.hpp (lane-wise
// selection and tests), which this header includes at its end: include pack.hpp.

}  // namespace tensorops::simd

#include "widen.hpp"
#include "select.hpp"
