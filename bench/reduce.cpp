// Reduce benchmarks: every function on f32 at 64 KiB and 64 MiB over the contiguous axis, an outer axis and all
// axes of a row-major [rows, 1024] tensor; SUM and MAX also for f64, f16 and i32, SUM for bf16, SUM and argmax for i8; argmax/argmin; beside a
// plain scalar loop and, when installed, Eigen Tensor and xtensor. Bytes counted: the input read; limit: read.
// Narrow rows (widths 3, 8, 64 reduced over the contiguous axis): input read + output written.
#include "harness.hpp"

#include <tensorops/tensorops.hpp>

#include <string>

#ifdef TENSOROPS_BENCH_HAVE_EIGEN
#include <unsupported/Eigen/CXX11/Tensor>
#endif
#ifdef TENSOROPS_BENCH_HAVE_XTENSOR
#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xreducer.hpp>
#endif

namespace {

constexpr std::size_t columns = 1024;
enum class layout { contiguous, outer, all };

const char* layout_name(layout l) { return l == layout::contiguous ? "contiguous" : l == layout::outer ? "outer" : "all"; }

std::vector<std::size_t> axes_of(layout l) {
    if (l == layout::contiguous) return {1};
    if (l == layout::outer) return {0};
    return {0, 1};
}

template <class T>
struct problem {
    std::size_t rows;
    std::span<const T> input;
    std::int64_t bytes;
};

template <class T>
problem<T> make_problem(std::size_t bytes) {
    const std::size_t rows = std::max<std::size_t>(1, bytes / sizeof(T) / columns);
    return {rows, tb::random_input<T>(rows * columns, 0), static_cast<std::int64_t>(rows * columns * sizeof(T))};
}

template <class T, class U = T>
void register_tensorops(const std::string& name, tensorops::reduce_function f, layout l, std::size_t bytes) {
    benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
        const auto p = make_problem<T>(bytes);
        const auto axes = axes_of(l);
        const std::size_t out_rows = l == layout::contiguous ? p.rows : 1, out_columns = l == layout::outer ? columns : 1;
        auto out = tb::scratch<U>(out_rows * out_columns, 1);
        const tensorops::tensor_view<const T> x(p.input.data(), {p.rows, columns});
        const tensorops::tensor_view<U> y(out.data(), {out_rows, out_columns});
        tb::run_paired(state, p.bytes, tb::limit::read, tb::paired_read(p.input), [&] {
            tensorops::reduce(x, y, f, axes);
            benchmark::DoNotOptimize(out.data());
            benchmark::ClobberMemory();
        });
    })->Apply(tb::defaults);
}

void register_scalar_sum(layout l, std::size_t bytes) {
    const std::string name = std::string("reduce/scalar-loop/SUM/f32/") + layout_name(l) + "/" + std::to_string(bytes >> 10) + "KiB";
    benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
        const auto p = make_problem<float>(bytes);
        auto out = tb::scratch<float>(std::max(p.rows, columns), 1);
        tb::run_paired(state, p.bytes, tb::limit::read, tb::paired_read(p.input), [&] {
            const float* x = p.input.data();
            if (l == layout::contiguous) {
                for (std::size_t i = 0; i < p.rows; ++i) {
                    float s = 0;
                    for (std::size_t j = 0; j < columns; ++j) s += x[i * columns + j];
                    out[i] = s;
                }
            } else if (l == layout::outer) {
                for (std::size_t j = 0; j < columns; ++j) out[j] = 0;
                for (std::size_t i = 0; i < p.rows; ++i)
                    for (std::size_t j = 0; j < columns; ++j) out[j] += x[i * columns + j];
            } else {
                float s = 0;
                for (std::size_t i = 0; i < p.rows * columns; ++i) s += x[i];
                out[0] = s;
            }
            benchmark::DoNotOptimize(out.data());
            benchmark::ClobberMemory();
        });
    })->Apply(tb::defaults);
}

#ifdef TENSOROPS_BENCH_HAVE_EIGEN
void register_eigen(const std::string& what, layout l, std::size_t bytes) {
    const std::string name = "reduce/eigen/" + what + "/f32/" + layout_name(l) + "/" + std::to_string(bytes >> 10) + "KiB";
    benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
        const auto p = make_problem<float>(bytes);
        auto out = tb::scratch<float>(std::max(p.rows, columns), 1);
        const Eigen::TensorMap<const Eigen::Tensor<const float, 2, Eigen::RowMajor>> x(p.input.data(), static_cast<Eigen::Index>(p.rows),
                                                                                   static_cast<Eigen::Index>(columns));
        const Eigen::array<Eigen::Index, 1> axis{l == layout::contiguous ? 1 : 0};
        Eigen::TensorMap<Eigen::Tensor<float, 1, Eigen::RowMajor>> y(out.data(), static_cast<Eigen::Index>(l == layout::contiguous ? p.rows : columns));
        Eigen::TensorMap<Eigen::Tensor<float, 0, Eigen::RowMajor>> scalar(out.data());
        tb::run_paired(state, p.bytes, tb::limit::read, tb::paired_read(p.input), [&] {
            if (l == layout::all) {
                if (what == "SUM") scalar = x.sum();
                else scalar = x.maximum();
            } else if (what == "SUM") {
                y = x.sum(axis);
            } else {
                y = x.maximum(axis);
            }
            benchmark::DoNotOptimize(out.data());
            benchmark::ClobberMemory();
        });
    })->Apply(tb::defaults);
}
#endif

