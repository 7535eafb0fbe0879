// The scalar references reproduce the DirectML page examples (SEMANTICS.md §1–§3) and the ONNX operator
// examples exactly, so later operator tests can trust them on random inputs.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "reference.hpp"

using namespace tensorops_test::reference;

namespace {
const dense<float> page_input({1, 1, 3, 4}, {2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4});

std::vector<long double> widen_all(const std::vector<float>& values) { return {values.begin(), values.end()}; }

struct scan_case {
    std::size_t axis;
    bool reverse, exclusive;
    std::vector<float> sum, product;
};
}  // namespace

TEST_CASE("reference: cumulative sum and product reproduce the DirectML page table") {
    const scan_case cases[] = {
        {3, false, false, {2, 3, 6, 11, 3, 11, 18, 21, 9, 15, 17, 21}, {2, 2, 6, 30, 3, 24, 168, 504, 9, 54, 108, 432}},
        {3, false, true, {0, 2, 3, 6, 0, 3, 11, 18, 0, 9, 15, 17}, {1, 2, 2, 6, 1, 3, 24, 168, 1, 9, 54, 108}},
        {3, true, false, {11, 9, 8, 5, 21, 18, 10, 3, 21, 12, 6, 4}, {30, 15, 15, 5, 504, 168, 21, 3, 432, 48, 8, 4}},
        {2, false, false, {2, 1, 3, 5, 5, 9, 10, 8, 14, 15, 12, 12}, {2, 1, 3, 5, 6, 8, 21, 15, 54, 48, 42, 60}},
    };
    for (const auto& c : cases) {
        INFO("axis " << c.axis << " reverse " << c.reverse << " exclusive " << c.exclusive);
        CHECK(cumulative(page_input, c.axis, c.reverse, c.exclusive, scan_operation::sum).values == widen_all(c.sum));
        CHECK(cumulative(page_input, c.axis, c.reverse, c.exclusive, scan_operation::product).values == widen_all(c.product));
    }
}

TEST_CASE("reference: cumulative sum reproduces the ONNX CumSum examples") {
    const dense<double> x({5}, {1, 2, 3, 4, 5});
    using v = std::vector<long double>;
    CHECK(cumulative(x, 0, false, false, scan_operation::sum).values == v{1, 3, 6, 10, 15});
    CHECK(cumulative(x, 0, false, true, scan_operation::sum).values == v{0, 1, 3, 6, 10});
    CHECK(cumulative(x, 0, true, false, scan_operation::sum).values == v{15, 14, 12, 9, 5});
    CHECK(cumulative(x, 0, true, true, scan_operation::sum).values == v{14, 12, 9, 5, 0});
    const dense<double> m({2, 3}, {1, 2, 3, 4, 5, 6});
    CHECK(cumulative(m, 0, false, false, scan_operation::sum).values == v{1, 2, 3, 5, 7, 9});
    CHECK(cumulative(m, 1, false, false, scan_operation::sum).values == v{1, 3, 6, 4, 9, 15});
}

TEST_CASE("reference: integer scans wrap") {
    const dense<std::int8_t> x({3}, {100, 100, -128});
    CHECK(cumulative(x, 0, false, false, scan_operation::sum).values == std::vector<std::int8_t>{100, -56, 72});
    CHECK(cumulative(x, 0, false, false, scan_operation::product).values == std::vector<std::int8_t>{100, 16, 0});
}

