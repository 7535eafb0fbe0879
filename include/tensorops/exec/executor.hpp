// tensorops/exec/executor.hpp — how an operator runs its work on several threads: the `executor` concept, the
// sequential executor (the default of every operator), and the type-erased reference the kernels receive.
//
// Every operator has an overload taking an executor first, as the standard algorithms take an execution policy:
//     tensorops::thread_pool pool(2);
//     tensorops::reduce(pool, x, y, tensorops::reduce_function::sum, {1});
// The result is bit-identical whatever the executor and its number of threads: work is cut into pieces whose
// arithmetic does not depend on how many there are (see exec/split.hpp), never into per-thread partial results.
//
// Failures. When a piece throws (a user type's +, <, copy, a cumulative_scan's operation) or the executor itself
// throws (before, between or after running pieces), the operator lets the exception propagate unchanged once the
// running pieces have ended: every piece writes only the output elements it owns, holds nothing it must release and
// waits only for pieces that start before it, so nothing outside the output is written, nothing leaks, nothing waits
// for ever, and the executor (a thread_pool included) stays usable. The output's contents are then unspecified: any
// mix of old values, final values and partial results.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <thread>
#include <type_traits>
#include <utility>

namespace tensorops {

/// A non-owning reference to the work of a parallel_for: task(i) does piece i. Cheap to copy; valid while the
/// parallel_for that received it runs.
class task_ref {
public:
    template <class F>
        requires(!std::same_as<std::remove_cvref_t<F>, task_ref> && std::invocable<const F&, std::size_t>)
    task_ref(const F& function) noexcept  // NOLINT(google-explicit-constructor): a parameter type, like function_ref
        : object_(static_cast<const void*>(&function)),
          call_([](const void* object, std::size_t index) { (*static_cast<const F*>(object))(index); }) {}

    void operator()(std::size_t index) const { call_(object_, index); }

private:
    const void* object_;
    void (*call_)(const void*, std::size_t);
};

/// Memory traffic (bytes read + written) below which a piece of work is not worth handing to another thread:
/// the default of every executor: a piece takes several times longer to stream than a parallel_for's hand-over costs
/// (the figures: bench/journal/notes-reduce-and-log-sum-exp.md).
inline constexpr std::size_t default_min_piece_bytes = std::size_t{256} << 10;

/// Something that runs the pieces of a job, perhaps concurrently: `e.parallel_for(count, task)` calls task(i)
/// exactly once for every i in [0, count), in any order and on any threads, and returns when every call has
/// returned. If calls throw, parallel_for throws one of their exceptions once the others have returned (pieces
/// not yet started may be skipped). Optional, none of them ever changes a result:
/// `e.concurrency()`, how many pieces can run at once (otherwise std::thread::hardware_concurrency());
/// `e.min_piece_bytes()`, the least memory traffic worth a piece (otherwise default_min_piece_bytes);
/// `e.claims_in_order()`, true if parallel_for starts pieces in increasing index order and runs each started
/// piece to its end while later ones are started elsewhere — so a piece may wait for an earlier one (the long
/// scans then read their input once instead of twice: ops/detail/scan/blocked.hpp). Otherwise false. A pool
/// that may postpone a started piece (work stealing that parks it, a single thread running pieces out of order)
/// must not claim it: a piece would wait for ever.
/// tensorops::thread_pool, tensorops::sequential, or an adapter of a host's pool (TBB, OpenMP, a job system).
template <class E>
concept executor = requires(E& e, std::size_t count, task_ref task) { e.parallel_for(count, task); };

/// Runs every piece in order on the calling thread. The default of every operator.
struct sequential_executor {
    template <class Task>
    void parallel_for(std::size_t count, const Task& task) const {
        for (std::size_t i = 0; i < count; ++i) task(i);
    }
    [[nodiscard]] static constexpr std::size_t concurrency() noexcept { return 1; }
    [[nodiscard]] static constexpr bool claims_in_order() noexcept { return true; }
};

inline constexpr sequential_executor sequential{};

/// An executor seen through one type, so the kernels are compiled once whatever executor the caller passes.
class executor_ref {
public:
    template <executor E>
        requires(!std::same_as<std::remove_cvref_t<E>, executor_ref>)
    executor_ref(E& e) noexcept  // NOLINT(google-explicit-constructor)
        : object_(const_cast<void*>(static_cast<const void*>(&e))),
          run_([](void* object, std::size_t count, task_ref task) { static_cast<E*>(object)->parallel_for(count, task); }),
          concurrency_(concurrency_of(e)),
          min_piece_bytes_(min_piece_bytes_of(e)),
          claims_in_order_(claims_in_order_of(e)) {}

    /// Runs task(0) … task(count − 1) through the executor (inline, without it, when there is one piece).
    void parallel_for(std::size_t count, task_ref task) const {
        if (count == 1) task(0);
        else if (count > 1) run_(object_, count, task);
    }
    [[nodiscard]] std::size_t concurrency() const noexcept { return concurrency_; }
    [[nodiscard]] std::size_t min_piece_bytes() const noexcept { return min_piece_bytes_; }
    [[nodiscard]] bool claims_in_order() const noexcept { return claims_in_order_; }

private:
    template <class E>
    static bool claims_in_order_of(E& e) {
        if constexpr (requires { e.claims_in_order(); }) return static_cast<bool>(e.claims_in_order());
        else return false;
    }

    template <class E>
    static std::size_t min_piece_bytes_of(E& e) {
        if constexpr (requires { e.min_piece_bytes(); }) return std::max<std::size_t>(1, static_cast<std::size_t>(e.min_piece_bytes()));
        else return default_min_piece_bytes;
    }

    template <class E>
    static std::size_t concurrency_of(E& e) {
        std::size_t n;
        if constexpr (requires { e.concurrency(); }) n = static_cast<std::size_t>(e.concurrency());
        else n = std::thread::hardware_concurrency();
        return n == 0 ? 1 : n;
    }

    void* object_;
    void (*run_)(void*, std::size_t, task_ref);
    std::size_t concurrency_;
    std::size_t min_piece_bytes_;
    bool claims_in_order_;
};

}  // namespace tensorops
