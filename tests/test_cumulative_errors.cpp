// The refusals of cumulative_sum / cumulative_product / cumulative_scan (SEMANTICS.md §1, README "Reliability"):
// every broken rule throws tensorops::error naming the argument before anything is written; views whose bytes overflow
// are refused; a direction outside axis_direction is an error; interleaved outputs a rule proves unique run, one no
// rule settles is refused. (Their results: test_cumulative.cpp.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "index_helpers.hpp"
#include "support.hpp"

using namespace tensorops;
using tensorops_test::guarded_buffer;

TEST_CASE("cumulative: every broken rule throws tensorops::error before writing") {
    std::vector<float> a(24, 1.0f), b(24, 7.0f);
    const tensor_view<const float> input(a.data(), {2, 3, 4});
    auto expect_error = [&](auto call, const std::string& argument, const std::string& operation_name = "cumulative_sum") {
        try {
            call();
            FAIL("expected tensorops::error for '" << argument << "'");
        } catch (const tensorops::error& e) {
            CHECK(e.operator_name() == operation_name);
            CHECK(e.argument() == argument);
            CHECK_FALSE(e.rule().empty());
        }
        CHECK(std::all_of(b.begin(), b.end(), [](float v) { return v == 7.0f; }));  // nothing written
    };
    expect_error([&] { cumulative_sum(input, tensor_view<float>(b.data(), {2, 4, 3}), {}); }, "output");
    expect_error([&] { cumulative_sum(input, tensor_view<float>(b.data(), {2, 12}), {}); }, "output");
    expect_error([&] { cumulative_sum(input, tensor_view<float>(b.data(), {2, 3, 4}), {3}); }, "options.axis");
    expect_error([&] { cumulative_product(input, tensor_view<float>(b.data(), {2, 3, 4}), {7}); }, "options.axis", "cumulative_product");
    expect_error([&] { cumulative_sum(input, tensor_view<float>(b.data(), {2, 3, 4}, {0, 4, 1}), {}); }, "output");  // broadcast output
    expect_error([&] { cumulative_sum(input, tensor_view<float>(b.data(), {2, 3, 4}, {4, 4, 1}), {}); }, "output");  // overlapping rows
    // Partial overlap with the input: shifted by one element, and transposed over the same memory.
    std::vector<float> shared(40, 7.0f);
    const tensor_view<const float> shared_input(shared.data(), {2, 3, 4});
    auto shifted = [&] { cumulative_sum(shared_input, tensor_view<float>(shared.data() + 1, {2, 3, 4}), {}); };
    auto transposed = [&] { cumulative_sum(shared_input, tensor_view<float>(shared.data(), {2, 3, 4}, {1, 2, 6}), {}); };
    CHECK_THROWS_AS(shifted(), tensorops::error);
    CHECK_THROWS_AS(transposed(), tensorops::error);
    CHECK(std::all_of(shared.begin(), shared.end(), [](float v) { return v == 7.0f; }));
    // Rank 0 has no axis.
    float scalar = 1.0f, scalar_out = 0.0f;
    expect_error([&] { cumulative_sum(tensor_view<const float>(&scalar, std::span<const std::size_t>{}),
                                      tensor_view<float>(&scalar_out, std::span<const std::size_t>{}), {}); }, "options.axis");
}

