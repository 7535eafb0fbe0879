// tensorops/exec/thread_pool.hpp — a small pool of threads that is an executor (exec/executor.hpp).
//
// Algorithm. The pool owns threads − 1 workers; the thread calling parallel_for is the last one. A call
// publishes its job (count, task, a shared next-piece counter) in the pool's list of open jobs, wakes the
// workers, and works on it itself: every participant takes the next piece with one atomic increment until none is
// left, so pieces of uneven cost balance themselves. An idle worker joins the oldest open job that has pieces left.
// The call returns once every piece has run and every worker has let go of the job (the job lives on the caller's
// stack). The first exception a piece throws is kept, the pieces not yet started are skipped, and the caller
// rethrows it.
//
// Nesting and concurrent calls never deadlock. Every piece runs inside a scope, a node on the stack that names its
// pool and the scope its job was submitted from, so each thread knows the whole chain of pools (and jobs, on any
// threads) it is working for — the caller's chain travels with the job to the workers that help with it.
//   - A call on a pool already in the calling thread's chain (A inside A, A inside B inside A, … on the caller's
//     thread or a worker's, through executors of the user's that call the pool) runs its pieces inline, in order:
//     the pool's threads are already busy with the outer job, and that job waits for this call.
//   - Any other call (from an unrelated thread, or from inside another pool's piece, or from a thread of a host's
//     pool the chain cannot see) publishes its job beside the jobs in progress rather than waiting for them: it
//     holds no lock while it waits, and its caller can run every piece itself, so it ends even if every worker is
//     busy in a job that waits for it. Concurrent callers share the workers; none runs inline because of another.
// No call is refused. A piece still runs to its end on the thread that took it (claims_in_order).
// Waiting spins before it sleeps (exec/spin_wait.hpp): a worker after its job, for the next one, and the caller
// for the workers' last pieces, so back-to-back calls start and return without a wake-up through the kernel. With
// more threads than cores, a spinning thread holds a core that a working one may be waiting for, for at most one
// spin a job.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "executor.hpp"
#include "spin_wait.hpp"

namespace tensorops {

class thread_pool {
public:
    /// A pool of `threads` threads in all, the calling thread included (threads − 1 are started here);
    /// 0 means std::thread::hardware_concurrency(). `min_piece_bytes`: the least memory traffic the operators
    /// give one piece of work (smaller tensors stay on the calling thread); it never changes a result.
    /// Errors: std::system_error if a thread cannot be started. Destroying the pool while one of its calls runs is
    /// undefined; right after the last call returns is fine.
    explicit thread_pool(std::size_t threads = 0, std::size_t min_piece_bytes = default_min_piece_bytes)
        : min_piece_bytes_(min_piece_bytes) {
        if (threads == 0) threads = std::thread::hardware_concurrency();
        if (threads == 0) threads = 1;
        workers_.reserve(threads - 1);
        try {
            for (std::size_t i = 0; i + 1 < threads; ++i) workers_.emplace_back([this] { work(); });
        } catch (...) {
            stop();
            throw;
        }
    }
    thread_pool(const thread_pool&) = delete;
    thread_pool& operator=(const thread_pool&) = delete;
    ~thread_pool() { stop(); }

    /// Threads that run pieces at once (the caller's included).
    [[nodiscard]] std::size_t concurrency() const noexcept { return workers_.size() + 1; }
    /// The least memory traffic per piece of work (see the constructor).
    [[nodiscard]] std::size_t min_piece_bytes() const noexcept { return min_piece_bytes_; }
    /// Pieces start in increasing order (one shared counter) and each runs to its end on the thread that took it.
    [[nodiscard]] static constexpr bool claims_in_order() noexcept { return true; }

    /// Calls task(i) once for every i in [0, count) on the pool's threads and the calling one; returns when all
    /// have returned. Called from inside one of this pool's pieces, at any depth of nesting through other pools and
    /// executors, it runs the pieces inline on the calling thread, in order (see the file comment). Calls from
    /// several threads at once run side by side, sharing the workers. Exceptions: the first one a piece throws is
    /// rethrown here after the running pieces end; pieces not yet started are skipped.
    template <class Task>
    void parallel_for(std::size_t count, const Task& task) {
        if (count == 0) return;
        if (count == 1 || workers_.empty() || inside()) {
            const scope here{this, current_scope()};
            const entered guard(here);
            for (std::size_t i = 0; i < count; ++i) task(i);
            return;
        }
        job current(*this, count, task_ref(task));
        {
            std::lock_guard lock(mutex_);
            job** last = &open_;
            while (*last != nullptr) last = &(*last)->later;
            *last = &current;
            generation_.fetch_add(1, std::memory_order_relaxed);
        }
        wake_.notify_all();
        run_pieces(current);
        (void)detail::spin_until([&] { return current.complete.load(std::memory_order_acquire); });
        std::unique_lock lock(mutex_);
        done_.wait(lock, [&] { return current.finished == count && current.attached == 0; });
        job** link = &open_;
        while (*link != &current) link = &(*link)->later;
        *link = current.later;
        lock.unlock();
        if (current.failure) std::rethrow_exception(current.failure);
    }

private:
    /// What a thread is working for: the pool whose piece it runs, and the scope the job was submitted from (null
    /// at the top). Lives on the stack of the thread that waits for the job, so it outlives every piece of it.
    struct scope {
        const thread_pool* pool;
        const scope* parent;
    };