#ifdef TENSOROPS_BENCH_HAVE_XTENSOR
void register_xtensor_sum(layout l, std::size_t bytes) {
    const std::string name = std::string("reduce/xtensor/SUM/f32/") + layout_name(l) + "/" + std::to_string(bytes >> 10) + "KiB";
    benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
        const auto p = make_problem<float>(bytes);
        auto out = tb::scratch<float>(std::max(p.rows, columns), 1);
        const auto x = xt::adapt(p.input.data(), p.rows * columns, xt::no_ownership(), std::array<std::size_t, 2>{p.rows, columns});
        auto y = xt::adapt(out.data(), l == layout::contiguous ? p.rows : columns, xt::no_ownership(),
                           std::array<std::size_t, 1>{l == layout::contiguous ? p.rows : columns});
        tb::run_paired(state, p.bytes, tb::limit::read, tb::paired_read(p.input), [&] {
            if (l == layout::all) out[0] = xt::sum(x)();
            else y = xt::sum(x, {l == layout::contiguous ? std::size_t{1} : std::size_t{0}});
            benchmark::DoNotOptimize(out.data());
            benchmark::ClobberMemory();
        });
    })->Apply(tb::defaults);
}
#endif

// Narrow rows: a row-major [rows, width] f32 tensor of 64 MiB reduced over its contiguous axis, for widths 3, 8 and
// 64 (xyz vectors, small feature rows, class scores for ARGMAX); bytes counted: input read + output written.
void register_narrow_rows(const std::string& who, const std::string& what, std::size_t width) {
    constexpr std::size_t bytes = std::size_t{64} << 20;
    const std::string name = "reduce/" + who + "/" + what + "/f32/rows-of-" + std::to_string(width) + "/65536KiB";
    benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
        const std::size_t rows = bytes / sizeof(float) / width;
        const auto input = tb::random_input<float>(rows * width, 0);
        auto out = tb::scratch<float>(rows, 1);
        auto indices = tb::scratch<std::int64_t>(what == "ARGMAX" ? rows : 0, 2);
        const auto moved = static_cast<std::int64_t>(rows * width * sizeof(float) + rows * (what == "ARGMAX" ? sizeof(std::int64_t) : sizeof(float)));
        tb::run_paired(state, moved, tb::limit::read, tb::paired_read(input), [&] {
            if (who == "tensorops" && what == "ARGMAX") {
                tensorops::argmax(tensorops::tensor_view<const float>(input.data(), {rows, width}),
                                  tensorops::tensor_view<std::int64_t>(indices.data(), {rows, 1}), {1});
            } else if (who == "tensorops") {
                const auto f = what == "SUM" ? tensorops::reduce_function::sum
                               : what == "MAX" ? tensorops::reduce_function::max
                               : what == "L2"  ? tensorops::reduce_function::l2
                                               : tensorops::reduce_function::log_sum_exp;
                tensorops::reduce(tensorops::tensor_view<const float>(input.data(), {rows, width}), tensorops::tensor_view<float>(out.data(), {rows, 1}),
                                  f, {1});
            } else if (who == "scalar-loop") {
                for (std::size_t i = 0; i < rows; ++i) {
                    float s = 0;
                    for (std::size_t j = 0; j < width; ++j) s += input[i * width + j];
                    out[i] = s;
                }
            } else {
#ifdef TENSOROPS_BENCH_HAVE_EIGEN
                const Eigen::TensorMap<const Eigen::Tensor<const float, 2, Eigen::RowMajor>> x(input.data(), static_cast<Eigen::Index>(rows),
                                                                                           static_cast<Eigen::Index>(width));
                Eigen::TensorMap<Eigen::Tensor<float, 1, Eigen::RowMajor>> y(out.data(), static_cast<Eigen::Index>(rows));
                const Eigen::array<Eigen::Index, 1> axis{1};
                if (what == "SUM") y = x.sum(axis);
                else y = x.maximum(axis);
#endif
            }
            benchmark::DoNotOptimize(out.data());
            benchmark::ClobberMemory();
        });
    })->Apply(tb::defaults);
}

