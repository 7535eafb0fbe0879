// tensorops/simd/cpu.hpp — what the CPU the program runs on is and can do: for tuning choices that differ by
// microarchitecture (simd::line_hints_pay), and for the few kernels that have a wider version to run where the CPU has
// AVX-512 and the build targets less (simd::avx512_kernels_run). Never for a result: each such version gives the same
// bits as the kernel it stands for.
#pragma once

#include <atomic>

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

/// The setting of the kernels that have an AVX-512 version (set_avx512_kernels): run where the CPU has it
/// (automatic), or never.
enum class avx512_kernels { automatic, off };

namespace detail {
inline std::atomic<avx512_kernels> avx512_kernel_setting{avx512_kernels::automatic};
}  // namespace detail

/// Sets whether the kernels that have an AVX-512 version use it (where the CPU has it) for the calls that start after
/// it, in every thread. A speed setting only: those versions give the same bits as the kernels they stand for.
inline void set_avx512_kernels(avx512_kernels setting) noexcept {
    detail::avx512_kernel_setting.store(setting, std::memory_order_relaxed);
}

/// Whether a kernel with an AVX-512 version runs it: the CPU runs AVX-512F (read once, cpu_runs_avx512f) and
/// set_avx512_kernels has not said off. (Whether the version exists at all is the build's: see
/// ops/detail/log_sum_exp/avx512.hpp.)
[[nodiscard]] inline bool avx512_kernels_run() noexcept {
    static const bool cpu = cpu_runs_avx512f();
    return cpu && detail::avx512_kernel_setting.load(std::memory_order_relaxed) == avx512_kernels::automatic;
}

}  // namespace tensorops::simd
