// The thread pool under nesting and sharing: chains of pools inside each other's pieces (on the calling thread and on
// the workers, through executors of the user's and through the operators), callers on several threads at once, and
// pools created and destroyed in quick succession. None of them may hang: every case runs under a deadline that ends
// the process with a message if it is missed (a thread stuck in a deadlock can be neither joined nor abandoned while
// the pools it uses are destroyed).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "parallel_support.hpp"

namespace pool_tests {

using tensorops::thread_pool;
using tensorops_test::parallel::deadline;

/// Waits until `count` reaches `wanted` or a second has passed: pieces that meet here run on different threads
/// when the pool has them free, so each level of a chain reaches the next from a worker too.
inline void meet(const std::atomic<int>& count, int wanted) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (count.load() < wanted && std::chrono::steady_clock::now() < until) std::this_thread::yield();
}

/// An executor of the user's own that hands every call to a pool (an adapter, as a host would write one).
struct wrapping_executor {
    thread_pool* pool;
    [[nodiscard]] std::size_t concurrency() const { return pool->concurrency(); }
    template <class Task>
    void parallel_for(std::size_t count, const Task& task) {
        pool->parallel_for(count, task);
    }
};

/// A host's pool the thread pool cannot see into: every piece on a thread of its own.
struct thread_per_piece_executor {
    [[nodiscard]] static std::size_t concurrency() { return 2; }
    template <class Task>
    void parallel_for(std::size_t count, const Task& task) {
        std::vector<std::thread> threads;
        std::vector<std::exception_ptr> failures(count);
        for (std::size_t i = 0; i < count; ++i)
            threads.emplace_back([&, i] {
                try {
                    task(i);
                } catch (...) {
                    failures[i] = std::current_exception();
                }
            });
        for (auto& t : threads) t.join();
        for (auto& f : failures)
            if (f) std::rethrow_exception(f);
    }
};

/// What a chain did: the pieces at its innermost level, how many of them were reached through a piece on another
/// thread than its call at every level (from the workers all the way down), and how many pieces of a repeated pool
/// ran on another thread than their call (none may: the pool is in the chain, so the call runs inline).
struct chain_record {
    std::atomic<int> leaves{0};
    std::atomic<int> leaves_on_workers_only{0};
    std::atomic<int> repeated_not_inline{0};
};

/// Runs a chain: level d calls levels[d].parallel_for(2, …), each of whose pieces runs level d + 1. A level whose pool
/// has not appeared above it makes its two pieces meet (so one of them runs on a worker); a repeated one must run
/// inline. `workers_only`: only the pieces on another thread than their call go deeper (the calling thread holds no
/// chain of its own then: what is tested is the chain the jobs carry to the workers).
template <class Executor>
void run_chain(std::vector<Executor*>& levels, std::size_t depth, bool hopped_every_level, bool workers_only, chain_record& record) {
    if (depth == levels.size()) {
        record.leaves.fetch_add(1);
        if (hopped_every_level) record.leaves_on_workers_only.fetch_add(1);
        return;
    }
    bool repeated = false;
    for (std::size_t d = 0; d < depth; ++d) repeated = repeated || levels[d] == levels[depth];
    const auto caller = std::this_thread::get_id();
    std::atomic<int> started{0};
    levels[depth]->parallel_for(2, [&](std::size_t) {
        started.fetch_add(1);
        if (!repeated) meet(started, 2);
        const bool hopped = std::this_thread::get_id() != caller;
        if (repeated && hopped) record.repeated_not_inline.fetch_add(1);
        if (workers_only && !repeated && !hopped) return;
        run_chain(levels, depth + 1, hopped_every_level && (hopped || repeated), workers_only, record);
    });
}

/// The levels of a chain, named by `shape` (e.g. "ABA").
template <class Executor>
void check_chain(const std::string& shape, std::vector<Executor*> levels, bool workers_only = false) {
    INFO("chain " << shape << (workers_only ? ", from the workers only" : ""));
    chain_record record;
    {
        const deadline guard("chain " + shape + (workers_only ? ", from the workers only" : ""));
        run_chain(levels, 0, true, workers_only, record);
    }
    if (!workers_only) CHECK(record.leaves.load() == 1 << levels.size());
    CHECK(record.leaves_on_workers_only.load() >= 1);  // the chain was walked on workers of every pool too
    CHECK(record.repeated_not_inline.load() == 0);
}

}  // namespace pool_tests

using namespace pool_tests;