// Image channels: 64 MiB of uint8 pixels reduced over their channels — MAX of RGB (rows of 3 back to back) and of the
// RGB of RGBA pixels (rows of 3 at a stride of 4: each row read by a partial load), against a plain loop; bytes
// counted: the channels read + the output written.
void register_image_channels(const std::string& who, std::size_t stride) {
    constexpr std::size_t bytes = std::size_t{64} << 20, channels = 3;
    const std::string layout = stride == channels ? "rgb" : "rgb-of-rgba";
    const std::string name = "reduce/" + who + "/MAX/u8/" + layout + "/65536KiB";
    benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
        const std::size_t pixels = bytes / stride;
        const auto input = tb::random_input<std::uint8_t>(pixels * stride, 0);
        auto out = tb::scratch<std::uint8_t>(pixels, 1);
        const auto moved = static_cast<std::int64_t>(pixels * (channels + 1));
        tb::run_paired(state, moved, tb::limit::read, tb::paired_read(input), [&] {
            if (who == "tensorops") {
                tensorops::reduce(tensorops::tensor_view<const std::uint8_t>(input.data(), {pixels, channels}, {static_cast<std::ptrdiff_t>(stride), 1}),
                                  tensorops::tensor_view<std::uint8_t>(out.data(), {pixels, 1}), tensorops::reduce_function::max, {1});
            } else {
                for (std::size_t i = 0; i < pixels; ++i) {
                    const std::uint8_t* p = input.data() + i * stride;
                    out[i] = std::max({p[0], p[1], p[2]});
                }
            }
            benchmark::DoNotOptimize(out.data());
            benchmark::ClobberMemory();
        });
    })->Apply(tb::defaults);
}

template <class T>
const char* short_type() {
    if constexpr (std::is_same_v<T, float>) return "f32";
    else if constexpr (std::is_same_v<T, double>) return "f64";
    else if constexpr (std::is_same_v<T, tensorops::float16>) return "f16";
    else if constexpr (std::is_same_v<T, tensorops::bfloat16>) return "bf16";
    else if constexpr (std::is_same_v<T, std::int8_t>) return "i8";
    else return "i32";
}

const char* function_label(tensorops::reduce_function f) {
    constexpr const char* names[] = {"ARGMAX", "ARGMIN", "AVERAGE", "L1", "L2", "LOG_SUM", "LOG_SUM_EXP", "MAX", "MIN", "MULTIPLY", "SUM", "SUM_SQUARE"};
    return names[static_cast<int>(f)];
}

template <class T>
void register_type(std::initializer_list<tensorops::reduce_function> functions) {
    for (auto f : functions)
        for (layout l : {layout::contiguous, layout::outer, layout::all})
            for (std::size_t bytes : {std::size_t{64} << 10, std::size_t{64} << 20}) {
                const std::string name = std::string("reduce/tensorops/") + function_label(f) + "/" + short_type<T>() + "/" +
                                         layout_name(l) + "/" + std::to_string(bytes >> 10) + "KiB";
                if (f == tensorops::reduce_function::argmax || f == tensorops::reduce_function::argmin)
                    register_tensorops<T, std::int64_t>(name, f, l, bytes);
                else
                    register_tensorops<T>(name, f, l, bytes);
            }
}

const bool registered = [] {
    using tensorops::reduce_function;
    register_type<float>({reduce_function::sum, reduce_function::max, reduce_function::min, reduce_function::l1, reduce_function::sum_square,
                          reduce_function::average, reduce_function::l2, reduce_function::log_sum, reduce_function::log_sum_exp,
                          reduce_function::multiply, reduce_function::argmax, reduce_function::argmin});
    register_type<double>({reduce_function::sum, reduce_function::max});
    register_type<tensorops::float16>({reduce_function::sum, reduce_function::max});
    register_type<tensorops::bfloat16>({reduce_function::sum});
    register_type<std::int32_t>({reduce_function::sum, reduce_function::max});
    register_type<std::int8_t>({reduce_function::sum, reduce_function::argmax});  // argmax over the rows: two passes (8-bit lanes)
    for (layout l : {layout::contiguous, layout::outer, layout::all})
        for (std::size_t bytes : {std::size_t{64} << 10, std::size_t{64} << 20}) {
            register_scalar_sum(l, bytes);
#ifdef TENSOROPS_BENCH_HAVE_EIGEN
            register_eigen("SUM", l, bytes);
            register_eigen("MAX", l, bytes);
#endif
#ifdef TENSOROPS_BENCH_HAVE_XTENSOR
            register_xtensor_sum(l, bytes);
#endif
        }
    for (std::size_t width : {3, 8, 64}) {
        for (const char* what : {"SUM", "MAX", "L2", "LOG_SUM_EXP", "ARGMAX"}) register_narrow_rows("tensorops", what, width);
        register_narrow_rows("scalar-loop", "SUM", width);
#ifdef TENSOROPS_BENCH_HAVE_EIGEN
        register_narrow_rows("eigen", "SUM", width);
        register_narrow_rows("eigen", "MAX", width);
#endif
    }
    for (std::size_t stride : {3, 4})
        for (const char* who : {"tensorops", "scalar-loop"}) register_image_channels(who, stride);
    return true;
}();

}  // namespace
