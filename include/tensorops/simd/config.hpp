// tensorops/simd/config.hpp — whether the vector paths exist (xsimd_compat.hpp decides), and the inlining attribute of
// kernels' per-vector steps.
#pragma once

#include "xsimd_compat.hpp"

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
