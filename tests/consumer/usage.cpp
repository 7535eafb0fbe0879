// A strict consumer: the README's usage example (readme_example.cpp), and a call of every operator on the
// types whose kernels differ (float, float16, bfloat16, int32, on a thread_pool too), compiled with a demanding consumer's
// warnings as errors (-Wall -Wextra -Wpedantic -Wshadow -Werror: tests/CMakeLists.txt) at the build's instruction
// set, and at baseline x86-64 beside it.
#include <tensorops/tensorops.hpp>
#include <cstdint>
#include <cstdio>
#include <type_traits>

int readme_example();  // readme_example.cpp

namespace {

/// Every operator once on element type T (reduce with each of its functions that T allows), sequentially and on `pool`.
template <class T>
int every_operator(tensorops::thread_pool& pool) {
    using tensorops::tensor_view;
    T data[24] = {}, out[24] = {};
    for (int i = 0; i < 24; ++i) data[i] = static_cast<T>(static_cast<float>(i % 7 + 1));
    const tensor_view<const T> x(data, {2, 3, 4});
    const tensor_view<T> y(out, {2, 3, 4});
    tensorops::cumulative_sum(x, y, {.axis = 2});
    tensorops::cumulative_product(pool, x, y, {.axis = 0, .direction = tensorops::axis_direction::decreasing});
    tensorops::cumulative_scan(x, y, {.axis = 1}, [](T a, T b) { return b < a ? a : b; }, static_cast<T>(0.0f));
    T reduced[8] = {};
    for (int f = 0; f <= static_cast<int>(tensorops::reduce_function::sum_square); ++f) {
        const auto function = static_cast<tensorops::reduce_function>(f);
        const bool floating_only = function == tensorops::reduce_function::average || function == tensorops::reduce_function::l2 ||
                                   function == tensorops::reduce_function::log_sum || function == tensorops::reduce_function::log_sum_exp;
        if (function == tensorops::reduce_function::argmax || function == tensorops::reduce_function::argmin) continue;
        if (floating_only && std::is_integral_v<T>) continue;
        tensorops::reduce(pool, x, tensor_view<T>(reduced, {2, 1, 4}), function, {1});
    }
    std::int32_t where[8] = {};
    tensorops::argmax(x, tensor_view<std::int32_t>(where, {2, 1, 4}), {1});
    tensorops::argmin(pool, x, tensor_view<std::int32_t>(where, {2, 3, 1}), {2}, tensorops::axis_direction::decreasing);
    const std::int64_t rows[2] = {1, 0};
    T gathered[24] = {};
    tensorops::gather_nd(x, tensor_view<const std::int64_t>(rows, {2, 1}), tensor_view<T>(gathered, {2, 3, 4}));
    tensorops::scatter_nd(pool, x, tensor_view<const std::int64_t>(rows, {2, 1}), tensor_view<const T>(gathered, {2, 3, 4}), y,
                          tensorops::scatter_reduction::add);
    return static_cast<float>(out[0]) == 2.0f * static_cast<float>(data[0]) ? 0 : 1;
}

}  // namespace

int main() {
    tensorops::thread_pool pool(2);
    const int failures = readme_example() + every_operator<float>(pool) + every_operator<tensorops::float16>(pool) +
                         every_operator<tensorops::bfloat16>(pool) + every_operator<std::int32_t>(pool);
    std::printf("strict consumer: %s\n", failures == 0 ? "ok" : "FAILED");
    return failures == 0 ? 0 : 1;
}
