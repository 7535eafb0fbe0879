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
    std::printf("consumer ok\n");
    return 0;
}
