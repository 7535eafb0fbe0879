// Paired A/B harness (bench/ab/build.sh with AB_OPS=scan_ops.cpp; cases: main.cpp's AB_SCANS set): ops.cpp's RUN for
// the scans alone — cumulative sum (f32, f64, int32, float16, bfloat16), product, the exclusive decreasing sum and the
// cumulative max (f32) — so that a tree's side compiles in a minute rather than ops.cpp's several.
#include "ops.hpp"
#include <tensorops/tensorops.hpp>
#include <type_traits>
#include "executor.hpp"
namespace ab {
namespace {
template <class T>
void run_typed(const call& c, const void* xv, void* yv) {
    const tensorops::tensor_view<const T> in(static_cast<const T*>(xv), c.sizes);
    const tensorops::tensor_view<T> out(static_cast<T*>(yv), c.sizes);
    const auto go = [&](auto&& exec) {
        if (c.f == fn::cumsum) {
            tensorops::cumulative_sum(exec, in, out, {.axis = c.axes[0]});
        } else if constexpr (std::is_same_v<T, float>) {
            if (c.f == fn::cumsum_decreasing_exclusive)
                tensorops::cumulative_sum(exec, in, out, {c.axes[0], tensorops::axis_direction::decreasing, true});
            else if (c.f == fn::cumprod)
                tensorops::cumulative_product(exec, in, out, {.axis = c.axes[0]});
            else if (c.f == fn::cummax)
                tensorops::cumulative_max(exec, in, out, {.axis = c.axes[0]});
        }
    };
    on_executor(c.threads, go);
}
}  // namespace
void RUN(const call& c, const void* x, void* y) {
    switch (c.t) {
        case dtype::f32: return run_typed<float>(c, x, y);
        case dtype::f64: return run_typed<double>(c, x, y);
        case dtype::i32: return run_typed<std::int32_t>(c, x, y);
        case dtype::f16: return run_typed<tensorops::float16>(c, x, y);
        case dtype::bf16: return run_typed<tensorops::bfloat16>(c, x, y);
        default: return;
    }
}
}  // namespace ab
