// Cumulative sum / product benchmarks: tensorops beside a plain scalar loop and the peers (Eigen Tensor's
// cumsum/cumprod, xtensor's cumsum), f32 / f64 / f16 / bf16 / i32, on a row-major [rows, 1024] tensor of 16 KiB,
// 1 MiB and 64 MiB, scanning the contiguous axis (1) and the outer axis (0).
// Bytes counted: input read + output written (2× the tensor); limit: copy.
#include "harness.hpp"

#include <tensorops/tensorops.hpp>

#ifdef TENSOROPS_BENCH_HAVE_EIGEN
#include <unsupported/Eigen/CXX11/Tensor>
#endif
#ifdef TENSOROPS_BENCH_HAVE_XTENSOR
#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xmath.hpp>
#endif

namespace {

constexpr std::size_t columns = 1024;

template <class T>
struct problem {
    std::size_t rows;
    std::span<const T> input;
    std::span<T> output;
    std::int64_t bytes_moved;
};

template <class T>
problem<T> make_problem(const benchmark::State& state) {
    const auto bytes = static_cast<std::size_t>(state.range(0));
    const std::size_t elements = bytes / sizeof(T);
    const std::size_t rows = std::max<std::size_t>(1, elements / columns);
    return {rows, tb::random_input<T>(rows * columns, 0), tb::scratch<T>(rows * columns, 1),
            static_cast<std::int64_t>(2 * rows * columns * sizeof(T))};
}

template <class T>
void label(benchmark::State& state) {
    state.SetLabel(std::string(state.range(1) == 1 ? "contiguous axis" : "outer axis") + ", " +
                   std::to_string(state.range(0) >> 10) + " KiB");
}

// ---------------------------------------------------------------------------------------------
// tensorops

template <class T, bool Product>
void BM_tensorops(benchmark::State& state) {
    auto p = make_problem<T>(state);
    const tensorops::tensor_view<const T> x(p.input.data(), {p.rows, columns});
    const tensorops::tensor_view<T> y(p.output.data(), {p.rows, columns});
    const tensorops::scan_options options{static_cast<std::size_t>(state.range(1))};
    label<T>(state);
    tb::run_paired(state, p.bytes_moved, tb::limit::copy, tb::paired_copy(p.input, p.output), [&] {
        if constexpr (Product) tensorops::cumulative_product(x, y, options);
        else tensorops::cumulative_sum(x, y, options);
        benchmark::DoNotOptimize(p.output.data());
        benchmark::ClobberMemory();
    });
}

void BM_tensorops_cumsum_f32_decreasing_exclusive(benchmark::State& state) {
    auto p = make_problem<float>(state);
    const tensorops::tensor_view<const float> x(p.input.data(), {p.rows, columns});
    const tensorops::tensor_view<float> y(p.output.data(), {p.rows, columns});
    const tensorops::scan_options options{static_cast<std::size_t>(state.range(1)), tensorops::axis_direction::decreasing, true};
    label<float>(state);
    tb::run_paired(state, p.bytes_moved, tb::limit::copy, tb::paired_copy(p.input, p.output), [&] {
        tensorops::cumulative_sum(x, y, options);
        benchmark::DoNotOptimize(p.output.data());
        benchmark::ClobberMemory();
    });
}

// ---------------------------------------------------------------------------------------------
// The plain loop a user would write (in the element type; float16 through float).

template <class T>
void BM_scalar_loop_cumsum(benchmark::State& state) {
    auto p = make_problem<T>(state);
    label<T>(state);
    const bool contiguous = state.range(1) == 1;
    tb::run_paired(state, p.bytes_moved, tb::limit::copy, tb::paired_copy(p.input, p.output), [&] {
        const T* x = p.input.data();
        T* y = p.output.data();
        if (contiguous) {
            for (std::size_t i = 0; i < p.rows; ++i) {
                T running = T(0);
                for (std::size_t j = 0; j < columns; ++j) y[i * columns + j] = running = T(running + x[i * columns + j]);
            }
        } else {
            for (std::size_t j = 0; j < columns; ++j) y[j] = x[j];
            for (std::size_t i = 1; i < p.rows; ++i)
                for (std::size_t j = 0; j < columns; ++j) y[i * columns + j] = T(y[(i - 1) * columns + j] + x[i * columns + j]);
        }
        benchmark::DoNotOptimize(p.output.data());
        benchmark::ClobberMemory();
    });
}

// ---------------------------------------------------------------------------------------------
// Peers

#ifdef TENSOROPS_BENCH_HAVE_EIGEN
template <bool Product>
void BM_eigen(benchmark::State& state) {
    auto p = make_problem<float>(state);
    label<float>(state);
    using matrix = Eigen::Tensor<float, 2, Eigen::RowMajor>;
    const Eigen::TensorMap<const Eigen::Tensor<const float, 2, Eigen::RowMajor>> x(p.input.data(), static_cast<Eigen::Index>(p.rows), static_cast<Eigen::Index>(columns));
    Eigen::TensorMap<matrix> y(p.output.data(), static_cast<Eigen::Index>(p.rows), static_cast<Eigen::Index>(columns));
    const auto axis = static_cast<Eigen::Index>(state.range(1));
    tb::run_paired(state, p.bytes_moved, tb::limit::copy, tb::paired_copy(p.input, p.output), [&] {
        if constexpr (Product) y = x.cumprod(axis);
        else y = x.cumsum(axis);
        benchmark::DoNotOptimize(p.output.data());
        benchmark::ClobberMemory();
    });
}
#endif

#ifdef TENSOROPS_BENCH_HAVE_XTENSOR
void BM_xtensor_cumsum(benchmark::State& state) {
    auto p = make_problem<float>(state);
    label<float>(state);
    const auto x = xt::adapt(p.input.data(), p.rows * columns, xt::no_ownership(), std::array<std::size_t, 2>{p.rows, columns});
    auto y = xt::adapt(p.output.data(), p.rows * columns, xt::no_ownership(), std::array<std::size_t, 2>{p.rows, columns});
    const auto axis = static_cast<std::ptrdiff_t>(state.range(1));
    tb::run_paired(state, p.bytes_moved, tb::limit::copy, tb::paired_copy(p.input, p.output), [&] {
        y = xt::cumsum(x, axis);  // xtensor's cumsum evaluates into a temporary, then assigns
        benchmark::DoNotOptimize(p.output.data());
        benchmark::ClobberMemory();
    });
}
#endif

void sizes_and_axes(benchmark::internal::Benchmark* b) {
    tb::defaults(b);
    for (std::int64_t axis : {1, 0})
        for (std::int64_t bytes : {16 << 10, 1 << 20, 64 << 20}) b->Args({bytes, axis});
}
void large_only(benchmark::internal::Benchmark* b) {
    tb::defaults(b);
    for (std::int64_t axis : {1, 0}) b->Args({64 << 20, axis});
}

}  // namespace

