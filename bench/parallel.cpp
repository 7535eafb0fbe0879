// Parallel benchmarks: the f32 64 MiB case of each operator on a tensorops::thread_pool of 1 and 2 threads, on a
// row-major [16384, 1024] tensor (the contiguous axis 1 and the outer axis 0), timed in wall-clock time, against
// the read and copy limits measured with the same number of threads in this process (each thread streaming its
// own half of a 64 MiB buffer at once, best of several passes). The peers, when installed: Eigen Tensor on a
// ThreadPoolDevice of the same size, and PyTorch's ATen (Debian's libtorch, OpenMP) with at::set_num_threads.
// Counters: bytes_per_second, pct_of_threads_limit and best_pct_of_threads_limit (the mean and the fastest pass;
// read limit for reductions and argmax, copy limit for cumulative ops and scatter's copy); the reductions and scans
// also paired_pct_of_threads_limit and paired_median_pct_of_threads_limit, against the limit's kernel run with as
// many threads over the benchmark's own buffers between its iterations (see run_threads); the reductions, argmax and
// the scans over an axis also in_cache_GBps, their kernel's speed with as many threads on slices in L2 (in_cache_speed).
#include "harness.hpp"

#include <tensorops/tensorops.hpp>

#include <barrier>
#include <chrono>
#include <cstring>
#include <map>
#include <string>

#ifdef TENSOROPS_BENCH_HAVE_EIGEN
#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>
#endif

#ifdef TENSOROPS_BENCH_HAVE_TORCH
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#endif

