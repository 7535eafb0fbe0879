// tensorops/simd/cpu_profile.hpp — the library's CPU-specific choices, all of them: what it does differently depending
// on the CPU the program runs on (read once, from CPUID: cpu.hpp). Speed settings only — every result has the same bits
// either way (the tests compare them) — and each can be forced for the calls that start after it, in every thread.
//
// Each comes with its reason and the journal entries that measured it. A choice by CPU family (rather than by what the
// CPU can run) lives here only if it was measured to pay on more than one machine this project has run on:
//   1. line_hints_pay — the streaming kernels' per-line prefetch hints, on for AMD CPUID family 0x1A, off elsewhere:
//      whether the hardware prefetchers alone keep far enough ahead of a stream is the microarchitecture's property;
//      forced off they cost log-sum-exp and argmax much of their speed on both family-0x1A machines, and forced on
//      they cost a family-0x19 machine (bench/journal/2026-11-27.md, 2026-11-28-house-ab.md, line hints at 20:18;
//      2026-11-28-zen4.md, 04:20).
//   2. avx512_kernels_run — log-sum-exp's two term loops on 512-bit registers in builds whose registers are AVX2's,
//      where the CPU runs AVX-512F (x86/avx512_on_avx2.hpp): those loops are bound by their arithmetic, and 512-bit
//      registers do it in half the instructions even where the CPU splits them into halves
//      (bench/journal/2026-11-28-zen4.md, 07:15; notes-reduce-and-log-sum-exp.md, "Why the 512-bit term loops").
#pragma once

#include <atomic>

#include "cpu.hpp"

namespace tensorops::simd {

/// The setting of the streaming kernels' line hints (set_line_hints): chosen by the CPU (automatic), or forced.
enum class line_hints { automatic, on, off };

/// The setting of the kernels that have an AVX-512 version (set_avx512_kernels): run where the CPU has it
/// (automatic), or never.
enum class avx512_kernels { automatic, off };

namespace detail {
inline std::atomic<line_hints> line_hint_setting{line_hints::automatic};
inline std::atomic<avx512_kernels> avx512_kernel_setting{avx512_kernels::automatic};
}  // namespace detail

/// Sets whether the streaming kernels hint their lines (line_hints_pay) for the calls that start after it, in every
/// thread: automatic (the default: by the CPU), on or off. A speed setting only: every result is the same either way.
inline void set_line_hints(line_hints setting) noexcept { detail::line_hint_setting.store(setting, std::memory_order_relaxed); }

/// Whether the streaming kernels hint every line they will read some way ahead (the inner reduce kernel, its short-row
/// log-sum-exp and its short rows read one by one, argmax's stretches), besides the page hints that every streaming kernel gives. A tuning choice, never a
/// result's: by default read once from the CPU the program runs on (set_line_hints overrides it).
///
/// Why by CPU: the same hints pay on one core and cost on another, by a lot — whether the hardware prefetchers alone
/// keep far enough ahead of a stream is a property of the microarchitecture, not of the kernel. The automatic setting
/// turns them on for one CPUID family, 0x1A (amd_family_is), the only one on which they were measured to pay, and off
/// on every other CPU, measured or not (above; and bench/journal/notes-simd-and-iter.md).
[[nodiscard]] inline bool line_hints_pay() noexcept {
    switch (detail::line_hint_setting.load(std::memory_order_relaxed)) {
        case line_hints::on: return true;
        case line_hints::off: return false;
        case line_hints::automatic: break;
    }
    static const bool pay = amd_family_is(0x1Au);
    return pay;
}

/// Sets whether the kernels that have an AVX-512 version use it (where the CPU has it) for the calls that start after
/// it, in every thread. A speed setting only: those versions give the same bits as the kernels they stand for.
inline void set_avx512_kernels(avx512_kernels setting) noexcept {
    detail::avx512_kernel_setting.store(setting, std::memory_order_relaxed);
}

/// Whether a kernel with an AVX-512 version runs it: the CPU runs AVX-512F (read once, cpu_runs_avx512f) and
/// set_avx512_kernels has not said off. (Whether the version exists at all is the build's: TENSOROPS_AVX512_KERNELS,
/// x86/avx512_on_avx2.hpp.)
[[nodiscard]] inline bool avx512_kernels_run() noexcept {
    static const bool cpu = cpu_runs_avx512f();
    return cpu && detail::avx512_kernel_setting.load(std::memory_order_relaxed) == avx512_kernels::automatic;
}

}  // namespace tensorops::simd
