// reduce / argmax / argmin against SEMANTICS.md §2, §4, §5: the DirectML page and ONNX examples, accuracy of
// long float sums, float16, wrap-around, log-sum-exp edge cases, empty groups, user-defined types and every
// error rule. Random cases live in test_reduce_random.cpp and test_reduce_arg.cpp (split to compile in parallel).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "index_helpers.hpp"
#include "reduce_helpers.hpp"
#include "reference.hpp"
#include "support.hpp"
#include "user_types.hpp"

using namespace tensorops;
using namespace reduce_test;
using tensorops_test::guarded_buffer;
using tensorops_test::test_rng;
namespace ref = tensorops_test::reference;

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
    // Outer, past one block of rows (64): +inf, NaN and an all −inf first block in separate columns.
    std::vector<float> tall(150 * 16, 0.0f);
    tall[100 * 16 + 3] = inf;
    tall[70 * 16 + 4] = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t i = 0; i < 64; ++i) tall[i * 16 + 5] = -inf;
    for (std::size_t i = 0; i < 150; ++i) tall[i * 16 + 6] = -inf;
    tall[149 * 16 + 7] = 50.0f;
    const auto tall_lse = reduce_float({150, 16}, tall, reduce_function::log_sum_exp, {0});
    CHECK(tall_lse[0] == Approx(std::log(150.0)));
    CHECK(tall_lse[3] == inf);
    CHECK(std::isnan(tall_lse[4]));
    CHECK(tall_lse[5] == Approx(std::log(86.0)));
    CHECK(tall_lse[6] == -inf);
    CHECK(tall_lse[7] == Approx(50.0 + std::log1p(149.0 * std::exp(-50.0))));
    // A long group merged stretch by stretch: an all −inf stretch, very negative values, the maximum late.
    std::vector<float> long_group(10000);
    for (std::size_t i = 0; i < long_group.size(); ++i) long_group[i] = -1000.0f + static_cast<float>(i % 97) * 0.01f;
    for (std::size_t i = 0; i < 2500; ++i) long_group[i] = -inf;
    long_group[9000] = -990.0f;
    const auto expected = ref::reduce(ref::dense<float>({10000}, long_group), {0}, ref::reduce_operation::log_sum_exp).values[0];
    CHECK(reduce_float({10000}, long_group, reduce_function::log_sum_exp, {0})[0] == Approx(static_cast<double>(expected)).epsilon(1e-6));
    long_group[7777] = std::numeric_limits<float>::quiet_NaN();
    CHECK(std::isnan(reduce_float({10000}, long_group, reduce_function::log_sum_exp, {0})[0]));
    // Maxima too large for a power-of-two reference (|m · log2 e| > 2^20, simd::largest_power_of_two_reference), and
    // just small enough for one, in groups of vectors and a partial one: m + ln 3 all the same, within a few ulp of m
    // (the rounding of m · log2 e: simd::exp_shifted). (Three maxima, or two where n = 3.)
    for (const float m : {7.2e5f, -7.2e5f, 7.4e5f, -7.4e5f, 4.0e6f, -4.0e6f, 1.0e30f, -1.0e30f}) {
        for (const std::size_t n : {std::size_t{3}, std::size_t{37}, std::size_t{3000}}) {
            std::vector<float> huge(n, m - 4096.0f * std::fabs(m) * std::numeric_limits<float>::epsilon());  // far below m
            huge[n / 3] = huge[n / 2] = huge[n - 1] = m;
            const auto maxima = static_cast<double>(std::count(huge.begin(), huge.end(), m));  // 2 where n = 3
            INFO("maximum " << m << ", " << n << " elements");
            const double m_plus_ln_maxima = static_cast<double>(m) + std::log(maxima);
            const double tolerance = 4 * std::numeric_limits<float>::epsilon();
            CHECK(reduce_float({n}, huge, reduce_function::log_sum_exp, {0})[0] == Approx(m_plus_ln_maxima).epsilon(tolerance));
        }
    }
    // A NaN beside a +inf, and a NaN alone, in one vectorised stretch: NaN.
    std::vector<float> mixed(100, 1.0f);
    mixed[10] = std::numeric_limits<float>::infinity();
    mixed[90] = -std::numeric_limits<float>::quiet_NaN();
    CHECK(std::isnan(reduce_float({100}, mixed, reduce_function::log_sum_exp, {0})[0]));
    mixed[10] = 1.0f;
    CHECK(std::isnan(reduce_float({100}, mixed, reduce_function::log_sum_exp, {0})[0]));
}

