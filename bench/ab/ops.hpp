// The operations under comparison, compiled once per tree (ops.cpp with NS = tensorops or tensorops_old).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>
namespace ab {
enum class fn { sum, max, lse, multiply, argmax, cumsum };
enum class dtype { f32, f64, f16, i8, i32 };
struct call { fn f; dtype t; std::vector<std::size_t> sizes; std::vector<std::size_t> axes; int threads; };
// Runs `c` on buffers x (input) and y (output, large enough): threads 1 = sequential, 2 = a two-thread pool.
void run_old(const call& c, const void* x, void* y);
void run_new(const call& c, const void* x, void* y);
}
