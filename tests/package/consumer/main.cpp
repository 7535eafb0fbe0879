// A downstream program: includes the umbrella header, uses the public API, and checks that nothing forced
// an instruction set on it (it is compiled without -march).
#include <tensorops/tensorops.hpp>

#include <cstdio>

#if defined(__AVX2__)
#error "the tensorops target must not force -march on its consumers"
#endif
#if defined(EXPECT_NEWER_THAN_CXX20) && __cplusplus <= 202002L
#error "the consumer asked for a language level above C++20 and got C++20 or less: a flag of the package overrode it"
#endif

int main() {
    float values[6] = {1, 2, 3, 4, 5, 6};
    const tensorops::tensor_view<const float> view(values, {2, 3});
    const tensorops::float16 half(view(1, 2));
    if (static_cast<float>(half) != 6.0f) return 1;
    try {
        tensorops::tensor_view<float> bad(nullptr, {2});
        return 2;
    } catch (const tensorops::error&) {
    }
    // The thread pool: the package must bring the thread library with it.
    // (A cumulative sum rather than a reduce, whose run-time function instantiates twelve kernels: half the compile
    // time, and each of the four package tests compiles this file.)
    float sums[6] = {};
    tensorops::thread_pool pool(2, 1);
    tensorops::cumulative_sum(pool, view, tensorops::tensor_view<float>(sums, {2, 3}), {.axis = 1});
    if (sums[2] != 6.0f || sums[5] != 15.0f || pool.concurrency() != 2) return 3;
    std::printf("consumer ok\n");
    return 0;
}
