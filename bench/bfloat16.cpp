// bench/bfloat16.cpp — bfloat16's targets (issue 47), paired in one process: SUM of 64 MiB of bfloat16 as
// [32768, 1024] over the contiguous axis and over the outer axis against a read of the same bytes, and the cumulative
// sum along and over the rows against float32's on the same shape (time per element), with float16 beside both.
//
//   pairing   every round runs each case, then its partner, back to back over the same buffers (each the best of a
//             few calls, in CPU time of the one thread): SUM with the suite's read probe over its input
//             (harness.hpp: read_probe_words), each scan with the float32 scan of the same shape and with the copy
//             probe over its own input and output; a figure is the median over rounds of the per-round ratios,
//             printed with the lowest and highest round
//   narrowing where the build targets AVX-512 BF16, also the store of 16 MiB of floats as bfloat16 in 64 KiB pieces
//             (in cache: the conversion's own cost) by the library (vcvtneps2bf16) against the shift path
//             (simd/x86/bf16.hpp), paired the same way
//
// Usage: tensorops_bfloat16_targets [rounds=15]. Build: `cmake --build build/bench --target tensorops_bfloat16_targets`.
#include "harness.hpp"

#include <tensorops/tensorops.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

using tensorops::bfloat16;
using tensorops::float16;
using tensorops::tensor_view;

constexpr std::size_t columns = 1024, rows = 32768;  // 32 Mi elements: 64 MiB of bfloat16, 128 MiB of float32

/// The best of `calls` timings of `work`, in CPU time of the calling thread.
template <class Work>
double best_of(int calls, const Work& work) {
    double best = 1e300;
    for (int i = 0; i < calls; ++i) {
        const double t0 = tb::thread_cpu_seconds();
        work();
        benchmark::ClobberMemory();
        best = std::min(best, tb::thread_cpu_seconds() - t0);
    }
    return best;
}

/// A page-aligned buffer of `count` elements of T, filled with values in [-1, 1).
template <class T>
T* make_buffer(std::size_t count, std::uint64_t seed) {
    auto* data = static_cast<T*>(std::aligned_alloc(4096, count * sizeof(T)));
    if (data == nullptr) std::abort();
    tb::fill_uniform(std::span<T>(data, count), seed);
    return data;
}

/// Ratios of one case over the rounds: the median, the lowest and the highest.
struct series {
    explicit series(std::string label) : name(std::move(label)) {}
    std::string name;
    std::vector<double> ratios;
    void print(const char* unit) const {
        std::vector<double> sorted = ratios;
        std::sort(sorted.begin(), sorted.end());
        std::printf("| %s | %.3f | %.3f | %.3f | %s |\n", name.c_str(), sorted[sorted.size() / 2], sorted.front(),
                    sorted.back(), unit);
    }
};

template <class T>
void sum(const T* x, T* y, std::size_t axis) {
    const std::size_t out_rows = axis == 1 ? rows : 1, out_columns = axis == 1 ? 1 : columns;
    tensorops::reduce(tensor_view<const T>(x, {rows, columns}), tensor_view<T>(y, {out_rows, out_columns}),
                      tensorops::reduce_function::sum, {axis});
}

