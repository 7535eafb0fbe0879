// reduce / argmax / argmin against SEMANTICS.md §2, §4, §5: the DirectML page and ONNX examples, random cases
// against the long-double reference for every function × element type × axes × layout, NaN in every position,
// ties in both directions, accuracy of long float sums, empty groups, user-defined types and every error rule.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "reference.hpp"
#include "support.hpp"
#include "user_types.hpp"

using namespace tensorops;
using tensorops_test::guarded_buffer;
using tensorops_test::test_rng;
namespace ref = tensorops_test::reference;

namespace {

using v = std::vector<float>;
using iv = std::vector<std::int64_t>;

constexpr reduce_function value_functions[] = {reduce_function::average, reduce_function::l1,      reduce_function::l2,
                                               reduce_function::log_sum, reduce_function::log_sum_exp, reduce_function::max,
                                               reduce_function::min,     reduce_function::multiply, reduce_function::sum,
                                               reduce_function::sum_square};

bool integer_capable(reduce_function f) {
    return f != reduce_function::average && f != reduce_function::l2 && f != reduce_function::log_sum &&
           f != reduce_function::log_sum_exp;
}

std::vector<float> reduce_float(const std::vector<std::size_t>& sizes, std::vector<float> values, reduce_function f,
                                std::vector<std::size_t> axes) {
    const auto out_sizes = ref::reduced_sizes(sizes, axes);
    std::vector<float> out(ref::dense<int>::element_count(out_sizes), -7.0f);
    reduce(tensor_view<const float>(values.data(), sizes), tensor_view<float>(out.data(), out_sizes), f, axes);
    return out;
}

template <class I = std::int64_t>
std::vector<std::int64_t> arg_float(bool maximum, const std::vector<std::size_t>& sizes, std::vector<float> values,
                                    std::vector<std::size_t> axes, axis_direction direction = axis_direction::increasing) {
    const auto out_sizes = ref::reduced_sizes(sizes, axes);
    std::vector<I> out(ref::dense<int>::element_count(out_sizes), I(99));
    const tensor_view<const float> x(values.data(), sizes);
    const tensor_view<I> y(out.data(), out_sizes);
    if (maximum) argmax(x, y, axes, direction);
    else argmin(x, y, axes, direction);
    return {out.begin(), out.end()};
}

// Values a function is tested on: logs need positive sums, products need magnitudes near 1.
template <class T>
T random_input(test_rng& rng, reduce_function f) {
    if constexpr (std::is_integral_v<T>) {
        if (f == reduce_function::multiply) return tensorops_test::random_value<T>(rng);
        return tensorops_test::random_value<T>(rng);
    } else {
        if (f == reduce_function::log_sum) return static_cast<T>(rng.uniform_real(0.0, 1.0));
        if (f == reduce_function::multiply) {
            const double m = rng.uniform_real(0.75, 1.25);
            return static_cast<T>(rng.chance(0.5) ? m : -m);
        }
        if (f == reduce_function::log_sum_exp) return static_cast<T>(rng.uniform_real(-20.0, 20.0));
        return static_cast<T>(rng.uniform_real(-1.0, 1.0));
    }
}

ref::reduce_operation to_reference(reduce_function f) { return static_cast<ref::reduce_operation>(static_cast<int>(f)); }

// Error bound for a floating result: accumulation error ∝ n·ε·(the magnitude summed), the finishing function's
// own error, and one rounding to T.
template <class T>
long double tolerance(reduce_function f, std::size_t n, long double magnitude, long double expected) {
    using A = accumulator_t<T>;
    const long double eps = std::numeric_limits<A>::epsilon();
    const long double out_eps = ref::widen(std::numeric_limits<T>::epsilon());
    const long double slack = static_cast<long double>(n + 16) * eps;
    const long double subnormal = ref::widen(std::numeric_limits<T>::denorm_min());  // outputs below the normal range
    return subnormal + [&]() -> long double {
    switch (f) {
        case reduce_function::max:
        case reduce_function::min: return 0;
        case reduce_function::multiply: return (4 * slack + out_eps) * std::fabs(expected) + ref::widen(std::numeric_limits<T>::min());
        case reduce_function::l2: return (2 * slack + 4 * eps + out_eps) * std::fabs(expected) + 1e-30L;
        case reduce_function::log_sum: return 2 * slack * magnitude / std::max<long double>(std::exp(expected), 1e-30L) + (4 * eps + out_eps) * std::fabs(expected) + 4 * eps;
        case reduce_function::log_sum_exp: return 2 * slack + (64 * eps + out_eps) * (std::fabs(expected) + 1);
        case reduce_function::average: return 2 * slack * magnitude / static_cast<long double>(n) + out_eps * std::fabs(expected);
        default: return 2 * slack * magnitude + out_eps * std::fabs(expected);
    }
    }();
}

template <class T>
void check_random_reduce(test_rng& rng, reduce_function f, tensorops_test::layout_kind in_kind, tensorops_test::layout_kind out_kind) {
    const std::size_t rank = rng.uniform<std::size_t>(1, 8);
    const auto sizes = tensorops_test::random_sizes(rng, rank, 1500);
    std::vector<std::size_t> axes;
    for (std::size_t d = 0; d < rank; ++d)
        if (rng.chance(0.5)) axes.push_back(d);
    if (axes.empty()) axes.push_back(rng.uniform<std::size_t>(0, rank - 1));
    std::shuffle(axes.begin(), axes.end(), rng.engine());  // a set: order must not matter
    const auto out_sizes = ref::reduced_sizes(sizes, axes);
    guarded_buffer<T> input(sizes, tensorops_test::random_strides(rng, sizes, in_kind), rng.uniform<std::size_t>(0, 7));
    guarded_buffer<T> output(out_sizes, tensorops_test::random_strides(rng, out_sizes, out_kind), rng.uniform<std::size_t>(0, 7));
    std::vector<T> values(ref::dense<int>::element_count(sizes));
    for (auto& x : values) x = random_input<T>(rng, f);
    input.assign(values);
    const auto effective = input.values();
    INFO("function " << static_cast<int>(f) << ", input " << tensorops_test::describe_layout(sizes, input.strides())
                     << ", output strides " << tensorops_test::describe_layout(out_sizes, output.strides()) << ", axes "
                     << axes.size() << " first " << axes[0]);
    reduce(input.const_view(), output.view(), f, axes);
    REQUIRE(output.untouched_outside_view());
    const ref::dense<T> x(sizes, effective);
    const auto expected = ref::reduce(x, axes, to_reference(f));
    const auto actual = output.values();
    std::size_t n = 1;
    for (auto a : axes) n *= sizes[a];
    if constexpr (std::is_integral_v<T>) {
        for (std::size_t i = 0; i < actual.size(); ++i) REQUIRE(static_cast<long double>(actual[i]) == expected.values[i]);
    } else {
        std::vector<long double> magnitudes(effective.size());
        for (std::size_t i = 0; i < effective.size(); ++i) magnitudes[i] = std::fabs(ref::widen(effective[i]));
        const auto magnitude = ref::reduce(ref::dense<long double>(sizes, magnitudes), axes,
                                           f == reduce_function::sum_square || f == reduce_function::l2 ? ref::reduce_operation::sum_square
                                                                                                        : ref::reduce_operation::sum);
        for (std::size_t i = 0; i < actual.size(); ++i) {
            const long double got = ref::widen(actual[i]);
            const long double bound = tolerance<T>(f, n, magnitude.values[i], expected.values[i]);
            if (!(std::fabs(got - expected.values[i]) <= bound))
                FAIL("element " << i << ": got " << static_cast<double>(got) << ", expected " << static_cast<double>(expected.values[i])
                                << " ± " << static_cast<double>(bound) << " (n = " << n << ")");
        }
    }
}

}  // namespace