TEST_CASE("reference: reduce reproduces the DirectML page and the ONNX examples") {
    const dense<float> x({3, 3}, {1, 2, 3, 3, 0, 4, 2, 4, 2});
    using v = std::vector<long double>;
    CHECK(reduce(x, {0}, reduce_operation::sum).values == v{6, 6, 9});
    CHECK(reduce(x, {1}, reduce_operation::sum).values == v{6, 7, 8});
    CHECK(reduce(x, {0, 1}, reduce_operation::sum).values == v{21});

    std::vector<float> a_values(12);
    for (int i = 0; i < 12; ++i) a_values[static_cast<std::size_t>(i)] = static_cast<float>(i + 1);
    const dense<float> a({3, 2, 2}, a_values);
    const dense<float> b({3, 2, 2}, {5, 1, 20, 2, 30, 1, 40, 2, 55, 1, 60, 2});
    CHECK(reduce(a, {1}, reduce_operation::sum).values == v{4, 6, 12, 14, 20, 22});
    CHECK(reduce(a, {0, 1, 2}, reduce_operation::sum).values == v{78});
    CHECK(reduce(a, {1}, reduce_operation::multiply).values == v{3, 8, 35, 48, 99, 120});
    CHECK(reduce(a, {1}, reduce_operation::max).values == v{3, 4, 7, 8, 11, 12});
    CHECK(reduce(a, {1}, reduce_operation::min).values == v{1, 2, 5, 6, 9, 10});
    CHECK(reduce(a, {1}, reduce_operation::l1).values == v{4, 6, 12, 14, 20, 22});
    CHECK(reduce(a, {1}, reduce_operation::sum_square).values == v{10, 20, 74, 100, 202, 244});
    CHECK(reduce(b, {1}, reduce_operation::average).values == v{12.5L, 1.5L, 35, 1.5L, 57.5L, 1.5L});
    const auto l2 = reduce(a, {1}, reduce_operation::l2);
    CHECK(static_cast<double>(l2.values[0]) == Approx(std::sqrt(10.0)));
    CHECK(static_cast<double>(l2.values[5]) == Approx(std::sqrt(244.0)));
    const auto log_sum = reduce(a, {1}, reduce_operation::log_sum);
    CHECK(static_cast<double>(log_sum.values[0]) == Approx(std::log(4.0)));
    const auto lse = reduce(a, {1}, reduce_operation::log_sum_exp);
    CHECK(static_cast<double>(lse.values[0]) == Approx(std::log(std::exp(1.0) + std::exp(3.0))));
}

TEST_CASE("reference: log-sum-exp is stable and handles infinities") {
    const float inf = std::numeric_limits<float>::infinity();
    const dense<float> big({2}, {1000, 1000});
    CHECK(static_cast<double>(reduce(big, {0}, reduce_operation::log_sum_exp).values[0]) == Approx(1000 + std::log(2.0)));
    CHECK(reduce(dense<float>({2}, {-inf, -inf}), {0}, reduce_operation::log_sum_exp).values[0] == -std::numeric_limits<long double>::infinity());
    CHECK(reduce(dense<float>({2}, {inf, 1}), {0}, reduce_operation::log_sum_exp).values[0] == std::numeric_limits<long double>::infinity());
    CHECK(static_cast<double>(reduce(dense<float>({2}, {-inf, 0}), {0}, reduce_operation::log_sum_exp).values[0]) == 0.0);
}

TEST_CASE("reference: max and min propagate NaN; integer L1 of the minimum wraps") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    CHECK(std::isnan(reduce(dense<float>({3}, {1, nan, 2}), {0}, reduce_operation::max).values[0]));
    CHECK(std::isnan(reduce(dense<float>({3}, {1, 2, nan}), {0}, reduce_operation::min).values[0]));
    CHECK(reduce(dense<std::int32_t>({1}, std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min()}), {0}, reduce_operation::l1).values[0] ==
          static_cast<long double>(std::numeric_limits<std::int32_t>::min()));
}

TEST_CASE("reference: argmax and argmin reproduce the DirectML and ONNX examples") {
    const dense<float> x({3, 3}, {1, 2, 3, 3, 0, 4, 2, 5, 2});
    using v = std::vector<std::int64_t>;
    CHECK(arg_reduce(x, {0, 1}, true, false).values == v{7});
    CHECK(arg_reduce(x, {0, 1}, false, false).values == v{4});
    CHECK(arg_reduce(x, {0}, true, false).values == v{1, 2, 1});
    CHECK(arg_reduce(x, {0}, false, false).values == v{0, 1, 2});
    CHECK(arg_reduce(x, {1}, true, false).values == v{2, 2, 1});
    CHECK(arg_reduce(x, {1}, false, false).values == v{0, 1, 0});
    const dense<float> ties_max({2, 2}, {2, 2, 3, 10}), ties_min({2, 2}, {2, 1, 3, 10});
    CHECK(arg_reduce(ties_max, {1}, true, false).values == v{0, 1});
    CHECK(arg_reduce(ties_max, {1}, true, true).values == v{1, 1});
    CHECK(arg_reduce(ties_max, {0}, true, false).values == v{1, 1});
    CHECK(arg_reduce(ties_min, {1}, false, false).values == v{1, 0});
    CHECK(arg_reduce(ties_min, {0}, false, true).values == v{0, 0});
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const dense<float> with_nans({5}, {1, nan, 7, nan, 0});
    CHECK(arg_reduce(with_nans, {0}, true, false).values == v{1});
    CHECK(arg_reduce(with_nans, {0}, false, false).values == v{1});
    CHECK(arg_reduce(with_nans, {0}, true, true).values == v{3});
}