TEST_CASE("cumulative: views whose bytes overflow the address arithmetic are refused before anything is written") {
    // Element offsets 0 and 2^62 differ, yet 2^62 floats are 2^64 bytes: both elements would be at one address.
    // Such views cannot be made (tensor_view's constructor), so no operator ever receives one.
    const std::vector<float> x{1, 2};
    std::vector<float> y{7, 7};
    std::vector<double> wide{7, 7};
    constexpr std::ptrdiff_t two_62 = std::ptrdiff_t{1} << 62, two_61 = std::ptrdiff_t{1} << 61;
    const tensor_view<const float> input(x.data(), {2});
    const auto expect = [](auto call) { tensorops_test::expect_error(call, "tensor_view", "strides"); };
    expect([&] { cumulative_sum(input, tensor_view<float>(y.data(), {2}, {two_62}), {}); });
    expect([&] { cumulative_sum(sequential, tensor_view<const float>(x.data(), {2}, {two_62 + 1}), tensor_view<float>(y.data(), {2}), {}); });
    expect([&] { cumulative_product(input, tensor_view<float>(y.data(), {2, 2}, {two_61, two_61}), {}); });
    expect([&] { cumulative_sum(tensor_view<const double>(wide.data(), {2}), tensor_view<double>(wide.data() + 1, {2}, {-two_61}), {}); });
    CHECK((y == std::vector<float>{7, 7} && wide == std::vector<double>{7, 7}));  // nothing written
}

TEST_CASE("cumulative: a direction outside axis_direction is an error, with or without an executor") {
    const std::vector<float> x{1, 2, 3, 4};
    std::vector<float> y(4, 7.0f);
    const tensor_view<const float> input(x.data(), {2, 2});
    const tensor_view<float> output(y.data(), {2, 2});
    tensorops::thread_pool pool(2, 1);
    for (int value : {2, -1, 255}) {
        INFO("direction " << value);
        const scan_options options{1, static_cast<axis_direction>(value), false};
        const auto expect = [](auto call, const std::string& operation) { return tensorops_test::expect_error(call, operation, "options.direction"); };
        CHECK(expect([&] { cumulative_sum(input, output, options); }, "cumulative_sum").find(std::to_string(value)) != std::string::npos);
        expect([&] { cumulative_sum(pool, input, output, options); }, "cumulative_sum");
        expect([&] { cumulative_product(input, output, options); }, "cumulative_product");
        expect([&] { cumulative_product(sequential, input, output, options); }, "cumulative_product");
        expect([&] { cumulative_scan(input, output, options, std::plus<>{}, 0.0f); }, "cumulative_scan");
        expect([&] { cumulative_scan(pool, input, output, options, std::plus<>{}, 0.0f); }, "cumulative_scan");
        expect([&] { cumulative_sum(tensor_view<const float>(output), output, options); }, "cumulative_sum");  // in place
    }
    CHECK(y == std::vector<float>(4, 7.0f));
}

TEST_CASE("cumulative: interleaved outputs that a rule proves unique run; one no rule settles is refused, unwritten") {
    // [2, 3, 400] with strides {3, 2, 6}: blocks of 6 filled in the order 0 3 2 5 4 7 − 1 …, proven by tiling.
    std::vector<float> x(2400);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7);
    guarded_buffer<float> y({2, 3, 400}, {3, 2, 6});
    cumulative_sum(tensor_view<const float>(x.data(), {2, 3, 400}), y.view(), {2});
    const std::vector<float> got = y.values();
    for (std::size_t line = 0, i = 0; line < 6; ++line)
        for (float running = 0; i < (line + 1) * 400; ++i) CHECK(got[i] == (running += x[i]));
    CHECK(y.untouched_outside_view());
    // [2049, 2, 2] with strides {2, 3, 4}: the third dimension is neither nested nor tiling, and the 4098 offsets
    // below it are too many to list. Refused as unproven, nothing written.
    std::vector<float> input(2049 * 4, 1.0f), out(4 * 2049 + 8, 7.0f);
    const auto rule = tensorops_test::expect_error([&] {
        cumulative_sum(tensor_view<const float>(input.data(), {2049, 2, 2}), tensor_view<float>(out.data(), {2049, 2, 2}, {2, 3, 4}), {0});
    }, "cumulative_sum", "output");
    CHECK(rule.find("could not be proven") != std::string::npos);
    CHECK(std::all_of(out.begin(), out.end(), [](float v) { return v == 7.0f; }));
}
