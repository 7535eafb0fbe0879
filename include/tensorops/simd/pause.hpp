// tensorops/simd/pause.hpp — the instruction a spinning thread waits with. Includes nothing of the library, so that any
// layer (exec/spin_wait.hpp) can use it.
#pragma once

#if defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#include <intrin.h>
#endif

namespace tensorops::simd {

/// Tells the CPU that this thread is spinning (x86 PAUSE, Arm YIELD): the loop backs off and its sibling
/// hyperthread runs faster. Does nothing elsewhere.
inline void spin_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
    _mm_pause();
#elif defined(__aarch64__) || defined(__arm__)
    asm volatile("yield");
#endif
}

}  // namespace tensorops::simd
