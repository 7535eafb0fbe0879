// tensorops_timeline: where a call's time goes on a thread_pool — a diagnostic, not a benchmark (speeds are measured
// in tensorops_bench). It runs one 64 MiB f32 operator on [16384, 1024] through an executor that wraps the pool's
// parallel_for and stamps every piece (thread, start, end, from the start of the call), `calls` times, with something
// between the calls, and prints per call and in medians: the call's time, when the first piece of a thread other than
// the caller's started (the worker's wake-up; −1 in a call's line when no worker ran a piece, the call's time in the
// median), how long one thread sat idle at the end (the other's last piece still running), and how long the call
// took to return after its last piece (the serial end: combining, waking the caller).
//
//   tensorops_timeline [operation] [between] [threads] [calls] [--pieces]
//     operation  sum_rows (SUM over the columns, each row's), sum_columns (over the rows), max_columns,
//                lse_rows, lse_columns (LOG_SUM_EXP), argmax_rows, argmax_columns, cumsum_rows, cumsum_columns, cumsum_line (one line of 16M)
//     between    none (back to back), sleep (2 ms: the workers go to sleep), read (both threads read the input,
//                as the suite's paired probe does)
//     threads    of the pool (default 2); calls: default 100; --pieces also prints the pieces of the last 3 calls
// Built with the suite (bench/CMakeLists.txt); bench/RESULTS.md 2026-11-26 (20:00–21:25) has what it showed.
#include <tensorops/tensorops.hpp>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using steady = std::chrono::steady_clock;

double microseconds_since(steady::time_point start) { return std::chrono::duration<double, std::micro>(steady::now() - start).count(); }

struct piece_stamp {
    std::size_t piece;
    std::thread::id thread;
    double start, end;  // µs from the start of the call
};

/// An executor that runs pieces on `pool` and stamps each (the stamps of one call; `start` is the call's start).
struct stamping_executor {
    tensorops::thread_pool& pool;
    steady::time_point start;
    std::vector<piece_stamp>& stamps;
    std::mutex& guard;

    template <class Task>
    void parallel_for(std::size_t count, const Task& task) {
        pool.parallel_for(count, [&](std::size_t i) {
            const double begun = microseconds_since(start);
            task(i);
            const double ended = microseconds_since(start);
            const std::lock_guard lock(guard);
            stamps.push_back({i, std::this_thread::get_id(), begun, ended});
        });
    }
    [[nodiscard]] std::size_t concurrency() const { return pool.concurrency(); }
    [[nodiscard]] static constexpr bool claims_in_order() { return true; }
};

/// Both halves of `x` summed at once by two threads (a new one and this one), started together at a barrier.
void read_with_two_threads(const std::vector<float>& x) {
    std::barrier sync(2);
    const auto half = [&](std::size_t part) {
        sync.arrive_and_wait();
        const float* p = x.data() + part * (x.size() / 2);
        float sums[16] = {};
        for (std::size_t i = 0; i + 16 <= x.size() / 2; i += 16)
            for (std::size_t k = 0; k < 16; ++k) sums[k] += p[i + k];
        float total = 0;
        for (float s : sums) total += s;
        if (total == 1234.5f) std::puts("");  // keeps the loop
    };
    std::thread other(half, 1);
    half(0);
    other.join();
}

