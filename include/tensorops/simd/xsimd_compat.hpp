// tensorops/simd/xsimd_compat.hpp — the one place that includes xsimd and names the parts of it that differ between
// its versions.
//
// xsimd is used when its header is reachable and the consumer has not defined TENSOROPS_NO_XSIMD; without it every
// register is one lane wide (scalar.hpp) and the same kernels run as scalar code. The register width is whatever the
// consumer's compiler targets (-march): the library never forces an instruction set.
//
// What this file vouches for, and the rest of simd/ relies on: xsimd's batch and batch_bool with their arch_type and
// register_type, their arithmetic, comparisons and conversions to and from the raw register, and the functions simd/
// calls by name (load_unaligned, select, bitwise_cast, fma, …). The architecture types are read here only: which tag
// a register takes (register_isa) and whether it fuses a multiply and an add (fuses_multiply_add). An adaptation
// layer for other xsimd versions (8.1 through 14, keyed on XSIMD_VERSION_MAJOR: renamed architectures, changed
// signatures) belongs in this file and nowhere else.
#pragma once

#include <cstddef>
#include <type_traits>

#include "isa.hpp"

#if !defined(TENSOROPS_NO_XSIMD) && __has_include(<xsimd/xsimd.hpp>)
#include <xsimd/xsimd.hpp>
#define TENSOROPS_HAS_XSIMD 1

namespace tensorops::simd::xsimd_compat {

/// Whether xsimd architecture A is an x86 one (xsimd 8.1: every x86 architecture derives from sse2, avx or avx512f).
template <class A>
inline constexpr bool is_x86 =
    std::is_base_of_v<xsimd::sse2, A> || std::is_base_of_v<xsimd::avx, A> || std::is_base_of_v<xsimd::avx512f, A>;

/// The tag (isa.hpp) of xsimd register P: by its width and the architecture it was built for.
template <class P, class A = typename P::arch_type, std::size_t Bytes = sizeof(typename P::register_type)>
using register_isa = std::conditional_t<
    Bytes == 64 && std::is_base_of_v<xsimd::avx512bw, A>, isa::avx512bw,
    std::conditional_t<
        Bytes == 64 && std::is_base_of_v<xsimd::avx512f, A>, isa::avx512,
        std::conditional_t<Bytes == 32 && std::is_base_of_v<xsimd::avx2, A>, isa::avx2,
                           std::conditional_t<Bytes == 16 && std::is_base_of_v<xsimd::sse4_1, A>, isa::sse41,
                                              std::conditional_t<Bytes == 16 && std::is_base_of_v<xsimd::sse2, A>, isa::sse2,
                                                                 std::conditional_t<is_x86<A>, isa::x86, isa::generic>>>>>>;

/// Whether xsimd's fma and fms on register P are one instruction, rounded once: x86 with FMA (xsimd 8.1's fma3
/// architectures; AVX-512F has it) and 64-bit Arm.
template <class P, class A = typename P::arch_type>
inline constexpr bool fuses_multiply_add =
    std::is_base_of_v<xsimd::fma3<xsimd::sse4_2>, A> || std::is_base_of_v<xsimd::fma3<xsimd::avx>, A> ||
    std::is_base_of_v<xsimd::fma3<xsimd::avx2>, A> || std::is_base_of_v<xsimd::avx512f, A> || std::is_base_of_v<xsimd::neon64, A>;

}  // namespace tensorops::simd::xsimd_compat
#else
#define TENSOROPS_HAS_XSIMD 0
#endif