template <class T>
void scan(const T* x, T* y, std::size_t axis) {
    tensorops::cumulative_sum(tensor_view<const T>(x, {rows, columns}), tensor_view<T>(y, {rows, columns}), {axis});
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
    constexpr std::size_t n = rows * columns;
    auto* x_bf16 = make_buffer<bfloat16>(n, 1);
    auto* y_bf16 = make_buffer<bfloat16>(n, 2);
    auto* x_f16 = make_buffer<float16>(n, 1);
    auto* y_f16 = make_buffer<float16>(n, 2);
    auto* x_f32 = make_buffer<float>(n, 1);
    auto* y_f32 = make_buffer<float>(n, 2);
    constexpr int calls = 3;
    const auto read_probe = [](const void* p, std::size_t bytes) {
        return best_of(calls, [&] {
            std::uint32_t sink = tb::read_probe_words(p, bytes);
            benchmark::DoNotOptimize(sink);
        });
    };
    series sum_along{"bf16 SUM along the rows, % of the read limit"},
        sum_over{"bf16 SUM over the rows, % of the read limit"};
    series f16_sum_along{"f16 SUM along the rows, % of the read limit"},
        f16_sum_over{"f16 SUM over the rows, % of the read limit"};
    series scan_along{"bf16 cumsum along the rows, time per element / f32's"},
        scan_over{"bf16 cumsum over the rows, time per element / f32's"};
    series f16_scan_along{"f16 cumsum along the rows, time per element / f32's"},
        f16_scan_over{"f16 cumsum over the rows, time per element / f32's"};
    series copy_along{"bf16 cumsum along the rows, % of the copy limit"},
        copy_over{"bf16 cumsum over the rows, % of the copy limit"};
    for (int r = 0; r < rounds; ++r) {
        for (std::size_t axis : {std::size_t{1}, std::size_t{0}}) {
            const double probe = read_probe(x_bf16, n * 2);
            const double bf = best_of(calls, [&] { sum(x_bf16, y_bf16, axis); });
            const double hf = best_of(calls, [&] { sum(x_f16, y_f16, axis); });
            const double probe_after = read_probe(x_f16, n * 2);
            (axis == 1 ? sum_along : sum_over).ratios.push_back(100 * probe / bf);
            (axis == 1 ? f16_sum_along : f16_sum_over).ratios.push_back(100 * probe_after / hf);
            const double f32 = best_of(calls, [&] { scan(x_f32, y_f32, axis); });
            const double scan_bf = best_of(calls, [&] { scan(x_bf16, y_bf16, axis); });
            const double scan_hf = best_of(calls, [&] { scan(x_f16, y_f16, axis); });
            const double copy = best_of(calls, [&] { tb::copy_probe(y_bf16, x_bf16, n * 2); });
            (axis == 1 ? scan_along : scan_over).ratios.push_back(scan_bf / f32);
            (axis == 1 ? f16_scan_along : f16_scan_over).ratios.push_back(scan_hf / f32);
            (axis == 1 ? copy_along : copy_over).ratios.push_back(100 * copy / scan_bf);
        }
        std::fprintf(stderr, "round %d of %d\n", r + 1, rounds);
    }
    std::printf("# bfloat16 targets: %d rounds, [%zu, %zu], one thread, CPU time; median, lowest, highest round\n\n",
                rounds, rows, columns);
    std::printf("| case | median | lowest | highest | unit |\n| --- | ---: | ---: | ---: | --- |\n");
    for (const series* s : {&sum_along, &sum_over, &f16_sum_along, &f16_sum_over}) s->print("%");
    for (const series* s : {&scan_along, &scan_over, &f16_scan_along, &f16_scan_over}) s->print("x");
    for (const series* s : {&copy_along, &copy_over}) s->print("%");
#if defined(__AVX512BF16__)
    // The conversion alone, in cache: 64 KiB of floats stored as bfloat16, 256 times, by each path.
    constexpr std::size_t piece = 16384, repeats = 256;
    using P = tensorops::simd::pack<bfloat16>;
    constexpr std::size_t W = P::size;
    series narrowing{"store as bf16 in cache: shift path time / vcvtneps2bf16 path time"};
    for (int r = 0; r < rounds; ++r) {
        const double library = best_of(calls, [&] {
            for (std::size_t k = 0; k < repeats; ++k)
                for (std::size_t i = 0; i < piece; i += W)
                    tensorops::simd::store(y_bf16 + i, P::load_unaligned(x_f32 + k + i));
        });
        const double shifts = best_of(calls, [&] {
            for (std::size_t k = 0; k < repeats; ++k)
                for (std::size_t i = 0; i < piece; i += W)
                    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y_bf16 + i),
                                        tensorops::simd::detail::bfloat16_elements_by_shifts(
                                            P::load_unaligned(x_f32 + k + i)));
        });
        narrowing.ratios.push_back(shifts / library);
    }
    narrowing.print("x");
#endif
    for (void* p : {static_cast<void*>(x_bf16), static_cast<void*>(y_bf16), static_cast<void*>(x_f16),
                    static_cast<void*>(y_f16), static_cast<void*>(x_f32), static_cast<void*>(y_f32)})
        std::free(p);
}
