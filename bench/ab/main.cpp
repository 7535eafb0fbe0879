// Paired A/B of the tree at the session's start (old) and now (new), in one process: interleaved rounds, the median of
// per-round ratios new/old. Each timing: the best of `calls` consecutive calls.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>
#include "ops.hpp"
using namespace ab;
static double time_best(void (*run)(const call&, const void*, void*), const call& c, const void* x, void* y,
                        int calls) {
    double best = 1e30;
    for (int i = 0; i < calls; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        run(c, x, y);
        const auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
    }
    return best;
}
static const char* fname(fn f) {
    const char* n[] = {"sum",     "max",         "lse",        "multiply", "argmax",
                       "cumsum",  "min",         "argmin",     "average",  "l1",
                       "l2",      "log_sum",     "sum_square", "cumprod",  "cumsum_decreasing_exclusive",
                       "scatter", "scatter_add", "gather",  "cummax"};
    return n[int(f)];
}
static const char* tname(dtype t) {
    const char* n[] = {"f32", "f64", "f16", "i8", "i32", "bf16", "u8"};
    return n[int(t)];
}
static std::size_t tsize(dtype t) {
    const std::size_t s[] = {4, 8, 2, 1, 4, 2, 1};
    return s[int(t)];
}
static std::size_t elements(const std::vector<std::size_t>& sizes) {
    std::size_t n = 1;
    for (auto s : sizes) n *= s;
    return n;
}
static std::string joined(const std::vector<std::size_t>& sizes) {
    std::string text;
    for (auto s : sizes) text += (text.empty() ? "" : "x") + std::to_string(s);
    return text;
}
// The copy limit of a case (AB_COPY): its input's bytes copied into its output buffer (one thread).
static void copy_limit(const call& c, const void* x, void* y) { std::memcpy(y, x, elements(c.sizes) * tsize(c.t)); }
int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 21;
    const std::size_t big = std::size_t{64} << 20, small = std::size_t{1} << 20;
    std::vector<unsigned char> xs(big + 4096), ys(3 * big);
    std::mt19937 gen(1);
    std::uniform_real_distribution<float> u(0.5f, 1.5f);
    // Values in [0.5, 1.5) for every type (int8 rows get 0/1: fine for timing).
    for (std::size_t i = 0; i + 4 <= big; i += 4) {
        float v = u(gen);
        std::memcpy(&xs[i], &v, 4);
    }
    void* x = xs.data();
    void* y = ys.data();
    for (std::size_t i = 0; i < big / 2; ++i) {
        std::uint16_t h = 0x3C00;
        std::memcpy(&xs[2 * i], &h, 2);
    }  // overwritten per type below
    std::vector<call> cases;
    const auto add = [&](fn f, dtype t, std::size_t width, std::vector<std::vector<std::size_t>> axes_list,
                         std::vector<std::size_t> sizes_bytes, std::vector<int> threads_list) {
        for (int threads : threads_list)
            for (std::size_t bytes : sizes_bytes)
                for (const auto& axes : axes_list)
                    cases.push_back({f, t, {bytes / tsize(t) / width, width}, axes, threads});
    };
    const std::vector<std::vector<std::size_t>> all_layouts = {{1}, {0}, {0, 1}}, rows_only = {{1}},
                                                two_layouts = {{1}, {0}};
    // The benchmark suite's tensorops cases (bench/*.cpp), as the same calls: issue 46's compiled library against
    // header-only -march=native (build.sh, AB_NEW_COMPILED). Left out: the "-cold" scatter/gather rows (the same calls
    // with their rows evicted), scatter's validation-only and out-of-place variants, the uniqueness check's cases.
    const std::size_t row_target = std::size_t{1} << 20, row_tuples = std::size_t{64} << 10,
                      element_target = std::size_t{4} << 20, element_tuples = std::size_t{1} << 20;
    std::vector<std::int64_t> row_indices(row_tuples), element_indices(element_tuples);
    std::vector<float> targets(row_target * 64);
    for (auto& i : row_indices) i = static_cast<std::int64_t>(gen() % row_target);
    for (auto& i : element_indices) i = static_cast<std::int64_t>(gen() % element_target);
    const bool suite = std::getenv("AB_SUITE") != nullptr;
    if (suite) {
        const std::size_t in_cache = std::size_t{64} << 10;
        const auto reduce_cases = [&](fn f, std::vector<dtype> types) {
            for (dtype t : types) add(f, t, 1024, all_layouts, {big, in_cache}, {1});
        };
        reduce_cases(fn::sum, {dtype::f32, dtype::f64, dtype::f16, dtype::bf16, dtype::i32, dtype::i8});
        reduce_cases(fn::max, {dtype::f32, dtype::f64, dtype::f16, dtype::i32, dtype::u8});
        reduce_cases(fn::argmax, {dtype::f32, dtype::i8});
        for (fn f :
             {fn::min, fn::argmin, fn::average, fn::l1, fn::l2, fn::log_sum, fn::lse, fn::multiply, fn::sum_square})
            reduce_cases(f, {dtype::f32});
        for (fn f : {fn::sum, fn::max, fn::l2, fn::lse, fn::argmax})
            for (std::size_t width : {std::size_t{3}, std::size_t{8}, std::size_t{64}})
                add(f, dtype::f32, width, rows_only, {big}, {1});
        add(fn::max, dtype::u8, 3, rows_only, {big}, {1});               // rgb
        cases.push_back({fn::max, dtype::u8, {big / 4, 3}, {1}, 1, 4});  // rgb of rgba
        for (dtype t : {dtype::f32, dtype::f64, dtype::f16, dtype::bf16, dtype::i32})
            add(fn::cumsum, t, 1024, two_layouts, {big, std::size_t{1} << 20, std::size_t{16} << 10}, {1});
        add(fn::cumprod, dtype::f32, 1024, two_layouts, {big, std::size_t{1} << 20, std::size_t{16} << 10}, {1});
        add(fn::cumsum_decreasing_exclusive, dtype::f32, 1024, two_layouts, {big}, {1});
        // parallel/: one and two threads (the one-thread cases above are sequential calls; these go through the pool)
        for (fn f : {fn::sum, fn::max, fn::lse, fn::argmax, fn::cumsum})
            add(f, dtype::f32, 1024, two_layouts, {big}, {2});
        for (int threads : {1, 2}) cases.push_back({fn::cumsum, dtype::f32, {big / 4}, {0}, threads});  // one line
        for (int threads : {1, 2}) {
            for (fn f : {fn::scatter, fn::scatter_add, fn::gather}) {
                cases.push_back({f,
                                 dtype::f32,
                                 {row_tuples, 64},
                                 {0},
                                 threads,
                                 0,
                                 row_indices.data(),
                                 targets.data(),
                                 {row_target, 64}});
                cases.push_back({f,
                                 dtype::f32,
                                 {element_tuples},
                                 {0},
                                 threads,
                                 0,
                                 element_indices.data(),
                                 targets.data(),
                                 {element_target}});
            }
        }
    } else if (std::getenv("AB_SCANS")) {  // the scans of scan_ops.cpp over and along rows of 4 KiB, 64 MiB and 1 MiB
        for (std::size_t bytes : {big, small}) {
            for (dtype t : {dtype::f32, dtype::f64, dtype::i32, dtype::f16, dtype::bf16})
                add(fn::cumsum, t, 4096 / tsize(t), two_layouts, {bytes}, {1});
            for (fn f : {fn::cummax, fn::cumprod, fn::cumsum_decreasing_exclusive})
                add(f, dtype::f32, 1024, two_layouts, {bytes}, {1});
        }
        for (fn f : {fn::cumsum, fn::cummax}) add(f, dtype::f32, 1024, two_layouts, {big}, {2});
        // rows of 8-64 bytes over the rows: narrower than a vector, a vector or two
        for (dtype t : {dtype::f32, dtype::f64, dtype::i32, dtype::f16})
            for (std::size_t row_bytes : {std::size_t{8}, std::size_t{12}, std::size_t{16}, std::size_t{32}, std::size_t{64}})
                add(fn::cumsum, t, row_bytes / tsize(t), {{0}}, {big, small}, {1});
    } else if (std::getenv("AB_TAILS")) {  // SUM and MAX over rows whose width is no whole number of vectors
        for (fn f : {fn::sum, fn::max})
            for (dtype t : {dtype::f32, dtype::f16, dtype::i32})
                for (std::size_t width : {std::size_t{3}, std::size_t{5}, std::size_t{13}, std::size_t{1021}})
                    add(f, t, width, {{0}}, {big, small}, {1});
    } else if (std::getenv("AB_SHORT_ROWS")) {  // SUM and MAX along rows of 64 B-2 KiB (the short-row kernel; issue 50)
        for (fn f : {fn::sum, fn::max})
            for (dtype t : {dtype::f32, dtype::f16, dtype::i32})
                for (std::size_t row_bytes : {std::size_t{64}, std::size_t{128}, std::size_t{192}, std::size_t{256},
                                              std::size_t{512}, std::size_t{1024}, std::size_t{2048}})
                    add(f, t, row_bytes / tsize(t), rows_only, {big, std::size_t{16} << 20, std::size_t{4} << 20, small}, {1});
        for (std::size_t row_bytes : {std::size_t{128}, std::size_t{256}, std::size_t{1024}})
            add(fn::sum, dtype::f32, row_bytes / 4, rows_only, {big}, {2});
    } else if (std::getenv("AB_HUGE_ROWS")) {  // scans over a few rows of 2 to 32 MiB (bands of one row)
        for (std::size_t row_bytes : {std::size_t{2} << 20, std::size_t{4} << 20, std::size_t{8} << 20,
                                      std::size_t{16} << 20, std::size_t{32} << 20})
            add(fn::cumsum, dtype::f32, row_bytes / 4, {{0}}, {big}, {1, 2});
    } else if (std::getenv("AB_NARROW_ARGMAX")) {  // argmax over back-to-back rows of 12 B-1 KiB (fused narrow rows; issue 50)
        for (std::size_t width : {std::size_t{3}, std::size_t{4}, std::size_t{7}, std::size_t{16}, std::size_t{32}, std::size_t{48},
                                  std::size_t{64}, std::size_t{256}})
            add(fn::argmax, dtype::f32, width, {{0}}, {big, small}, {1, 2});
    } else if (std::getenv("AB_WIDE_ARGMAX")) {  // argmax over the rows, from rows of 4 KiB to 1 MiB (issue 50's cliff)
        for (std::size_t row_bytes : {std::size_t{4} << 10, std::size_t{16} << 10, std::size_t{64} << 10,
                                      std::size_t{256} << 10, std::size_t{1} << 20})
            add(fn::argmax, dtype::f32, row_bytes / 4, {{0}}, {big}, {1, 2});
    } else if (std::getenv("AB_WIDE_SCANS")) {  // the scans across rows, from rows of 4 KiB to 1 MiB (issue 50's cliff)
        for (std::size_t row_bytes : {std::size_t{4} << 10, std::size_t{16} << 10, std::size_t{64} << 10,
                                      std::size_t{256} << 10, std::size_t{1} << 20}) {
            add(fn::cumsum, dtype::f32, row_bytes / 4, {{0}}, {big}, {1, 2});
            add(fn::cumsum, dtype::f16, row_bytes / 2, {{0}}, {big}, {1});
        }
    } else if (std::getenv("AB_TINY")) {
        for (fn f : {fn::sum, fn::max, fn::lse, fn::argmax, fn::cumsum}) {
            add(f, dtype::f32, 16, two_layouts, {1024}, {1});
            add(f, dtype::f32, 1024, two_layouts, {std::size_t{1} << 16}, {1});
        }
    } else
        for (dtype t : {dtype::f32, dtype::f16, dtype::f64, dtype::i8}) {
            const bool f32 = t == dtype::f32, floating = t != dtype::i8;
            for (fn f : {fn::sum, fn::max, fn::lse, fn::multiply, fn::argmax, fn::cumsum}) {
                if (f == fn::lse && !floating) continue;
                if (!f32 && (f == fn::multiply || f == fn::cumsum || f == fn::argmax)) continue;
                add(f, t, 1024, f == fn::cumsum || f == fn::argmax ? two_layouts : all_layouts, {big}, {1, 2});
                add(f, t, 1024, two_layouts, {small}, {1});
                if (f == fn::cumsum || f == fn::multiply) continue;
                for (std::size_t width : {std::size_t{64}, std::size_t{8}, std::size_t{3}})
                    add(f, t, width, rows_only, {big}, {1});
            }
        }
    // AB_COPY=1: every round also times a memcpy of the case's bytes from the input into the output (the scans' limit)
    // and reports each side's speed as a share of it (the median over rounds of copy time / side's time).
    const bool with_copy = std::getenv("AB_COPY") != nullptr;
    std::printf("case,threads,bytes,median_new_over_old,min_ratio,max_ratio,old_best_ms,new_best_ms\n");
    const char* filter = std::getenv("AB_FILTER");
    for (const call& c : cases) {
        if (filter) {
            std::string name = std::string(fname(c.f)) + " " + tname(c.t) + " " + std::to_string(c.sizes.back()) + " " +
                               std::to_string(c.axes[0]) + std::to_string(c.axes.size()) + " " +
                               std::to_string(c.threads);
            if (name.find(filter) == std::string::npos) continue;
        }
        // Data per type, filled when the type changes: floats and doubles in [0.5, 1.5), halves and bfloat16 in
        // [0.5, 1), int8 in [0, 8), uint8 any byte, int32 in [0, 65536).
        static int filled = -1;
        if (int(c.t) != filled) {
            filled = int(c.t);
            const auto fill = [&](auto value_of) {
                using V = decltype(value_of());
                for (std::size_t i = 0; i + sizeof(V) <= big; i += sizeof(V)) {
                    const V v = value_of();
                    std::memcpy(&xs[i], &v, sizeof(V));
                }
            };
            switch (c.t) {
                case dtype::f32: fill([&] { return u(gen); }); break;
                case dtype::f64: fill([&] { return double(u(gen)); }); break;
                case dtype::f16: fill([&] { return std::uint16_t(0x3800 + (gen() & 0x3FF)); }); break;
                case dtype::bf16: fill([&] { return std::uint16_t(0x3F00 + (gen() & 0xFF)); }); break;
                case dtype::i8: fill([&] { return std::uint8_t(gen() & 7); }); break;
                case dtype::u8: fill([&] { return std::uint8_t(gen() & 0xFF); }); break;
                case dtype::i32: fill([&] { return std::int32_t(gen() & 0xFFFF); }); break;
            }
        }
        const std::size_t bytes = elements(c.sizes) * tsize(c.t);
        const int calls = bytes >= big ? 3 : bytes >= small ? 20 : 2000;
        run_old(c, x, y);
        run_new(c, x, y);
        std::vector<double> ratios, copy_over_old, copy_over_new;
        double best_old = 1e30, best_new = 1e30;
        for (int r = 0; r < rounds; ++r) {
            double to, tn;
            if (r % 2 == 0) {
                to = time_best(run_old, c, x, y, calls);
                tn = time_best(run_new, c, x, y, calls);
            } else {
                tn = time_best(run_new, c, x, y, calls);
                to = time_best(run_old, c, x, y, calls);
            }
            ratios.push_back(tn / to);
            best_old = std::min(best_old, to);
            best_new = std::min(best_new, tn);
            if (with_copy) {
                const double tc = time_best(copy_limit, c, x, y, calls);
                copy_over_old.push_back(tc / to);
                copy_over_new.push_back(tc / tn);
            }
        }
        std::sort(ratios.begin(), ratios.end());
        std::sort(copy_over_old.begin(), copy_over_old.end());
        std::sort(copy_over_new.begin(), copy_over_new.end());
        std::string axes;
        for (auto a : c.axes) axes += std::to_string(a);
        std::printf("%s %s [%s]%s axes %s,%d,%zu,%.3f,%.3f,%.3f,%.4f,%.4f\n", fname(c.f), tname(c.t),
                    joined(c.sizes).c_str(), c.row_pitch != 0 ? " pitched" : "", axes.c_str(), c.threads, bytes,
                    ratios[ratios.size() / 2], ratios.front(), ratios.back(), best_old * 1e3, best_new * 1e3);
        if (with_copy)
            std::printf("  of the copy limit (median per round, memcpy of the case's bytes after both): old %.0f %%, new %.0f %%\n",
                        100 * copy_over_old[copy_over_old.size() / 2], 100 * copy_over_new[copy_over_new.size() / 2]);
        std::fflush(stdout);
    }
}
