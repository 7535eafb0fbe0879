// reduce: random shapes, axes and layouts for every function × element type against the long-double reference.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "reduce_helpers.hpp"
#include "reference.hpp"
#include "support.hpp"
#include "user_types.hpp"

using namespace tensorops;
using namespace reduce_test;
using tensorops_test::guarded_buffer;
using tensorops_test::test_rng;
namespace ref = tensorops_test::reference;

TEMPLATE_LIST_TEST_CASE("reduce: random shapes, axes and layouts against the reference", "", tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng(std::string("reduce random ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    for (reduce_function f : value_functions) {
        if (std::is_integral_v<T> && !integer_capable(f)) continue;
        for (auto in_kind : tensorops_test::input_layout_kinds)
            for (int trial = 0; trial < 3; ++trial)
                check_random_reduce<T>(rng, f, in_kind, tensorops_test::output_layout_kinds[rng.uniform<std::size_t>(0, 4)]);
    }
}


// The outer kernel streams whole rows into rows of accumulators: rows wider than its panel are cut (panels of
// 2048–8192 lanes, a partial vector at the end), float sums climb a three-level cascade every 128 rows and every
// 128 blocks, log-sum-exp and argmax work in blocks of 64 rows. Shapes past each of those edges, for every function.
TEMPLATE_LIST_TEST_CASE("reduce: outer layout past the panel width, the cascade levels and the row blocks", "",
                        tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng(std::string("reduce outer edges ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    using tensorops_test::layout_kind;
    const std::vector<std::vector<std::size_t>> shapes{{3, 8195}, {2, 3, 16411}, {17000, 9}, {131, 37}, {64, 40}, {65, 40}};
    for (const auto& sizes : shapes) {
        for (reduce_function f : value_functions) {
            if (std::is_integral_v<T> && !integer_capable(f)) continue;
            INFO("shape " << sizes[0] << " x " << sizes[1] << (sizes.size() == 3 ? " x " + std::to_string(sizes[2]) : std::string()));
            const std::vector<std::size_t> axes = sizes.size() == 3 ? std::vector<std::size_t>{0, 1} : std::vector<std::size_t>{0};
            check_reduce<T>(rng, f, sizes, axes, layout_kind::packed, layout_kind::packed);
        }
    }
}
