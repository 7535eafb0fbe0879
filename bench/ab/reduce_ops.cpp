// Paired A/B harness (bench/ab/build.sh with AB_OPS=reduce_ops.cpp): ops.cpp's RUN for SUM and MAX of f32, f16 and
// int32 only, through the reduce kernels' entry (detail::run_reduction, as reduce() calls it) rather than reduce()
// itself, which instantiates all twelve functions: a build of a few minutes less per tree on a shared machine.
#include "ops.hpp"
#include <tensorops/tensorops.hpp>
#include <vector>
#include "executor.hpp"
namespace ab {
namespace {
template <class T>
void run_typed(const call& c, const void* xv, void* yv) {
    namespace d = tensorops::detail;
    const tensorops::tensor_view<const T> in(static_cast<const T*>(xv), c.sizes);
    std::vector<std::size_t> out_sizes = c.sizes;
    for (auto a : c.axes) out_sizes[a] = 1;
    const tensorops::tensor_view<T> out(static_cast<T*>(yv), out_sizes);
    const auto plan = d::plan_reduce<2>("reduce", in, out, c.axes);
    using W = tensorops::wrapping_kernel_t<T>;
    on_executor(c.threads, [&](auto& executor) {
        const tensorops::executor_ref exec(executor);
        if (c.f == fn::sum) d::run_reduction<W>(exec, plan, in, out, d::sum_reduction<W, d::lift_kind::value, d::finish_kind::value>{});
        else d::run_reduction<T>(exec, plan, in, out, d::extreme_reduction<T, true>{});
    });
}
}  // namespace
void RUN(const call& c, const void* x, void* y) {
    switch (c.t) {
        case dtype::f32: return run_typed<float>(c, x, y);
        case dtype::f16: return run_typed<tensorops::float16>(c, x, y);
        case dtype::i32: return run_typed<std::int32_t>(c, x, y);
        default: return;
    }
}
}  // namespace ab
