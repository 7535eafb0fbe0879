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
// 2048–8192 lanes, a partial vector at the end), narrow rows that lie back to back are fused into wide ones (with
// single rows left over), float sums climb a three-level cascade every 128 rows and every 128 blocks,
// log-sum-exp works in blocks of 64 rows, argmax/argmin in groups of 4. Shapes past each of those edges, for every
// function; the last case has narrow rows that are not adjacent (a row stride of 10 for 9 lanes), so 17000 single
// rows reach the cascade's top level.
TEMPLATE_LIST_TEST_CASE("reduce: outer layout past the panel width, the cascade levels and the row blocks", "",
                        tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng(std::string("reduce outer edges ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    using tensorops_test::layout_kind;
    struct edge_case {
        std::vector<std::size_t> sizes, axes;
        std::vector<std::ptrdiff_t> strides;  // empty: packed
    };
    const std::vector<edge_case> cases{{{3, 8195}, {0}, {}},   {{2, 3, 16411}, {0, 1}, {}}, {{17000, 9}, {0}, {}},
                                       {{131, 37}, {0}, {}},   {{64, 40}, {0}, {}},         {{65, 40}, {0}, {}},
                                       {{1001, 300}, {0}, {}}, {{17000, 9}, {0}, {10, 1}}};
    for (std::size_t case_index = 0; case_index < cases.size(); ++case_index) {
        const auto& c = cases[case_index];
        const auto& sizes = c.sizes;
        for (std::size_t function_index = 0; function_index < std::size(value_functions); ++function_index) {
            const reduce_function f = value_functions[function_index];
            if (std::is_integral_v<T> && !integer_capable(f)) continue;
            if (!tensorops_test::runs_in_this_build(case_index + function_index)) continue;
            INFO("shape " << sizes[0] << " x " << sizes[1] << (sizes.size() == 3 ? " x " + std::to_string(sizes[2]) : std::string()));
            const auto strides = c.strides.empty() ? tensorops_test::random_strides(rng, sizes, layout_kind::packed) : c.strides;
            check_reduce<T>(rng, f, sizes, c.axes, strides, layout_kind::packed);
        }
    }
}
