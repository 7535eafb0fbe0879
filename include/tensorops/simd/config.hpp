// tensorops/simd/config.hpp — whether the vector paths exist (xsimd_compat.hpp decides), and the inlining attribute of
// kernels' per-vector steps (core/inline.hpp).
#pragma once

#include "../core/inline.hpp"  // TENSOROPS_INLINE_STEP: a kernel's per-vector step, always inlined where optimised
#include "xsimd_compat.hpp"

namespace tensorops::simd {

/// True when the vector paths are compiled in (xsimd found and not disabled).
inline constexpr bool vectorized = TENSOROPS_HAS_XSIMD != 0;

}  // namespace tensorops::simd