TEST_CASE("reduce: the DirectML page examples") {
    const std::vector<float> x{1, 2, 3, 3, 0, 4, 2, 4, 2};
    CHECK(reduce_float({3, 3}, x, reduce_function::sum, {0}) == v{6, 6, 9});
    CHECK(reduce_float({3, 3}, x, reduce_function::sum, {1}) == v{6, 7, 8});
    CHECK(reduce_float({3, 3}, x, reduce_function::sum, {0, 1}) == v{21});
    const std::vector<float> y{1, 2, 3, 3, 0, 4, 2, 5, 2};
    CHECK(arg_float(true, {3, 3}, y, {0, 1}) == iv{7});
    CHECK(arg_float(false, {3, 3}, y, {0, 1}) == iv{4});
    CHECK(arg_float(true, {3, 3}, y, {0}) == iv{1, 2, 1});
    CHECK(arg_float(false, {3, 3}, y, {0}) == iv{0, 1, 2});
    CHECK(arg_float(true, {3, 3}, y, {1}) == iv{2, 2, 1});
    CHECK(arg_float(false, {3, 3}, y, {1}) == iv{0, 1, 0});
    // Through reduce() with ARGMAX / ARGMIN and an int32 output.
    std::vector<std::int32_t> index(1);
    reduce(tensor_view<const float>(y.data(), {3, 3}), tensor_view<std::int32_t>(index.data(), {1, 1}), reduce_function::argmax, {0, 1});
    CHECK(index[0] == 7);
    reduce(tensor_view<const float>(y.data(), {3, 3}), tensor_view<std::int32_t>(index.data(), {1, 1}), reduce_function::argmin, {0, 1});
    CHECK(index[0] == 4);
}

