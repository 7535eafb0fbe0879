// tensorops/simd/cpu.hpp — what the CPU the program runs on is, for tuning choices that differ by microarchitecture
// (simd::line_hints_pay); never for a result, and never for which instructions run (that is the compiler's target).
#pragma once

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>
#define TENSOROPS_HAS_CPUID 1
#else
#define TENSOROPS_HAS_CPUID 0
#endif

namespace tensorops::simd {

/// Whether the CPU this runs on is an AMD one of CPUID family `family` (base family plus extended family, as AMD counts
/// them: 0x19 for Zen 3 and Zen 4, 0x1A for Zen 5). False off x86 or without the compiler's <cpuid.h>.
[[nodiscard]] inline bool amd_family_is(unsigned family) noexcept {
#if TENSOROPS_HAS_CPUID
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(0, &a, &b, &c, &d) == 0) return false;
    const bool amd = b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u;  // "Auth" "enti" "cAMD"
    if (!amd || __get_cpuid(1, &a, &b, &c, &d) == 0) return false;
    const unsigned base = (a >> 8) & 0xFu, extended = (a >> 20) & 0xFFu;
    return (base == 0xFu ? base + extended : base) == family;
#else
    (void)family;
    return false;
#endif
}

}  // namespace tensorops::simd
