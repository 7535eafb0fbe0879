// The umbrella header alone gives the public API; compiled in both the vector and the scalar test binaries.
#include <tensorops/tensorops.hpp>

#include <catch2/catch.hpp>

#include <tensorops/simd/config.hpp>

TEST_CASE("umbrella: the public API is reachable through <tensorops/tensorops.hpp>") {
    float data[6] = {0, 1, 2, 3, 4, 5};
    tensorops::tensor_view<float> view(data, {2, 3});
    const tensorops::tensor_view<const float> input = view;
    CHECK(input(1, 2) == 5.0f);
    CHECK(static_cast<float>(tensorops::float16(0.5f)) == 0.5f);
    STATIC_REQUIRE(std::is_base_of_v<std::invalid_argument, tensorops::error>);
    STATIC_REQUIRE(tensorops::max_rank == 8);
#if defined(TENSOROPS_NO_XSIMD)
    STATIC_REQUIRE_FALSE(tensorops::simd::vectorized);
#else
    STATIC_REQUIRE(tensorops::simd::vectorized);
#endif
}

// core/inline.hpp: the kernels' steps are forced inline exactly where the compiler optimises, unless the build chose
// (TENSOROPS_TEST_FORCE_INLINE, tests/CMakeLists.txt) — a default turned around would slow every optimised consumer
// or bloat every debug build, and no other test would see it.
TEST_CASE("umbrella: forced inlining follows the optimiser unless the build chooses") {
#if defined(TENSOROPS_TEST_FORCE_INLINE_CHOSEN)
    STATIC_REQUIRE(TENSOROPS_FORCE_INLINE == TENSOROPS_TEST_FORCE_INLINE_CHOSEN);
#elif defined(__OPTIMIZE__)
    STATIC_REQUIRE(TENSOROPS_FORCE_INLINE == 1);
#else
    STATIC_REQUIRE(TENSOROPS_FORCE_INLINE == 0);
#endif
}