TEST_CASE("reduce: the ONNX Reduce* examples") {
    std::vector<float> a(12);
    for (std::size_t i = 0; i < 12; ++i) a[i] = static_cast<float>(i + 1);
    const std::vector<float> b{5, 1, 20, 2, 30, 1, 40, 2, 55, 1, 60, 2};
    const std::vector<std::size_t> shape{3, 2, 2};
    CHECK(reduce_float(shape, a, reduce_function::sum, {1}) == v{4, 6, 12, 14, 20, 22});
    CHECK(reduce_float(shape, a, reduce_function::sum, {0, 1, 2}) == v{78});
    CHECK(reduce_float(shape, a, reduce_function::multiply, {1}) == v{3, 8, 35, 48, 99, 120});
    CHECK(reduce_float(shape, a, reduce_function::multiply, {0, 1, 2}) == v{479001600});
    CHECK(reduce_float(shape, a, reduce_function::max, {1}) == v{3, 4, 7, 8, 11, 12});
    CHECK(reduce_float(shape, a, reduce_function::min, {1}) == v{1, 2, 5, 6, 9, 10});
    CHECK(reduce_float(shape, b, reduce_function::max, {0, 1, 2}) == v{60});
    CHECK(reduce_float(shape, b, reduce_function::min, {0, 1, 2}) == v{1});
    CHECK(reduce_float(shape, a, reduce_function::l1, {1}) == v{4, 6, 12, 14, 20, 22});
    CHECK(reduce_float(shape, a, reduce_function::sum_square, {1}) == v{10, 20, 74, 100, 202, 244});
    CHECK(reduce_float(shape, a, reduce_function::sum_square, {0, 1, 2}) == v{650});
    CHECK(reduce_float(shape, b, reduce_function::average, {1}) == v{12.5f, 1.5f, 35, 1.5f, 57.5f, 1.5f});
    CHECK(reduce_float(shape, b, reduce_function::average, {0, 1, 2}) == v{18.25f});
    const auto l2 = reduce_float(shape, a, reduce_function::l2, {1});
    const auto log_sum = reduce_float(shape, a, reduce_function::log_sum, {1});
    const auto log_sum_exp = reduce_float(shape, a, reduce_function::log_sum_exp, {1});
    const double sums[] = {4, 6, 12, 14, 20, 22}, squares[] = {10, 20, 74, 100, 202, 244};
    for (std::size_t i = 0; i < 6; ++i) {
        CHECK(l2[i] == Approx(std::sqrt(squares[i])).epsilon(1e-6));
        CHECK(log_sum[i] == Approx(std::log(sums[i])).epsilon(1e-6));
        const double first = a[(i / 2) * 4 + i % 2], second = first + 2;
        CHECK(log_sum_exp[i] == Approx(std::log(std::exp(first) + std::exp(second))).epsilon(1e-6));
    }
    CHECK(reduce_float(shape, a, reduce_function::l2, {0, 1, 2})[0] == Approx(std::sqrt(650.0)).epsilon(1e-6));
    // ArgMax / ArgMin with first and last index.
    CHECK(arg_float(true, {2, 2}, {2, 2, 3, 10}, {1}) == iv{0, 1});
    CHECK(arg_float(true, {2, 2}, {2, 2, 3, 10}, {1}, axis_direction::decreasing) == iv{1, 1});
    CHECK(arg_float(true, {2, 2}, {2, 2, 3, 10}, {0}) == iv{1, 1});
    CHECK(arg_float(false, {2, 2}, {2, 1, 3, 10}, {1}) == iv{1, 0});
    CHECK(arg_float(false, {2, 2}, {2, 1, 3, 10}, {0}, axis_direction::decreasing) == iv{0, 0});
    CHECK(arg_float(false, {2, 2}, {2, 2, 3, 10}, {1}, axis_direction::decreasing) == iv{1, 0});
}

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

