// Paired A/B of two trees on the reductions over the rows (SUM and MAX over axis 0 of [rows, width]), with each case's
// limit measured in the same rounds: bench/ab/build.sh <old tree> [<new tree>] [<output>] with AB_MAIN=wide_rows.cpp.
// Usage: <output> [rounds=15]; AB_FILTER=<substring of the case's name> picks cases; AB_SIZE=small runs the in-cache
// size (256 KiB) instead of 64 MiB, AB_SIZE=both both; AB_WIDTHS=<KiB,KiB,...> the row widths in KiB (default: the shape
// sweep's from 4 KiB: 4, 16, 64, 256, 4096, 32768).
// Each round times old and new (which first alternates by round; each the best of a few calls) and then the case's
// limit probe over the same buffers (the read probe of bench/harness.hpp, or bench/read_write_probe.hpp where the
// output is at least 1/16 of the input, as bench/shape_sweep.cpp judges); one thread in thread CPU time, two in wall
// time (each thread of the probe its half); the two-thread cells suffer from the three pools (old, new, probe) whose
// idle threads spin on a two-core host. Prints per case: the median over rounds of new / old with its range, the best times,
// and old and new in % of the limit (median over rounds of probe time / operator time, bytes as the sweep counts them).
#include "../harness.hpp"
#include "../read_write_probe.hpp"
#include "ops.hpp"

#include <tensorops/tensorops.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace ab;
namespace tb = tensorops_bench;

namespace {

const char* fname(fn f) { return f == fn::sum ? "SUM" : "MAX"; }
const char* tname(dtype t) { return t == dtype::f32 ? "f32" : t == dtype::f16 ? "f16" : "i32"; }
std::size_t tsize(dtype t) { return t == dtype::f16 ? 2 : 4; }

double seconds_of(int threads, const auto& work) {
    if (threads == 1) {
        const double t0 = tb::thread_cpu_seconds();
        work();
        return tb::thread_cpu_seconds() - t0;
    }
    const auto t0 = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double best_of(int calls, int threads, const auto& work) {
    double best = 1e300;
    for (int i = 0; i < calls; ++i) best = std::min(best, seconds_of(threads, work));
    return best;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
    const char* filter = std::getenv("AB_FILTER");
    const std::string size_choice = std::getenv("AB_SIZE") ? std::getenv("AB_SIZE") : "big";
    constexpr std::size_t big = std::size_t{64} << 20, small = std::size_t{256} << 10;
    auto* x = static_cast<unsigned char*>(std::aligned_alloc(4096, big));
    auto* y = static_cast<unsigned char*>(std::aligned_alloc(4096, big));
    if (x == nullptr || y == nullptr) return 1;
    std::memset(y, 0, big);
    tensorops::thread_pool probe_pool(2);
    std::vector<std::size_t> widths;
    for (const char* w = std::getenv("AB_WIDTHS") ? std::getenv("AB_WIDTHS") : "4,16,64,256,4096,32768"; *w != 0;) {
        char* end = nullptr;
        widths.push_back(std::strtoull(w, &end, 10) << 10);
        w = *end == ',' ? end + 1 : end;
    }
    std::vector<std::size_t> sizes;
    if (size_choice != "small") sizes.push_back(big);
    if (size_choice != "big") sizes.push_back(small);
    std::printf("case,threads,limit,median_new_over_old,min,max,old_ms,new_ms,old_pct,new_pct\n");
    for (dtype t : {dtype::f32, dtype::f16, dtype::i32}) {
        if (t == dtype::f32) tb::fill_uniform(std::span<float>(reinterpret_cast<float*>(x), big / 4), 1);
        if (t == dtype::f16) tb::fill_uniform(std::span<tensorops::float16>(reinterpret_cast<tensorops::float16*>(x), big / 2), 3);
        if (t == dtype::i32) tb::fill_uniform(std::span<std::int32_t>(reinterpret_cast<std::int32_t*>(x), big / 4), 2);
        for (std::size_t bytes : sizes)
            for (std::size_t width_bytes : widths)
                for (fn f : {fn::sum, fn::max})
                    for (int threads : {1, 2}) {
                        if (2 * width_bytes > bytes) continue;
                        const std::size_t width = width_bytes / tsize(t), rows = bytes / width_bytes;
                        const call c{f, t, {rows, width}, {0}, threads};
                        const std::string name = std::string(fname(f)) + " " + tname(t) + " [" + std::to_string(rows) + "," + std::to_string(width) + "]";
                        if (filter != nullptr && (name + " " + std::to_string(threads)).find(filter) == std::string::npos) continue;
                        const std::size_t out = width_bytes;
                        const bool read_write = 16 * out >= bytes;
                        const auto probe = [&](bool paged) {
                            const auto part = [&](std::size_t i, std::size_t parts) {
                                const std::size_t begin = bytes * i / parts / 64 * 64, end = i + 1 == parts ? bytes : bytes * (i + 1) / parts / 64 * 64;
                                if (!read_write) {
                                    std::uint32_t sink = tb::read_probe_words(x + begin, end - begin);
                                    benchmark::DoNotOptimize(sink);
                                    return;
                                }
                                const std::size_t ob = out * i / parts / 64 * 64, oe = i + 1 == parts ? out : out * (i + 1) / parts / 64 * 64;
                                tb::read_write_probe(x + begin, end - begin, y + ob, oe - ob, paged);
                                benchmark::ClobberMemory();
                            };
                            if (threads == 1) part(0, 1);
                            else probe_pool.parallel_for(2, [&](std::size_t i) { part(i, 2); });
                        };
                        const auto run_a = [&] { run_old(c, x, y); };
                        const auto run_b = [&] { run_new(c, x, y); };
                        run_a();
                        run_b();
                        const double once = seconds_of(threads, run_a);
                        const int calls = static_cast<int>(std::clamp(4e-3 / std::max(once, 1e-9), 3.0, 400.0));
                        std::vector<double> ratios, pct_old, pct_new;
                        double best_old = 1e300, best_new = 1e300;
                        for (int r = 0; r < rounds; ++r) {
                            double to, tn;
                            if (r % 2 == 0) {
                                to = best_of(calls, threads, run_a);
                                tn = best_of(calls, threads, run_b);
                            } else {
                                tn = best_of(calls, threads, run_b);
                                to = best_of(calls, threads, run_a);
                            }
                            double tp = best_of(calls, threads, [&] { probe(false); });
                            if (read_write) tp = std::min(tp, best_of(calls, threads, [&] { probe(true); }));
                            ratios.push_back(tn / to);
                            pct_old.push_back(100 * tp / to);
                            pct_new.push_back(100 * tp / tn);
                            best_old = std::min(best_old, to);
                            best_new = std::min(best_new, tn);
                        }
                        const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
                        std::printf("%s %s,%d,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.0f,%.0f\n", name.c_str(), bytes == big ? "64MiB" : "256KiB", threads,
                                    read_write ? "read+write" : "read", median(ratios), *lo, *hi, 1e3 * best_old, 1e3 * best_new, median(pct_old),
                                    median(pct_new));
                        std::fflush(stdout);
                    }
    }
    std::free(x);
    std::free(y);
}
