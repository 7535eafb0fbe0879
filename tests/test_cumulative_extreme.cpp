// cumulative_max / cumulative_min (with and without indices) and cumulative_log_sum_exp (ops/cumulative_extreme.hpp):
// hand-computed cases of every rule (ties, NaN, zeros, identities, directions, torch.cummax's example beside ours),
// random shapes, layouts, axes, directions and types against tests/reference.hpp, lines around the vector width and
// past a block, in place, a user-defined type, every error rule, and the same bits on 1, 2, 3 and 7 threads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "reference.hpp"
#include "support.hpp"

using namespace tensorops;
using tensorops_test::guarded_buffer;
using tensorops_test::test_rng;
namespace ref = tensorops_test::reference;

namespace extreme_scan_tests {

/// A user type with an order and the identities of max and min (element_identity), no numeric_limits.
struct grade {
    int value = 0;
    friend bool operator<(grade a, grade b) { return a.value < b.value; }
};

}  // namespace extreme_scan_tests

template <>
struct tensorops::element_identity<extreme_scan_tests::grade> {
    static constexpr extreme_scan_tests::grade max_identity() { return {-1000}; }
    static constexpr extreme_scan_tests::grade min_identity() { return {1000}; }
};

namespace extreme_scan_tests {

constexpr float inf = std::numeric_limits<float>::infinity();

/// A quiet float NaN with payload `payload`: which NaN propagates is part of the contract.
float nan_with(std::uint32_t payload) {
    const std::uint32_t bits = 0x7FC00000u | payload;
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

template <class T>
bool same(const T& a, const T& b) { return tensorops_test::same_bits(a, b); }

template <class T>
bool same_values(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const T& x, const T& y) { return same(x, y); });
}

struct scan_case {
    std::vector<std::size_t> sizes;
    std::vector<float> input;
    scan_options options;
};

/// cumulative_max (Maximum) or cumulative_min of a packed float tensor: the values of the overload without indices
/// (checked equal, bit for bit, to those of the overload with them) and the int64 indices.
template <bool Maximum>
std::pair<std::vector<float>, std::vector<std::int64_t>> extreme_of(const scan_case& c) {
    std::vector<float> plain(c.input.size(), -7.0f), values(c.input.size(), -7.0f);
    std::vector<std::int64_t> indices(c.input.size(), -7);
    const tensor_view<const float> x(c.input.data(), c.sizes);
    if constexpr (Maximum) {
        cumulative_max(x, tensor_view<float>(plain.data(), c.sizes), c.options);
        cumulative_max(x, tensor_view<float>(values.data(), c.sizes), tensor_view<std::int64_t>(indices.data(), c.sizes), c.options);
    } else {
        cumulative_min(x, tensor_view<float>(plain.data(), c.sizes), c.options);
        cumulative_min(x, tensor_view<float>(values.data(), c.sizes), tensor_view<std::int64_t>(indices.data(), c.sizes), c.options);
    }
    CHECK(same_values(plain, values));
    return {values, indices};
}

/// The random input of a test case: values of T, with NaN, infinities, zeros of both signs and repeated values now and
/// then (floating types), so that ties and NaN meet every kernel.
template <class T>
T random_element(test_rng& rng, bool lse) {
    if constexpr (ref::is_floating<T>) {
        const double u = rng.uniform_real(0.0, 1.0);
        if (u < 0.01) return std::numeric_limits<T>::quiet_NaN();
        if (u < 0.02) return static_cast<T>(rng.chance(0.5) ? -inf : inf);
        if (u < 0.05) return static_cast<T>(rng.chance(0.5) ? -0.0f : 0.0f);
        if (u < 0.15) return static_cast<T>(static_cast<float>(rng.uniform<int>(-3, 3)));  // ties
        if (lse && u < 0.25) return static_cast<T>(rng.uniform_real(-200.0, 200.0));      // the vector step's reach
        return tensorops_test::random_value<T>(rng);
    } else {
        if (rng.chance(0.2)) return tensorops_test::random_value<T>(rng, true);  // ties
        return tensorops_test::random_value<T>(rng);
    }
}

/// The first position where `actual` differs from the reference (values: x at the reference index, or the identity;
/// indices: the reference index, or the position's own coordinate), or the element count.
template <class T, class I>
std::size_t first_extreme_mismatch(const std::vector<T>& x, const std::vector<T>& values, const std::vector<I>* indices,
                                   const ref::dense<std::int64_t>& expected, const std::vector<std::size_t>& sizes, std::size_t axis, T identity) {
    std::size_t position = 0, mismatch = x.size();
    ref::for_each_index(sizes, [&](const std::vector<std::size_t>& index) {
        const std::int64_t best = expected[index];
        std::vector<std::size_t> at = index;
        if (best >= 0) at[axis] = static_cast<std::size_t>(best);
        const T value = best >= 0 ? x[expected.flat(at)] : identity;
        const auto coordinate = static_cast<std::int64_t>(at[axis]);
        const bool good = same(values[position], value) && (indices == nullptr || static_cast<std::int64_t>((*indices)[position]) == coordinate);
        if (!good && mismatch == x.size()) mismatch = position;
        ++position;
    });
    return mismatch;
}

