// A downstream program: includes the umbrella header, uses the public API, and checks that nothing forced
// an instruction set on it (it is compiled without -march).
#include <tensorops/tensorops.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#if defined(__AVX2__)
#error "the tensorops target must not force -march on its consumers"
#endif
#if defined(EXPECT_COMPILED) && TENSOROPS_COMPILED != 1
#error "the consumer links tensorops::compiled (or uses tensorops-compiled.pc) and did not get TENSOROPS_COMPILED=1"
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
#if defined(EXPECT_COMPILED)
    // The library's kernels (float32, which the tested builds of it hold), on the level the dispatch chose: the best the
    // CPU runs, never the baseline this file was compiled for when the CPU has more.
    float maxima[2] = {};
    tensorops::reduce(pool, view, tensorops::tensor_view<float>(maxima, {2, 1}), tensorops::reduce_function::max, {1});
    if (maxima[0] != 3.0f || maxima[1] != 6.0f) return 4;
    if (std::getenv("TENSOROPS_ISA") == nullptr && tensorops::active_isa_level() != tensorops::cpu_isa_level()) return 5;
    std::printf("consumer ok (compiled, %s)\n", std::string(tensorops::isa_level_name(tensorops::active_isa_level())).c_str());
#else
    std::printf("consumer ok\n");
#endif
    return 0;
}
