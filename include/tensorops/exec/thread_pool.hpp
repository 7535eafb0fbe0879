// tensorops/exec/thread_pool.hpp — a small pool of threads that is an executor (exec/executor.hpp).
//
// Algorithm. The pool owns threads − 1 workers; the thread calling parallel_for is the last one. A call
// publishes its job (count, task, a shared next-piece counter) under the pool's mutex, wakes the workers, and
// works on it itself: every participant takes the next piece with one atomic increment until none is left, so
// pieces of uneven cost balance themselves. The call returns once every piece has run and every worker has
// let go of the job (the job lives on the caller's stack). The first exception a piece throws is kept, the
// pieces not yet started are skipped, and the caller rethrows it.
// Waiting spins before it sleeps (exec/spin_wait.hpp, ~80 µs of pauses): a worker after its job, for the next one,
// and the caller for the workers' last pieces. On the Zen 5 guest a worker asleep in the condition variable started
// 20–130 µs after the call and a sleeping caller woke up to 100 µs after the last piece — a tenth of a 64 MiB
// reduction on two threads (~0.8 ms); spinning, the worker of back-to-back calls starts within ~10 µs of the call
// and the caller returns within ~10 µs of the last piece. With more threads than cores, a spinning thread holds a
// core that a working one may be waiting for, at most ~80 µs a job. Calls from several threads at once take turns;
// a call made from inside one of the pool's own pieces runs inline (no deadlock, no oversubscription).
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
    /// Errors: std::system_error if a thread cannot be started.
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
    /// have returned. Exceptions: the first one a piece throws is rethrown here after the running pieces end;
    /// pieces not yet started are skipped.
    template <class Task>
    void parallel_for(std::size_t count, const Task& task) {
        if (count == 0) return;
        if (count == 1 || workers_.empty() || current_pool() == this) {
            for (std::size_t i = 0; i < count; ++i) task(i);
            return;
        }
        std::lock_guard turn(submit_);  // one job at a time
        job current(count, task_ref(task));
        {
            std::lock_guard lock(mutex_);
            job_ = &current;
            generation_.fetch_add(1, std::memory_order_relaxed);
        }
        wake_.notify_all();
        run_pieces(current);
        (void)detail::spin_until([&] { return current.complete.load(std::memory_order_acquire); });
        std::unique_lock lock(mutex_);
        done_.wait(lock, [&] { return current.finished == count && current.attached == 0; });
        job_ = nullptr;
        lock.unlock();
        if (current.failure) std::rethrow_exception(current.failure);
    }

private:
    struct job {
        job(std::size_t pieces, task_ref work) : count(pieces), task(work) {}
        std::size_t count;
        task_ref task;
        std::atomic<std::size_t> next{0};
        std::size_t finished = 0;  // pieces run or skipped (guarded by mutex_)
        std::size_t attached = 0;  // workers inside run_pieces (guarded by mutex_)
        std::atomic<bool> complete{false};  // finished == count and attached == 0: set under mutex_
        std::atomic<bool> failed{false};
        std::exception_ptr failure;  // guarded by mutex_
    };

    static thread_pool*& current_pool() {
        thread_local thread_pool* pool = nullptr;
        return pool;
    }

    /// Takes pieces of `j` until none is left; reports how many it finished.
    void run_pieces(job& j) {
        std::size_t finished = 0;
        std::exception_ptr failure;
        thread_pool* const outer = current_pool();
        current_pool() = this;
        for (std::size_t i; (i = j.next.fetch_add(1, std::memory_order_relaxed)) < j.count; ++finished) {
            if (j.failed.load(std::memory_order_relaxed)) continue;  // skip: a piece has thrown
            try {
                j.task(i);
            } catch (...) {
                if (!failure) failure = std::current_exception();
                j.failed.store(true, std::memory_order_relaxed);
            }
        }
        current_pool() = outer;
        std::lock_guard lock(mutex_);
        j.finished += finished;
        if (failure && !j.failure) j.failure = failure;
        if (j.finished == j.count && j.attached == 0) j.complete.store(true, std::memory_order_release);
    }

    void work() {
        std::size_t seen = 0;
        std::unique_lock lock(mutex_);
        for (;;) {
            const auto has_news = [&] {
                return stopping_.load(std::memory_order_relaxed) || generation_.load(std::memory_order_relaxed) != seen;
            };
            lock.unlock();
            (void)detail::spin_until(has_news);
            lock.lock();
            wake_.wait(lock, [&] { return stopping_ || (job_ != nullptr && generation_ != seen); });
            if (stopping_) return;
            seen = generation_;
            job& j = *job_;
            ++j.attached;
            lock.unlock();
            run_pieces(j);
            lock.lock();
            --j.attached;
            if (j.finished == j.count && j.attached == 0) {
                j.complete.store(true, std::memory_order_release);
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
    std::mutex submit_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    job* job_ = nullptr;
    std::atomic<std::size_t> generation_{0};  // jobs published; written under mutex_, read by spinning workers
    std::atomic<bool> stopping_{false};       // written under mutex_
};

}  // namespace tensorops