template <class T, class I>
void check_random_extreme(test_rng& rng, bool maximum, bool with_indices, std::size_t max_elements) {
    const std::size_t rank = rng.uniform<std::size_t>(1, 5);
    const auto sizes = tensorops_test::random_sizes(rng, rank, max_elements);
    const scan_options options{rng.uniform<std::size_t>(0, rank - 1), rng.chance(0.5) ? axis_direction::increasing : axis_direction::decreasing,
                               rng.chance(0.5)};
    const auto in_kind = tensorops_test::input_layout_kinds[rng.uniform<std::size_t>(0, 5)];
    const auto out_kind = tensorops_test::output_layout_kinds[rng.uniform<std::size_t>(0, 4)];
    const bool in_place = in_kind != tensorops_test::layout_kind::broadcast && rng.chance(0.25);
    guarded_buffer<T> input(sizes, tensorops_test::random_strides(rng, sizes, in_kind), rng.uniform<std::size_t>(0, 7));
    guarded_buffer<T> output(sizes, tensorops_test::random_strides(rng, sizes, out_kind), rng.uniform<std::size_t>(0, 7));
    guarded_buffer<I> indices(sizes, tensorops_test::random_strides(rng, sizes, out_kind), rng.uniform<std::size_t>(0, 7));
    std::vector<T> values(ref::dense<int>::element_count(sizes));
    for (auto& v : values) v = random_element<T>(rng, false);
    input.assign(values);
    const auto x = input.values();
    INFO((maximum ? "max" : "min") << (with_indices ? " with indices" : "") << ", input " << tensorops_test::describe_layout(sizes, input.strides())
                                   << (in_place ? " in place" : ", output " + tensorops_test::describe_layout(sizes, output.strides())) << ", axis "
                                   << options.axis << (options.direction == axis_direction::decreasing ? " decreasing" : " increasing")
                                   << (options.exclusive ? " exclusive" : " inclusive"));
    auto& target = in_place ? input : output;
    const tensor_view<const T> in = input.const_view();
    if (with_indices) {
        if (maximum) cumulative_max(in, target.view(), indices.view(), options);
        else cumulative_min(in, target.view(), indices.view(), options);
    } else {
        if (maximum) cumulative_max(in, target.view(), options);
        else cumulative_min(in, target.view(), options);
    }
    REQUIRE(target.untouched_outside_view());
    REQUIRE(indices.untouched_outside_view());
    if (!in_place) CHECK(same_values(input.values(), x));
    using A = accumulator_t<T, accumulation::ordering>;
    const auto identity = static_cast<T>(maximum ? element_identity<A>::max_identity() : element_identity<A>::min_identity());
    const auto expected = ref::cumulative_extreme_index(ref::dense<T>(sizes, x), options.axis, options.direction == axis_direction::decreasing,
                                                        options.exclusive, maximum);
    const auto got_indices = indices.values();
    const std::size_t mismatch = first_extreme_mismatch(x, target.values(), with_indices ? &got_indices : nullptr, expected, sizes, options.axis, identity);
    CHECK(mismatch == x.size());
}

using index_types = std::tuple<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;

/// Runs `operation(executor, view)` on one thread and on pools of 2, 3 and 7 threads (and a recording executor, pieces
/// in reverse) into fresh guarded outputs: every result must be the sequential one's bits.
template <class U, class Operation>
void check_same_on_threads(const std::vector<std::size_t>& sizes, const std::vector<std::ptrdiff_t>& strides, const Operation& operation) {
    guarded_buffer<U> expected(sizes, strides);
    operation(sequential, expected.view());
    const auto want = expected.values();
    for (const std::size_t threads : {1, 2, 3, 7}) {
        INFO("threads: " << threads);
        thread_pool pool(threads, 4 << 10);
        guarded_buffer<U> actual(sizes, strides);
        operation(pool, actual.view());
        CHECK(same_values(actual.values(), want));
        CHECK(actual.untouched_outside_view());
    }
}

