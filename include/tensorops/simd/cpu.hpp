// tensorops/simd/cpu.hpp — what the CPU the program runs on is and can do, read from CPUID: the questions the CPU
// profile (cpu_profile.hpp) and the compiled library's dispatch (src/dispatch.cpp) ask. Never for a result.
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

/// The extended state components (XCR0 bits) the operating system saves, read by xgetbv; 0 where CPUID says it has not
/// enabled XSAVE (OSXSAVE clear: no vector state beyond SSE is usable, and xgetbv would fault). 0 off x86-64.
[[nodiscard]] inline unsigned long long os_saved_vector_state() noexcept {
#if TENSOROPS_HAS_CPUID && defined(__x86_64__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & (1u << 27)) == 0) return 0;  // OSXSAVE
    unsigned low = 0, high = 0;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0u));
    return (static_cast<unsigned long long>(high) << 32) | low;
#else
    return 0;
#endif
}

/// Whether the CPU runs everything GCC and Clang may emit for -march=x86-64-v3, and the OS keeps the YMM registers:
/// CPUID's AVX, AVX2, BMI1, BMI2, FMA, F16C, LZCNT, MOVBE (and the v2 set: CMPXCHG16B, LAHF-SAHF, POPCNT, SSE3 to
/// SSE4.2), and XCR0's SSE and AVX state bits. False off x86-64 or without the compiler's <cpuid.h>.
[[nodiscard]] inline bool cpu_runs_x86_64_v3() noexcept {
#if TENSOROPS_HAS_CPUID && defined(__x86_64__)
    constexpr unsigned long long ymm_state = 0x2u | 0x4u;  // SSE, AVX
    if ((os_saved_vector_state() & ymm_state) != ymm_state) return false;
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) == 0) return false;
    // SSE3, SSSE3, FMA, CMPXCHG16B, SSE4.1, SSE4.2, MOVBE, POPCNT, AVX, F16C
    constexpr unsigned leaf1_c = (1u << 0) | (1u << 9) | (1u << 12) | (1u << 13) | (1u << 19) | (1u << 20) | (1u << 22) |
                                 (1u << 23) | (1u << 28) | (1u << 29);
    if ((c & leaf1_c) != leaf1_c) return false;
    if (__get_cpuid(0x80000001u, &a, &b, &c, &d) == 0) return false;
    constexpr unsigned extended_c = (1u << 0) | (1u << 5);  // LAHF-SAHF, LZCNT (ABM)
    if ((c & extended_c) != extended_c) return false;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
    constexpr unsigned leaf7_b = (1u << 3) | (1u << 5) | (1u << 8);  // BMI1, AVX2, BMI2
    return (b & leaf7_b) == leaf7_b;
#else
    return false;
#endif
}

/// Whether the CPU runs everything GCC and Clang may emit for -march=x86-64-v4, and the OS keeps the ZMM registers:
/// x86-64-v3 (cpu_runs_x86_64_v3), CPUID's AVX-512 F, BW, CD, DQ and VL, and XCR0's opmask and both upper-ZMM state
/// bits. False off x86-64 or without the compiler's <cpuid.h>.
[[nodiscard]] inline bool cpu_runs_x86_64_v4() noexcept {
#if TENSOROPS_HAS_CPUID && defined(__x86_64__)
    if (!cpu_runs_x86_64_v3()) return false;
    constexpr unsigned long long zmm_state = 0x2u | 0x4u | 0x20u | 0x40u | 0x80u;  // SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM
    if ((os_saved_vector_state() & zmm_state) != zmm_state) return false;
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
    constexpr unsigned leaf7_b = (1u << 16) | (1u << 17) | (1u << 28) | (1u << 30) | (1u << 31);  // F, DQ, CD, BW, VL
    return (b & leaf7_b) == leaf7_b;
#else
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
