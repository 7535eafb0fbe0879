// tensorops/simd/warnings.hpp — the warnings the files of simd/ (the only ones that call xsimd or intrinsics) turn off
// around their code, for the compilers that report false positives there.
//
// GCC up to 12 (at least): its AVX-512 intrinsics pass _mm512_undefined_*() — a variable initialised with itself — to
// the masked builtins behind the unmasked forms, and once such an intrinsic is inlined -Wuninitialized and
// -Wmaybe-uninitialized (both in -Wall) report it, inside xsimd's code and ours alike (GCC bug 105593): a consumer
// building with -march=x86-64-v4 -Wall -Werror would fail in the library's headers. GCC checks a warning against the
// diagnostic state of every location the code was inlined through, so each file of simd/ that calls xsimd or an
// intrinsic is written between TENSOROPS_SIMD_WARNINGS_BEGIN and TENSOROPS_SIMD_WARNINGS_END, which turn those two
// warnings off there, for GCC builds that target AVX-512F only. Everywhere else they stay on.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)
#define TENSOROPS_SIMD_WARNINGS_BEGIN                                  \
    _Pragma("GCC diagnostic push")                                     \
    _Pragma("GCC diagnostic ignored \"-Wuninitialized\"")              \
    _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
#define TENSOROPS_SIMD_WARNINGS_END _Pragma("GCC diagnostic pop")
#else
#define TENSOROPS_SIMD_WARNINGS_BEGIN
#define TENSOROPS_SIMD_WARNINGS_END
#endif