TEST_CASE("cumulative_max/min: ties keep the first met, torch.cummax's example beside ours, both directions, exclusive") {
    const std::vector<float> x{2, 1, 3, 3, 0, 5, 5};
    // torch.cummax(tensor([2, 1, 3, 3, 0, 5, 5]), 0) gives values [2, 2, 3, 3, 3, 5, 5] and indices [0, 0, 3, 3, 3, 6, 6]
    // (a later equal value takes the index); here the first stays, as argmax's increasing direction: [0, 0, 2, 2, 2, 5, 5].
    auto [values, indices] = extreme_of<true>({{7}, x, {}});
    CHECK(values == std::vector<float>{2, 2, 3, 3, 3, 5, 5});
    CHECK(indices == std::vector<std::int64_t>{0, 0, 2, 2, 2, 5, 5});
    // Decreasing: y[i] covers x[i..6], met from the end; the first met is the last coordinate (argmax's decreasing).
    std::tie(values, indices) = extreme_of<true>({{7}, x, {.direction = axis_direction::decreasing}});
    CHECK(values == std::vector<float>{5, 5, 5, 5, 5, 5, 5});
    CHECK(indices == std::vector<std::int64_t>{6, 6, 6, 6, 6, 6, 6});
    std::tie(values, indices) = extreme_of<false>({{7}, x, {.direction = axis_direction::decreasing}});
    CHECK(values == std::vector<float>{0, 0, 0, 0, 0, 5, 5});
    CHECK(indices == std::vector<std::int64_t>{4, 4, 4, 4, 4, 6, 6});
    // Exclusive: the identity first, with its own coordinate; then the inclusive result one position earlier.
    std::tie(values, indices) = extreme_of<true>({{7}, x, {.exclusive = true}});
    CHECK(values == std::vector<float>{-inf, 2, 2, 3, 3, 3, 5});
    CHECK(indices == std::vector<std::int64_t>{0, 0, 0, 2, 2, 2, 5});
    std::tie(values, indices) = extreme_of<false>({{7}, x, {.direction = axis_direction::decreasing, .exclusive = true}});
    CHECK(values == std::vector<float>{0, 0, 0, 0, 5, 5, inf});
    CHECK(indices == std::vector<std::int64_t>{4, 4, 4, 4, 6, 6, 6});
    // An element equal to the identity: the exclusive index still names it once it is covered.
    std::tie(values, indices) = extreme_of<true>({{3}, {-inf, -inf, 1}, {.exclusive = true}});
    CHECK(values == std::vector<float>{-inf, -inf, -inf});
    CHECK(indices == std::vector<std::int64_t>{0, 0, 0});
    // DirectML's page tensor along both axes.
    const std::vector<float> page{2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4};
    std::tie(values, indices) = extreme_of<true>({{3, 4}, page, {.axis = 1}});
    CHECK(values == std::vector<float>{2, 2, 3, 5, 3, 8, 8, 8, 9, 9, 9, 9});
    CHECK(indices == std::vector<std::int64_t>{0, 0, 2, 3, 0, 1, 1, 1, 0, 0, 0, 0});
    std::tie(values, indices) = extreme_of<false>({{3, 4}, page, {.axis = 0, .direction = axis_direction::decreasing}});
    CHECK(values == std::vector<float>{2, 1, 2, 3, 3, 6, 2, 3, 9, 6, 2, 4});
    CHECK(indices == std::vector<std::int64_t>{0, 0, 2, 1, 1, 2, 2, 1, 2, 2, 2, 2});
}

TEST_CASE("cumulative_max/min: the first NaN met propagates with its index; zeros of either sign are equal") {
    const float a = nan_with(1), b = nan_with(2);
    auto [values, indices] = extreme_of<true>({{5}, {1, a, 5, b, 9}, {}});
    CHECK(same_values(values, {1, a, a, a, a}));
    CHECK(indices == std::vector<std::int64_t>{0, 1, 1, 1, 1});
    std::tie(values, indices) = extreme_of<false>({{5}, {1, a, 5, b, 9}, {.direction = axis_direction::decreasing}});
    CHECK(same_values(values, {b, b, b, b, 9}));
    CHECK(indices == std::vector<std::int64_t>{3, 3, 3, 3, 4});
    std::tie(values, indices) = extreme_of<true>({{4}, {-0.0f, 0.0f, -0.0f, 0.0f}, {}});
    CHECK(same_values(values, {-0.0f, -0.0f, -0.0f, -0.0f}));
    CHECK(indices == std::vector<std::int64_t>{0, 0, 0, 0});
    std::tie(values, indices) = extreme_of<false>({{3}, {0.0f, -0.0f, 0.0f}, {.direction = axis_direction::decreasing}});
    CHECK(same_values(values, {0.0f, 0.0f, 0.0f}));
    CHECK(indices == std::vector<std::int64_t>{2, 2, 2});
    // A NaN in every lane position of a long line, behind ties and zeros: each kernel (contiguous, across rows) keeps it.
    for (std::size_t at = 0; at < 40; ++at) {
        std::vector<float> line(40, 0.0f);
        for (std::size_t i = 0; i < line.size(); ++i) line[i] = i % 3 == 0 ? -0.0f : static_cast<float>(i % 5);
        line[at] = a;
        if (at + 7 < line.size()) line[at + 7] = b;
        std::tie(values, indices) = extreme_of<true>({{40}, line, {}});
        CHECK(same(values[39], a));
        CHECK(indices[39] == static_cast<std::int64_t>(at));
        std::tie(values, indices) = extreme_of<true>({{40, 1}, line, {.axis = 0}});  // one column
        CHECK(same(values[39], a));
        std::vector<float> rows(40 * 9);
        for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = line[i / 9];
        std::tie(values, indices) = extreme_of<false>({{40, 9}, rows, {.axis = 0}});  // across rows
        CHECK(same(values.back(), a));
        CHECK(indices.back() == static_cast<std::int64_t>(at));
    }
}

