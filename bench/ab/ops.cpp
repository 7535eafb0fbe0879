// Paired A/B harness (bench/ab/build.sh): the operations under comparison, compiled once per tree.
#include "ops.hpp"
#include <tensorops/tensorops.hpp>
#include <memory>
namespace ab {
namespace {
tensorops::thread_pool& pool() { static tensorops::thread_pool p(2); return p; }
template <class T>
void run_typed(const call& c, const void* xv, void* yv) {
    const T* x = static_cast<const T*>(xv);
    tensorops::tensor_view<const T> in(x, c.sizes);
    std::vector<std::size_t> out_sizes = c.sizes;
    for (auto a : c.axes) out_sizes[a] = 1;
    auto go = [&](auto&& exec) {
        if (c.f == fn::argmax) {
            tensorops::argmax(exec, in, tensorops::tensor_view<std::int64_t>(static_cast<std::int64_t*>(yv), out_sizes), c.axes);
        } else if (c.f == fn::cumsum) {
            tensorops::cumulative_sum(exec, in, tensorops::tensor_view<T>(static_cast<T*>(yv), c.sizes), {.axis = c.axes[0]});
        } else {
            const auto f = c.f == fn::sum ? tensorops::reduce_function::sum : c.f == fn::max ? tensorops::reduce_function::max
                         : c.f == fn::lse ? tensorops::reduce_function::log_sum_exp : tensorops::reduce_function::multiply;
            tensorops::reduce(exec, in, tensorops::tensor_view<T>(static_cast<T*>(yv), out_sizes), f, c.axes);
        }
    };
    if (c.threads == 1) {
        tensorops::sequential_executor seq;
        go(seq);
    } else {
        go(pool());
    }
}
}
void RUN(const call& c, const void* x, void* y) {
    switch (c.t) {
        case dtype::f32: return run_typed<float>(c, x, y);
        case dtype::f64: return run_typed<double>(c, x, y);
        case dtype::f16: return run_typed<tensorops::float16>(c, x, y);
        case dtype::i8: return run_typed<std::int8_t>(c, x, y);
        case dtype::i32: return run_typed<std::int32_t>(c, x, y);
    }
}
}
