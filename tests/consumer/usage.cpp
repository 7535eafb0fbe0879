// A strict consumer: the README's usage example, verbatim (as readme_example), and a call of every operator on the
// types whose kernels differ (float, float16, bfloat16, int32, on a thread_pool too), compiled with a demanding consumer's
// warnings as errors (-Wall -Wextra -Wpedantic -Wshadow -Werror: tests/CMakeLists.txt) at the build's instruction
// set, and at baseline x86-64 beside it. Keep readme_example identical to the README's block.
#include <tensorops/tensorops.hpp>
#include <cstdint>
#include <cstdio>
#include <type_traits>

int readme_example() {
    float data[12] = {2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4}, sums[12], column_max[4];
    std::int64_t where[4];
    // Views: sizes and strides in elements; any layout (transposed, padded, reversed, broadcast inputs).
    tensorops::tensor_view<const float> x(data, {3, 4});
    tensorops::tensor_view<float> y(sums, {3, 4});

    // Running sums along axis 1, last element first, excluding the element itself.
    tensorops::cumulative_sum(x, y, {.axis = 1, .direction = tensorops::axis_direction::decreasing, .exclusive = true});
    std::printf("%g %g %g %g\n", y(0, 0), y(0, 1), y(0, 2), y(0, 3));  // 9 8 5 0

    // Reductions keep the rank: the largest value of each column, and the row it is in.
    tensorops::reduce(x, tensorops::tensor_view<float>(column_max, {1, 4}), tensorops::reduce_function::max, {0});
    tensorops::argmax(x, tensorops::tensor_view<std::int64_t>(where, {1, 4}), {0});
    std::printf("%g@%lld %g@%lld\n", column_max[0], (long long)where[0], column_max[1], (long long)where[1]);  // 9@2 8@1

    // In place, through a transposed view of the same memory: products down the columns.
    tensorops::tensor_view<float> columns(data, {4, 3}, {1, 4});
    tensorops::cumulative_product(columns, columns, {.axis = 1});
    std::printf("%g\n", data[8]);  // 2 · 3 · 9 = 54

    // Scatter-ND: every index tuple is checked before anything is written; duplicates apply in row-major order.
    float base[8] = {1, 2, 3, 4, 5, 6, 7, 8}, updates[4] = {9, 10, 11, 12}, scattered[8];
    std::int64_t indices[4] = {4, 3, 1, 7};
    tensorops::scatter_nd(tensorops::tensor_view<const float>(base, {8}), tensorops::tensor_view<const std::int64_t>(indices, {4, 1}),
                          tensorops::tensor_view<const float>(updates, {4}), tensorops::tensor_view<float>(scattered, {8}),
                          tensorops::scatter_reduction::none);  // or add, multiply, max, min (ONNX ScatterND-18)
    std::printf("%g %g %g %g\n", scattered[1], scattered[3], scattered[4], scattered[7]);  // 11 10 9 12

    try {  // every invalid argument throws tensorops::error, naming the argument and the rule
        tensorops::cumulative_sum(x, y, {.axis = 2});
    } catch (const tensorops::error& e) {
        std::printf("%s\n", e.what());
    }
    return 0;
}

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