TEMPLATE_LIST_TEST_CASE("reduce: argmax and argmin, random, against the reference", "", tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng(std::string("arg reduce random ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    for (int trial = 0; trial < 60; ++trial) {
        const std::size_t rank = rng.uniform<std::size_t>(1, 6);
        const auto sizes = tensorops_test::random_sizes(rng, rank, 1000);
        std::vector<std::size_t> axes;
        for (std::size_t d = 0; d < rank; ++d)
            if (rng.chance(0.5)) axes.push_back(d);
        if (axes.empty()) axes.push_back(rng.uniform<std::size_t>(0, rank - 1));
        const auto out_sizes = ref::reduced_sizes(sizes, axes);
        const auto in_kind = tensorops_test::input_layout_kinds[rng.uniform<std::size_t>(0, 5)];
        guarded_buffer<T> input(sizes, tensorops_test::random_strides(rng, sizes, in_kind), rng.uniform<std::size_t>(0, 7));
        guarded_buffer<std::int64_t> output(out_sizes, tensorops_test::random_strides(rng, out_sizes, tensorops_test::layout_kind::mixed));
        std::vector<T> values(ref::dense<int>::element_count(sizes));
        // Few distinct values: many ties, which first/last must resolve.
        for (auto& x : values) x = static_cast<T>(rng.uniform<int>(0, 5));
        if constexpr (!std::is_integral_v<T>)
            for (auto& x : values)
                if (rng.chance(0.02)) x = static_cast<T>(std::numeric_limits<float>::quiet_NaN());
        input.assign(values);
        const bool maximum = trial % 2 == 0, last = trial % 4 >= 2;
        INFO("input " << tensorops_test::describe_layout(sizes, input.strides()) << (maximum ? " argmax" : " argmin") << (last ? " last" : " first"));
        if (maximum) argmax(input.const_view(), output.view(), axes, last ? axis_direction::decreasing : axis_direction::increasing);
        else argmin(input.const_view(), output.view(), axes, last ? axis_direction::decreasing : axis_direction::increasing);
        CHECK(output.values() == ref::arg_reduce(ref::dense<T>(sizes, input.values()), axes, maximum, last).values);
        CHECK(output.untouched_outside_view());
    }
}

TEMPLATE_LIST_TEST_CASE("reduce: argmax/argmin over long groups: many blocks, ties across blocks, NaN, both layouts", "",
                        tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng(std::string("arg reduce long ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    for (int trial = 0; trial < 12; ++trial) {
        const std::size_t n = rng.uniform<std::size_t>(2000, 9000), width = rng.uniform<std::size_t>(1, 20);
        // Contiguous groups ([width, n] over axis 1) and outer groups ([n, width] over axis 0).
        for (int layout = 0; layout < 2; ++layout) {
            const std::vector<std::size_t> sizes = layout == 0 ? std::vector<std::size_t>{width, n} : std::vector<std::size_t>{n, width};
            const std::vector<std::size_t> axes{layout == 0 ? std::size_t{1} : std::size_t{0}};
            std::vector<T> values(n * width);
            for (auto& x : values) x = static_cast<T>(rng.uniform<int>(0, 50));
            // Plant the extremes several times, far apart (ties in different blocks), and sometimes NaN.
            for (int plant = 0; plant < 4; ++plant) {
                const std::size_t at = rng.uniform<std::size_t>(0, values.size() - 1);
                values[at] = static_cast<T>(plant % 2 ? 60 : 0);
                values[rng.uniform<std::size_t>(0, values.size() - 1)] = static_cast<T>(60);
                values[rng.uniform<std::size_t>(0, values.size() - 1)] = static_cast<T>(0);
            }
            if constexpr (!std::is_integral_v<T>)
                if (trial % 3 == 0)
                    for (int k = 0; k < 3; ++k) values[rng.uniform<std::size_t>(0, values.size() - 1)] = static_cast<T>(std::numeric_limits<float>::quiet_NaN());
            const auto out_sizes = ref::reduced_sizes(sizes, axes);
            std::vector<std::int64_t> out(width);
            const tensor_view<const T> x(values.data(), sizes);
            const tensor_view<std::int64_t> y(out.data(), out_sizes);
            for (int mode = 0; mode < 4; ++mode) {
                const bool maximum = mode < 2, last = mode % 2 == 1;
                const auto direction = last ? axis_direction::decreasing : axis_direction::increasing;
                if (maximum) argmax(x, y, axes, direction);
                else argmin(x, y, axes, direction);
                INFO("n " << n << " width " << width << " layout " << layout << " mode " << mode);
                CHECK(out == ref::arg_reduce(ref::dense<T>(sizes, values), axes, maximum, last).values);
            }
        }
    }
}

TEMPLATE_LIST_TEST_CASE("reduce: NaN in every position propagates through MAX and MIN and wins ARGMAX/ARGMIN", "",
                        tensorops_test::floating_types) {
    using T = TestType;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t n : {1u, 7u, 8u, 9u, 33u, 70u}) {
        for (std::size_t position = 0; position < n; ++position) {
            std::vector<T> x(n);
            for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<T>(static_cast<float>(i % 5));
            x[position] = static_cast<T>(nan);
            T result{};
            std::int64_t index = -1;
            const tensor_view<const T> input(x.data(), {n});
            reduce(input, tensor_view<T>(&result, {1}), reduce_function::max, {0});
            CHECK(std::isnan(static_cast<float>(result)));
            reduce(input, tensor_view<T>(&result, {1}), reduce_function::min, {0});
            CHECK(std::isnan(static_cast<float>(result)));
            argmax(input, tensor_view<std::int64_t>(&index, {1}), {0});
            CHECK(index == static_cast<std::int64_t>(position));
            argmin(input, tensor_view<std::int64_t>(&index, {1}), {0}, axis_direction::decreasing);
            CHECK(index == static_cast<std::int64_t>(position));
            // Across rows too: [n, 16] reduced over axis 0 (the vectorised outer layout).
            std::vector<T> rows(n * 16);
            for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<T>(static_cast<float>(i % 7));
            for (std::size_t j = 0; j < 16; ++j) rows[position * 16 + j] = static_cast<T>(nan);
            std::vector<T> column_max(16);
            reduce(tensor_view<const T>(rows.data(), {n, 16}), tensor_view<T>(column_max.data(), {1, 16}), reduce_function::max, {0});
            for (const T& m : column_max) CHECK(std::isnan(static_cast<float>(m)));
        }
    }
}

TEST_CASE("reduce: float32 sums of 16M values are accurate to 1e-6") {
    const std::size_t n = std::size_t{1} << 24;
    std::vector<float> x(n);
    test_rng rng("reduce accuracy");
    INFO(rng.describe());
    long double exact = 0;
    for (auto& value : x) {
        value = static_cast<float>(rng.uniform_real(0.0, 1.0));
        exact += value;
    }
    float sum = 0;
    reduce(tensor_view<const float>(x.data(), {n}), tensor_view<float>(&sum, {1}), reduce_function::sum, {0});
    CHECK(std::fabs(static_cast<long double>(sum) - exact) / exact < 1e-6L);
    // The same values as [4096, 4096] reduced over the outer axis, then over both.
    std::vector<float> columns(4096);
    reduce(tensor_view<const float>(x.data(), {4096, 4096}), tensor_view<float>(columns.data(), {1, 4096}), reduce_function::sum, {0});
    long double column_exact = 0;
    for (std::size_t i = 0; i < 4096; ++i) column_exact += x[i * 4096];
    CHECK(std::fabs(static_cast<long double>(columns[0]) - column_exact) / column_exact < 1e-6L);
}

TEST_CASE("reduce: float16 sums run past 2048 (float accumulator, one rounding)") {
    std::vector<float16> ones(5000, float16(1.0f));
    float16 sum{};
    reduce(tensor_view<const float16>(ones.data(), {5000}), tensor_view<float16>(&sum, {1}), reduce_function::sum, {0});
    CHECK(static_cast<float>(sum) == 5000.0f);
    std::vector<float16> columns(16);
    reduce(tensor_view<const float16>(ones.data(), {312, 16}), tensor_view<float16>(columns.data(), {1, 16}), reduce_function::sum, {0});
    for (const auto& c : columns) CHECK(static_cast<float>(c) == 312.0f);
    float16 average{};
    reduce(tensor_view<const float16>(ones.data(), {5000}), tensor_view<float16>(&average, {1}), reduce_function::average, {0});
    CHECK(static_cast<float>(average) == 1.0f);
}

TEST_CASE("reduce: integers wrap, L1 of the minimum is the minimum") {
    std::vector<std::int8_t> x{100, 100, 100};
    std::int8_t r = 0;
    reduce(tensor_view<const std::int8_t>(x.data(), {3}), tensor_view<std::int8_t>(&r, {1}), reduce_function::sum, {0});
    CHECK(r == 44);
    reduce(tensor_view<const std::int8_t>(x.data(), {3}), tensor_view<std::int8_t>(&r, {1}), reduce_function::multiply, {0});
    CHECK(r == 64);  // 10^6 mod 256
    std::int32_t minimum = std::numeric_limits<std::int32_t>::min(), l1 = 0;
    reduce(tensor_view<const std::int32_t>(&minimum, {1}), tensor_view<std::int32_t>(&l1, {1}), reduce_function::l1, {0});
    CHECK(l1 == std::numeric_limits<std::int32_t>::min());
}

TEST_CASE("reduce: log-sum-exp is stable and handles infinities") {
    const float inf = std::numeric_limits<float>::infinity();
    CHECK(reduce_float({2}, {1000, 1000}, reduce_function::log_sum_exp, {0})[0] == Approx(1000 + std::log(2.0)));
    CHECK(reduce_float({2}, {-inf, -inf}, reduce_function::log_sum_exp, {0})[0] == -inf);
    CHECK(reduce_float({2}, {inf, 1}, reduce_function::log_sum_exp, {0})[0] == inf);
    CHECK(reduce_float({2}, {-inf, 0}, reduce_function::log_sum_exp, {0})[0] == 0.0f);
    // Vectorised layouts: a long contiguous group and a [rows, 16] outer reduction with infinities in some columns.
    std::vector<float> big(100, -inf);
    CHECK(reduce_float({100}, big, reduce_function::log_sum_exp, {0})[0] == -inf);
    std::vector<float> rows(40 * 16, 0.0f);
    for (std::size_t i = 0; i < 40; ++i) rows[i * 16] = -inf;  // column 0: all −inf
    rows[5 * 16 + 1] = inf;                                      // column 1: one +inf
    const auto lse = reduce_float({40, 16}, rows, reduce_function::log_sum_exp, {0});
    CHECK(lse[0] == -inf);
    CHECK(lse[1] == inf);
    CHECK(lse[2] == Approx(std::log(40.0)));
    // A long group merged stretch by stretch: an all −inf stretch, very negative values, the maximum late.
    std::vector<float> long_group(10000);
    for (std::size_t i = 0; i < long_group.size(); ++i) long_group[i] = -1000.0f + static_cast<float>(i % 97) * 0.01f;
    for (std::size_t i = 0; i < 2500; ++i) long_group[i] = -inf;
    long_group[9000] = -990.0f;
    const auto expected = ref::reduce(ref::dense<float>({10000}, long_group), {0}, ref::reduce_operation::log_sum_exp).values[0];
    CHECK(reduce_float({10000}, long_group, reduce_function::log_sum_exp, {0})[0] == Approx(static_cast<double>(expected)).epsilon(1e-6));
    long_group[7777] = std::numeric_limits<float>::quiet_NaN();
    CHECK(std::isnan(reduce_float({10000}, long_group, reduce_function::log_sum_exp, {0})[0]));
}

TEST_CASE("reduce: empty groups give SEMANTICS.md §5's values; ARGMAX of an empty group is an error") {
    std::vector<float> out(3, 7.0f);
    const tensor_view<const float> empty(nullptr, {3, 0});
    const tensor_view<float> y(out.data(), {3, 1});
    const std::pair<reduce_function, float> expected[] = {
        {reduce_function::sum, 0.0f}, {reduce_function::l1, 0.0f}, {reduce_function::l2, 0.0f}, {reduce_function::sum_square, 0.0f},
        {reduce_function::multiply, 1.0f}, {reduce_function::max, std::numeric_limits<float>::lowest()},
        {reduce_function::min, std::numeric_limits<float>::max()}, {reduce_function::log_sum, -std::numeric_limits<float>::infinity()},
        {reduce_function::log_sum_exp, -std::numeric_limits<float>::infinity()}};
    for (const auto& [f, value] : expected) {
        reduce(empty, y, f, {1});
        CHECK(out == std::vector<float>(3, value));
    }
    reduce(empty, y, reduce_function::average, {1});
    CHECK(std::isnan(out[0]));
    std::vector<std::int64_t> index(3);
    CHECK_THROWS_AS(argmax(empty, tensor_view<std::int64_t>(index.data(), {3, 1}), {1}), tensorops::error);
    // An empty output (a kept axis of size 0) is simply left alone.
    reduce(tensor_view<const float>(nullptr, {0, 3}), tensor_view<float>(nullptr, {0, 1}), reduce_function::sum, {1});
}

using tensorops_test::mod_prime;

TEST_CASE("reduce: a user-defined element type, with exactly the functions its concepts allow") {
    std::vector<mod_prime> x(24);
    for (std::size_t i = 0; i < 24; ++i) x[i].value = static_cast<std::int64_t>(i * 7919 % mod_prime::p);
    const tensor_view<const mod_prime> input(x.data(), {2, 3, 4});
    std::vector<mod_prime> out(8);
    const tensor_view<mod_prime> y(out.data(), {2, 1, 4});
    const ref::dense<mod_prime> dense({2, 3, 4}, x);
    for (auto f : {reduce_function::sum, reduce_function::multiply, reduce_function::sum_square, reduce_function::max, reduce_function::min}) {
        reduce(input, y, f, {1});
        std::vector<mod_prime> expected(8);
        ref::for_each_index({2, 1, 4}, [&](const std::vector<std::size_t>& o) {
            mod_prime acc = f == reduce_function::multiply ? mod_prime{1} : mod_prime{0};
            for (std::size_t k = 0; k < 3; ++k) {
                const mod_prime e = dense[{o[0], k, o[2]}];
                if (f == reduce_function::sum) acc = acc + e;
                else if (f == reduce_function::multiply) acc = acc * e;
                else if (f == reduce_function::sum_square) acc = acc + e * e;
                else if (k == 0) acc = e;
                else if (f == reduce_function::max) acc = acc < e ? e : acc;
                else acc = e < acc ? e : acc;
            }
            expected[o[0] * 4 + o[2]] = acc;
        });
        CHECK(out == expected);
    }
    std::vector<std::uint32_t> index(8);
    argmax(input, tensor_view<std::uint32_t>(index.data(), {2, 1, 4}), {1});
    const auto expected_index = ref::arg_reduce(ref::dense<long long>({2, 3, 4}, [&] {
                                                    std::vector<long long> values;
                                                    for (const auto& e : x) values.push_back(e.value);
                                                    return values;
                                                }()),
                                                {1}, true, false);
    CHECK(std::vector<std::int64_t>(index.begin(), index.end()) == expected_index.values);
    CHECK_THROWS_AS(reduce(input, y, reduce_function::l1, {1}), tensorops::error);
    CHECK_THROWS_AS(reduce(input, y, reduce_function::average, {1}), tensorops::error);
}

TEST_CASE("reduce: every broken rule throws tensorops::error naming the argument, before writing") {
    std::vector<float> a(24, 1.0f), b(24, 7.0f);
    const tensor_view<const float> input(a.data(), {2, 3, 4});
    auto expect_error = [&](auto call, const std::string& argument, const std::string& operation = "reduce") {
        try {
            call();
            FAIL("expected tensorops::error for '" << argument << "'");
        } catch (const tensorops::error& e) {
            CHECK(e.operator_name() == operation);
            CHECK(e.argument() == argument);
        }
        CHECK(std::all_of(b.begin(), b.end(), [](float x) { return x == 7.0f; }));
    };
    const auto sum = reduce_function::sum;
    expect_error([&] { reduce(input, tensor_view<float>(b.data(), {2, 1, 4}), sum, std::span<const std::size_t>{}); }, "axes");
    expect_error([&] { reduce(input, tensor_view<float>(b.data(), {2, 1, 4}), sum, {3}); }, "axes");
    expect_error([&] { reduce(input, tensor_view<float>(b.data(), {2, 1, 4}), sum, {1, 1}); }, "axes");
    expect_error([&] { reduce(input, tensor_view<float>(b.data(), {2, 3, 4}), sum, {1}); }, "output");   // size not 1
    expect_error([&] { reduce(input, tensor_view<float>(b.data(), {2, 4}), sum, {1}); }, "output");      // rank dropped
    expect_error([&] { reduce(input, tensor_view<float>(b.data(), {2, 1, 4}, {0, 4, 1}), sum, {1}); }, "output");  // not unique
    expect_error([&] { reduce(input, tensor_view<float>(b.data(), {2, 1, 4}), static_cast<reduce_function>(12), {1}); }, "function");
    expect_error([&] { reduce(input, tensor_view<float>(b.data(), {2, 1, 4}), reduce_function::argmax, {1}); }, "output");  // not an index type
    std::vector<std::int32_t> ints(24, 3), int_out(8, 0);
    const tensor_view<const std::int32_t> int_input(ints.data(), {2, 3, 4});
    for (auto f : {reduce_function::average, reduce_function::l2, reduce_function::log_sum, reduce_function::log_sum_exp}) {
        CHECK_THROWS_AS(reduce(int_input, tensor_view<std::int32_t>(int_out.data(), {2, 1, 4}), f, {1}), tensorops::error);
        CHECK(int_out == std::vector<std::int32_t>(8, 0));
    }
    // Output sharing memory with the input.
    std::vector<float> shared(24, 1.0f);
    CHECK_THROWS_AS(reduce(tensor_view<const float>(shared.data(), {2, 3, 4}), tensor_view<float>(shared.data() + 4, {2, 1, 4}), sum, {1}),
                    tensorops::error);
    // argmax: an index type too narrow for the group (a broadcast input of 2^32 + 1 elements costs nothing).
    float one = 1.0f;
    std::uint32_t narrow = 0;
    const std::size_t huge = (std::size_t{1} << 32) + 1;
    expect_error([&] { argmax(tensor_view<const float>(&one, {huge}, {0}), tensor_view<std::uint32_t>(&narrow, {1}), {0}); }, "output", "argmax");
    std::int32_t narrow_signed = 0;  // 2^31 elements: the last index 2^31 − 1 just fits an int32; 2^31 + 1 does not
    expect_error([&] { argmin(tensor_view<const float>(&one, {(std::size_t{1} << 31) + 1}, {0}), tensor_view<std::int32_t>(&narrow_signed, {1}), {0}); },
                 "output", "argmin");
}
