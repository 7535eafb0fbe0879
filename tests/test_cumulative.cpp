// cumulative_sum / cumulative_product / cumulative_scan against SEMANTICS.md §1: the DirectML page table, the
// ONNX CumSum examples and their CumProd counterparts, random cases against the long-double reference for
// every element type × operation × direction × exclusive × layout, in place, rows narrower than a vector (bit for bit
// against each column's own walk), user-defined types (the refusals: test_cumulative_errors.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "index_helpers.hpp"
#include "reference.hpp"
#include "support.hpp"
#include "user_types.hpp"

using namespace tensorops;
using tensorops_test::guarded_buffer;
using tensorops_test::test_rng;
namespace ref = tensorops_test::reference;

namespace {

using ref::scan_operation;

template <class T>
void run(scan_operation op, tensor_view<const T> input, tensor_view<T> output, scan_options options) {
    if (op == scan_operation::sum) cumulative_sum(input, output, options);
    else cumulative_product(input, output, options);
}

std::vector<float> compute_float(scan_operation op, const std::vector<std::size_t>& sizes, std::vector<float> values,
                                 scan_options options) {
    std::vector<float> out(values.size(), -1.0f);
    run<float>(op, tensor_view<const float>(values.data(), sizes), tensor_view<float>(out.data(), sizes), options);
    return out;
}

// Accuracy bound for a float result: accumulation error grows with the prefix length and the magnitude of
// what was summed (or multiplied); float16 adds one rounding of the output.
template <class T>
long double tolerance(scan_operation op, std::size_t prefix_length, long double magnitude) {
    using accumulator = accumulator_t<T>;
    const long double accumulator_epsilon = std::numeric_limits<accumulator>::epsilon();
    const long double output_epsilon = ref::widen(std::numeric_limits<T>::epsilon());
    const long double floor = ref::widen(std::numeric_limits<T>::min());
    const auto steps = static_cast<long double>(prefix_length + 16);
    (void)op;
    return 2 * steps * accumulator_epsilon * magnitude + output_epsilon * magnitude + floor;
}

template <class T>
T random_input(test_rng& rng, scan_operation op) {
    if constexpr (std::is_integral_v<T>) {
        return tensorops_test::random_value<T>(rng);  // whole range: sums and products wrap
    } else if (op == scan_operation::product) {
        const double magnitude = rng.uniform_real(0.75, 1.25);  // products neither explode nor vanish
        return static_cast<T>(rng.chance(0.5) ? magnitude : -magnitude);
    } else {
        return tensorops_test::random_value<T>(rng);
    }
}

// One random case: random shape, layouts, axis, misalignment; output compared with the reference, the
// input left unchanged, nothing written outside the output.
template <class T>
void check_random_case(test_rng& rng, scan_operation op, axis_direction direction, bool exclusive,
                       tensorops_test::layout_kind in_kind, tensorops_test::layout_kind out_kind, std::size_t max_elements) {
    const std::size_t rank = rng.uniform<std::size_t>(1, 8);
    const auto sizes = tensorops_test::random_sizes(rng, rank, max_elements);
    const scan_options options{rng.uniform<std::size_t>(0, rank - 1), direction, exclusive};
    guarded_buffer<T> input(sizes, tensorops_test::random_strides(rng, sizes, in_kind), rng.uniform<std::size_t>(0, 7));
    guarded_buffer<T> output(sizes, tensorops_test::random_strides(rng, sizes, out_kind), rng.uniform<std::size_t>(0, 7));
    // Broadcast inputs repeat elements: fill through a packed tensor read back via the input view.
    std::vector<T> values(ref::dense<int>::element_count(sizes));
    for (auto& v : values) v = random_input<T>(rng, op);
    input.assign(values);
    const auto effective = input.values();  // what the input view actually holds (broadcast repeats)
    INFO("input " << tensorops_test::describe_layout(sizes, input.strides()) << ", output "
                  << tensorops_test::describe_layout(sizes, output.strides()) << ", axis " << options.axis
                  << (direction == axis_direction::decreasing ? " decreasing" : " increasing")
                  << (exclusive ? " exclusive" : " inclusive"));
    run<T>(op, input.const_view(), output.view(), options);

    const ref::dense<T> x(sizes, effective);
    const auto expected = ref::cumulative(x, options.axis, direction == axis_direction::decreasing, exclusive, op);
    const auto actual = output.values();
    REQUIRE(output.untouched_outside_view());
    CHECK(input.values() == effective);
    if constexpr (std::is_integral_v<T>) {
        CHECK(actual == expected.values);
    } else {
        // Magnitude bound per element: the same scan over |x| (sums) or the running product of |x|.
        std::vector<long double> magnitudes_in(effective.size());
        for (std::size_t i = 0; i < effective.size(); ++i) magnitudes_in[i] = std::fabs(ref::widen(effective[i]));
        const auto magnitude = ref::cumulative(ref::dense<long double>(sizes, magnitudes_in), options.axis,
                                               direction == axis_direction::decreasing, exclusive, op);
        std::size_t failures = 0;
        for (std::size_t i = 0; i < actual.size() && failures < 5; ++i) {
            const long double got = ref::widen(actual[i]);
            const long double bound = tolerance<T>(op, sizes[options.axis], magnitude.values[i]);
            if (!(std::fabs(got - expected.values[i]) <= bound)) {
                ++failures;
                FAIL_CHECK("element " << i << ": got " << static_cast<double>(got) << ", expected "
                                      << static_cast<double>(expected.values[i]) << " ± " << static_cast<double>(bound));
            }
        }
    }
}

// The first element of `actual` that differs from `expected` (integers: at all; floats: by more than its bound), or
// actual.size() when none does. (Out of line: inlined into the test below, GCC 12 reports a false
// -Wfree-nonheap-object on a vector there.)
template <class T, class W>
[[gnu::noinline]] std::size_t first_difference(const std::vector<T>& actual, const std::vector<W>& expected,
                                               const std::vector<long double>& bounds) {
    for (std::size_t i = 0; i < actual.size(); ++i) {
        if constexpr (std::is_integral_v<T>) {
            if (actual[i] != expected[i]) return i;
        } else {
            if (!(std::fabs(ref::widen(actual[i]) - expected[i]) <= bounds[i])) return i;
        }
    }
    return actual.size();
}

}  // namespace

