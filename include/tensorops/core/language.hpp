// tensorops/core/language.hpp — the language level the headers need: C++20 or later.
//
// Stated here, where the compiler reads it first, rather than forced by a flag: a build system's flag (a -std in a
// pkg-config Cflags) would come after the consumer's own and could pull a C++23 program back to C++20. CMake
// consumers get the minimum from the target (compile feature cxx_std_20, a minimum, never a cap).
#pragma once

#if defined(_MSVC_LANG)
#define TENSOROPS_CPLUSPLUS _MSVC_LANG  // MSVC reports 199711L in __cplusplus unless /Zc:__cplusplus
#else
#define TENSOROPS_CPLUSPLUS __cplusplus
#endif

#if TENSOROPS_CPLUSPLUS < 202002L
#error "tensorops needs C++20 or later: compile with -std=c++20 (or a later standard)"
#endif
#undef TENSOROPS_CPLUSPLUS