BENCHMARK_TEMPLATE(BM_tensorops, float, false)->Name("cumsum/tensorops/f32")->Apply(sizes_and_axes);
BENCHMARK_TEMPLATE(BM_tensorops, double, false)->Name("cumsum/tensorops/f64")->Apply(sizes_and_axes);
BENCHMARK_TEMPLATE(BM_tensorops, tensorops::float16, false)->Name("cumsum/tensorops/f16")->Apply(sizes_and_axes);
BENCHMARK_TEMPLATE(BM_tensorops, tensorops::bfloat16, false)->Name("cumsum/tensorops/bf16")->Apply(sizes_and_axes);
BENCHMARK_TEMPLATE(BM_tensorops, std::int32_t, false)->Name("cumsum/tensorops/i32")->Apply(sizes_and_axes);
BENCHMARK(BM_tensorops_cumsum_f32_decreasing_exclusive)->Name("cumsum/tensorops/f32/decreasing-exclusive")->Apply(large_only);
BENCHMARK_TEMPLATE(BM_tensorops, float, true)->Name("cumprod/tensorops/f32")->Apply(sizes_and_axes);
BENCHMARK_TEMPLATE(BM_scalar_loop_cumsum, float)->Name("cumsum/scalar-loop/f32")->Apply(sizes_and_axes);
BENCHMARK_TEMPLATE(BM_scalar_loop_cumsum, tensorops::float16)->Name("cumsum/scalar-loop/f16")->Apply(large_only);
#ifdef TENSOROPS_BENCH_HAVE_EIGEN
BENCHMARK_TEMPLATE(BM_eigen, false)->Name("cumsum/eigen/f32")->Apply(sizes_and_axes);
BENCHMARK_TEMPLATE(BM_eigen, true)->Name("cumprod/eigen/f32")->Apply(large_only);
#endif
#ifdef TENSOROPS_BENCH_HAVE_XTENSOR
BENCHMARK(BM_xtensor_cumsum)->Name("cumsum/xtensor/f32")->Apply(sizes_and_axes);
#endif
