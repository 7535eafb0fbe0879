// tensorops/exec/spin_wait.hpp — waiting for a flag another piece of the same job sets within microseconds.
#pragma once

#include <atomic>

#if defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#include <intrin.h>
#endif

namespace tensorops::detail {

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

/// Pause-separated checks a waiter makes before it sleeps: ~78 µs on the Zen 5 guest (longer on cores with a slower
/// PAUSE).
inline constexpr int spin_checks = 4096;

/// Checks `done()` up to spin_checks times with a pause between them; true as soon as it holds, false if it never did.
/// Never yields: a spinning thread that yields stays runnable in its core's queue, and on the Zen 5 guest the pool's
/// worker then missed whole calls (its core busy with another thread, it was not moved to the idle one for
/// milliseconds) where a sleeping one is woken on an idle core.
template <class Predicate>
[[nodiscard]] bool spin_until(const Predicate& done) noexcept(noexcept(done())) {
    for (int i = 0; i < spin_checks; ++i) {
        if (done()) return true;
        spin_pause();
    }
    return false;
}

/// Returns once `flag` is true (acquire: what its setter wrote before a release store is visible). Spins first —
/// the pieces that wait (ops/detail/scan/blocked.hpp) wait for the piece just before them, a few microseconds from setting
/// it, and sleeping in atomic::wait cost every hand-over a futex wake-up: one line of 64 MiB on two threads (512
/// blocks) slept ~30 times a call, 3.6–3.7 ms, against 3.4–3.5 spinning; rows scanned across slept ~100 times,
/// 4.8–5.0 ms against 4.2–4.3 (Zen 5 guest, best of 10). After spin_checks checks (a 512 KiB scan block takes
/// ~50 µs on one of two threads) — more threads than cores, or a slow piece before — it sleeps in atomic::wait.
inline void wait_until_set(const std::atomic<bool>& flag) noexcept {
    if (spin_until([&] { return flag.load(std::memory_order_acquire); })) return;
    while (!flag.load(std::memory_order_acquire)) flag.wait(false, std::memory_order_acquire);
}

}  // namespace tensorops::detail