TEST_CASE("cumulative_max/min: integer identities, and a user type through the generic path") {
    std::int8_t x[3] = {5, -3, 7}, y[3];
    std::uint16_t ux[3] = {5, 3, 7}, uy[3];
    cumulative_max(tensor_view<const std::int8_t>(x, {3}), tensor_view<std::int8_t>(y, {3}), {.exclusive = true});
    CHECK((y[0] == -128 && y[1] == 5 && y[2] == 5));
    cumulative_min(tensor_view<const std::int8_t>(x, {3}), tensor_view<std::int8_t>(y, {3}), {.exclusive = true});
    CHECK((y[0] == 127 && y[1] == 5 && y[2] == -3));
    cumulative_max(tensor_view<const std::uint16_t>(ux, {3}), tensor_view<std::uint16_t>(uy, {3}), {.exclusive = true});
    CHECK((uy[0] == 0 && uy[1] == 5 && uy[2] == 5));
    cumulative_min(tensor_view<const std::uint16_t>(ux, {3}), tensor_view<std::uint16_t>(uy, {3}), {.exclusive = true});
    CHECK((uy[0] == 65535 && uy[1] == 5 && uy[2] == 3));
    grade g[5] = {{3}, {1}, {3}, {4}, {2}}, out[5];
    std::uint32_t where[5];
    cumulative_max(tensor_view<const grade>(g, {5}), tensor_view<grade>(out, {5}), tensor_view<std::uint32_t>(where, {5}), {});
    CHECK((out[0].value == 3 && out[1].value == 3 && out[2].value == 3 && out[3].value == 4 && out[4].value == 4));
    CHECK((where[0] == 0 && where[1] == 0 && where[2] == 0 && where[3] == 3 && where[4] == 3));
    cumulative_min(tensor_view<const grade>(g, {5}), tensor_view<grade>(out, {5}), tensor_view<std::uint32_t>(where, {5}),
                   {.direction = axis_direction::decreasing, .exclusive = true});
    CHECK((out[4].value == 1000 && out[3].value == 2 && out[2].value == 2 && out[1].value == 2 && out[0].value == 1));
    CHECK((where[4] == 4 && where[3] == 4 && where[2] == 4 && where[1] == 4 && where[0] == 1));
}

