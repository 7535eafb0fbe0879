// bench/extreme_scans.cpp — cumulative_max (with and without int64 indices) and cumulative_log_sum_exp on 64 MiB of f32,
// beside cumulative_sum and a copy of the same bytes, in interleaved rounds in one process.
//
// Build and run (not part of the Google Benchmark suite; figures go to bench/journal/):
//   g++ -std=c++20 -O2 -march=x86-64-v3 -Iinclude bench/extreme_scans.cpp -o extreme_scans -pthread && ./extreme_scans [threads] [rounds] [cpu]
// With `cpu` (one thread only) every time is the thread's CPU time rather than the wall clock: on a machine loaded by
// other processes the time this thread waits descheduled then counts in neither the case nor the copy.
// Cases: [16384, 1024] along axis 1 ("inner": the contiguous axis) and axis 0 ("outer": across rows). Each round times
// every case once, in turn, and the copy probe before each (a plain copy of the input into the output on as many
// threads). Printed per case: the best and the median over rounds of the time, and of the ratio copy time / case time
// (the copy moves 128 MiB; with indices the case moves 256 MiB, so its ratio is also given against moving its bytes).
// Linked to tensorops::compiled (the target tensorops_extreme_scans of a build with TENSOROPS_BENCH_COMPILED=ON, or by
// hand: -DTENSOROPS_COMPILED=1 … libtensorops_compiled.a) every case runs at each instruction-set level the CPU runs,
// in the same rounds (set_isa_level between cases, outside the timing): the levels paired in one process.
#include <tensorops/tensorops.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

bool thread_cpu_clock = false;

double seconds_of(const std::function<void()>& f) {
    if (thread_cpu_clock) {
        timespec start{}, end{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
        f();
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
        return static_cast<double>(end.tv_sec - start.tv_sec) + 1e-9 * static_cast<double>(end.tv_nsec - start.tv_nsec);
    }
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t threads = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 15;
    thread_cpu_clock = threads == 1 && argc > 3 && std::string(argv[3]) == "cpu";
    constexpr std::size_t rows = 16384, columns = 1024, n = rows * columns;
    std::vector<float> x(n), y(n);
    std::vector<std::int64_t> where(n);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> uniform(-3.0f, 3.0f);
    for (auto& v : x) v = uniform(rng);
    std::fill(y.begin(), y.end(), 1.0f);
    std::fill(where.begin(), where.end(), 1);
    tensorops::thread_pool pool(threads);
    const tensorops::tensor_view<const float> in(x.data(), {rows, columns});
    const tensorops::tensor_view<float> out(y.data(), {rows, columns});
    const tensorops::tensor_view<std::int64_t> at(where.data(), {rows, columns});
    const auto copy = [&] {
        pool.parallel_for(threads, [&](std::size_t piece) {
            const std::size_t begin = piece * n / threads, end = (piece + 1) * n / threads;
            std::memcpy(y.data() + begin, x.data() + begin, (end - begin) * sizeof(float));
        });
    };
    struct bench_case {
        std::string name;
        std::function<void()> run;
        double bytes_factor;  // bytes moved relative to the copy's
        tensorops::isa_level level = tensorops::static_isa_level;
    };
    std::vector<bench_case> cases;
    for (std::size_t axis : {1, 0}) {
        const std::string where_name = axis == 1 ? "inner" : "outer";
        const tensorops::scan_options options{.axis = axis};
        cases.push_back({"cumulative_sum " + where_name, [&, options] { tensorops::cumulative_sum(pool, in, out, options); }, 1.0});
        cases.push_back({"cumulative_max " + where_name, [&, options] { tensorops::cumulative_max(pool, in, out, options); }, 1.0});
        cases.push_back({"cumulative_min " + where_name, [&, options] { tensorops::cumulative_min(pool, in, out, options); }, 1.0});
        cases.push_back({"cumulative_max+int64 " + where_name, [&, options] { tensorops::cumulative_max(pool, in, out, at, options); }, 2.0});
        cases.push_back({"cumulative_log_sum_exp " + where_name, [&, options] { tensorops::cumulative_log_sum_exp(pool, in, out, options); }, 1.0});
    }
    // Compiled: each case once per level the CPU runs, side by side.
    std::vector<tensorops::isa_level> levels{tensorops::active_isa_level()};
    if constexpr (TENSOROPS_COMPILED != 0) {
        levels.clear();
        for (const auto level : {tensorops::isa_level::sse2, tensorops::isa_level::avx2, tensorops::isa_level::avx512})
            if (level <= tensorops::cpu_isa_level()) levels.push_back(level);
    }
    if (levels.size() > 1) {
        std::vector<bench_case> by_level;
        for (const auto& c : cases)
            for (const auto level : levels)
                by_level.push_back({c.name + " " + std::string(tensorops::isa_level_name(level)), c.run, c.bytes_factor, level});
        cases = std::move(by_level);
    }
    std::vector<std::vector<double>> times(cases.size()), ratios(cases.size());
    std::vector<double> copies;
    for (const auto& c : cases) {  // warm: pages touched, pool started
        if (levels.size() > 1) tensorops::set_isa_level(c.level);
        c.run();
    }
    for (int round = 0; round < rounds; ++round) {
        for (std::size_t k = 0; k < cases.size(); ++k) {
            if (levels.size() > 1) tensorops::set_isa_level(cases[k].level);
            const double copy_time = seconds_of(copy);
            const double t = seconds_of(cases[k].run);
            copies.push_back(copy_time);
            times[k].push_back(t);
            ratios[k].push_back(copy_time / t);
        }
    }
    std::printf("threads %zu, rounds %d, %s, copy of 128 MiB: best %.2f ms, median %.2f ms\n", threads, rounds,
                thread_cpu_clock ? "thread CPU time" : "wall clock",
                1e3 * *std::min_element(copies.begin(), copies.end()), 1e3 * median(copies));
    std::printf("%-37s %10s %10s %12s %12s %14s\n", "case", "best ms", "median ms", "best % copy", "median %", "% of its bytes");
    for (std::size_t k = 0; k < cases.size(); ++k) {
        const double best_ratio = *std::max_element(ratios[k].begin(), ratios[k].end()), median_ratio = median(ratios[k]);
        std::printf("%-37s %10.2f %10.2f %12.0f %12.0f %14.0f\n", cases[k].name.c_str(), 1e3 * *std::min_element(times[k].begin(), times[k].end()),
                    1e3 * median(times[k]), 100 * best_ratio, 100 * median_ratio, 100 * median_ratio * cases[k].bytes_factor);
    }
}
