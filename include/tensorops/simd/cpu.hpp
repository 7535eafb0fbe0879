// tensorops/simd/cpu.hpp — what the CPU the program runs on is and can do, read from CPUID: the questions the CPU
// profile (cpu_profile.hpp) asks, and a future runtime dispatch would. Never for a result.
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

/// Whether the CPU runs AVX-512F instructions and the operating system keeps their registers: CPUID leaf 7's AVX512F
/// bit, and XCR0 (read by xgetbv where CPUID says the OS enabled it) with the SSE, AVX, opmask and both upper-ZMM state
/// bits set. False off x86 or without the compiler's <cpuid.h>.
[[nodiscard]] inline bool cpu_runs_avx512f() noexcept {
#if TENSOROPS_HAS_CPUID && defined(__x86_64__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & (1u << 27)) == 0) return false;  // OSXSAVE: xgetbv is there
    unsigned xcr0_low = 0, xcr0_high = 0;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0u));
    constexpr unsigned kept = 0x2u | 0x4u | 0x20u | 0x40u | 0x80u;  // SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM
    if ((xcr0_low & kept) != kept) return false;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
    return (b & (1u << 16)) != 0;  // AVX512F
#else
    return false;
#endif
}

}  // namespace tensorops::simd