TEST_CASE("thread_pool: chains of pools inside each other's pieces run, on the caller's thread and on workers", "[parallel][pool]") {
    thread_pool a(3), b(3), c(3);
    bool workers_only = false;
    const auto chain = [&](const std::string& shape) {
        std::vector<thread_pool*> levels;
        for (char name : shape) levels.push_back(name == 'A' ? &a : name == 'B' ? &b : &c);
        check_chain(shape, levels, workers_only);
    };
    // From the workers first: A's worker calls B, whose worker calls A (the calling thread is not in that chain).
    workers_only = true;
    chain("ABA");
    chain("ABCA");
    workers_only = false;
    chain("AA");
    chain("ABA");
    chain("ABAB");
    chain("ABCA");
    chain("ABCAB");
    // The brief's reproduction, verbatim in shape: the innermost call waits on nothing.
    const deadline guard("a.parallel_for inside b inside a");
    std::atomic<int> inner{0};
    a.parallel_for(2, [&](std::size_t) { b.parallel_for(2, [&](std::size_t) { a.parallel_for(2, [&](std::size_t) { inner.fetch_add(1); }); }); });
    CHECK(inner.load() == 8);
}

TEST_CASE("thread_pool: chains through the user's executors that call a pool", "[parallel][pool]") {
    thread_pool a(3), b(3);
    wrapping_executor wa{&a}, wb{&b};
    check_chain("wA wB wA", std::vector<wrapping_executor*>{&wa, &wb, &wa});
    check_chain("wA wB wA wB", std::vector<wrapping_executor*>{&wa, &wb, &wa, &wb});

    // A host's pool whose threads the chain cannot follow: the inner call on A publishes a job of its own beside the
    // outer one, and its caller can finish it alone.
    thread_per_piece_executor host;
    const deadline guard("A, a host's pool, A");
    std::atomic<int> inner{0};
    a.parallel_for(2, [&](std::size_t) {
        host.parallel_for(2, [&](std::size_t) { a.parallel_for(4, [&](std::size_t) { inner.fetch_add(1); }); });
    });
    CHECK(inner.load() == 16);
}

TEST_CASE("thread_pool: two threads nesting two pools in opposite orders at once", "[parallel][pool]") {
    // Thread 1 runs A → B while thread 2 runs B → A, each outer piece waiting until the other thread's has started:
    // each pool is then busy with one thread's job when the other thread's inner call arrives.
    thread_pool a(2), b(2);
    const deadline guard("A → B beside B → A");
    for (int round = 0; round < 20; ++round) {
        std::atomic<int> outer_started{0}, inner{0};
        const auto nest = [&](thread_pool& outer, thread_pool& inner_pool) {
            outer.parallel_for(2, [&](std::size_t) {
                outer_started.fetch_add(1);
                meet(outer_started, 4);
                inner_pool.parallel_for(3, [&](std::size_t) { inner.fetch_add(1); });
            });
        };
        std::thread first([&] { nest(a, b); });
        std::thread second([&] { nest(b, a); });
        first.join();
        second.join();
        CHECK(inner.load() == 12);
    }
}

TEST_CASE("thread_pool: an operator on one pool whose operation calls an operator on another, inside the first", "[parallel][pool]") {
    // cumulative_scan on B whose operation reduces on A, run inside a piece of A: the reduction's pieces run inline.
    thread_pool a(2, tensorops_test::parallel::test_piece_bytes), b(3, tensorops_test::parallel::test_piece_bytes);
    constexpr std::size_t rows = 64, columns = 256, reduced = 64;
    std::vector<std::int64_t> x(rows * columns, 1);
    for (std::size_t i = 0; i < x.size(); i += 64) x[i] = 16;
    std::vector<float> r(reduced * reduced, 0.5f);  // reduced over its rows: the kept axis is cut into pieces
    std::atomic<int> reductions{0}, wrong_reductions{0};
    const auto operation = [&](std::int64_t p, std::int64_t q) -> std::int64_t {
        if (q % 16 == 0) {
            std::vector<float> sums(reduced);
            tensorops::reduce(a, tensorops::tensor_view<const float>(r.data(), {reduced, reduced}),
                              tensorops::tensor_view<float>(sums.data(), {reduced, 1}), tensorops::reduce_function::sum, {1});
            reductions.fetch_add(1);
            if (sums != std::vector<float>(reduced, 0.5f * reduced)) wrong_reductions.fetch_add(1);
        }
        return p + q;
    };
    std::vector<std::int64_t> expected(x.size());
    tensorops::cumulative_scan<std::int64_t>(tensorops::tensor_view<const std::int64_t>(x.data(), {rows, columns}),
                                             tensorops::tensor_view<std::int64_t>(expected.data(), {rows, columns}), {1}, std::plus<>{}, 0);
    std::vector<std::vector<std::int64_t>> results(2, std::vector<std::int64_t>(x.size()));
    {
        const deadline guard("cumulative_scan on B calling reduce on A, inside A");
        a.parallel_for(2, [&](std::size_t piece) {
            tensorops::cumulative_scan<std::int64_t>(b, tensorops::tensor_view<const std::int64_t>(x.data(), {rows, columns}),
                                                     tensorops::tensor_view<std::int64_t>(results[piece].data(), {rows, columns}), {1},
                                                     operation, 0);
        });
    }
    CHECK(reductions.load() == 2 * static_cast<int>(x.size() / 64));
    CHECK(wrong_reductions.load() == 0);
    CHECK(results[0] == expected);
    CHECK(results[1] == expected);
}