TEST_CASE("cumulative: the DirectML page examples") {
    const std::vector<std::size_t> sizes{1, 1, 3, 4};
    const std::vector<float> input{2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4};
    struct page_case {
        scan_options options;
        std::vector<float> sum, product;
    };
    const page_case cases[] = {
        {{3, axis_direction::increasing, false}, {2, 3, 6, 11, 3, 11, 18, 21, 9, 15, 17, 21}, {2, 2, 6, 30, 3, 24, 168, 504, 9, 54, 108, 432}},
        {{3, axis_direction::increasing, true}, {0, 2, 3, 6, 0, 3, 11, 18, 0, 9, 15, 17}, {1, 2, 2, 6, 1, 3, 24, 168, 1, 9, 54, 108}},
        {{3, axis_direction::decreasing, false}, {11, 9, 8, 5, 21, 18, 10, 3, 21, 12, 6, 4}, {30, 15, 15, 5, 504, 168, 21, 3, 432, 48, 8, 4}},
        {{2, axis_direction::increasing, false}, {2, 1, 3, 5, 5, 9, 10, 8, 14, 15, 12, 12}, {2, 1, 3, 5, 6, 8, 21, 15, 54, 48, 42, 60}},
    };
    for (const auto& c : cases) {
        INFO("axis " << c.options.axis << ", exclusive " << c.options.exclusive);
        CHECK(compute_float(scan_operation::sum, sizes, input, c.options) == c.sum);
        CHECK(compute_float(scan_operation::product, sizes, input, c.options) == c.product);
    }
}

