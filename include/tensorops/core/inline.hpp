// tensorops/core/inline.hpp — the library's inlining attributes, which only an optimising build gets.
//
// Kernels are written as small functions and lambdas (a vector step, an unrolled statement, a wrapper of one
// instruction) that must become one loop body: an optimising build forces them inline, because a call per vector, or
// accumulators reloaded through memory around it, would cost more than the step (GCC 12 -O2 compiled a lambda called
// from two or three sites as a function called once per vector, its captures reloaded at every call:
// bench/journal/notes-simd-and-iter.md). An unoptimised build (-O0: debug builds, the sanitised tests) gains nothing
// from that — it keeps every value in memory anyway — and pays for it in compile time and compiler memory: each forced
// call site is a copy of its callee, so the nested, unrolled steps of a kernel multiply into code the compiler must
// instrument and translate. There the attributes are left out.
//
//   [[TENSOROPS_ALWAYS_INLINE]] inline P add(const P& a, const P& b);     // a function: inside the attribute list
//   [&](auto k) TENSOROPS_INLINE_STEP { … }                                // a lambda: after its parameters
//
// The functions under a target attribute (simd/x86/avx512_on_avx2.hpp, ops/detail/log_sum_exp/avx512.hpp) keep
// gnu::always_inline in every build: a handful, compiled only where the build targets AVX2 without AVX-512.
#pragma once

// TENSOROPS_FORCE_INLINE: 1 to force the kernels' steps inline, 0 not to; by default 1 where the build optimises.
#ifndef TENSOROPS_FORCE_INLINE
#if defined(__OPTIMIZE__)
#define TENSOROPS_FORCE_INLINE 1
#else
#define TENSOROPS_FORCE_INLINE 0
#endif
#endif

#if TENSOROPS_FORCE_INLINE && (defined(__GNUC__) || defined(__clang__))
#define TENSOROPS_ALWAYS_INLINE gnu::always_inline
#define TENSOROPS_INLINE_STEP __attribute__((always_inline))
#else
#define TENSOROPS_ALWAYS_INLINE
#define TENSOROPS_INLINE_STEP
#endif