double median(std::vector<double> values) {
    if (values.empty()) return 0;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
    return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const std::string operation = argc > 1 ? argv[1] : "sum_rows";
    const std::string between = argc > 2 ? argv[2] : "none";
    const std::size_t threads = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 2;
    const int calls = argc > 4 ? std::atoi(argv[4]) : 100;
    const bool print_pieces = argc > 5 && std::string(argv[5]) == "--pieces";
    constexpr std::size_t rows = 16384, columns = 1024;

    std::vector<float> x(rows * columns), y(rows * columns);
    std::vector<std::int64_t> indices(std::max(rows, columns));
    std::mt19937 random(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& v : x) v = uniform(random);
    const tensorops::tensor_view<const float> matrix(x.data(), {rows, columns});
    using run_on = std::function<void(stamping_executor&)>;
    const std::map<std::string, run_on> operations = {
        {"sum_rows", [&](stamping_executor& e) { tensorops::reduce(e, matrix, tensorops::tensor_view<float>(y.data(), {rows, 1}), tensorops::reduce_function::sum, {1}); }},
        {"sum_columns", [&](stamping_executor& e) { tensorops::reduce(e, matrix, tensorops::tensor_view<float>(y.data(), {1, columns}), tensorops::reduce_function::sum, {0}); }},
        {"max_columns", [&](stamping_executor& e) { tensorops::reduce(e, matrix, tensorops::tensor_view<float>(y.data(), {1, columns}), tensorops::reduce_function::max, {0}); }},
        {"argmax_rows", [&](stamping_executor& e) { tensorops::argmax(e, matrix, tensorops::tensor_view<std::int64_t>(indices.data(), {rows, 1}), {1}); }},
        {"lse_rows", [&](stamping_executor& e) { tensorops::reduce(e, matrix, tensorops::tensor_view<float>(y.data(), {rows, 1}), tensorops::reduce_function::log_sum_exp, {1}); }},
        {"lse_columns", [&](stamping_executor& e) { tensorops::reduce(e, matrix, tensorops::tensor_view<float>(y.data(), {1, columns}), tensorops::reduce_function::log_sum_exp, {0}); }},
        {"argmax_columns", [&](stamping_executor& e) { tensorops::argmax(e, matrix, tensorops::tensor_view<std::int64_t>(indices.data(), {1, columns}), {0}); }},
        {"cumsum_rows", [&](stamping_executor& e) { tensorops::cumulative_sum(e, matrix, tensorops::tensor_view<float>(y.data(), {rows, columns}), {.axis = 1}); }},
        {"cumsum_columns", [&](stamping_executor& e) { tensorops::cumulative_sum(e, matrix, tensorops::tensor_view<float>(y.data(), {rows, columns}), {.axis = 0}); }},
        {"cumsum_line", [&](stamping_executor& e) {
             tensorops::cumulative_sum(e, tensorops::tensor_view<const float>(x.data(), {rows * columns}), tensorops::tensor_view<float>(y.data(), {rows * columns}));
         }},
    };
    const auto found = operations.find(operation);
    if (found == operations.end() || (between != "none" && between != "sleep" && between != "read") || threads < 1 || calls < 1) {
        std::fprintf(stderr, "usage: %s [operation] [none|sleep|read] [threads] [calls] [--pieces]; operations:", argv[0]);
        for (const auto& [name, run] : operations) std::fprintf(stderr, " %s", name.c_str());
        std::fprintf(stderr, "\n");
        return 2;
    }

    tensorops::thread_pool pool(threads);
    std::mutex guard;
    std::vector<piece_stamp> stamps;
    std::vector<double> totals, worker_starts, idle_ends, returns;
    for (int call = 0; call < calls; ++call) {
        if (between == "sleep") std::this_thread::sleep_for(std::chrono::milliseconds(2));
        if (between == "read") read_with_two_threads(x);
        stamps.clear();
        stamping_executor executor{pool, steady::now(), stamps, guard};
        found->second(executor);
        const double total = microseconds_since(executor.start);
        // Per thread: its last end; the first start of any thread but the caller's (the caller starts first).
        const std::thread::id caller = std::this_thread::get_id();
        std::map<std::thread::id, double> last_end;
        double worker_start = -1;
        for (const auto& s : stamps) {
            last_end[s.thread] = std::max(last_end[s.thread], s.end);
            if (s.thread != caller && (worker_start < 0 || s.start < worker_start)) worker_start = s.start;
        }
        double latest = 0, earliest = total;
        for (const auto& [thread, end] : last_end) {
            latest = std::max(latest, end);
            earliest = std::min(earliest, end);
        }
        totals.push_back(total);
        if (!stamps.empty()) returns.push_back(total - latest);
        if (last_end.size() > 1) idle_ends.push_back(latest - earliest);
        worker_starts.push_back(worker_start < 0 ? total : worker_start);  // no worker piece: as late as the call
        std::printf("call %3d: %7.0f us, %zu pieces on %zu threads, worker's first piece at %7.1f, idle end %6.1f, return %5.1f\n", call,
                    total, stamps.size(), last_end.size(), worker_start, last_end.size() > 1 ? latest - earliest : 0.0,
                    stamps.empty() ? 0.0 : total - latest);
        if (print_pieces && call + 3 >= calls) {
            std::sort(stamps.begin(), stamps.end(), [](const piece_stamp& a, const piece_stamp& b) { return a.start < b.start; });
            for (const auto& s : stamps)
                std::printf("    piece %3zu on %s: %8.1f .. %8.1f (%6.1f)\n", s.piece, s.thread == caller ? "caller" : "worker", s.start, s.end, s.end - s.start);
        }
    }
    std::vector<double> sorted = totals;
    std::sort(sorted.begin(), sorted.end());
    std::printf("%s, %s between calls, %zu threads: best %.0f us, median %.0f; medians: worker's first piece %.1f us, idle end %.1f, "
                "return after the last piece %.1f\n",
                operation.c_str(), between.c_str(), threads, sorted.front(), median(totals), median(worker_starts), median(idle_ends), median(returns));
}