TEMPLATE_LIST_TEST_CASE("cumulative_max/min: random shapes, layouts, axes, directions, in place, against the reference", "", tensorops_test::random_test_types) {
    using T = TestType;
    test_rng rng(std::string("cumulative extreme ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    const int trials = tensorops_test::sanitized_build ? 16 : 48;
    for (int trial = 0; trial < trials; ++trial) {
        const bool maximum = trial % 2 == 0, with_indices = trial % 4 >= 2;
        switch (trial % 8 / 2) {  // each index type, with and without indices
            case 0: check_random_extreme<T, std::int32_t>(rng, maximum, with_indices, 600); break;
            case 1: check_random_extreme<T, std::int64_t>(rng, maximum, with_indices, 600); break;
            case 2: check_random_extreme<T, std::uint32_t>(rng, maximum, with_indices, 600); break;
            default: check_random_extreme<T, std::uint64_t>(rng, maximum, with_indices, 600); break;
        }
    }
}

TEMPLATE_LIST_TEST_CASE("cumulative_max/min: lines around the vector width, lines past a block, rows past a band", "", tensorops_test::floating_types) {
    using T = TestType;
    test_rng rng(std::string("cumulative extreme long ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    const std::size_t K = tensorops::detail::line_scan_block<T>, W = tensorops::simd::lanes<T>;
    const std::size_t m = 2 * W + 3, band = tensorops::detail::band_rows(m, sizeof(T));
    std::vector<std::vector<std::size_t>> shapes;
    for (std::size_t n = 1; n <= 4 * W + 3; ++n) shapes.push_back({n});
    shapes.push_back({2 * K + K / 3});
    shapes.push_back({2 * band + 5, m});
    std::size_t number = 0;
    for (const auto& sizes : shapes) {
        ++number;
        const bool large = sizes.size() > 1 || sizes[0] > K;
        if (large && !tensorops_test::runs_in_this_build(number, 2)) continue;
        for (int variant = 0; variant < 8; ++variant) {
            if (large && variant % 3 != 0) continue;
            const scan_options options{0, variant % 2 ? axis_direction::decreasing : axis_direction::increasing, variant % 4 >= 2};
            const bool maximum = variant < 4;
            guarded_buffer<T> input(sizes, tensorops_test::random_strides(rng, sizes, tensorops_test::layout_kind::packed), variant % 3);
            std::vector<T> x(ref::dense<int>::element_count(sizes));
            for (auto& v : x) v = random_element<T>(rng, false);
            if (large) for (std::size_t i = 0; i < x.size(); i += 1 + x.size() / 7) x[i] = static_cast<T>(5.0f);  // ties across blocks
            input.assign(x);
            guarded_buffer<T> values(sizes, tensorops_test::random_strides(rng, sizes, tensorops_test::layout_kind::packed), variant % 5);
            guarded_buffer<std::int64_t> indices(sizes, tensorops_test::random_strides(rng, sizes, tensorops_test::layout_kind::packed));
            INFO("sizes " << tensorops_test::describe_layout(sizes, input.strides()) << ", variant " << variant);
            if (maximum) cumulative_max(input.const_view(), values.view(), indices.view(), options);
            else cumulative_min(input.const_view(), values.view(), indices.view(), options);
            const auto expected = ref::cumulative_extreme_index(ref::dense<T>(sizes, x), 0, variant % 2 == 1, options.exclusive, maximum);
            using A = accumulator_t<T, accumulation::ordering>;
            const auto identity = static_cast<T>(maximum ? element_identity<A>::max_identity() : element_identity<A>::min_identity());
            const auto got = indices.values();
            CHECK(first_extreme_mismatch(x, values.values(), &got, expected, sizes, 0, identity) == x.size());
            CHECK(values.untouched_outside_view());
            CHECK(indices.untouched_outside_view());
        }
    }
}

TEMPLATE_TEST_CASE("cumulative_max/min: records planted at every lane over plateaus (vectors no lane of which beats the running value)", "",
                   double, float, float16, std::int8_t, std::int64_t) {
    using T = TestType;
    using A = accumulator_t<T, accumulation::ordering>;
    const std::size_t W = tensorops::simd::lanes<T>, L = 6 * W + 5;
    // Lines (axis 1) and rows (axis 0): records moving through every lane from line to line, ties and lower values between.
    for (const std::size_t axis : {std::size_t{1}, std::size_t{0}}) {
        const std::vector<std::size_t> sizes = axis == 1 ? std::vector<std::size_t>{W + 2, L} : std::vector<std::size_t>{L, 2 * W + 3};
        const std::size_t lines = sizes[1 - axis];
        for (int variant = 0; variant < 8; ++variant) {
            const bool maximum = variant % 2 == 0;
            const scan_options options{axis, variant % 4 >= 2 ? axis_direction::decreasing : axis_direction::increasing, variant >= 4};
            std::vector<T> x(L * lines);
            for (std::size_t line = 0; line < lines; ++line) {
                int level = 1;
                for (std::size_t t = 0; t < L; ++t) {
                    const std::size_t at = axis == 1 ? line * L + t : t * lines + line;
                    const std::size_t planted = options.direction == axis_direction::decreasing ? L - 1 - t : t;  // traversal position
                    if ((planted + line) % (W + 1) == 0 && level < 100) ++level;  // a record
                    const int value = (planted + line) % 3 == 1 ? level - 1 : level;  // below the running value, or a tie
                    x[at] = static_cast<T>(maximum ? value : -value);
                }
            }
            const std::vector<std::ptrdiff_t> packed{static_cast<std::ptrdiff_t>(sizes[1]), 1};
            guarded_buffer<T> input(sizes, packed), values(sizes, packed);
            input.assign(x);
            guarded_buffer<std::int32_t> narrow(sizes, packed);
            guarded_buffer<std::int64_t> wide(sizes, packed);
            INFO("axis " << axis << ", variant " << variant);
            const auto expected = ref::cumulative_extreme_index(ref::dense<T>(sizes, x), axis, options.direction == axis_direction::decreasing,
                                                                options.exclusive, maximum);
            const auto identity = static_cast<T>(maximum ? element_identity<A>::max_identity() : element_identity<A>::min_identity());
            const auto matches = [&](auto& indices) {  // both index types: their vectors hold other numbers of lanes
                if (maximum) cumulative_max(input.const_view(), values.view(), indices.view(), options);
                else cumulative_min(input.const_view(), values.view(), indices.view(), options);
                const auto got = indices.values();
                return first_extreme_mismatch(x, values.values(), &got, expected, sizes, axis, identity) == x.size();
            };
            CHECK(matches(narrow));
            CHECK(matches(wide));
        }
    }
}

TEST_CASE("cumulative_log_sum_exp: simd::log_of_normal within 2 ulp of ln over the normal floats") {
    constexpr std::size_t W = tensorops::simd::lanes<float>;
    double worst = 0, worst_at = 0;
    for (std::uint64_t bits = 0x00800000u; bits < 0x7F800000u; bits += 4099 * W) {  // every exponent, spread mantissas
        std::array<float, W> x{}, y{};
        for (std::size_t k = 0; k < W; ++k) x[k] = std::bit_cast<float>(static_cast<std::uint32_t>(bits + 577 * k));
        tensorops::simd::store(y.data(), tensorops::simd::log_of_normal(tensorops::simd::load(x.data())));
        for (std::size_t k = 0; k < W; ++k) {
            const long double exact = std::log(static_cast<long double>(x[k]));
            const auto rounded = static_cast<float>(exact);
            const double ulp = static_cast<double>(std::nextafter(std::fabs(rounded), inf) - std::fabs(rounded));
            const double error = static_cast<double>(std::fabs(static_cast<long double>(y[k]) - exact)) / ulp;
            if (error > worst) worst = error, worst_at = x[k];
        }
    }
    INFO("worst at " << worst_at);
    CHECK(worst <= 2.0);
}

TEST_CASE("cumulative_log_sum_exp: worked cases, infinities, NaN, no overflow") {
    const auto run = [](std::vector<float> x, scan_options options = {}) {
        std::vector<float> y(x.size(), -7.0f);
        cumulative_log_sum_exp(tensor_view<const float>(x.data(), {x.size()}), tensor_view<float>(y.data(), {x.size()}), options);
        return y;
    };
    const float ln2 = std::log(2.0f), ln3 = std::log(3.0f);
    auto y = run({0, 0, 0});
    CHECK(y[0] == 0.0f);
    CHECK(y[1] == Approx(ln2).epsilon(1e-6));
    CHECK(y[2] == Approx(ln3).epsilon(1e-6));
    y = run({0, 0, 0}, {.exclusive = true});
    CHECK(y[0] == -inf);
    CHECK(y[1] == 0.0f);
    CHECK(y[2] == Approx(ln2).epsilon(1e-6));
    y = run({1, 2, 3}, {.direction = axis_direction::decreasing});
    CHECK(y[2] == 3.0f);
    CHECK(y[1] == Approx(3 + std::log1p(std::exp(-1.0f))).epsilon(1e-6));
    y = run({-inf, -inf, 1, -inf});
    CHECK((y[0] == -inf && y[1] == -inf && y[2] == 1.0f && y[3] == 1.0f));
    y = run({1, inf, 2, -inf});
    CHECK((y[0] == 1.0f && y[1] == inf && y[2] == inf && y[3] == inf));
    y = run({1, std::numeric_limits<float>::quiet_NaN(), inf, 2});
    CHECK((y[0] == 1.0f && std::isnan(y[1]) && std::isnan(y[2]) && std::isnan(y[3])));
    y = run({1e30f, 1e30f, 3e38f, 3e38f});  // e^x overflows float for every one of them; the result never does
    CHECK(y[1] == Approx(1e30f).epsilon(1e-6));
    CHECK(y[3] == Approx(3e38f).epsilon(1e-6));
    CHECK(std::isfinite(y[3]));
}

TEMPLATE_LIST_TEST_CASE("cumulative_log_sum_exp: random shapes, layouts, lines long and short, against the reference", "", tensorops_test::floating_types_with_bfloat16) {
    using T = TestType;
    using C = simd::compute_t<T>;
    test_rng rng(std::string("cumulative log-sum-exp ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    const int trials = tensorops_test::sanitized_build ? 16 : 60;
    for (int trial = 0; trial < trials; ++trial) {
        const std::size_t rank = trial % 3 == 0 ? 1 : rng.uniform<std::size_t>(1, 4);
        const auto sizes = rank == 1 ? std::vector<std::size_t>{rng.uniform<std::size_t>(1, 3000)} : tensorops_test::random_sizes(rng, rank, 800);
        const scan_options options{rng.uniform<std::size_t>(0, rank - 1), rng.chance(0.5) ? axis_direction::increasing : axis_direction::decreasing,
                                   rng.chance(0.5)};
        const auto in_kind = trial % 2 ? tensorops_test::layout_kind::packed : tensorops_test::input_layout_kinds[rng.uniform<std::size_t>(0, 5)];
        const auto out_kind = trial % 2 ? tensorops_test::layout_kind::packed : tensorops_test::output_layout_kinds[rng.uniform<std::size_t>(0, 4)];
        const bool in_place = in_kind != tensorops_test::layout_kind::broadcast && rng.chance(0.25);
        guarded_buffer<T> input(sizes, tensorops_test::random_strides(rng, sizes, in_kind), rng.uniform<std::size_t>(0, 7));
        guarded_buffer<T> output(sizes, tensorops_test::random_strides(rng, sizes, out_kind), rng.uniform<std::size_t>(0, 7));
        std::vector<T> values(ref::dense<int>::element_count(sizes));
        const int style = trial % 4;  // 0: mixed specials, 1: plain, 2: rising (the maximum moves every element), 3: wide range
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (style == 0) values[i] = random_element<T>(rng, true);
            else if (style == 1) values[i] = tensorops_test::random_value<T>(rng);
            else if (style == 2) values[i] = static_cast<T>(static_cast<float>(i % 500) * 0.25f + static_cast<float>(rng.uniform_real(0.0, 0.1)));
            else values[i] = static_cast<T>(rng.uniform_real(-60.0, 60.0) * (rng.chance(0.1) ? 100.0 : 1.0));
        }
        input.assign(values);
        const auto x = input.values();
        INFO("style " << style << ", input " << tensorops_test::describe_layout(sizes, input.strides())
                      << (in_place ? " in place" : ", output " + tensorops_test::describe_layout(sizes, output.strides())) << ", axis "
                      << options.axis << (options.direction == axis_direction::decreasing ? " decreasing" : " increasing")
                      << (options.exclusive ? " exclusive" : " inclusive"));
        auto& target = in_place ? input : output;
        cumulative_log_sum_exp(input.const_view(), target.view(), options);
        REQUIRE(target.untouched_outside_view());
        const auto expected = ref::cumulative_log_sum_exp(ref::dense<T>(sizes, x), options.axis, options.direction == axis_direction::decreasing,
                                                          options.exclusive);
        // The error: the running sum's (its terms' and additions' roundings, at most ~length ulp of the compute type),
        // the rounding of maximum + ln(sum) near the largest element seen, and the output's rounding (float16).
        long double largest = 0;
        for (const T& v : x)
            if (std::isfinite(static_cast<double>(ref::widen(v)))) largest = std::max(largest, std::fabs(ref::widen(v)));
        const long double epsilon = std::numeric_limits<C>::epsilon(), output_epsilon = ref::widen(std::numeric_limits<T>::epsilon());
        const long double bound = epsilon * (4 * static_cast<long double>(sizes[options.axis] + 16) + 4 * (largest + 64));
        const auto got = target.values();
        std::size_t failures = 0;
        for (std::size_t i = 0; i < got.size() && failures < 5; ++i) {
            const long double g = ref::widen(got[i]), e = expected.values[i];
            const bool good = std::isnan(e) ? std::isnan(g) : (std::isinf(e) ? g == e : std::fabs(g - e) <= bound + output_epsilon * std::fabs(e));
            if (!good) {
                ++failures;
                FAIL_CHECK("element " << i << ": got " << static_cast<double>(g) << ", expected " << static_cast<double>(e) << " ± "
                                      << static_cast<double>(bound + output_epsilon * std::fabs(e)));
            }
        }
    }
}

template <class T>
concept log_sum_exp_callable = requires(tensor_view<const T> x, tensor_view<T> y) { tensorops::cumulative_log_sum_exp(x, y, scan_options{}); };
template <class T>
concept maximum_callable = requires(tensor_view<const T> x, tensor_view<T> y) { tensorops::cumulative_max(x, y, scan_options{}); };

TEST_CASE("cumulative extremes: types — log-sum-exp for floating types only, max/min for every ordered type with identities") {
    STATIC_REQUIRE(log_sum_exp_callable<float>);
    STATIC_REQUIRE(log_sum_exp_callable<double>);
    STATIC_REQUIRE(log_sum_exp_callable<float16>);
    STATIC_REQUIRE_FALSE(log_sum_exp_callable<std::int32_t>);
    STATIC_REQUIRE_FALSE(log_sum_exp_callable<std::uint8_t>);
    STATIC_REQUIRE(maximum_callable<std::uint64_t>);
    STATIC_REQUIRE(maximum_callable<grade>);
}

TEST_CASE("cumulative extremes: every broken rule throws tensorops::error before writing") {
    std::vector<float> a(24, 1.0f), b(24, 7.0f);
    std::vector<std::int64_t> where(24, 7);
    const tensor_view<const float> input(a.data(), {2, 3, 4});
    const tensor_view<float> values(b.data(), {2, 3, 4});
    const tensor_view<std::int64_t> indices(where.data(), {2, 3, 4});
    auto expect_error = [&](auto call, const std::string& operation, const std::string& argument) {
        try {
            call();
            FAIL("expected tensorops::error for '" << argument << "'");
        } catch (const tensorops::error& e) {
            CHECK(e.operator_name() == operation);
            CHECK(e.argument() == argument);
            CHECK_FALSE(e.rule().empty());
        }
        CHECK(std::all_of(b.begin(), b.end(), [](float v) { return v == 7.0f; }));  // nothing written
        CHECK(std::all_of(where.begin(), where.end(), [](std::int64_t v) { return v == 7; }));
    };
    expect_error([&] { cumulative_max(input, tensor_view<float>(b.data(), {2, 4, 3}), {}); }, "cumulative_max", "output");
    expect_error([&] { cumulative_min(input, values, {3}); }, "cumulative_min", "options.axis");
    expect_error([&] { cumulative_log_sum_exp(input, tensor_view<float>(b.data(), {2, 12}), {}); }, "cumulative_log_sum_exp", "output");
    expect_error([&] { cumulative_log_sum_exp(input, values, {.axis = 5}); }, "cumulative_log_sum_exp", "options.axis");
    expect_error([&] { cumulative_log_sum_exp(input, values, {.direction = static_cast<axis_direction>(2)}); }, "cumulative_log_sum_exp",
                 "options.direction");
    expect_error([&] { cumulative_log_sum_exp(input, tensor_view<float>(b.data(), {2, 3, 4}, {0, 4, 1}), {}); }, "cumulative_log_sum_exp", "output");
    expect_error([&] { cumulative_max(input, values, indices, {.direction = static_cast<axis_direction>(9)}); }, "cumulative_max", "options.direction");
    expect_error([&] { cumulative_max(input, tensor_view<float>(b.data(), {2, 12}), indices, {}); }, "cumulative_max", "values");
    expect_error([&] { cumulative_max(input, values, tensor_view<std::int64_t>(where.data(), {2, 12}), {}); }, "cumulative_max", "indices");
    expect_error([&] { cumulative_min(input, values, indices, {3}); }, "cumulative_min", "options.axis");
    expect_error([&] { cumulative_min(input, tensor_view<float>(b.data(), {2, 3, 4}, {4, 4, 1}), indices, {}); }, "cumulative_min", "values");
    expect_error([&] { cumulative_min(input, values, tensor_view<std::int64_t>(where.data(), {2, 3, 4}, {0, 4, 1}), {}); }, "cumulative_min", "indices");
    // Overlaps: values partly over the input; indices over the input, over the values, or over the input in place.
    std::vector<float> shared(40, 7.0f);
    const tensor_view<const float> shared_input(shared.data(), {2, 3, 4});
    CHECK_THROWS_AS(cumulative_max(shared_input, tensor_view<float>(shared.data() + 1, {2, 3, 4}), indices, {}), tensorops::error);
    CHECK_THROWS_AS(cumulative_max(shared_input, tensor_view<float>(shared.data() + 1, {2, 3, 4}), {}), tensorops::error);
    CHECK(std::all_of(shared.begin(), shared.end(), [](float v) { return v == 7.0f; }));
    std::vector<std::int32_t> words(64, 7);
    const tensor_view<const float> word_input(reinterpret_cast<const float*>(words.data()), {2, 3, 4});
    const tensor_view<float> word_values(reinterpret_cast<float*>(words.data() + 32), {2, 3, 4});
    expect_error([&] { cumulative_max(word_input, values, tensor_view<std::int32_t>(words.data() + 8, {2, 3, 4}), {}); }, "cumulative_max", "indices");
    expect_error([&] { cumulative_max(input, word_values, tensor_view<std::int32_t>(words.data() + 40, {2, 3, 4}), {}); }, "cumulative_max", "indices");
    CHECK(std::all_of(words.begin(), words.end(), [](std::int32_t v) { return v == 7; }));
    // An index type that cannot hold n − 1: an axis of 2^31 + 1 elements, in place (values over the input, walked
    // downwards from one end of a small buffer, indices upwards from its other end: disjoint address ranges). Refused
    // before anything is touched.
    alignas(8) unsigned char memory[64] = {};
    const std::size_t n = (std::size_t{1} << 31) + 1;
    const tensor_view<float> huge(reinterpret_cast<float*>(memory), {n}, {-1});
    const tensor_view<std::int32_t> huge_indices(reinterpret_cast<std::int32_t*>(memory + 32), {n});
    expect_error([&] { cumulative_max(tensor_view<const float>(huge), huge, huge_indices, {}); }, "cumulative_max", "indices");
    CHECK(std::all_of(std::begin(memory), std::end(memory), [](unsigned char v) { return v == 0; }));
}

TEST_CASE("cumulative extremes: empty tensors are a no-op") {
    float x = 1.0f, y = 2.0f;
    std::int64_t i = 3;
    cumulative_max(tensor_view<const float>(&x, {0, 3}), tensor_view<float>(&y, {0, 3}), {.axis = 1});
    cumulative_min(tensor_view<const float>(&x, {4, 0}), tensor_view<float>(&y, {4, 0}), tensor_view<std::int64_t>(&i, {4, 0}), {.axis = 1});
    cumulative_log_sum_exp(tensor_view<const float>(&x, {0}), tensor_view<float>(&y, {0}), {});
    CHECK((y == 2.0f && i == 3));
}

TEMPLATE_TEST_CASE("cumulative extremes: bit-identical on 1, 2, 3 and 7 threads (lines, long lines, rows, strips)", "[parallel]", double, float, float16,
                   tensorops::bfloat16, std::int32_t) {
    using T = TestType;
    test_rng rng(std::string("parallel cumulative extreme ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    const std::size_t K = tensorops::detail::line_scan_block<T>;
    const std::vector<std::vector<std::size_t>> shapes{{64, 1000}, {2 * K + 333}, {3000, 40}, {5, 200, 33}, {700, 130}};
    std::size_t number = 0;
    for (const auto& sizes : shapes) {
        ++number;
        // Sanitised builds: one shape in four, each type a different one (every shape still meets a type).
        if (!tensorops_test::runs_in_this_build(number + tensorops_test::type_position<T, std::tuple<double, float, float16, tensorops::bfloat16, std::int32_t>>, 4))
            continue;
        const std::size_t rank = sizes.size();
        for (int variant = 0; variant < 3; ++variant) {
            const scan_options options{rng.uniform<std::size_t>(0, rank - 1), rng.chance(0.5) ? axis_direction::increasing : axis_direction::decreasing,
                                       rng.chance(0.5)};
            const auto kind = variant == 0 ? tensorops_test::layout_kind::packed : tensorops_test::output_layout_kinds[rng.uniform<std::size_t>(0, 4)];
            guarded_buffer<T> input(sizes, tensorops_test::random_strides(rng, sizes, kind));
            std::vector<T> x(ref::dense<int>::element_count(sizes));
            for (auto& v : x) v = random_element<T>(rng, true);
            input.assign(x);
            const auto out_strides = tensorops_test::random_strides(rng, sizes, variant == 1 ? tensorops_test::layout_kind::packed : kind);
            INFO("input " << tensorops_test::describe_layout(sizes, input.strides()) << ", axis " << options.axis << ", variant " << variant);
            const bool maximum = variant != 1;
            check_same_on_threads<T>(sizes, out_strides, [&](auto& exec, auto y) {
                if (maximum) cumulative_max<T>(exec, input.const_view(), y, options);
                else cumulative_min<T>(exec, input.const_view(), y, options);
            });
            check_same_on_threads<std::uint32_t>(sizes, out_strides, [&](auto& exec, auto where) {
                guarded_buffer<T> values(sizes, out_strides);
                if (maximum) cumulative_max<T>(exec, input.const_view(), values.view(), where, options);
                else cumulative_min<T>(exec, input.const_view(), values.view(), where, options);
            });
            if constexpr (ref::is_floating<T>) {
                check_same_on_threads<T>(sizes, out_strides, [&](auto& exec, auto y) { cumulative_log_sum_exp<T>(exec, input.const_view(), y, options); });
            }
        }
    }
}

}  // namespace extreme_scan_tests