// A contiguous run takes its terms in one pass, over a reference from its first vectors (log_sum_exp/stretch.hpp,
// log_sum_exp_one_pass); a run whose maximum lies far above them, or with −inf, +inf or NaN among them or later, must
// come out as the two-pass definition says. Rows of [4, length] reduced over axis 1 (rows up to 2048 elements are
// finished from the reference, longer ones merged stretch by stretch), against the long-double reference.
TEMPLATE_TEST_CASE("reduce: log-sum-exp of runs whose first elements are far from the maximum", "", float, double, float16) {
    using T = TestType;
    test_rng rng(std::string("reduce lse far ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    const double inf = std::numeric_limits<double>::infinity();
    const double tolerance = 16 * static_cast<double>(std::numeric_limits<std::conditional_t<std::is_same_v<T, float16>, float, T>>::epsilon()) *
                             (std::is_same_v<T, float16> ? 8192.0 : 1.0);  // float16: 2^−10 a unit
    const double base = std::is_same_v<T, float16> ? 8.0 : 500.0;  // a maximum far from 0 (e^500 overflows float)
    for (const std::size_t length : {std::size_t{1}, std::size_t{5}, std::size_t{8}, std::size_t{31}, std::size_t{33}, std::size_t{100},
                                     std::size_t{1024}, std::size_t{2048}, std::size_t{2049}, std::size_t{5000}}) {
        const std::size_t head = length < 64 ? (length + 1) / 2 : 40;  // more than the first vectors of any width
        for (const double far : {-30.0, -70.0, -200.0, -inf}) {
            for (const double level : {0.0, base}) {
                const std::size_t rows = 4;
                std::vector<T> values(rows * length);
                for (std::size_t i = 0; i < rows; ++i)
                    for (std::size_t j = 0; j < length; ++j) {
                        // Rows 0, 1: the head far below the rest; row 2: a plain row; row 3: the head at the level
                        // and one late element far above it (−far, capped for float16).
                        const double noise = rng.uniform_real(-1.0, 1.0);
                        double v = level + noise;
                        if (i < 2 && j < head && length > 1) v = std::isinf(far) ? far : level + far + noise;
                        if (i == 3 && j == length - 1 && length > 1) v = std::isinf(far) ? level + 50.0 : level - std::max(far, -50.0);
                        values[i * length + j] = static_cast<T>(v);
                    }
                const auto expected = ref::reduce(ref::dense<T>({rows, length}, values), {1}, ref::reduce_operation::log_sum_exp);
                std::vector<T> actual(rows);
                reduce(tensor_view<const T>(values.data(), {rows, length}), tensor_view<T>(actual.data(), {rows, 1}), reduce_function::log_sum_exp,
                       {1});
                for (std::size_t i = 0; i < rows; ++i) {
                    INFO("length " << length << ", head " << far << " below " << level << ", row " << i);
                    const double e = static_cast<double>(expected.values[i]), a = static_cast<double>(actual[i]);
                    CHECK(a == Approx(e).epsilon(tolerance).margin(tolerance));
                }
            }
        }
        // +inf, NaN or −inf at the start, in the middle and at the end of a row of values near 0.
        for (const std::size_t at : {std::size_t{0}, length / 2, length - 1}) {
            for (const double special : {inf, -inf, std::numeric_limits<double>::quiet_NaN()}) {
                std::vector<T> values(length);
                for (auto& v : values) v = static_cast<T>(rng.uniform_real(-1.0, 1.0));
                values[at] = static_cast<T>(special);
                const double e = static_cast<double>(ref::reduce(ref::dense<T>({length}, values), {0}, ref::reduce_operation::log_sum_exp).values[0]);
                T actual{};
                reduce(tensor_view<const T>(values.data(), {length}), tensor_view<T>(&actual, {1}), reduce_function::log_sum_exp, {0});
                INFO("length " << length << ", " << special << " at " << at);
                const double a = static_cast<double>(actual);
                if (std::isnan(e)) CHECK(std::isnan(a));
                else if (std::isinf(e)) CHECK(a == e);
                else CHECK(a == Approx(e).epsilon(tolerance).margin(tolerance));
            }
        }
    }
}

// Short rows of log-sum-exp take one pass over a reference from their first vector, and rows that reference does not
// serve take two passes, lane by lane, within the same group of rows (reduce/short_rows.hpp, reduce_short_rows): a row's
// value must be the same bits whatever rows lie beside it and wherever it falls in its group (as pieces of the
// outputs cut the rows on an executor). Rows of [n, length], about a third with heads far below the rest (not
// served), against the same rows moved three rows down, and with every other row replaced by a far-headed one;
// and the accuracy of both kinds of rows.
TEMPLATE_TEST_CASE("reduce: log-sum-exp of a short row does not depend on the rows beside it", "", float, float16, double) {
    using T = TestType;
    test_rng rng(std::string("reduce lse neighbours ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    const double tolerance = std::is_same_v<T, float16> ? 4e-3 : 1e-5;
    const double far = std::is_same_v<T, float16> ? 40.0 : 200.0;
    for (const std::size_t length : {std::size_t{7}, std::size_t{16}, std::size_t{17}, std::size_t{24}, std::size_t{33}, std::size_t{64},
                                     std::size_t{100}, std::size_t{128}}) {
        for (const std::size_t rows : {std::size_t{5}, std::size_t{8}, std::size_t{19}}) {
            const auto make_row = [&](T* row, bool far_head) {
                for (std::size_t j = 0; j < length; ++j)
                    row[j] = static_cast<T>(rng.uniform_real(-2.0, 2.0) - (far_head && j < length / 2 ? far : 0.0));
            };
            std::vector<T> values(rows * length);
            for (std::size_t i = 0; i < rows; ++i) make_row(values.data() + i * length, rng.uniform(0, 2) == 0);
            const auto reduce_rows = [&](const std::vector<T>& x) {
                std::vector<T> y(rows);
                reduce(tensor_view<const T>(x.data(), {rows, length}), tensor_view<T>(y.data(), {rows, 1}), reduce_function::log_sum_exp, {1});
                return y;
            };
            const auto together = reduce_rows(values);
            std::vector<T> moved(values.size()), mixed(values);
            for (std::size_t i = 0; i < rows; ++i) std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(i * length), length, moved.begin() + static_cast<std::ptrdiff_t>((i + 3) % rows * length));
            for (std::size_t i = 0; i < rows; i += 2) make_row(mixed.data() + i * length, true);
            const auto moved_values = reduce_rows(moved), mixed_values = reduce_rows(mixed);
            const auto expected = ref::reduce(ref::dense<T>({rows, length}, values), {1}, ref::reduce_operation::log_sum_exp);
            for (std::size_t i = 0; i < rows; ++i) {
                INFO("length " << length << ", row " << i << " of " << rows);
                CHECK(tensorops_test::same_bits(moved_values[(i + 3) % rows], together[i]));
                if (i % 2 == 1) CHECK(tensorops_test::same_bits(mixed_values[i], together[i]));
                const double e = static_cast<double>(expected.values[i]);
                CHECK(static_cast<double>(together[i]) == Approx(e).epsilon(tolerance).margin(tolerance));
            }
        }
    }
}

TEMPLATE_TEST_CASE("reduce: log-sum-exp and floating products of runs longer than one fixed block", "", float, double) {
    using T = TestType;
    test_rng rng(std::string("reduce long runs ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    const T inf = std::numeric_limits<T>::infinity();
    // These functions compute a contiguous run in fixed blocks of 64 Ki elements (ops/detail/fixed_blocks.hpp), each from
    // scratch, folded in order: one line of three blocks and a tail, and [3, 140001] rows (padded: several runs)
    // reduced over everything.
    const std::size_t length = 3 * 65536 + 4099, rows = 3, width = 140001, pitch = 140013;
    const auto check_against_reference = [&](const std::vector<T>& values, reduce_function function, double tolerance) {
        const auto expected = ref::reduce(ref::dense<T>({length}, values), {0}, to_reference(function)).values[0];
        T actual{};
        reduce(tensor_view<const T>(values.data(), {length}), tensor_view<T>(&actual, {1}), function, {0});
        const double e = static_cast<double>(expected), a = static_cast<double>(actual);
        if (std::isnan(e)) CHECK(std::isnan(a));
        else if (std::isinf(e) || e == 0) CHECK(a == e);
        else CHECK(a == Approx(e).epsilon(tolerance));
    };
    std::vector<T> line(length);
    // Log-sum-exp: the first block all −inf, values far below the maximum, the maximum in the last block.
    for (std::size_t i = 0; i < length; ++i) line[i] = i < 65536 ? -inf : static_cast<T>(rng.uniform_real(-60.0, 20.0));
    line[length - 10] = T(45);
    check_against_reference(line, reduce_function::log_sum_exp, 1e-6);
    line[70000] = inf;  // +inf in the second block
    check_against_reference(line, reduce_function::log_sum_exp, 0);
    line[150000] = std::numeric_limits<T>::quiet_NaN();
    check_against_reference(line, reduce_function::log_sum_exp, 0);
    std::fill(line.begin(), line.end(), -inf);
    check_against_reference(line, reduce_function::log_sum_exp, 0);
    // Products: values near 1 (the error grows like √n·ε), then values in [0, 1), whose product underflows to 0.
    for (auto& v : line) v = static_cast<T>(1.0 + rng.uniform_real(-1e-3, 1e-3));
    check_against_reference(line, reduce_function::multiply, 1e-4);
    // A run computes the same bits alone (one output) as in a row of [2, length] reduced over axis 1. (For
    // log-sum-exp, a maximum of 0 in the last block and the rest around −1 − ln(length): Σ e^x ≈ 1.4, so the
    // result, ln of it, keeps in its last bits how the blocks were merged — a larger one would round them away.)
    for (auto function : {reduce_function::log_sum_exp, reduce_function::multiply}) {
        INFO("function " << static_cast<int>(function));
        std::vector<T> run(line);
        if (function == reduce_function::log_sum_exp) {
            for (auto& v : run) v = static_cast<T>(-1.0 - std::log(static_cast<double>(length)) + rng.uniform_real(-1.0, 1.0));
            run[length - 100] = T(0);
        }
        std::vector<T> two_rows(run);
        for (std::size_t i = 0; i < length; ++i) two_rows.push_back(static_cast<T>(rng.uniform_real(-1.0, 1.0)));
        T alone{}, per_row[2]{};
        reduce(tensor_view<const T>(run.data(), {length}), tensor_view<T>(&alone, {1}), function, {0});
        reduce(tensor_view<const T>(two_rows.data(), {2, length}), tensor_view<T>(per_row, {2, 1}), function, {1});
        CHECK(tensorops_test::same_bits(alone, per_row[0]));
    }
    for (auto& v : line) v = static_cast<T>(rng.uniform_real(0.0, 1.0));
    check_against_reference(line, reduce_function::multiply, 0);
    // Several long runs: padded rows reduced over both axes.
    std::vector<T> padded(rows * pitch, std::numeric_limits<T>::quiet_NaN()), packed(rows * width);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < width; ++j)
            padded[i * pitch + j] = packed[i * width + j] = static_cast<T>(1.0 + rng.uniform_real(-1e-3, 1e-3));
    for (auto function : {reduce_function::log_sum_exp, reduce_function::multiply}) {
        INFO("function " << static_cast<int>(function));
        const auto expected = ref::reduce(ref::dense<T>({rows, width}, packed), {0, 1}, to_reference(function)).values[0];
        T actual{};
        reduce(tensor_view<const T>(padded.data(), {rows, width}, {static_cast<std::ptrdiff_t>(pitch), 1}), tensor_view<T>(&actual, {1, 1}),
               function, {0, 1});
        CHECK(static_cast<double>(actual) == Approx(static_cast<double>(expected)).epsilon(1e-4));
    }
}

TEST_CASE("reduce: empty groups give SEMANTICS.md §5's values; ARGMAX of an empty group is an error") {
    std::vector<float> out(3, 7.0f);
    const tensor_view<const float> empty(nullptr, {3, 0});
    const tensor_view<float> y(out.data(), {3, 1});
    const std::pair<reduce_function, float> expected[] = {
        {reduce_function::sum, 0.0f}, {reduce_function::l1, 0.0f}, {reduce_function::l2, 0.0f}, {reduce_function::sum_square, 0.0f},
        {reduce_function::multiply, 1.0f}, {reduce_function::max, -std::numeric_limits<float>::infinity()},
        {reduce_function::min, std::numeric_limits<float>::infinity()}, {reduce_function::log_sum, -std::numeric_limits<float>::infinity()},
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
    // No axes: every element its own group, so the output must have the input's sizes.
    expect_error([&] { reduce(input, tensor_view<float>(b.data(), {2, 1, 4}), sum, std::span<const std::size_t>{}); }, "output");
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

TEST_CASE("reduce: views whose bytes overflow the address arithmetic are refused before anything is written") {
    // Offsets that differ as elements but wrap as bytes (2^62 floats = 2^64 bytes, 2^60 int64 = 2^63 bytes): such
    // views cannot be made, so reduce, argmax and argmin never receive one, as input or as output.
    const std::vector<float> x{1, 2, 3, 4};
    std::vector<float> y{7, 7};
    std::vector<std::int64_t> indices{7, 7};
    constexpr std::ptrdiff_t two_62 = std::ptrdiff_t{1} << 62, two_60 = std::ptrdiff_t{1} << 60;
    const tensor_view<const float> input(x.data(), {2, 2});
    tensorops_test::expect_error([&] { reduce(tensor_view<const float>(x.data(), {2, 2}, {two_62, 1}), tensor_view<float>(y.data(), {1, 2}), reduce_function::sum, {0}); },
                                 "tensor_view", "strides");
    tensorops_test::expect_error([&] { reduce(sequential, input, tensor_view<float>(y.data(), {1, 2}, {1, two_62}), reduce_function::max, {0}); },
                                 "tensor_view", "strides");
    tensorops_test::expect_error([&] { argmax(input, tensor_view<std::int64_t>(indices.data(), {2, 1}, {two_60, 1}), {1}); }, "tensor_view", "strides");
    tensorops_test::expect_error([&] { argmin(tensor_view<const float>(x.data() + 3, {2, 2}, {-two_62, -1}), tensor_view<std::int64_t>(indices.data(), {2, 1}), {1}); },
                                 "tensor_view", "strides");
    CHECK(y == std::vector<float>{7, 7});
    CHECK(indices == std::vector<std::int64_t>{7, 7});
}

TEST_CASE("reduce: a function or direction outside its enumeration is an error, with or without an executor") {
    const std::vector<float> x{1, 2, 3, 4};
    std::vector<float> y{7, 7};
    std::vector<std::int64_t> indices{7, 7};
    const tensor_view<const float> input(x.data(), {2, 2});
    const tensor_view<float> output(y.data(), {2, 1});
    const tensor_view<std::int64_t> index_output(indices.data(), {2, 1});
    tensorops::thread_pool pool(2, 1);
    for (int value : {12, 255, -1}) {
        INFO("function " << value);
        const auto function = static_cast<reduce_function>(value);
        const auto rule = tensorops_test::expect_error([&] { reduce(input, output, function, {1}); }, "reduce", "function");
        CHECK(rule.find(std::to_string(value)) != std::string::npos);
        tensorops_test::expect_error([&] { reduce(pool, input, output, function, {1}); }, "reduce", "function");
        // Named as the function's fault whatever the output's element type.
        tensorops_test::expect_error([&] { reduce(input, index_output, function, {1}); }, "reduce", "function");
        tensorops_test::expect_error([&] { reduce(sequential, input, index_output, function, {1}); }, "reduce", "function");
    }
    for (int value : {2, -1, 255}) {
        INFO("direction " << value);
        const auto direction = static_cast<axis_direction>(value);
        const auto rule = tensorops_test::expect_error([&] { argmax(input, index_output, {1}, direction); }, "argmax", "direction");
        CHECK(rule.find(std::to_string(value)) != std::string::npos);
        tensorops_test::expect_error([&] { argmax(pool, input, index_output, {1}, direction); }, "argmax", "direction");
        tensorops_test::expect_error([&] { argmin(input, index_output, {1}, direction); }, "argmin", "direction");
        tensorops_test::expect_error([&] { argmin(sequential, input, index_output, {1}, direction); }, "argmin", "direction");
    }
    CHECK(y == std::vector<float>{7, 7});
    CHECK(indices == std::vector<std::int64_t>{7, 7});
}
