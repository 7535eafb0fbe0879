// A downstream program: includes the umbrella header, uses the public API, and checks that nothing forced
// an instruction set on it (it is compiled without -march).
#include <tensorops/tensorops.hpp>

#include <cstdio>

#if defined(__AVX2__)
#error "the tensorops target must not force -march on its consumers"
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
    float sum = 0;
    tensorops::thread_pool pool(2, 1);
    tensorops::reduce(pool, view, tensorops::tensor_view<float>(&sum, {1, 1}), tensorops::reduce_function::sum, {0, 1});
    if (sum != 21.0f || pool.concurrency() != 2) return 3;
    std::printf("consumer ok\n");
    return 0;
}