TEST_CASE("cumulative: the ONNX CumSum examples and their CumProd counterparts") {
    const std::vector<float> x{1, 2, 3, 4, 5};
    using v = std::vector<float>;
    const auto inc = axis_direction::increasing, dec = axis_direction::decreasing;
    CHECK(compute_float(scan_operation::sum, {5}, x, {0, inc, false}) == v{1, 3, 6, 10, 15});
    CHECK(compute_float(scan_operation::sum, {5}, x, {0, inc, true}) == v{0, 1, 3, 6, 10});
    CHECK(compute_float(scan_operation::sum, {5}, x, {0, dec, false}) == v{15, 14, 12, 9, 5});
    CHECK(compute_float(scan_operation::sum, {5}, x, {0, dec, true}) == v{14, 12, 9, 5, 0});
    CHECK(compute_float(scan_operation::product, {5}, x, {0, inc, false}) == v{1, 2, 6, 24, 120});
    CHECK(compute_float(scan_operation::product, {5}, x, {0, inc, true}) == v{1, 1, 2, 6, 24});
    CHECK(compute_float(scan_operation::product, {5}, x, {0, dec, false}) == v{120, 120, 60, 20, 5});
    CHECK(compute_float(scan_operation::product, {5}, x, {0, dec, true}) == v{120, 60, 20, 5, 1});
    const std::vector<float> m{1, 2, 3, 4, 5, 6};
    CHECK(compute_float(scan_operation::sum, {2, 3}, m, {0, inc, false}) == v{1, 2, 3, 5, 7, 9});
    CHECK(compute_float(scan_operation::sum, {2, 3}, m, {1, inc, false}) == v{1, 3, 6, 4, 9, 15});
    CHECK(compute_float(scan_operation::product, {2, 3}, m, {0, inc, false}) == v{1, 2, 3, 4, 10, 18});
    CHECK(compute_float(scan_operation::product, {2, 3}, m, {1, inc, false}) == v{1, 2, 6, 4, 20, 120});
}

