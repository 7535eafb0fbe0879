// tests/reduce_helpers.hpp — what the reduce test files share: small callers of reduce/argmax on packed
// float data, the input generator per function, the tolerance model and the random-case checker.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "reference.hpp"
#include "support.hpp"

namespace reduce_test {
using namespace tensorops;
using tensorops_test::guarded_buffer;
using tensorops_test::test_rng;
namespace ref = tensorops_test::reference;
}  // namespace reduce_test

namespace reduce_test {

using v = std::vector<float>;
using iv = std::vector<std::int64_t>;

inline constexpr reduce_function value_functions[] = {reduce_function::average, reduce_function::l1,      reduce_function::l2,
                                               reduce_function::log_sum, reduce_function::log_sum_exp, reduce_function::max,
                                               reduce_function::min,     reduce_function::multiply, reduce_function::sum,
                                               reduce_function::sum_square};

inline bool integer_capable(reduce_function f) {
    return f != reduce_function::average && f != reduce_function::l2 && f != reduce_function::log_sum &&
           f != reduce_function::log_sum_exp;
}

inline std::vector<float> reduce_float(const std::vector<std::size_t>& sizes, std::vector<float> values, reduce_function f,
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

inline ref::reduce_operation to_reference(reduce_function f) { return static_cast<ref::reduce_operation>(static_cast<int>(f)); }

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

/// Reduces random values of the given shape, laid out with `input_strides`, over `axes` and checks every output
/// against the reference.
template <class T>
void check_reduce(test_rng& rng, reduce_function f, const std::vector<std::size_t>& sizes, const std::vector<std::size_t>& axes,
                  const std::vector<std::ptrdiff_t>& input_strides, tensorops_test::layout_kind out_kind) {
    const auto out_sizes = ref::reduced_sizes(sizes, axes);
    guarded_buffer<T> input(sizes, input_strides, rng.uniform<std::size_t>(0, 7));
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

/// check_reduce with the input laid out as `in_kind`.
template <class T>
void check_reduce(test_rng& rng, reduce_function f, const std::vector<std::size_t>& sizes, const std::vector<std::size_t>& axes,
                  tensorops_test::layout_kind in_kind, tensorops_test::layout_kind out_kind) {
    check_reduce<T>(rng, f, sizes, axes, tensorops_test::random_strides(rng, sizes, in_kind), out_kind);
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
    check_reduce<T>(rng, f, sizes, axes, in_kind, out_kind);
}

}  // namespace reduce_test
