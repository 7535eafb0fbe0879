// Paired A/B harness (bench/ab/build.sh): the operations under comparison, compiled once per tree.
#include "ops.hpp"
#include <memory>
#include <tensorops/tensorops.hpp>
#include <type_traits>
#include "executor.hpp"
namespace ab {
namespace {
tensorops::reduce_function reduce_function_of(fn f) {
    using rf = tensorops::reduce_function;
    switch (f) {
        case fn::sum: return rf::sum;
        case fn::max: return rf::max;
        case fn::lse: return rf::log_sum_exp;
        case fn::multiply: return rf::multiply;
        case fn::min: return rf::min;
        case fn::average: return rf::average;
        case fn::l1: return rf::l1;
        case fn::l2: return rf::l2;
        case fn::log_sum: return rf::log_sum;
        default: return rf::sum_square;
    }
}
// What each type is timed on (the suite's cases; the default set's): the other instantiations are left out, to keep
// the header-only side's compile time in minutes.
template <class T>
constexpr bool has_arg = std::is_same_v<T, float> || std::is_same_v<T, std::int8_t>;
template <class T>
constexpr bool has_scan = !std::is_same_v<T, std::int8_t> && !std::is_same_v<T, std::uint8_t>;
template <class T>
void run_typed(const call& c, const void* xv, void* yv) {
    const T* x = static_cast<const T*>(xv);
    std::vector<std::ptrdiff_t> strides;
    if (c.row_pitch != 0) strides = {c.row_pitch, 1};
    tensorops::tensor_view<const T> in = strides.empty() ? tensorops::tensor_view<const T>(x, c.sizes)
                                                         : tensorops::tensor_view<const T>(x, c.sizes, strides);
    std::vector<std::size_t> out_sizes = c.sizes;
    for (auto a : c.axes) out_sizes[a] = 1;
    auto go = [&](auto&& exec) {
        if (c.f == fn::argmax || c.f == fn::argmin) {
            if constexpr (has_arg<T>) {
                const tensorops::tensor_view<std::int64_t> out(static_cast<std::int64_t*>(yv), out_sizes);
                if (c.f == fn::argmax) tensorops::argmax(exec, in, out, c.axes);
                else tensorops::argmin(exec, in, out, c.axes);
            }
        } else if (c.f == fn::cumsum || c.f == fn::cumprod || c.f == fn::cumsum_decreasing_exclusive) {
            if constexpr (has_scan<T>) {
                const tensorops::tensor_view<T> out(static_cast<T*>(yv), c.sizes);
                if (c.f == fn::cumsum) tensorops::cumulative_sum(exec, in, out, {.axis = c.axes[0]});
                else if (c.f == fn::cumsum_decreasing_exclusive)
                    tensorops::cumulative_sum(exec, in, out, {c.axes[0], tensorops::axis_direction::decreasing, true});
                else if constexpr (std::is_same_v<T, float>)
                    tensorops::cumulative_product(exec, in, out, {.axis = c.axes[0]});
            }
        } else if (c.f == fn::scatter || c.f == fn::scatter_add || c.f == fn::gather) {
            if constexpr (std::is_same_v<T, float>) {
                const tensorops::tensor_view<const std::int64_t> indices(c.indices, {c.sizes[0], 1});
                const tensorops::tensor_view<T> target(static_cast<T*>(c.target), c.target_sizes);
                const tensorops::tensor_view<const T> source = target;
                if (c.f == fn::gather)
                    tensorops::gather_nd(exec, source, indices,
                                         tensorops::tensor_view<T>(static_cast<T*>(yv), c.sizes));
                else if (c.f == fn::scatter) tensorops::scatter_nd(exec, source, indices, in, target);
                else tensorops::scatter_nd(exec, source, indices, in, target, tensorops::scatter_reduction::add);
            }
        } else {
            tensorops::reduce(exec, in, tensorops::tensor_view<T>(static_cast<T*>(yv), out_sizes),
                              reduce_function_of(c.f), c.axes);
        }
    };
    on_executor(c.threads, go);
}
}  // namespace
void RUN(const call& c, const void* x, void* y) {
    switch (c.t) {
        case dtype::f32: return run_typed<float>(c, x, y);
        case dtype::f64: return run_typed<double>(c, x, y);
        case dtype::f16: return run_typed<tensorops::float16>(c, x, y);
        case dtype::i8: return run_typed<std::int8_t>(c, x, y);
        case dtype::i32: return run_typed<std::int32_t>(c, x, y);
        case dtype::bf16: return run_typed<tensorops::bfloat16>(c, x, y);
        case dtype::u8: return run_typed<std::uint8_t>(c, x, y);
    }
}
}  // namespace ab