TEST_CASE("reference: scatter-ND reproduces the DirectML and ONNX examples") {
    const dense<float> input({8}, {1, 2, 3, 4, 5, 6, 7, 8});
    const dense<std::int64_t> indices({4, 1}, {4, 3, 1, 7});
    const dense<float> updates({4}, {9, 10, 11, 12});
    CHECK(scatter_nd(input, indices, updates).values == std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12});

    // ONNX: 4x4x4 data, indices [[0],[2]], updates two 4x4 slices.
    std::vector<float> data;
    const float block[16] = {1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1};
    for (int slice = 0; slice < 4; ++slice) data.insert(data.end(), block, block + 16);
    std::vector<float> update_values(32);
    for (int i = 0; i < 16; ++i) {
        update_values[static_cast<std::size_t>(i)] = 5;
        update_values[static_cast<std::size_t>(16 + i)] = 1;
    }
    const auto out = scatter_nd(dense<float>({4, 4, 4}, data), dense<std::int64_t>({2, 1}, {0, 2}), dense<float>({2, 4, 4}, update_values));
    CHECK(out.values[0] == 5);
    CHECK(out.values[16] == 1);   // slice 1 untouched
    CHECK(out.values[32] == 1);   // slice 2 replaced by ones
    CHECK(out.values[47] == 1);
    CHECK(out.values[63] == 1);   // slice 3 untouched: its last element is 1 anyway
    CHECK(out.values[17] == 2);

    // Reduction modes with duplicate indices [[0],[0]].
    const dense<float> four({4}, {1, 2, 3, 4});
    const dense<std::int64_t> duplicates({2, 1}, {0, 0});
    const dense<float> two({2}, {5, 6});
    CHECK(scatter_nd(four, duplicates, two).values == std::vector<float>{6, 2, 3, 4});  // last wins
    CHECK(scatter_nd(four, duplicates, two, scatter_mode::add).values == std::vector<float>{12, 2, 3, 4});
    CHECK(scatter_nd(four, duplicates, two, scatter_mode::multiply).values == std::vector<float>{30, 2, 3, 4});
    const dense<float> square({2, 2}, {1, 2, 3, 4});
    const dense<std::int64_t> diagonal({2, 2}, {0, 0, 1, 1});
    const dense<float> five_one({2}, {5, 1});
    CHECK(scatter_nd(square, diagonal, five_one, scatter_mode::max).values == std::vector<float>{5, 2, 3, 4});
    CHECK(scatter_nd(square, diagonal, five_one, scatter_mode::min).values == std::vector<float>{1, 2, 3, 1});
    // Negative indices count from the end.
    CHECK(scatter_nd(four, dense<std::int32_t>({1, 1}, std::vector<std::int32_t>{-1}), dense<float>({1}, std::vector<float>{9})).values == std::vector<float>{1, 2, 3, 9});
}

TEST_CASE("reference: gather-ND reproduces the ONNX examples") {
    const dense<int> x({2, 2}, {0, 1, 2, 3});
    CHECK(gather_nd(x, dense<std::int64_t>({2, 2}, {0, 0, 1, 1})).values == std::vector<int>{0, 3});
    CHECK(gather_nd(x, dense<std::int64_t>({2, 1}, {1, 0})).values == std::vector<int>{2, 3, 0, 1});
    const dense<int> cube({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
    const auto batched = gather_nd(cube, dense<std::int64_t>({2, 1}, {1, 0}), 1);
    CHECK(batched.sizes == std::vector<std::size_t>{2, 2});
    CHECK(batched.values == std::vector<int>{2, 3, 4, 5});
}