namespace {

constexpr std::size_t columns = 1024;
constexpr std::size_t rows = (64 * tb::MiB) / sizeof(float) / columns;

/// Wall-clock bandwidth of `threads` threads each running pass(t) over its share at once; best of `passes`, after
/// `warm_ups` untimed ones.
template <class Pass>
double bandwidth_with_threads(int threads, double bytes, Pass&& pass, int passes = 12, int warm_ups = 2) {
    std::barrier sync(threads);
    double best = 1e300;
    auto worker = [&](int t) {
        for (int round = -warm_ups; round < passes; ++round) {
            sync.arrive_and_wait();
            const auto t0 = std::chrono::steady_clock::now();
            pass(t);
            sync.arrive_and_wait();
            if (t == 0 && round >= 0) best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
    };
    std::vector<std::thread> others;
    for (int t = 1; t < threads; ++t) others.emplace_back(worker, t);
    worker(0);
    for (auto& other : others) other.join();
    return bytes / best;
}

/// The read or copy limit with `threads` threads (wall time): measured on first use (12 passes), probed again
/// (4 passes) before every benchmark that asks, and only ever raised — on this shared machine a single
/// measurement taken while another job runs would flatter every figure after it.
double threads_limit(tb::limit which, int threads) {
    static std::map<std::pair<int, int>, double> measured;
    const auto key = std::make_pair(static_cast<int>(which), threads);
    const auto found = measured.find(key);
    const int passes = found == measured.end() ? 12 : 4;
    double value;
    if (which == tb::limit::read) {
        const auto buffer = tb::read_limit_buffer();
        const std::size_t share = buffer.size() / static_cast<std::size_t>(threads);
        value = bandwidth_with_threads(threads, static_cast<double>(share * static_cast<std::size_t>(threads) * sizeof(float)), [&](int t) {
            float s = tb::read_probe_sum(buffer.data() + static_cast<std::size_t>(t) * share, share);
            benchmark::DoNotOptimize(s);
        }, passes);
    } else {
        const auto source = tb::copy_limit_source();
        const auto destination = tb::copy_limit_destination();
        const std::size_t share = source.size() / static_cast<std::size_t>(threads);
        const auto copies = [&](void (*copy)(void*, const void*, std::size_t)) {
            return bandwidth_with_threads(threads, 2.0 * static_cast<double>(share * static_cast<std::size_t>(threads) * sizeof(float)), [&](int t) {
                const std::size_t offset = static_cast<std::size_t>(t) * share;
                copy(destination.data() + offset, source.data() + offset, share * sizeof(float));
            }, passes);
        };
        value = std::max(copies(tb::copy_probe), copies(tb::copy_probe_memcpy));  // the faster copy, as the one-thread limit
    }
    if (found != measured.end()) value = std::max(value, found->second);
    measured[key] = value;
    return value;
}

/// `count` uniform random indices in [0, extent) (duplicates included), the same on every run, in the buffer pool.
std::span<const std::int64_t> random_indices(std::size_t count, std::size_t extent) {
    auto indices = tb::scratch<std::int64_t>(count, 3);
    std::uint64_t state_bits = 12345;
    for (auto& index : indices) {
        state_bits = state_bits * 6364136223846793005ull + 1442695040888963407ull;
        index = static_cast<std::int64_t>((state_bits >> 33) % extent);
    }
    return indices;
}

/// One pass of a paired probe (harness.hpp) with `threads` threads, each over its share of the probe's bytes at once:
/// its speed in bytes per second (wall clock).
double paired_probe_speed(const tb::paired_probe& probe, int threads) {
    const std::size_t share = probe.size / static_cast<std::size_t>(threads) / 256 * 256;
    return bandwidth_with_threads(threads, static_cast<double>(probe.bytes()) / static_cast<double>(probe.size) * static_cast<double>(share) * static_cast<double>(threads),
                                  [&](int t) {
                                      const std::size_t offset = static_cast<std::size_t>(t) * share;
                                      tb::paired_probe part = probe;
                                      part.source = static_cast<const unsigned char*>(probe.source) + offset;
                                      if (probe.destination != nullptr) part.destination = static_cast<unsigned char*>(probe.destination) + offset;
                                      part.size = share;
                                      part.pass();
                                  },
                                  1, 0);
}

/// Runs body() per iteration (wall clock) and sets bytes_per_second and pct_of_threads_limit (the mean pass) and
/// best_pct_of_threads_limit (the fastest pass) against the limit of the same number of threads. With a paired
/// probe (the limit's kernel over the benchmark's own buffers, `threads` threads at once, after every iteration with
/// the timer paused: see tb::run_paired) also paired_pct_of_threads_limit (fastest pass against the probe's fastest)
/// and paired_median_pct_of_threads_limit (the median over iterations of each pass against the probe right after it).
template <class Body>
void run_threads(benchmark::State& state, int threads, std::int64_t bytes, tb::limit which, Body&& body, const tb::paired_probe* probe = nullptr) {
    const double roof = threads_limit(which, threads);
    double best_seconds = 1e300;  // the fastest pass, wall-clock like the limit (a best pass too)
    double best_probe_speed = 0;
    std::vector<double> pair_ratios;
    pair_ratios.reserve(1024);
    if (probe != nullptr)
        for (int i = 0; i < 2; ++i) (void)paired_probe_speed(*probe, threads);  // warm-up, as the limits'
    for (auto _ : state) {
        const auto t0 = std::chrono::steady_clock::now();
        body();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best_seconds = std::min(best_seconds, seconds);
        if (probe != nullptr) {
            state.PauseTiming();
            const double probe_speed = paired_probe_speed(*probe, threads);
            best_probe_speed = std::max(best_probe_speed, probe_speed);
            pair_ratios.push_back(static_cast<double>(bytes) / seconds / probe_speed);
            state.ResumeTiming();
        }
    }
    using benchmark::Counter;
    state.counters["bytes_per_second"] = Counter(static_cast<double>(bytes), Counter::kIsIterationInvariantRate);
    state.counters["pct_of_threads_limit"] = Counter(100.0 * static_cast<double>(bytes) / roof, Counter::kIsIterationInvariantRate);
    state.counters["best_pct_of_threads_limit"] = Counter(100.0 * static_cast<double>(bytes) / best_seconds / roof);
    state.counters["threads_limit_GBps"] = roof / 1e9;
    if (probe != nullptr && !pair_ratios.empty()) {
        state.counters["paired_pct_of_threads_limit"] = Counter(100.0 * static_cast<double>(bytes) / best_seconds / best_probe_speed);
        std::nth_element(pair_ratios.begin(), pair_ratios.begin() + static_cast<std::ptrdiff_t>(pair_ratios.size() / 2), pair_ratios.end());
        state.counters["paired_median_pct_of_threads_limit"] = Counter(100.0 * pair_ratios[pair_ratios.size() / 2]);
    }
}

std::span<const float> input() { return tb::random_input<float>(rows * columns, 0); }

/// The speed of `threads` threads each running `kernel` sequentially on its own [64, 1024] f32 slice of the input
/// (256 KiB: in L2; its output in a slice of its own), 16 times a pass, at once (wall clock, best of 12 passes), counting
/// `passes_over_data` times the slice's bytes (2 for a scan: read and written, as the copy limit): the kernel's own
/// ceiling with that many threads, whatever the memory — an operator slower than its memory limit here is bound by its
/// arithmetic. kernel(x slice, output slice, rows, columns). Counter in_cache_GBps of the cases below.
template <class Out, class Kernel>
double in_cache_speed(int threads, double passes_over_data, Kernel&& kernel) {
    constexpr std::size_t slice_rows = 64, repeats = 16;
    const auto x = input();
    auto out = tb::scratch<Out>(static_cast<std::size_t>(threads) * slice_rows * columns, 2);
    const double bytes = passes_over_data * static_cast<double>(static_cast<std::size_t>(threads) * repeats * slice_rows * columns * sizeof(float));
    return bandwidth_with_threads(threads, bytes, [&](int t) {
        const std::size_t slice = static_cast<std::size_t>(t) * slice_rows * columns;
        for (std::size_t r = 0; r < repeats; ++r) kernel(x.data() + slice, out.data() + slice, slice_rows, columns);
        benchmark::ClobberMemory();
    });
}

/// in_cache_speed of a reduction over `axis`.
double reduce_in_cache_speed(int threads, tensorops::reduce_function function, std::size_t axis) {
    return in_cache_speed<float>(threads, 1.0, [&](const float* x, float* y, std::size_t n, std::size_t w) {
        tensorops::reduce(tensorops::tensor_view<const float>(x, {n, w}), tensorops::tensor_view<float>(y, {axis == 1 ? n : 1, axis == 1 ? 1 : w}),
                          function, {axis});
    });
}

#ifdef TENSOROPS_BENCH_HAVE_TORCH
/// PyTorch's ATen on `threads` threads (at::set_num_threads): the reductions, argmax and cumulative sums above, on the
/// same buffers, with the same limits and paired probes. ATen is set back to one thread after each, so that its idle
/// OpenMP workers wait on no core while the benchmarks after it run.
void register_torch_peers(int threads, const std::string& suffix) {
    const std::pair<const char*, std::int64_t> layouts[] = {{"contiguous", 1}, {"outer", 0}};
    using reduction = void (*)(at::Tensor&, const at::Tensor&, std::int64_t);
    const std::pair<const char*, reduction> reductions[] = {
        {"reduce/SUM", [](at::Tensor& y, const at::Tensor& x, std::int64_t axis) { at::sum_out(y, x, {axis}); }},
        {"reduce/MAX", [](at::Tensor& y, const at::Tensor& x, std::int64_t axis) { at::amax_out(y, x, {axis}); }},
        {"reduce/LOG_SUM_EXP", [](at::Tensor& y, const at::Tensor& x, std::int64_t axis) { at::logsumexp_out(y, x, {axis}); }},
        {"argmax", [](at::Tensor& y, const at::Tensor& x, std::int64_t axis) { at::argmax_out(y, x, axis); }},
    };
    const auto on_threads = [threads](benchmark::State& state, std::int64_t bytes, tb::limit which, const tb::paired_probe& probe, const auto& body) {
        at::set_num_threads(threads);
        run_threads(state, threads, bytes, which, body, &probe);
        at::set_num_threads(1);
    };
    for (auto [layout, axis] : layouts) {
        for (auto [name, run] : reductions) {
            const bool indices = std::string_view(name) == "argmax";
            benchmark::RegisterBenchmark((std::string("parallel/torch/") + name + "/f32/" + layout + "/64MiB" + suffix).c_str(),
                                         [=](benchmark::State& state) {
                                             const auto x = input();
                                             const at::Tensor xt = at::from_blob(const_cast<float*>(x.data()), {std::int64_t{rows}, std::int64_t{columns}}, at::kFloat);
                                             at::Tensor yt = at::empty({std::int64_t(axis == 1 ? rows : columns)}, indices ? at::kLong : at::kFloat);
                                             const auto probe = tb::paired_read(x);
                                             on_threads(state, static_cast<std::int64_t>(x.size() * sizeof(float)), tb::limit::read, probe, [&] {
                                                 run(yt, xt, axis);
                                                 benchmark::ClobberMemory();
                                             });
                                         })
                ->Unit(benchmark::kMicrosecond)
                ->UseRealTime();
        }
    }
    const std::tuple<const char*, std::vector<std::int64_t>, std::int64_t> scans[] = {
        {"contiguous", {std::int64_t{rows}, std::int64_t{columns}}, 1}, {"outer", {std::int64_t{rows}, std::int64_t{columns}}, 0},
        {"one_line", {std::int64_t{rows * columns}}, 0}};
    for (const auto& [layout, sizes, axis] : scans) {
        benchmark::RegisterBenchmark((std::string("parallel/torch/cumulative_sum/f32/") + layout + "/64MiB" + suffix).c_str(),
                                     [=, sizes = sizes, axis = axis](benchmark::State& state) {
                                         const auto x = input();
                                         auto out = tb::scratch<float>(rows * columns, 1);
                                         const at::Tensor xt = at::from_blob(const_cast<float*>(x.data()), sizes, at::kFloat);
                                         at::Tensor yt = at::from_blob(out.data(), sizes, at::kFloat);
                                         const auto probe = tb::paired_copy(x, out);
                                         on_threads(state, static_cast<std::int64_t>(2 * x.size() * sizeof(float)), tb::limit::copy, probe, [&] {
                                             at::cumsum_out(yt, xt, axis);
                                             benchmark::ClobberMemory();
                                         });
                                     })
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
    }
}
#endif

void register_all() {
    using tensorops::reduce_function;
    const std::pair<const char*, std::size_t> layouts[] = {{"contiguous", 1}, {"outer", 0}};
    for (int threads : {1, 2}) {
        const std::string suffix = "/threads:" + std::to_string(threads);
        for (auto [layout, axis] : layouts) {
            for (auto [name, function] : {std::pair{"SUM", reduce_function::sum}, std::pair{"MAX", reduce_function::max},
                                          std::pair{"LOG_SUM_EXP", reduce_function::log_sum_exp}}) {
                benchmark::RegisterBenchmark((std::string("parallel/reduce/") + name + "/f32/" + layout + "/64MiB" + suffix).c_str(),
                                             [=](benchmark::State& state) {
                                                 const auto x = input();
                                                 auto out = tb::scratch<float>(std::max(rows, columns), 1);
                                                 const std::size_t out_rows = axis == 1 ? rows : 1, out_columns = axis == 1 ? 1 : columns;
                                                 tensorops::thread_pool pool(static_cast<std::size_t>(threads));
                                                 const tensorops::tensor_view<const float> xv(x.data(), {rows, columns});
                                                 const tensorops::tensor_view<float> yv(out.data(), {out_rows, out_columns});
                                                 const auto probe = tb::paired_read(x);
                                                 run_threads(state, threads, static_cast<std::int64_t>(x.size() * sizeof(float)), tb::limit::read, [&] {
                                                     tensorops::reduce(pool, xv, yv, function, {axis});
                                                     benchmark::ClobberMemory();
                                                 }, &probe);
                                                 state.counters["in_cache_GBps"] = reduce_in_cache_speed(threads, function, axis) / 1e9;
                                             })
                    ->Unit(benchmark::kMicrosecond)
                    ->UseRealTime();
            }
            benchmark::RegisterBenchmark((std::string("parallel/argmax/f32/") + layout + "/64MiB" + suffix).c_str(), [=](benchmark::State& state) {
                const auto x = input();
                auto out = tb::scratch<std::int64_t>(std::max(rows, columns), 1);
                const std::size_t out_rows = axis == 1 ? rows : 1, out_columns = axis == 1 ? 1 : columns;
                tensorops::thread_pool pool(static_cast<std::size_t>(threads));
                const tensorops::tensor_view<const float> xv(x.data(), {rows, columns});
                const tensorops::tensor_view<std::int64_t> yv(out.data(), {out_rows, out_columns});
                const auto probe = tb::paired_read(x);
                run_threads(state, threads, static_cast<std::int64_t>(x.size() * sizeof(float)), tb::limit::read, [&] {
                    tensorops::argmax(pool, xv, yv, {axis});
                    benchmark::ClobberMemory();
                }, &probe);
                state.counters["in_cache_GBps"] = in_cache_speed<std::int64_t>(threads, 1.0, [&](const float* x_slice, std::int64_t* y, std::size_t n, std::size_t w) {
                    tensorops::argmax(tensorops::tensor_view<const float>(x_slice, {n, w}),
                                      tensorops::tensor_view<std::int64_t>(y, {axis == 1 ? n : 1, axis == 1 ? 1 : w}), {axis});
                }) / 1e9;
            })->Unit(benchmark::kMicrosecond)->UseRealTime();
            benchmark::RegisterBenchmark((std::string("parallel/cumulative_sum/f32/") + layout + "/64MiB" + suffix).c_str(),
                                         [=](benchmark::State& state) {
                                             const auto x = input();
                                             auto out = tb::scratch<float>(rows * columns, 1);
                                             tensorops::thread_pool pool(static_cast<std::size_t>(threads));
                                             const tensorops::tensor_view<const float> xv(x.data(), {rows, columns});
                                             const tensorops::tensor_view<float> yv(out.data(), {rows, columns});
                                             const auto probe = tb::paired_copy(x, out);
                                             run_threads(state, threads, static_cast<std::int64_t>(2 * x.size() * sizeof(float)), tb::limit::copy, [&] {
                                                 tensorops::cumulative_sum(pool, xv, yv, {axis});
                                                 benchmark::ClobberMemory();
                                             }, &probe);
                                             state.counters["in_cache_GBps"] = in_cache_speed<float>(threads, 2.0, [&](const float* x_slice, float* y, std::size_t n, std::size_t w) {
                                                 tensorops::cumulative_sum(tensorops::tensor_view<const float>(x_slice, {n, w}), tensorops::tensor_view<float>(y, {n, w}), {axis});
                                             }) / 1e9;
                                         })
                ->Unit(benchmark::kMicrosecond)
                ->UseRealTime();
        }
        // One line of 16M floats (the fixed blocks of a long scan on the threads); and the outer scan through an
        // executor that does not claim pieces in order (the two-pass blocked scan: the input is read twice).
        benchmark::RegisterBenchmark((std::string("parallel/cumulative_sum/f32/one_line/64MiB") + suffix).c_str(), [=](benchmark::State& state) {
            const auto x = input();
            auto out = tb::scratch<float>(rows * columns, 1);
            tensorops::thread_pool pool(static_cast<std::size_t>(threads));
            const tensorops::tensor_view<const float> xv(x.data(), {rows * columns});
            const tensorops::tensor_view<float> yv(out.data(), {rows * columns});
            const auto probe = tb::paired_copy(x, out);
            run_threads(state, threads, static_cast<std::int64_t>(2 * x.size() * sizeof(float)), tb::limit::copy, [&] {
                tensorops::cumulative_sum(pool, xv, yv);
                benchmark::ClobberMemory();
            }, &probe);
        })->Unit(benchmark::kMicrosecond)->UseRealTime();
        benchmark::RegisterBenchmark((std::string("parallel/cumulative_sum/f32/outer/64MiB/two_pass") + suffix).c_str(), [=](benchmark::State& state) {
            const auto x = input();
            auto out = tb::scratch<float>(rows * columns, 1);
            tensorops::thread_pool pool(static_cast<std::size_t>(threads));
            struct unordered {  // the pool without claims_in_order()
                tensorops::thread_pool& pool;
                [[nodiscard]] std::size_t concurrency() const { return pool.concurrency(); }
                void parallel_for(std::size_t count, tensorops::task_ref task) { pool.parallel_for(count, task); }
            } executor{pool};
            const tensorops::tensor_view<const float> xv(x.data(), {rows, columns});
            const tensorops::tensor_view<float> yv(out.data(), {rows, columns});
            const auto probe = tb::paired_copy(x, out);
            run_threads(state, threads, static_cast<std::int64_t>(2 * x.size() * sizeof(float)), tb::limit::copy, [&] {
                tensorops::cumulative_sum(executor, xv, yv, {0});
                benchmark::ClobberMemory();
            }, &probe);
        })->Unit(benchmark::kMicrosecond)->UseRealTime();
        // Scatter-ND: 64K random rows of 64 f32 into a (1M, 64) tensor, out of place (the input → output copy of 256 MiB
        // dominates) and in place (only the updates: pieces owning ranges of rows, each reading all the indices);
        // 1M random elements into a 4M-element tensor in place. Random indices, duplicates included.
        benchmark::RegisterBenchmark((std::string("parallel/scatter_nd_rows/f32/64MiB") + suffix).c_str(), [=](benchmark::State& state) {
            constexpr std::size_t table_rows = 1 << 20, width = 64, tuples = 64 << 10;
            const auto x = tb::random_input<float>(table_rows * width, 0);
            auto y = tb::scratch<float>(table_rows * width, 1);
            const auto updates = tb::random_input<float>(tuples * width, 2);
            const auto indices = random_indices(tuples, table_rows);
            tensorops::thread_pool pool(static_cast<std::size_t>(threads));
            const std::int64_t bytes = static_cast<std::int64_t>((2 * table_rows * width + 2 * tuples * width) * sizeof(float) + tuples * 8);
            run_threads(state, threads, bytes, tb::limit::copy, [&] {
                tensorops::scatter_nd<float>(pool, tensorops::tensor_view<const float>(x.data(), {table_rows, width}),
                                             tensorops::tensor_view<const std::int64_t>(indices.data(), {tuples, 1}),
                                             tensorops::tensor_view<const float>(updates.data(), {tuples, width}),
                                             tensorops::tensor_view<float>(y.data(), {table_rows, width}));
                benchmark::ClobberMemory();
            });
        })->Unit(benchmark::kMicrosecond)->UseRealTime();
        for (const bool rows_of_64 : {true, false}) {
            const std::string name = rows_of_64 ? "parallel/scatter_nd_rows/f32/in_place" : "parallel/scatter_nd_elements/f32/in_place";
            benchmark::RegisterBenchmark((name + suffix).c_str(), [=](benchmark::State& state) {
                const std::size_t table_rows = rows_of_64 ? 1 << 20 : 4 << 20, width = rows_of_64 ? 64 : 1;
                const std::size_t tuples = rows_of_64 ? 64 << 10 : 1 << 20;
                auto y = tb::scratch<float>(table_rows * width, 4);
                const auto updates = tb::random_input<float>(tuples * width, 2);
                const auto indices = random_indices(tuples, table_rows);
                tensorops::thread_pool pool(static_cast<std::size_t>(threads));
                const std::int64_t bytes = static_cast<std::int64_t>(2 * tuples * width * sizeof(float) + tuples * 8);
                const tensorops::tensor_view<float> table(y.data(), {table_rows, width});
                run_threads(state, threads, bytes, tb::limit::copy, [&] {
                    tensorops::scatter_nd<float>(pool, table, tensorops::tensor_view<const std::int64_t>(indices.data(), {tuples, 1}),
                                                 tensorops::tensor_view<const float>(updates.data(), {tuples, width}), table);
                    benchmark::ClobberMemory();
                });
            })->Unit(benchmark::kMicrosecond)->UseRealTime();
        }

#ifdef TENSOROPS_BENCH_HAVE_EIGEN
        for (auto [layout, axis] : layouts) {
            // SUM, MAX and argmax as Eigen's Tensor module writes them (.sum, .maximum, .argmax), on its ThreadPoolDevice.
            for (const std::string function : {"SUM", "MAX", "argmax"}) {
                benchmark::RegisterBenchmark((std::string("parallel/eigen/") + function + "/f32/" + layout + "/64MiB" + suffix).c_str(),
                                             [=](benchmark::State& state) {
                    const auto x = input();
                    auto out = tb::scratch<float>(std::max(rows, columns), 1);
                    auto where = tb::scratch<Eigen::Index>(std::max(rows, columns), 2);
                    Eigen::ThreadPool eigen_pool(threads);
                    Eigen::ThreadPoolDevice device(&eigen_pool, threads);
                    const Eigen::TensorMap<const Eigen::Tensor<const float, 2, Eigen::RowMajor>> xt(x.data(), static_cast<Eigen::Index>(rows),
                                                                                                    static_cast<Eigen::Index>(columns));
                    const auto outputs = static_cast<Eigen::Index>(axis == 1 ? rows : columns);
                    Eigen::TensorMap<Eigen::Tensor<float, 1, Eigen::RowMajor>> yt(out.data(), outputs);
                    Eigen::TensorMap<Eigen::Tensor<Eigen::Index, 1, Eigen::RowMajor>> it(where.data(), outputs);
                    const Eigen::array<Eigen::Index, 1> dims{static_cast<Eigen::Index>(axis)};
                    const auto probe = tb::paired_read(x);
                    const bool sum = function == "SUM", maximum = function == "MAX";  // decided once, not per pass
                    run_threads(state, threads, static_cast<std::int64_t>(x.size() * sizeof(float)), tb::limit::read, [&] {
                        if (sum) yt.device(device) = xt.sum(dims);
                        else if (maximum) yt.device(device) = xt.maximum(dims);
                        else it.device(device) = xt.argmax(static_cast<Eigen::Index>(axis));
                        benchmark::ClobberMemory();
                    }, &probe);
                })->Unit(benchmark::kMicrosecond)->UseRealTime();
            }
            benchmark::RegisterBenchmark((std::string("parallel/eigen/cumsum/f32/") + layout + "/64MiB" + suffix).c_str(),
                                         [=](benchmark::State& state) {
                                             const auto x = input();
                                             auto out = tb::scratch<float>(rows * columns, 1);
                                             Eigen::ThreadPool eigen_pool(threads);
                                             Eigen::ThreadPoolDevice device(&eigen_pool, threads);
                                             const Eigen::TensorMap<const Eigen::Tensor<const float, 2, Eigen::RowMajor>> xt(
                                                 x.data(), static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(columns));
                                             Eigen::TensorMap<Eigen::Tensor<float, 2, Eigen::RowMajor>> yt(out.data(), static_cast<Eigen::Index>(rows),
                                                                                                          static_cast<Eigen::Index>(columns));
                                             const auto probe = tb::paired_copy(x, out);
                                             run_threads(state, threads, static_cast<std::int64_t>(2 * x.size() * sizeof(float)), tb::limit::copy, [&] {
                                                 yt.device(device) = xt.cumsum(static_cast<Eigen::Index>(axis));
                                                 benchmark::ClobberMemory();
                                             }, &probe);
                                         })
                ->Unit(benchmark::kMicrosecond)
                ->UseRealTime();
        }
#endif
#ifdef TENSOROPS_BENCH_HAVE_TORCH
        register_torch_peers(threads, suffix);
#endif
    }
}

const bool registered = (register_all(), true);

}  // namespace
