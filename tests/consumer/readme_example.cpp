// The README's usage example, verbatim (keep it identical to the README's block), as a function: part of the strict
// consumer (usage.cpp, tests/CMakeLists.txt) and the header-only / compiled task of bench/compile_time.sh.
#include <tensorops/tensorops.hpp>
#include <cstdio>

int readme_example();

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