TEST_CASE("thread_pool: a second caller runs beside a job in progress, on its own thread and a free worker", "[parallel][pool]") {
    // The first caller's two pieces (on at most two of the three workers) wait until the second caller's job has
    // ended; the second job, given while they wait, must neither wait its turn nor run inline: its two pieces meet on
    // two threads (the second caller and a free worker).
    thread_pool pool(4);
    const deadline guard("a second caller beside a job in progress");
    for (int round = 0; round < 10; ++round) {
        std::atomic<int> first_started{0}, second_started{0};
        std::atomic<bool> second_done{false};
        std::atomic<int> first_saw_second_done{0};
        std::vector<std::thread::id> second_threads(2);
        std::thread first([&] {
            pool.parallel_for(2, [&](std::size_t) {
                first_started.fetch_add(1);
                const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
                while (!second_done.load() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
                if (second_done.load()) first_saw_second_done.fetch_add(1);
            });
        });
        meet(first_started, 2);
        pool.parallel_for(2, [&](std::size_t i) {
            second_started.fetch_add(1);
            meet(second_started, 2);
            second_threads[i] = std::this_thread::get_id();
        });
        second_done.store(true);
        first.join();
        INFO("round " << round);
        CHECK(first_saw_second_done.load() == 2);
        CHECK(second_threads[0] != second_threads[1]);
    }
}

TEST_CASE("thread_pool: operators called on one pool from several threads at once equal the sequential results", "[parallel][pool]") {
    thread_pool pool(3, tensorops_test::parallel::test_piece_bytes);
    constexpr std::size_t rows = 128, columns = 192;
    tensorops_test::test_rng rng("thread_pool concurrent callers");
    std::vector<float> x(rows * columns);
    for (auto& v : x) v = rng.uniform_real(-1.0, 1.0) > 0 ? 0.25f : -0.75f;
    const tensorops::tensor_view<const float> in(x.data(), {rows, columns});
    std::vector<float> scan_expected(x.size()), sum_expected(columns);
    std::vector<std::int32_t> argmax_expected(rows);
    tensorops::cumulative_sum(in, tensorops::tensor_view<float>(scan_expected.data(), {rows, columns}), {.axis = 0});
    tensorops::reduce(in, tensorops::tensor_view<float>(sum_expected.data(), {1, columns}), tensorops::reduce_function::sum, {0});
    tensorops::argmax(in, tensorops::tensor_view<std::int32_t>(argmax_expected.data(), {rows, 1}), {1});

    constexpr int callers = 4, rounds = 6;
    std::atomic<int> mismatches{0}, calls{0};
    {
        const deadline guard("four threads calling operators on one pool");
        std::vector<std::thread> threads;
        for (int c = 0; c < callers; ++c)
            threads.emplace_back([&] {
                std::vector<float> scan(x.size()), sum(columns);
                std::vector<std::int32_t> arg(rows);
                for (int round = 0; round < rounds; ++round) {
                    tensorops::cumulative_sum(pool, in, tensorops::tensor_view<float>(scan.data(), {rows, columns}), {.axis = 0});
                    tensorops::reduce(pool, in, tensorops::tensor_view<float>(sum.data(), {1, columns}), tensorops::reduce_function::sum, {0});
                    tensorops::argmax(pool, in, tensorops::tensor_view<std::int32_t>(arg.data(), {rows, 1}), {1});
                    if (scan != scan_expected || sum != sum_expected || arg != argmax_expected) mismatches.fetch_add(1);
                    calls.fetch_add(3);
                }
            });
        for (auto& t : threads) t.join();
    }
    CHECK(calls.load() == callers * rounds * 3);
    CHECK(mismatches.load() == 0);
}

TEST_CASE("thread_pool: pools destroyed right after use, and many created and destroyed", "[parallel][pool]") {
    const deadline guard("pools created and destroyed");
    for (int cycle = 0; cycle < 200; ++cycle) {
        const std::size_t threads = 1 + static_cast<std::size_t>(cycle % 4);
        std::atomic<int> ran{0};
        {
            thread_pool pool(threads);
            if (cycle % 3 != 2) pool.parallel_for(7, [&](std::size_t) { ran.fetch_add(1); });
        }  // destroyed at once: workers may still be spinning after the job, or not yet have started
        CHECK(ran.load() == (cycle % 3 != 2 ? 7 : 0));
    }
}