    /// The calling thread's innermost scope (one per thread, shared by every pool).
    static const scope*& current_scope() noexcept {
        thread_local const scope* innermost = nullptr;
        return innermost;
    }

    /// Makes `s` the thread's innermost scope until the end of the block (exceptions included).
    class entered {
    public:
        explicit entered(const scope& s) noexcept : saved_(current_scope()) { current_scope() = &s; }
        entered(const entered&) = delete;
        entered& operator=(const entered&) = delete;
        ~entered() { current_scope() = saved_; }

    private:
        const scope* saved_;
    };

    /// Whether the calling thread works, at some depth, for one of this pool's jobs.
    [[nodiscard]] bool inside() const noexcept {
        for (const scope* s = current_scope(); s != nullptr; s = s->parent)
            if (s->pool == this) return true;
        return false;
    }

    struct job {
        job(const thread_pool& pool, std::size_t pieces, task_ref work) : count(pieces), task(work), context{&pool, current_scope()} {}
        std::size_t count;
        task_ref task;
        scope context;  // the scope its pieces run in, on every thread
        std::atomic<std::size_t> next{0};
        std::size_t finished = 0;  // pieces run or skipped (guarded by mutex_)
        std::size_t attached = 0;  // workers inside run_pieces (guarded by mutex_)
        std::atomic<bool> complete{false};  // finished == count and attached == 0: set under mutex_
        std::atomic<bool> failed{false};
        std::exception_ptr failure;  // guarded by mutex_
        job* later = nullptr;        // the next open job, submitted after this one (guarded by mutex_)
    };

    /// Takes pieces of `j` until none is left; reports how many it finished.
    void run_pieces(job& j) {
        std::size_t finished = 0;
        std::exception_ptr failure;
        {
            const entered guard(j.context);
            for (std::size_t i; (i = j.next.fetch_add(1, std::memory_order_relaxed)) < j.count; ++finished) {
                if (j.failed.load(std::memory_order_relaxed)) continue;  // skip: a piece has thrown
                try {
                    j.task(i);
                } catch (...) {
                    if (!failure) failure = std::current_exception();
                    j.failed.store(true, std::memory_order_relaxed);
                }
            }
        }
        std::lock_guard lock(mutex_);
        j.finished += finished;
        if (failure && !j.failure) j.failure = failure;
        if (j.finished == j.count && j.attached == 0) j.complete.store(true, std::memory_order_release);
    }

    /// The oldest open job with pieces not yet taken, or null (under mutex_).
    [[nodiscard]] job* job_with_pieces_left() const noexcept {
        for (job* j = open_; j != nullptr; j = j->later)
            if (j->next.load(std::memory_order_relaxed) < j->count) return j;
        return nullptr;
    }

    void work() {
        std::size_t seen = 0;  // jobs published when this worker last found none with pieces left
        std::unique_lock lock(mutex_);
        for (;;) {
            if (stopping_) return;
            job* const j = job_with_pieces_left();
            if (j == nullptr) {
                seen = generation_;
                const auto has_news = [&] {
                    return stopping_.load(std::memory_order_relaxed) || generation_.load(std::memory_order_relaxed) != seen;
                };
                lock.unlock();
                (void)detail::spin_until(has_news);
                lock.lock();
                wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
                continue;
            }
            ++j->attached;
            lock.unlock();
            run_pieces(*j);
            lock.lock();
            --j->attached;
            if (j->finished == j->count && j->attached == 0) {
                j->complete.store(true, std::memory_order_release);
                done_.notify_all();
            }
        }
    }

    void stop() noexcept {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (auto& worker : workers_)
            if (worker.joinable()) worker.join();
    }

    std::size_t min_piece_bytes_;
    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    job* open_ = nullptr;                     // the jobs in progress, oldest first (guarded by mutex_)
    std::atomic<std::size_t> generation_{0};  // jobs published; written under mutex_, read by spinning workers
    std::atomic<bool> stopping_{false};       // written under mutex_
};

}  // namespace tensorops
