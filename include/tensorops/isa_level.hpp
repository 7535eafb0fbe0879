// tensorops/isa_level.hpp — which instruction set the operators' kernels run on, and forcing one.
//
// Header-only (the default), the kernels are compiled into the consumer's code for the instruction set its compiler
// targets (-march): the level is fixed when the program is built. Compiled (the tensorops::compiled target, which
// defines TENSOROPS_COMPILED=1), the library holds the kernels of every built-in element type compiled three times —
// for x86-64 (SSE2), x86-64-v3 (AVX2, FMA, F16C) and x86-64-v4 (AVX-512 F/BW/CD/DQ/VL) — and runs the best level the
// CPU runs, chosen once, before the first operator call (or by the environment variable TENSOROPS_ISA=sse2|avx2|avx512,
// read once then), whatever flags the consumer was compiled with. The results are the bits a header-only build for
// that level gives. Every translation unit of a program uses one mode.
#pragma once

#include <string>
#include <string_view>

#include "core/error.hpp"
#include "simd/config.hpp"

#ifndef TENSOROPS_COMPILED
#define TENSOROPS_COMPILED 0
#endif

namespace tensorops {

/// An instruction-set level of the kernels: `scalar` one lane at a time (a build without xsimd, or not for x86),
/// `sse2` 16-byte registers (x86-64), `avx2` 32-byte registers with FMA and F16C (x86-64-v3), `avx512` 64-byte
/// registers with AVX-512 F/BW/CD/DQ/VL (x86-64-v4).
enum class isa_level { scalar, sse2, avx2, avx512 };

/// The level's name as TENSOROPS_ISA spells it: "scalar", "sse2", "avx2", "avx512" ("unknown" for a value outside
/// the enumeration).
[[nodiscard]] constexpr std::string_view isa_level_name(isa_level level) noexcept {
    switch (level) {
        case isa_level::scalar: return "scalar";
        case isa_level::sse2: return "sse2";
        case isa_level::avx2: return "avx2";
        case isa_level::avx512: return "avx512";
    }
    return "unknown";
}

/// The level a header-only build's kernels have: the highest one whose every instruction-set extension this
/// translation unit's compiler targets (the -march it was given), `scalar` without xsimd or off x86.
inline constexpr isa_level static_isa_level =
#if !TENSOROPS_HAS_XSIMD || !(defined(__x86_64__) && defined(__SSE2__))
    isa_level::scalar;
#elif defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512CD__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
    isa_level::avx512;
#elif defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
    isa_level::avx2;
#else
    isa_level::sse2;
#endif

namespace detail {
isa_level compiled_active_isa_level();
void compiled_set_isa_level(isa_level level);
isa_level compiled_cpu_isa_level() noexcept;
}  // namespace detail

/// The level the operators' kernels run on. Header-only: static_isa_level. Compiled: the level chosen at the first
/// call of an operator or of this function — TENSOROPS_ISA's if the environment sets it, otherwise the best level the
/// CPU runs (cpu_isa_level) — or the one set_isa_level set since.
/// Errors (compiled, when the choice is made here): tensorops::error if TENSOROPS_ISA names no level, or a level the
/// CPU does not run (the message names it); the next call tries again.
[[nodiscard]] inline isa_level active_isa_level() {
    if constexpr (TENSOROPS_COMPILED != 0) return detail::compiled_active_isa_level();
    else return static_isa_level;
}

/// Runs the operator calls that start after it on `level`'s kernels, in every thread (calls already running finish
/// on theirs). Compiled: any of sse2, avx2, avx512 that the CPU runs. Header-only: only static_isa_level (nothing
/// changes).
/// Errors: tensorops::error naming the level if it is not one the mode can run (compiled: scalar, a value outside
/// the enumeration, or a level the CPU does not run; header-only: any other than static_isa_level). Nothing changes
/// then.
inline void set_isa_level(isa_level level) {
    if constexpr (TENSOROPS_COMPILED != 0) {
        detail::compiled_set_isa_level(level);
    } else if (level != static_isa_level) {
        throw error("set_isa_level", "level",
                    std::string("is ").append(isa_level_name(level)) + ", but this header-only build's kernels are " +
                        std::string(isa_level_name(static_isa_level)) +
                        "'s (the instruction set it was compiled for): link tensorops::compiled to choose at run time");
    }
}

/// The best level this program can run on this CPU. Compiled: avx512, avx2 or sse2, read from CPUID and XGETBV
/// (instructions and the operating system's saved register state). Header-only: static_isa_level.
[[nodiscard]] inline isa_level cpu_isa_level() noexcept {
    if constexpr (TENSOROPS_COMPILED != 0) return detail::compiled_cpu_isa_level();
    else return static_isa_level;
}

}  // namespace tensorops
