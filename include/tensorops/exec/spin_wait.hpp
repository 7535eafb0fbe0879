// tensorops/exec/spin_wait.hpp — waiting for a flag another piece of the same job sets within microseconds.
#pragma once

#include <atomic>

#include "../simd/pause.hpp"

namespace tensorops::detail {

/// Pause-separated checks a waiter makes before it sleeps: longer than a scan block takes on one of two threads, so
/// that a waiter sleeps only when the piece before it is not running or slow. How long depends on the CPU's PAUSE,
/// whose length differs widely between CPUs.
inline constexpr int spin_checks = 4096;

/// Checks `done()` up to spin_checks times with a pause between them; true as soon as it holds, false if it never did.
/// Never yields: a spinning thread that yields stays runnable in its core's queue, where the scheduler may leave it
/// behind another thread for milliseconds rather than move it to an idle core (a pool worker then misses whole
/// calls), where a sleeping one is woken on an idle core.
template <class Predicate>
[[nodiscard]] bool spin_until(const Predicate& done) noexcept(noexcept(done())) {
    for (int i = 0; i < spin_checks; ++i) {
        if (done()) return true;
        simd::spin_pause();
    }
    return false;
}

/// Returns once `flag` is true (acquire: what its setter wrote before a release store is visible). Spins first —
/// the pieces that wait (ops/detail/scan/blocked.hpp) wait for the piece just before them, a few microseconds from
/// setting it, and sleeping in atomic::wait costs every hand-over a futex wake-up: long scans on two threads measured
/// slower sleeping than spinning (the figures: bench/journal/notes-reduce-and-log-sum-exp.md). After spin_checks checks
/// (longer than a scan block takes) — more threads than cores, or a slow piece before — it sleeps in atomic::wait.
inline void wait_until_set(const std::atomic<bool>& flag) noexcept {
    if (spin_until([&] { return flag.load(std::memory_order_acquire); })) return;
    while (!flag.load(std::memory_order_acquire)) flag.wait(false, std::memory_order_acquire);
}

}  // namespace tensorops::detail