TEMPLATE_LIST_TEST_CASE("cumulative: random shapes, layouts and axes against the reference", "", tensorops_test::random_test_types) {
    using T = TestType;
    test_rng rng(std::string("cumulative random ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    for (scan_operation op : {scan_operation::sum, scan_operation::product})
        for (axis_direction direction : {axis_direction::increasing, axis_direction::decreasing})
            for (bool exclusive : {false, true})
                for (auto in_kind : tensorops_test::input_layout_kinds)
                    for (int trial = 0; trial < 4; ++trial) {
                        const auto out_kind = tensorops_test::output_layout_kinds[rng.uniform<std::size_t>(0, 4)];
                        check_random_case<T>(rng, op, direction, exclusive, in_kind, out_kind, 600);
                    }
}

TEMPLATE_LIST_TEST_CASE("cumulative: every line length around the vector width, both kernels, misaligned", "",
                        tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng(std::string("cumulative lengths ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    const std::size_t width = simd::lanes<T>;
    for (std::size_t n = 1; n <= 4 * width + 3; ++n) {
        for (int layout = 0; layout < 3; ++layout) {
            // layout 0: the axis is contiguous ([3, n], axis 1); layouts 1 and 2: across rows ([n, width + 3] and
            // [n, 5 · width + 3], axis 0: register tiles of 4 and 1 vectors and scalar columns while the tensor is
            // within the register-tile limit, then row groups of 4 and single rows).
            const std::array<std::size_t, 2> shape = layout == 0   ? std::array<std::size_t, 2>{3, n}
                                                     : layout == 1 ? std::array<std::size_t, 2>{n, width + 3}
                                                                   : std::array<std::size_t, 2>{n, 5 * width + 3};
            const std::vector<std::size_t> sizes(shape.begin(), shape.end());
            const std::size_t axis = layout == 0 ? 1 : 0;
            for (scan_operation op : {scan_operation::sum, scan_operation::product})
                for (axis_direction direction : {axis_direction::increasing, axis_direction::decreasing})
                    for (bool exclusive : {false, true}) {
                        // Sanitised builds: two of the eight per length and layout (a sum and a product).
                        if (!tensorops_test::runs_in_this_build(n + static_cast<std::size_t>(exclusive) + 2 * static_cast<std::size_t>(direction == axis_direction::decreasing), 4)) continue;
                        guarded_buffer<T> input(sizes, tensorops_test::random_strides(rng, sizes, tensorops_test::layout_kind::packed), n % 4);
                        guarded_buffer<T> output(sizes, tensorops_test::random_strides(rng, sizes, tensorops_test::layout_kind::packed), (n + 1) % 4);
                        std::vector<T> values(sizes[0] * sizes[1]);
                        for (auto& v : values) v = random_input<T>(rng, op);
                        input.assign(values);
                        run<T>(op, input.const_view(), output.view(), {axis, direction, exclusive});
                        const auto expected = ref::cumulative(ref::dense<T>(sizes, values), axis, direction == axis_direction::decreasing, exclusive, op);
                        INFO("n " << n << " layout " << layout << " exclusive " << exclusive);
                        REQUIRE(output.untouched_outside_view());
                        const auto actual = output.values();
                        // Bound per element: the same scan over |x| (sums) or the running product of |x|.
                        std::vector<long double> absolute(values.size());
                        for (std::size_t i = 0; i < values.size(); ++i) absolute[i] = std::fabs(ref::widen(values[i]));
                        const auto magnitude = ref::cumulative(ref::dense<long double>(sizes, absolute), axis,
                                                               direction == axis_direction::decreasing, exclusive, op);
                        std::vector<long double> bounds(values.size());
                        for (std::size_t i = 0; i < values.size(); ++i) bounds[i] = tolerance<T>(op, sizes[axis], magnitude.values[i]);
                        const std::size_t first_wrong = first_difference(actual, expected.values, bounds);
                        INFO("op " << (op == scan_operation::sum ? "sum" : "product") << (direction == axis_direction::decreasing ? " decreasing" : "")
                                   << "; first wrong element " << first_wrong << " of " << actual.size());
                        REQUIRE(first_wrong == actual.size());
                    }
        }
    }
}

TEMPLATE_LIST_TEST_CASE("cumulative: in place (output is exactly the input)", "", tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng(std::string("cumulative in place ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    for (int trial = 0; trial < 40; ++trial) {
        const std::size_t rank = rng.uniform<std::size_t>(1, 4);
        const auto sizes = tensorops_test::random_sizes(rng, rank, 500);
        const auto kind = tensorops_test::output_layout_kinds[rng.uniform<std::size_t>(0, 4)];
        guarded_buffer<T> buffer(sizes, tensorops_test::random_strides(rng, sizes, kind), rng.uniform<std::size_t>(0, 3));
        const scan_operation op = trial % 2 ? scan_operation::sum : scan_operation::product;
        std::vector<T> values(ref::dense<int>::element_count(sizes));
        for (auto& v : values) v = random_input<T>(rng, op);
        buffer.assign(values);
        const scan_options options{rng.uniform<std::size_t>(0, rank - 1), trial % 4 < 2 ? axis_direction::increasing : axis_direction::decreasing, trial % 3 == 0};
        // The expected result: the same call out of place, into the same layout (hence the same kernel and the
        // same rounding: the results must match bit for bit).
        guarded_buffer<T> separate(sizes, buffer.strides());
        run<T>(op, buffer.const_view(), separate.view(), options);
        run<T>(op, buffer.const_view(), buffer.view(), options);
        const auto in_place = buffer.values(), out_of_place = separate.values();
        INFO(tensorops_test::describe_layout(sizes, buffer.strides()) << " axis " << options.axis);
        for (std::size_t i = 0; i < in_place.size(); ++i) REQUIRE(tensorops_test::same_bits(in_place[i], out_of_place[i]));
        REQUIRE(buffer.untouched_outside_view());
    }
}

TEMPLATE_LIST_TEST_CASE("cumulative: scans longer than one block (lines past a block, rows past a band) match the reference", "",
                        tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng(std::string("cumulative blocks ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    // Blocks are scanned from the identity and combined with the prefix chained from the blocks before
    // (ops/detail/scan/policy.hpp): a line of two and a half blocks with an odd tail, and rows (with a ragged vector tail)
    // in two bands and a row, in place and not; then rows wider than the carry kernel's column block (two column
    // blocks, the second ragged), in a band and a row and in a single band (its carry on the stack for float16 and
    // in-place exclusive scans).
    const std::size_t K = tensorops::detail::line_scan_block<T>, m = 3 * simd::lanes<T> + 5;
    const std::size_t band = tensorops::detail::band_rows(m, sizeof(T));
    const std::size_t wide = tensorops::detail::carry_block_width<T> + simd::lanes<T> + 3;
    const std::size_t wide_band = tensorops::detail::band_rows(wide, sizeof(T));
    struct shape_case {
        std::vector<std::size_t> sizes;
        std::size_t axis;
    };
    const shape_case shapes[] = {{{2 * K + K / 2 + 7}, 0}, {{2 * band + 1, m}, 0}, {{wide_band + 1, wide}, 0}, {{wide_band, wide}, 0}};
    struct variant {
        scan_operation op;
        axis_direction direction;
        bool exclusive, in_place;
    };
    const variant variants[] = {{scan_operation::sum, axis_direction::increasing, false, false},
                                {scan_operation::sum, axis_direction::decreasing, true, true},
                                {scan_operation::product, axis_direction::increasing, true, false},
                                {scan_operation::product, axis_direction::decreasing, false, true}};
    std::size_t combination = 0;
    for (const auto& [sizes, axis] : shapes) {
        for (const variant& v : variants) {
            // Two variants per shape, a different pair for each: every variant meets two shapes. The shapes are megabytes
            // each (two bands of 2 MiB and a row): the sanitised builds run one variant per shape, and each type one
            // shape in four (every shape still meets a type).
            const std::size_t shape_number = combination / std::size(variants), variant_number = combination++ % std::size(variants);
            if ((shape_number + variant_number) % 2 != 0 || !tensorops_test::runs_in_this_build(shape_number + variant_number, std::size(variants)) ||
                !tensorops_test::runs_in_this_build(shape_number + tensorops_test::type_position<T, tensorops_test::builtin_types>, 4))
                continue;
            const std::size_t n = sizes[axis];
            std::vector<T> values(ref::dense<int>::element_count(sizes));
            for (auto& x : values) {
                if constexpr (!std::is_integral_v<T>)  // products of 10⁵ factors that neither explode nor vanish
                    if (v.op == scan_operation::product) {
                        x = static_cast<T>((rng.chance(0.5) ? 1.0 : -1.0) * rng.uniform_real(0.999, 1.001));
                        continue;
                    }
                x = random_input<T>(rng, v.op);
            }
            guarded_buffer<T> input(sizes, tensorops_test::random_strides(rng, sizes, tensorops_test::layout_kind::packed), 1);
            guarded_buffer<T> separate(sizes, input.strides());
            input.assign(values);
            const scan_options options{axis, v.direction, v.exclusive};
            if (v.in_place) run<T>(v.op, input.const_view(), input.view(), options);
            else run<T>(v.op, input.const_view(), separate.view(), options);
            const bool reverse = v.direction == axis_direction::decreasing;
            const auto expected = ref::cumulative(ref::dense<T>(sizes, values), axis, reverse, v.exclusive, v.op);
            const auto actual = v.in_place ? input.values() : separate.values();
            std::vector<long double> absolute(values.size());
            for (std::size_t i = 0; i < values.size(); ++i) absolute[i] = std::fabs(ref::widen(values[i]));
            const auto magnitude = ref::cumulative(ref::dense<long double>(sizes, absolute), axis, reverse, v.exclusive, v.op);
            std::vector<long double> bounds(values.size());
            for (std::size_t i = 0; i < values.size(); ++i) bounds[i] = tolerance<T>(v.op, n, magnitude.values[i]);
            INFO("rank " << sizes.size() << ", n " << n << ", exclusive " << v.exclusive << ", in place " << v.in_place << ", decreasing " << reverse
                         << ", product " << (v.op == scan_operation::product));
            REQUIRE(input.untouched_outside_view());
            REQUIRE(separate.untouched_outside_view());
            const std::size_t first_wrong = first_difference(actual, expected.values, bounds);
            INFO("first wrong element " << first_wrong << " of " << actual.size());
            REQUIRE(first_wrong == actual.size());
        }
    }
}

TEMPLATE_LIST_TEST_CASE("cumulative: outer axis beyond the register-tile limit (row-streaming kernels), in place and not", "",
                        tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng(std::string("cumulative streaming rows ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    // Rows wider than every column block (8 KiB of carried-by-output, 4 KiB of carry buffer) with a ragged tail,
    // and enough of them that input + output exceed the register-tile limit: the streaming kernels run.
    const std::size_t m = 8192 / sizeof(accumulator_t<T>) + simd::lanes<T> + 3;
    const std::size_t n = std::max<std::size_t>(11, tensorops::detail::register_tile_limit / (2 * m * sizeof(T)) + 2);  // groups of 4 + 3
    const std::vector<std::size_t> sizes{n, m};
    struct variant {
        scan_operation op;
        axis_direction direction;
        bool exclusive, in_place;
    };
    const variant variants[] = {{scan_operation::sum, axis_direction::increasing, false, false},
                                {scan_operation::sum, axis_direction::increasing, true, true},
                                {scan_operation::product, axis_direction::decreasing, true, false},
                                {scan_operation::sum, axis_direction::decreasing, false, true},
                                {scan_operation::product, axis_direction::increasing, false, true}};
    for (const variant& v : variants) {
        std::vector<T> values(n * m);
        for (auto& x : values) x = random_input<T>(rng, v.op);
        guarded_buffer<T> input(sizes, tensorops_test::random_strides(rng, sizes, tensorops_test::layout_kind::packed), 1);
        guarded_buffer<T> separate(sizes, input.strides());
        input.assign(values);
        const scan_options options{0, v.direction, v.exclusive};
        if (v.in_place) run<T>(v.op, input.const_view(), input.view(), options);
        else run<T>(v.op, input.const_view(), separate.view(), options);
        const auto expected = ref::cumulative(ref::dense<T>(sizes, values), 0, v.direction == axis_direction::decreasing, v.exclusive, v.op);
        const auto actual = v.in_place ? input.values() : separate.values();
        std::vector<long double> absolute(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) absolute[i] = std::fabs(ref::widen(values[i]));
        const auto magnitude = ref::cumulative(ref::dense<long double>(sizes, absolute), 0, v.direction == axis_direction::decreasing,
                                               v.exclusive, v.op);
        INFO("[" << n << ", " << m << "] exclusive " << v.exclusive << " in place " << v.in_place);
        REQUIRE(input.untouched_outside_view());
        REQUIRE(separate.untouched_outside_view());
        std::size_t failures = 0;
        for (std::size_t i = 0; i < actual.size() && failures < 5; ++i) {
            bool good;
            if constexpr (std::is_integral_v<T>) {
                good = actual[i] == expected.values[i];
            } else {
                good = std::fabs(ref::widen(actual[i]) - expected.values[i]) <= tolerance<T>(v.op, n, magnitude.values[i]);
            }
            if (!good) {
                ++failures;
                FAIL_CHECK("element " << i << ": got " << static_cast<double>(ref::widen(actual[i])) << ", expected "
                                      << static_cast<double>(expected.values[i]));
            }
        }
    }
}

TEST_CASE("cumulative: float16 carries a float past 2048 and rounds once per output") {
    std::vector<float16> ones(5000, float16(1.0f)), out(5000);
    for (int exclusive = 0; exclusive < 2; ++exclusive) {
        for (std::size_t layout = 0; layout < 2; ++layout) {
            // Contiguous ([5000]) and across rows ([5000, 1] broadcast to a row of 16 through stride 0 input).
            if (layout == 0) {
                cumulative_sum(tensor_view<const float16>(ones.data(), {5000}), tensor_view<float16>(out.data(), {5000}),
                               {0, axis_direction::increasing, exclusive == 1});
                for (std::size_t i = 0; i < 5000; ++i)
                    REQUIRE(out[i].to_bits() == float16(static_cast<float>(i + (exclusive ? 0 : 1))).to_bits());
            } else {
                std::vector<float16> rows(5000 * 16);
                cumulative_sum(tensor_view<const float16>(ones.data(), {5000, 16}, {1, 0}),
                               tensor_view<float16>(rows.data(), {5000, 16}), {0, axis_direction::increasing, exclusive == 1});
                for (std::size_t i = 0; i < 5000; ++i)
                    for (std::size_t j = 0; j < 16; ++j)
                        REQUIRE(rows[i * 16 + j].to_bits() == float16(static_cast<float>(i + (exclusive ? 0 : 1))).to_bits());
            }
        }
    }
    CHECK(static_cast<float>(out[4999]) == 5000.0f);
}

TEST_CASE("cumulative: integers wrap around") {
    std::vector<std::int8_t> x{100, 100, 100, -128}, y(4);
    cumulative_sum(tensor_view<const std::int8_t>(x.data(), {4}), tensor_view<std::int8_t>(y.data(), {4}));
    CHECK(y == std::vector<std::int8_t>{100, -56, 44, -84});
    cumulative_product(tensor_view<const std::int8_t>(x.data(), {4}), tensor_view<std::int8_t>(y.data(), {4}));
    CHECK(y == std::vector<std::int8_t>{100, 16, 64, 0});
    std::vector<std::uint64_t> big{~std::uint64_t{0}, 2}, big_out(2);
    cumulative_sum(tensor_view<const std::uint64_t>(big.data(), {2}), tensor_view<std::uint64_t>(big_out.data(), {2}));
    CHECK(big_out == std::vector<std::uint64_t>{~std::uint64_t{0}, 1});
    std::vector<std::int64_t> extremes{std::numeric_limits<std::int64_t>::max(), 3}, extremes_out(2);
    cumulative_product(tensor_view<const std::int64_t>(extremes.data(), {2}), tensor_view<std::int64_t>(extremes_out.data(), {2}));
    CHECK(extremes_out[1] == std::numeric_limits<std::int64_t>::max() - 2);  // (2^63 - 1)·3 ≡ 2^63 - 3 (mod 2^64)
}

TEMPLATE_LIST_TEST_CASE("cumulative: NaN and infinities flow through", "", tensorops_test::floating_types_with_bfloat16) {
    using T = TestType;
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t n : {5u, 40u}) {  // the scalar tail and the vector loop
        std::vector<T> x(n, T(1.0f)), y(n);
        x[1] = T(inf);
        x[n - 2] = T(nan);
        cumulative_sum(tensor_view<const T>(x.data(), {n}), tensor_view<T>(y.data(), {n}));
        CHECK(static_cast<float>(y[0]) == 1.0f);
        for (std::size_t i = 1; i + 2 < n; ++i) CHECK(static_cast<float>(y[i]) == inf);
        CHECK(std::isnan(static_cast<float>(y[n - 2])));
        CHECK(std::isnan(static_cast<float>(y[n - 1])));
        x.assign(n, T(2.0f));
        x[2] = T(-inf);
        x[3] = T(inf);
        cumulative_sum(tensor_view<const T>(x.data(), {n}), tensor_view<T>(y.data(), {n}));
        CHECK(static_cast<float>(y[2]) == -inf);
        CHECK(std::isnan(static_cast<float>(y[3])));
        x.assign(n, T(1.0f));
        x[1] = T(0.0f);
        x[2] = T(inf);
        cumulative_product(tensor_view<const T>(x.data(), {n}), tensor_view<T>(y.data(), {n}));
        CHECK(static_cast<float>(y[1]) == 0.0f);
        CHECK(std::isnan(static_cast<float>(y[2])));  // 0 · inf
    }
}

using tensorops_test::mod_prime;

TEST_CASE("cumulative: a user-defined element type takes the generic path") {
    test_rng rng("cumulative user type");
    INFO(rng.describe());
    for (int trial = 0; trial < 30; ++trial) {
        const std::size_t rank = rng.uniform<std::size_t>(1, 5);
        const auto sizes = tensorops_test::random_sizes(rng, rank, 300);
        std::vector<mod_prime> values(ref::dense<int>::element_count(sizes));
        for (auto& v : values) v.value = rng.uniform<std::int64_t>(0, mod_prime::p - 1);
        guarded_buffer<mod_prime> input(sizes, tensorops_test::random_strides(rng, sizes, tensorops_test::layout_kind::mixed));
        guarded_buffer<mod_prime> output(sizes, tensorops_test::random_strides(rng, sizes, tensorops_test::layout_kind::transposed));
        input.assign(values);
        const scan_options options{rng.uniform<std::size_t>(0, rank - 1), trial % 2 ? axis_direction::decreasing : axis_direction::increasing, trial % 3 == 1};
        const scan_operation op = trial % 4 < 2 ? scan_operation::sum : scan_operation::product;
        if (op == scan_operation::sum) cumulative_sum(input.const_view(), output.view(), options);
        else cumulative_product(input.const_view(), output.view(), options);
        const auto expected = ref::cumulative(ref::dense<mod_prime>(sizes, values), options.axis,
                                              options.direction == axis_direction::decreasing, options.exclusive, op);
        CHECK(output.values() == expected.values);
        CHECK(output.untouched_outside_view());
    }
}

TEST_CASE("cumulative: cumulative_scan with a caller's operation, applied in traversal order") {
    std::vector<std::string> words{"a", "b", "c"}, out(3);
    const auto concatenate = [](const std::string& running, const std::string& next) { return running + next; };
    cumulative_scan(tensor_view<const std::string>(words.data(), {3}), tensor_view<std::string>(out.data(), {3}), {}, concatenate,
                    std::string());
    CHECK(out == std::vector<std::string>{"a", "ab", "abc"});
    cumulative_scan(tensor_view<const std::string>(words.data(), {3}), tensor_view<std::string>(out.data(), {3}),
                    {0, axis_direction::decreasing, true}, concatenate, std::string("<"));
    CHECK(out == std::vector<std::string>{"<cb", "<c", "<"});
    std::vector<float> x{3, 1, 4, 1, 5, 9, 2, 6}, running_max(8);
    cumulative_scan(tensor_view<const float>(x.data(), {8}), tensor_view<float>(running_max.data(), {8}), {},
                    [](float a, float b) { return a < b ? b : a; }, -std::numeric_limits<float>::infinity());
    CHECK(running_max == std::vector<float>{3, 3, 4, 4, 5, 9, 9, 9});
}

TEST_CASE("cumulative: empty tensors are a no-op") {
    std::vector<float> out(4, 7.0f);
    cumulative_sum(tensor_view<const float>(nullptr, {3, 0}), tensor_view<float>(out.data(), {3, 0}), {1});
    CHECK(out == std::vector<float>(4, 7.0f));
}

TEST_CASE("cumulative and reduce: subnormals are preserved (no flush to zero)") {
    const float tiny = std::numeric_limits<float>::denorm_min();
    for (std::size_t n : {3u, 40u}) {  // scalar tail and vector loops
        std::vector<float> x(n, tiny), y(n);
        cumulative_sum(tensor_view<const float>(x.data(), {n}), tensor_view<float>(y.data(), {n}));
        for (std::size_t i = 0; i < n; ++i) CHECK(y[i] == static_cast<float>(i + 1) * tiny);
        float sum = 0, maximum = 0;
        reduce(tensor_view<const float>(x.data(), {n}), tensor_view<float>(&sum, {1}), reduce_function::sum, {0});
        reduce(tensor_view<const float>(x.data(), {n}), tensor_view<float>(&maximum, {1}), reduce_function::max, {0});
        CHECK(sum == static_cast<float>(n) * tiny);
        CHECK(maximum == tiny);
    }
}

// Rows narrower than a vector (2 to lanes − 1 columns, contiguous), scanned over the rows: one pass with every column in
// one register (ops/detail/scan/outer.hpp, scan_narrow_rows). Each column must hold exactly the bits of the strided walk
// of that column alone (a 1-D view of it: the scalar column kernel), for every direction, exclusive, in place, rows
// apart by more than their width and misaligned outputs; integers against the reference too. Widths from 2 to
// lanes + 1 cross into the across-rows kernels at lanes.
TEMPLATE_LIST_TEST_CASE("cumulative: rows narrower than a vector, over the rows, bit for bit the column walk", "", tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng(std::string("cumulative narrow rows ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    for (std::size_t m = 2; m <= simd::lanes<T> + 1; ++m) {
        const std::size_t n = rng.uniform<std::size_t>(1, 300);
        const std::size_t pitch = m + (rng.chance(0.5) ? 0 : rng.uniform<std::size_t>(1, 5));
        const std::vector<std::size_t> sizes{n, m};
        const std::vector<std::ptrdiff_t> strides{static_cast<std::ptrdiff_t>(pitch), 1};
        const scan_operation op = rng.chance(0.5) ? scan_operation::sum : scan_operation::product;
        const scan_options options{0, rng.chance(0.5) ? axis_direction::decreasing : axis_direction::increasing, rng.chance(0.5)};
        const bool in_place = rng.chance(0.3);
        std::vector<T> values(n * m);
        for (auto& v : values) v = random_input<T>(rng, op);
        guarded_buffer<T> input(sizes, strides, rng.uniform<std::size_t>(0, 3));
        guarded_buffer<T> output(sizes, strides, rng.uniform<std::size_t>(0, 3));
        guarded_buffer<T> columns(sizes, strides, rng.uniform<std::size_t>(0, 3));
        input.assign(values);
        guarded_buffer<T> column_input(sizes, strides);
        column_input.assign(values);
        INFO("[" << n << ", " << m << "], rows " << pitch << " apart, " << (op == scan_operation::sum ? "sum" : "product")
                 << (options.direction == axis_direction::decreasing ? " decreasing" : " increasing") << " exclusive " << options.exclusive
                 << " in place " << in_place);
        if (in_place) run<T>(op, input.const_view(), input.view(), options);
        else run<T>(op, input.const_view(), output.view(), options);
        for (std::size_t j = 0; j < m; ++j) {  // each column alone: a strided 1-D view
            const tensor_view<const T> in_column(column_input.const_view().data() + j, {n}, {strides[0]});
            const tensor_view<T> out_column(columns.view().data() + j, {n}, {strides[0]});
            run<T>(op, in_column, out_column, {0, options.direction, options.exclusive});
        }
        const auto actual = in_place ? input.values() : output.values();
        const auto expected = columns.values();
        REQUIRE(input.untouched_outside_view());
        REQUIRE(output.untouched_outside_view());
        REQUIRE(actual.size() == expected.size());
        CHECK(std::memcmp(actual.data(), expected.data(), actual.size() * sizeof(T)) == 0);
        if constexpr (std::is_integral_v<T>) {
            CHECK(actual == ref::cumulative(ref::dense<T>(sizes, values), 0, options.direction == axis_direction::decreasing, options.exclusive, op).values);
        }
    }
}
