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

