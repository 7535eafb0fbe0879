// tensorops/simd/config.hpp — decides, at compile time, whether the vector paths exist.
//
// xsimd is used when its header is reachable and the consumer has not defined TENSOROPS_NO_XSIMD.
// The register width is whatever the consumer's compiler targets (-march): the library never forces an
// instruction set. Without xsimd every `pack` is one lane wide and the same kernels run as scalar code.
#pragma once

#if !defined(TENSOROPS_NO_XSIMD) && __has_include(<xsimd/xsimd.hpp>)
#include <xsimd/xsimd.hpp>
#define TENSOROPS_HAS_XSIMD 1
#else
#define TENSOROPS_HAS_XSIMD 0
#endif

#if TENSOROPS_HAS_XSIMD && (defined(__x86_64__) || defined(_M_X64) || defined(__i386__))
#include <immintrin.h>
#define TENSOROPS_X86_INTRINSICS 1
#else
#define TENSOROPS_X86_INTRINSICS 0
#endif

// Whether simd::fms is one instruction, rounded once (x86 with FMA, 64-bit Arm), or a multiply and a subtract
// rounded twice (x86-64 baseline): kernels that need a product's exact rounding error choose their formula by it.
#if TENSOROPS_HAS_XSIMD && (defined(__FMA__) || defined(__aarch64__))
#define TENSOROPS_FUSED_MULTIPLY_ADD 1
#else
#define TENSOROPS_FUSED_MULTIPLY_ADD 0
#endif

// A kernel's per-vector step written as a lambda (`[&](…) TENSOROPS_INLINE_STEP { … }`): GCC 12 -O2 may compile a
// lambda called from two or three sites as a function called once per vector, its captures reloaded through memory
// at every call — a call and a reload per vector in the kernel's hottest loop (the figures:
// bench/journal/notes-simd-and-iter.md). Only where the compiler optimises: unoptimised (sanitised) builds inline
// nothing else, and forcing these there only makes them slower to compile.
#if defined(__OPTIMIZE__) && (defined(__GNUC__) || defined(__clang__))
#define TENSOROPS_INLINE_STEP __attribute__((always_inline))
#else
#define TENSOROPS_INLINE_STEP
#endif

namespace tensorops::simd {

/// True when the vector paths are compiled in (xsimd found and not disabled).
inline constexpr bool vectorized = TENSOROPS_HAS_XSIMD != 0;

}  // namespace tensorops::simd
