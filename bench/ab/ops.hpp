// The operations under comparison, compiled once per tree (ops.cpp with NS = tensorops or tensorops_old).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>
namespace ab {
// The default set's functions (sum … cumsum), then the rest of the suite's (AB_SUITE), then cummax (scan_ops.cpp only).
// clang-format off
enum class fn { sum, max, lse, multiply, argmax, cumsum,
                min, argmin, average, l1, l2, log_sum, sum_square, cumprod, cumsum_decreasing_exclusive, scatter, scatter_add,
                gather, cummax };
// clang-format on
enum class dtype { f32, f64, f16, i8, i32, bf16, u8 };
// Scatter and gather: `indices` (tuples × 1, int64) into `target` of `target_sizes` (f32), with `sizes` the updates' or
// the gathered output's shape; scatter writes the updates (x) into target in place, gather reads target into y.
struct call {
    fn f;
    dtype t;
    std::vector<std::size_t> sizes;
    std::vector<std::size_t> axes;
    int threads;
    std::ptrdiff_t row_pitch = 0;  // the input's row stride in elements for rank-2 inputs; 0: packed
    const std::int64_t* indices = nullptr;
    void* target = nullptr;
    std::vector<std::size_t> target_sizes{};
};
// Runs `c` on buffers x (input) and y (output, large enough): threads 1 = sequential, 2 = a two-thread pool.
void run_old(const call& c, const void* x, void* y);
void run_new(const call& c, const void* x, void* y);
}  // namespace ab
