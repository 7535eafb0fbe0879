// reduce / argmax / argmin at the edges ONNX front-ends reach (SEMANTICS.md §5): MAX and MIN of empty groups
// (−inf / +inf for floating types, lowest / highest for integers, the identity trait for user types), a reduction
// over no axes (every element its own group, ONNX's noop_with_empty_axes) against an independent element-by-element
// reference over random shapes, layouts and types, and rank-0 views. (Through tensorops::dml: test_dml_validate.cpp.)
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "reference.hpp"
#include "support.hpp"
#include "user_types.hpp"

using namespace tensorops;
using tensorops_test::guarded_buffer;
using tensorops_test::layout_kind;
using tensorops_test::same_bits;
using tensorops_test::test_rng;
namespace ref = tensorops_test::reference;

namespace {

constexpr reduce_function no_axes_functions[] = {reduce_function::average,     reduce_function::l1,  reduce_function::l2,
                                               reduce_function::log_sum,     reduce_function::log_sum_exp,
                                               reduce_function::max,         reduce_function::min, reduce_function::multiply,
                                               reduce_function::sum,         reduce_function::sum_square};

template <class T>
constexpr bool is_floating_element = std::is_floating_point_v<T> || tensorops_test::is_16_bit_float<T>;

/// Whether reduce accepts `f` for T (integers have no AVERAGE, L2, LOG_SUM, LOG_SUM_EXP).
template <class T>
bool takes_function(reduce_function f) {
    const bool needs_floating = f == reduce_function::average || f == reduce_function::l2 || f == reduce_function::log_sum ||
                                f == reduce_function::log_sum_exp;
    return is_floating_element<T> || !needs_floating;
}

/// What a group of the one element x gives, computed independently of the library: in long double for floating
/// types (rounded once to T), in the unsigned type of T's width for integers (wrapping).
template <class T>
T one_element_group(reduce_function f, T x) {
    if constexpr (is_floating_element<T>) {
        const long double w = static_cast<long double>(static_cast<double>(x));
        switch (f) {
            case reduce_function::sum_square: return static_cast<T>(static_cast<double>(w * w));
            case reduce_function::l1:
            case reduce_function::l2: return static_cast<T>(static_cast<double>(std::fabs(w)));
            case reduce_function::log_sum: return static_cast<T>(static_cast<double>(std::log(w)));
            default: return x;  // SUM, AVERAGE, MULTIPLY, MAX, MIN, LOG_SUM_EXP: x itself
        }
    } else {
        using U = std::make_unsigned_t<T>;
        const U u = static_cast<U>(x);
        switch (f) {
            case reduce_function::sum_square: return static_cast<T>(static_cast<U>(static_cast<std::uint64_t>(u) * u));
            case reduce_function::l1: return x < T(0) ? static_cast<T>(static_cast<U>(U(0) - u)) : x;
            default: return x;
        }
    }
}

/// Whether `actual` is what one_element_group gives: bit for bit where the function gives x itself; for the others
/// any NaN matches any NaN (ln of a negative number: its sign and payload are the maths library's), and ln and x² of
/// float64, whose long double reference may round differently in the last place, may differ by one unit.
template <class T>
bool matches_one_element_group(reduce_function f, T actual, T expected) {
    if (same_bits(actual, expected)) return true;
    const bool computed = f == reduce_function::sum_square || f == reduce_function::l1 || f == reduce_function::l2 || f == reduce_function::log_sum;
    if constexpr (is_floating_element<T>)
        if (computed && std::isnan(static_cast<double>(actual)) && std::isnan(static_cast<double>(expected))) return true;
    if constexpr (std::is_floating_point_v<T>) {
        if ((f == reduce_function::log_sum || f == reduce_function::sum_square) && std::isfinite(expected))
            return std::fabs(actual - expected) <= std::fabs(expected) * 2 * std::numeric_limits<T>::epsilon();
    }
    if constexpr (tensorops_test::is_16_bit_float<T>)  // their ln goes through float: at most a unit of the type apart
        if (f == reduce_function::log_sum && std::isfinite(static_cast<float>(expected)))
            return std::fabs(static_cast<float>(actual) - static_cast<float>(expected)) <=
                   std::fabs(static_cast<float>(expected)) * static_cast<float>(std::numeric_limits<T>::epsilon());
    return false;
}

/// A random element for the no-axes tests: floats over many magnitudes and both signs, with zeros, infinities and
/// NaN among them; integers over their whole range, with the minimum among them.
template <class T>
T edge_value(test_rng& rng) {
    if constexpr (is_floating_element<T>) {
        switch (rng.uniform<int>(0, 15)) {
            case 0: return static_cast<T>(0.0f);
            case 1: return static_cast<T>(-0.0f);
            case 2: return static_cast<T>(std::numeric_limits<float>::infinity());
            case 3: return static_cast<T>(-std::numeric_limits<float>::infinity());
            case 4: return static_cast<T>(std::numeric_limits<float>::quiet_NaN());
            default: {
                const double magnitude = std::ldexp(rng.uniform_real(0.5, 1.0), rng.uniform<int>(-12, 12));
                return static_cast<T>(rng.chance(0.5) ? magnitude : -magnitude);
            }
        }
    } else {
        if (rng.chance(0.1)) return std::numeric_limits<T>::lowest();
        return tensorops_test::random_value<T>(rng);
    }
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("reduce: MAX and MIN of empty groups give -inf / +inf for is_floating_element types, lowest / highest for integers", "",
                        tensorops_test::random_test_types) {
    using T = TestType;
    const tensor_view<const T> empty(nullptr, {2, 0, 4});
    std::vector<T> out(8, static_cast<T>(7));
    const tensor_view<T> y(out.data(), {2, 1, 4});
    T lowest, highest;
    if constexpr (is_floating_element<T>) {
        lowest = static_cast<T>(-std::numeric_limits<float>::infinity());
        highest = static_cast<T>(std::numeric_limits<float>::infinity());
    } else {
        lowest = std::numeric_limits<T>::lowest();
        highest = std::numeric_limits<T>::max();
    }
    reduce(empty, y, reduce_function::max, {1});
    for (const T& v : out) CHECK(same_bits(v, lowest));
    reduce(empty, y, reduce_function::min, {1});
    for (const T& v : out) CHECK(same_bits(v, highest));
    // Over both axes of a [0, 3] tensor, and through dml (whose sizes are never 0: rank and shape rules there).
    T one = static_cast<T>(7);
    reduce(tensor_view<const T>(nullptr, {0, 3}), tensor_view<T>(&one, {1, 1}), reduce_function::max, {0, 1});
    CHECK(same_bits(one, lowest));
}

namespace {
/// A user type with MAX's and MIN's identities in its element_identity trait (and no numeric_limits).
struct ordered_level {
    int value = 0;
    friend bool operator<(ordered_level a, ordered_level b) { return a.value < b.value; }
};
}  // namespace

template <>
struct tensorops::element_identity<ordered_level> {
    static constexpr ordered_level max_identity() { return {-1000}; }
    static constexpr ordered_level min_identity() { return {1000}; }
};

TEST_CASE("reduce: MAX and MIN of empty groups of a user type give its identity trait, or an error without one") {
    std::vector<ordered_level> levels(3, ordered_level{5});
    reduce(tensor_view<const ordered_level>(nullptr, {3, 0}), tensor_view<ordered_level>(levels.data(), {3, 1}), reduce_function::max, {1});
    for (const auto& v : levels) CHECK(v.value == -1000);
    reduce(tensor_view<const ordered_level>(nullptr, {3, 0}), tensor_view<ordered_level>(levels.data(), {3, 1}), reduce_function::min, {1});
    for (const auto& v : levels) CHECK(v.value == 1000);
    using tensorops_test::mod_prime;  // identities for SUM and MULTIPLY only
    std::vector<mod_prime> out(3, mod_prime{5});
    for (const auto f : {reduce_function::max, reduce_function::min}) {
        try {
            reduce(tensor_view<const mod_prime>(nullptr, {3, 0}), tensor_view<mod_prime>(out.data(), {3, 1}), f, {1});
            FAIL("MAX / MIN of an empty group of a type without the identity trait must be an error");
        } catch (const tensorops::error& e) {
            CHECK(e.argument() == "input");
            CHECK(std::string(e.what()).find("max_identity") != std::string::npos);
        }
        for (const auto& v : out) CHECK(v.value == 5);
    }
    reduce(tensor_view<const mod_prime>(nullptr, {3, 0}), tensor_view<mod_prime>(out.data(), {3, 1}), reduce_function::multiply, {1});
    for (const auto& v : out) CHECK(v.value == 1);
}

TEMPLATE_LIST_TEST_CASE("reduce over no axes: every element is its own group, against the element-by-element reference", "",
                        tensorops_test::random_test_types) {
    using T = TestType;
    test_rng rng(std::string("reduce no axes ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    thread_pool pool(3);
    for (int trial = 0; trial < 24; ++trial) {
        const std::size_t rank = rng.uniform<std::size_t>(1, 4);
        const auto sizes = tensorops_test::random_sizes(rng, rank, trial % 8 == 7 ? 40000 : 300);
        const auto in_kind = tensorops_test::input_layout_kinds[rng.uniform<std::size_t>(0, std::size(tensorops_test::input_layout_kinds) - 1)];
        const auto out_kind = tensorops_test::output_layout_kinds[rng.uniform<std::size_t>(0, std::size(tensorops_test::output_layout_kinds) - 1)];
        guarded_buffer<T> input(sizes, tensorops_test::random_strides(rng, sizes, in_kind));
        std::vector<T> values(ref::dense<int>::element_count(sizes));
        for (auto& v : values) v = edge_value<T>(rng);
        input.assign(values);
        values = input.values();  // a broadcast input repeats some elements: read back what the view holds
        for (const reduce_function f : no_axes_functions) {
            if (!takes_function<T>(f)) continue;
            guarded_buffer<T> output(sizes, tensorops_test::random_strides(rng, sizes, out_kind));
            INFO("function " << static_cast<int>(f) << ", input " << tensorops_test::describe_layout(sizes, input.strides()) << ", output "
                             << tensorops_test::describe_layout(sizes, output.strides()));
            if (trial % 2 == 0) reduce(input.const_view(), output.view(), f, std::span<const std::size_t>{});
            else reduce(pool, input.const_view(), output.view(), f, std::span<const std::size_t>{});
            const auto actual = output.values();
            std::size_t wrong = 0;
            for (std::size_t i = 0; i < values.size(); ++i) wrong += matches_one_element_group(f, actual[i], one_element_group(f, values[i])) ? 0 : 1;
            CHECK(wrong == 0);
            CHECK(output.untouched_outside_view());
        }
        guarded_buffer<std::int32_t> indices(sizes, tensorops_test::random_strides(rng, sizes, out_kind));
        if (trial % 2 == 0) argmax(input.const_view(), indices.view(), std::span<const std::size_t>{});
        else argmin(pool, input.const_view(), indices.view(), std::span<const std::size_t>{}, axis_direction::decreasing);
        for (const std::int32_t index : indices.values()) CHECK(index == 0);
        CHECK(indices.untouched_outside_view());
    }
}

TEST_CASE("reduce over no axes keeps the input's bits where it gives x (-0, NaN payloads) and its errors") {
    const float payload = std::bit_cast<float>(0x7fc01234u);
    std::vector<float> x = {-0.0f, payload, 3.5f}, y(3, 9.0f);
    for (const auto f : {reduce_function::sum, reduce_function::average, reduce_function::multiply, reduce_function::max, reduce_function::min,
                         reduce_function::log_sum_exp}) {
        reduce(tensor_view<const float>(x.data(), {3}), tensor_view<float>(y.data(), {3}), f, std::span<const std::size_t>{});
        for (std::size_t i = 0; i < 3; ++i) CHECK(same_bits(x[i], y[i]));
    }
    // L2 is |x| without passing through x²: no overflow for the largest double.
    const double big = std::numeric_limits<double>::max();
    double out = 0;
    reduce(tensor_view<const double>(&big, {1}), tensor_view<double>(&out, {1}), reduce_function::l2, std::span<const std::size_t>{});
    CHECK(out == big);
    // The output still has to have the input's sizes (no axis becomes 1), and integers still have no L2.
    std::vector<std::int32_t> ints(6, 1), int_out(6, 7);
    CHECK_THROWS_AS(reduce(tensor_view<const std::int32_t>(ints.data(), {2, 3}), tensor_view<std::int32_t>(int_out.data(), {1, 3}),
                           reduce_function::sum, std::span<const std::size_t>{}),
                    tensorops::error);
    CHECK_THROWS_AS(reduce(tensor_view<const std::int32_t>(ints.data(), {2, 3}), tensor_view<std::int32_t>(int_out.data(), {2, 3}),
                           reduce_function::l2, std::span<const std::size_t>{}),
                    tensorops::error);
    CHECK(int_out == std::vector<std::int32_t>(6, 7));
}

TEST_CASE("rank-0 views: reductions take them (no axes), scans refuse them naming the axis") {
    const std::span<const std::size_t> scalar{};
    double x = -2.0, y = 0.0;
    const tensor_view<const double> in(&x, scalar);
    const tensor_view<double> out(&y, scalar);
    reduce(in, out, reduce_function::sum_square, scalar);
    CHECK(y == 4.0);
    reduce(in, out, reduce_function::l1, scalar);
    CHECK(y == 2.0);
    std::int64_t index = 5;
    argmax(in, tensor_view<std::int64_t>(&index, scalar), scalar);
    CHECK(index == 0);
    CHECK_THROWS_AS(reduce(in, out, reduce_function::sum, {0}), tensorops::error);  // a rank-0 view has no axis 0
    y = 9.0;
    try {
        cumulative_sum(in, out, {});
        FAIL("a scan of a rank-0 view must be an error");
    } catch (const tensorops::error& e) {
        CHECK(e.argument() == "options.axis");
        CHECK(std::string(e.what()).find("rank 0") != std::string::npos);
    }
    CHECK(y == 9.0);
}
