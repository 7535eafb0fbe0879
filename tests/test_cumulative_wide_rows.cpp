// Scans over an outer axis of wide rows, every output against the band rule (ops/detail/scan/policy.hpp "Blocks")
// computed here element by element, bit for bit, on one thread and on a pool; integers against the reference:
// - a few very wide rows (a row of half a band's bytes or more: bands of one row), as wide as one band, with several
//   column blocks and a ragged vector tail, in shapes of 2, 3 and 5 rows and one with an outer dimension;
// - bands of many rows whose column blocks' carry rows are wide enough for the band kernel to take its rows in groups
//   (grouped_carry_bytes), three bands (the last a few rows: a group and a remainder);
// - and at the other end, rows of one or two vectors (whole or ragged), whose running row the kernels keep in
//   registers (scan_rows_in_registers): two bands and a row, and a single band.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "reference.hpp"
#include "support.hpp"

namespace {

namespace wide_ref = tensorops_test::reference;
using tensorops::axis_direction;
using tensorops::scan_options;
using tensorops::tensor_view;

enum class wide_operation { sum, product };

// The band rule along axis 0 of [n, m] (a rank-3 shape: per outer index), bands of `band` rows, in the compute type:
// within a band the running value starts from the identity e (r = e ∘ x_first ∘ …); band 0 writes its running values
// (exclusive: the value before each row's), band b > 0 writes P_b ∘ them, with P_1 = band 0's total and
// P_b+1 = P_b ∘ band b's total. Rows and bands taken in scan order (from the last row when decreasing).
template <class T>
std::vector<T> band_rule(const std::vector<T>& x, std::size_t outer, std::size_t n, std::size_t m, std::size_t band,
                         wide_operation op, bool decreasing, bool exclusive) {
    using C = tensorops::simd::compute_t<T>;
    const C e = op == wide_operation::sum ? C(0) : C(1);
    const auto combine = [&](C a, C b) { return op == wide_operation::sum ? C(a + b) : C(a * b); };
    std::vector<T> y(x.size());
    for (std::size_t o = 0; o < outer; ++o)
        for (std::size_t j = 0; j < m; ++j) {
            C prefix = e, running = e;
            for (std::size_t k = 0; k < n; ++k) {
                const std::size_t row = decreasing ? n - 1 - k : k, band_number = k / band;
                if (k % band == 0 && band_number > 0) {  // a new band: the prefix takes in the last band's total
                    prefix = band_number == 1 ? running : combine(prefix, running);
                    running = e;
                }
                const std::size_t at = (o * n + row) * m + j;
                const C before = running;
                running = combine(running, static_cast<C>(x[at]));
                const C local = exclusive ? before : running;
                y[at] = static_cast<T>(band_number == 0 ? local : combine(prefix, local));
            }
        }
    return y;
}

template <class T, class E>
void scan(E&& exec, wide_operation op, tensor_view<const T> in, tensor_view<T> out, scan_options options) {
    if (op == wide_operation::sum) tensorops::cumulative_sum<T>(exec, in, out, options);
    else tensorops::cumulative_product<T>(exec, in, out, options);
}

/// `count` values for sums and products alike: floating ones of magnitude in [0.5, 1.5), and −0 (e + −0 = +0: the one
/// value e ∘ x changes), drawn as integers (the reals' generator is the slowest part of a test at these sizes).
template <class T>
std::vector<T> wide_values(tensorops_test::test_rng& rng, std::size_t count) {
    std::vector<T> values(count);
    for (auto& x : values) {
        if constexpr (std::is_integral_v<T>) x = tensorops_test::random_value<T>(rng);
        else {
            const auto r = rng.uniform<std::uint32_t>(0, 4095);
            x = static_cast<T>(r < 80 ? -0.0 : (r % 2 == 0 ? 1.0 : -1.0) * (0.5 + static_cast<double>(r / 2) / 2048.0));
        }
    }
    return values;
}

/// A call of the tests below: the operation, the direction, exclusive, in place, on a pool of two threads.
struct wide_call {
    wide_operation op;
    bool decreasing, exclusive, in_place, on_pool;
};

/// Runs call v over axis rank − 2 of `values` (shape `sizes`, rank 2 or 3: [outer,] n, m) and returns the first
/// element that differs from the band rule in bands of `band` rows (floating types: bit for bit) or from the reference
/// (integers), or the element count when none does.
template <class T>
std::size_t first_off_rule(const std::vector<T>& values, const std::vector<std::size_t>& sizes, std::size_t band,
                           const wide_call& v, tensorops::thread_pool& pool) {
    const std::size_t axis = sizes.size() - 2, count = values.size();
    std::vector<T> out(count, T(7)), inout = values;
    const scan_options options{axis, v.decreasing ? axis_direction::decreasing : axis_direction::increasing,
                               v.exclusive};
    const auto run_on = [&](auto&& exec) {
        if (v.in_place)
            scan<T>(exec, v.op, tensor_view<const T>(inout.data(), sizes), tensor_view<T>(inout.data(), sizes),
                    options);
        else
            scan<T>(exec, v.op, tensor_view<const T>(values.data(), sizes), tensor_view<T>(out.data(), sizes), options);
    };
    if (v.on_pool) run_on(pool);
    else run_on(tensorops::sequential);
    const std::vector<T>& actual = v.in_place ? inout : out;
    if constexpr (std::is_integral_v<T>) {
        const auto expected = wide_ref::cumulative(wide_ref::dense<T>(sizes, values), axis, v.decreasing, v.exclusive,
                                                   v.op == wide_operation::sum ? wide_ref::scan_operation::sum
                                                                               : wide_ref::scan_operation::product);
        for (std::size_t i = 0; i < count; ++i)
            if (actual[i] != expected.values[i]) return i;
    } else {
        const std::size_t outer = sizes.size() == 3 ? sizes[0] : 1;
        const auto expected =
            band_rule(values, outer, sizes[axis], sizes[axis + 1], band, v.op, v.decreasing, v.exclusive);
        for (std::size_t i = 0; i < count; ++i)
            if (!tensorops_test::same_bits(actual[i], expected[i])) return i;
    }
    return count;
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("cumulative: a few rows of a band or more, over the outer axis, give the band rule's bits", "",
                        tensorops_test::builtin_types) {
    using T = TestType;
    tensorops_test::test_rng rng(std::string("cumulative wide rows ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    const std::size_t m = tensorops::detail::scan_band_bytes / sizeof(T) + tensorops::detail::carry_block_width<T> + tensorops::simd::lanes<T> + 3;
    REQUIRE(tensorops::detail::band_rows(m, sizeof(T)) == 1);
    tensorops::thread_pool pool(2);
    struct shape_case {
        std::size_t outer, n;
    };
    const shape_case shapes[] = {{1, 2}, {1, 3}, {1, 5}, {2, 3}};
    const wide_call variants[] = {{wide_operation::sum, false, false, false, false},
                                  {wide_operation::sum, true, true, false, true},
                                  {wide_operation::sum, false, true, true, false},
                                  {wide_operation::product, true, false, true, true},
                                  {wide_operation::product, false, true, false, false},
                                  {wide_operation::sum, true, false, false, true}};
    for (std::size_t shape_number = 0; shape_number < std::size(shapes); ++shape_number) {
        // Sanitised builds: each type takes half of the shapes (every shape still meets half of the types).
        if (!tensorops_test::runs_in_this_build(shape_number + tensorops_test::type_position<T, tensorops_test::builtin_types>)) continue;
        const auto [outer, n] = shapes[shape_number];
        const std::vector<std::size_t> sizes = outer == 1 ? std::vector<std::size_t>{n, m} : std::vector<std::size_t>{outer, n, m};
        const std::size_t count = outer * n * m;
        const std::vector<T> values = wide_values<T>(rng, count);
        // Two variants a shape, every variant met (sanitised builds: one a shape, on one thread and on the pool).
        for (std::size_t k = 0; k < 2; ++k) {
            if (!tensorops_test::runs_in_this_build(shape_number + k)) continue;
            const wide_call& v = variants[(2 * shape_number + k) % std::size(variants)];
            INFO("[" << outer << ", " << n << ", " << m << "] decreasing " << v.decreasing << ", exclusive " << v.exclusive << ", in place "
                     << v.in_place << ", pool " << v.on_pool << ", product " << (v.op == wide_operation::product));
            const std::size_t wrong = first_off_rule(values, sizes, 1, v, pool);
            INFO("first wrong element " << wrong << " of " << count);
            REQUIRE(wrong == count);
        }
    }
}

TEMPLATE_LIST_TEST_CASE("cumulative: bands of rows with wide carry rows, taken in groups, give the band rule's bits",
                        "", tensorops_test::builtin_types) {
    using T = TestType;
    using C = tensorops::simd::compute_t<T>;
    const std::string type_name(tensorops_test::type_name<T>());
    tensorops_test::test_rng rng("cumulative grouped wide rows " + type_name);
    INFO(rng.describe());
    // Rows whose first column block's carry row reaches grouped_carry_bytes, a ragged block and vector after it.
    const std::size_t m = tensorops::detail::grouped_carry_bytes / sizeof(C) + tensorops::simd::lanes<T> + 3;
    const std::size_t band = tensorops::detail::band_rows(m, sizeof(T));
    REQUIRE(band >= 2 * tensorops::detail::carry_group_rows);
    REQUIRE(tensorops::detail::groups_rows<T>(3 * band, m));
    const std::size_t n = 2 * band + tensorops::detail::carry_group_rows + 1;
    const std::vector<std::size_t> sizes{n, m};
    const std::vector<T> values = wide_values<T>(rng, n * m);
    tensorops::thread_pool pool(2);
    const wide_call variants[] = {{wide_operation::sum, false, false, false, false},
                                  {wide_operation::product, true, true, false, false},
                                  {wide_operation::sum, true, false, true, false},
                                  {wide_operation::sum, false, true, false, true}};
    for (std::size_t k = 0; k < std::size(variants); ++k) {
        // Sanitised builds: each type takes one variant in three (every variant meets several types).
        const std::size_t type_number = tensorops_test::type_position<T, tensorops_test::builtin_types>;
        if (!tensorops_test::runs_in_this_build(k + type_number)) continue;
        const wide_call& v = variants[k];
        INFO("[" << n << ", " << m << "] bands of " << band << ", decreasing " << v.decreasing << ", exclusive "
                 << v.exclusive << ", in place " << v.in_place << ", pool " << v.on_pool << ", product "
                 << (v.op == wide_operation::product));
        const std::size_t wrong = first_off_rule(values, sizes, band, v, pool);
        INFO("first wrong element " << wrong << " of " << values.size());
        REQUIRE(wrong == values.size());
    }
}

TEMPLATE_LIST_TEST_CASE("cumulative: rows of a vector or two, their running row in registers, give the band rule's bits", "",
                        tensorops_test::builtin_types) {
    using T = TestType;
    constexpr std::size_t W = tensorops::simd::lanes<T>;
    tensorops_test::test_rng rng(std::string("cumulative rows in registers ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    tensorops::thread_pool pool(2);
    const std::size_t widths[] = {W, W + 3, 2 * W};
    const wide_call variants[] = {{wide_operation::sum, false, false, false, false},
                                  {wide_operation::product, true, true, false, false},
                                  {wide_operation::sum, true, false, true, false},
                                  {wide_operation::sum, false, true, true, false},
                                  {wide_operation::product, false, false, false, true},
                                  {wide_operation::sum, true, true, false, true}};
    std::size_t combination = 0;
    for (const std::size_t m : widths) {
        const std::size_t band = tensorops::detail::band_rows(m, sizeof(T));
        // Two bands and a row (megabytes: the sanitised builds run a share), and one band of a few hundred rows.
        for (const std::size_t n : {2 * band + 1, std::size_t{300}}) {
            const std::vector<std::size_t> sizes{n, m};
            const std::vector<T> values = wide_values<T>(rng, n * m);
            for (std::size_t k = 0; k < 2; ++k, ++combination) {
                if (n > band && !tensorops_test::runs_in_this_build(combination + tensorops_test::type_position<T, tensorops_test::builtin_types>, 4))
                    continue;
                const wide_call& v = variants[combination % std::size(variants)];
                INFO("[" << n << ", " << m << "] bands of " << band << ", decreasing " << v.decreasing << ", exclusive " << v.exclusive
                         << ", in place " << v.in_place << ", pool " << v.on_pool << ", product " << (v.op == wide_operation::product));
                const std::size_t wrong = first_off_rule(values, sizes, band, v, pool);
                INFO("first wrong element " << wrong << " of " << values.size());
                REQUIRE(wrong == values.size());
            }
        }
    }
}

// Where every output row starts the same few columns before a vector boundary (a row pitch of whole vectors), the
// across-rows kernels walk those columns on their own and store the others on vector boundaries (outer_rows.hpp,
// columns_before_vector_boundary); the columns are independent, so the bits are the band rule's wherever the output
// starts: outputs and inputs at several element offsets from a 64-byte line, in bands of rows and in one band (the
// kernel carried by the output), on one thread and on a pool.
TEMPLATE_TEST_CASE("cumulative: outputs starting anywhere within a vector give the band rule's bits", "", float, double,
                   tensorops::float16) {
    using T = TestType;
    constexpr std::size_t W = tensorops::simd::lanes<T>;
    tensorops_test::test_rng rng(std::string("cumulative aligned heads ") +
                                 std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    tensorops::thread_pool pool(2);
    struct shape_case {
        std::size_t n, m;
    };
    // Rows of a carry block and eight vectors: bands of a few dozen rows, three of them; and one band of 40 rows.
    const std::size_t wide = tensorops::detail::carry_block_width<T> + 8 * W;
    const std::size_t band = tensorops::detail::band_rows(wide, sizeof(T));
    const shape_case shapes[] = {{2 * band + 3, wide}, {40, 64 * W}};
    const wide_call variants[] = {{wide_operation::sum, false, false, false, false},
                                  {wide_operation::sum, true, true, true, true},
                                  {wide_operation::product, false, true, false, true}};
    const std::size_t offsets[] = {0, 1, W / 2, W - 1};
    std::size_t combination = 0;
    for (const auto& [n, m] : shapes) {
        const std::vector<std::size_t> sizes{n, m};
        const std::size_t count = n * m;
        const std::vector<T> values = wide_values<T>(rng, count);
        const std::vector<T> expected_by_call[] = {
            band_rule(values, 1, n, m, tensorops::detail::band_rows(m, sizeof(T)), variants[0].op, false, false),
            band_rule(values, 1, n, m, tensorops::detail::band_rows(m, sizeof(T)), variants[1].op, true, true),
            band_rule(values, 1, n, m, tensorops::detail::band_rows(m, sizeof(T)), variants[2].op, false, true)};
        for (const std::size_t offset : offsets) {
            for (std::size_t k = 0; k < std::size(variants); ++k) {
                // Sanitised builds: a share of the (offset, variant) pairs, every offset and variant met.
                if (!tensorops_test::runs_in_this_build(combination++)) continue;
                const wide_call& v = variants[k];
                INFO("[" << n << ", " << m << "] output " << offset << " elements past a line, decreasing "
                         << v.decreasing << ", exclusive " << v.exclusive << ", in place " << v.in_place << ", pool "
                         << v.on_pool);
                // guarded_buffer starts its view the given number of elements past a 64-byte boundary.
                const std::vector<std::ptrdiff_t> packed{static_cast<std::ptrdiff_t>(m), 1};
                tensorops_test::guarded_buffer<T> input(sizes, packed, (offset + 3) % W);  // elsewhere within its line
                tensorops_test::guarded_buffer<T> separate(sizes, packed, offset);
                input.assign(values);
                const scan_options options{0, v.decreasing ? axis_direction::decreasing : axis_direction::increasing, v.exclusive};
                if (v.on_pool) scan<T>(pool, v.op, input.const_view(), v.in_place ? input.view() : separate.view(), options);
                else scan<T>(tensorops::sequential, v.op, input.const_view(), v.in_place ? input.view() : separate.view(), options);
                const std::vector<T> output = v.in_place ? input.values() : separate.values();
                std::size_t wrong = count;
                for (std::size_t i = 0; i < count && wrong == count; ++i)
                    if (!tensorops_test::same_bits(output[i], expected_by_call[k][i])) wrong = i;
                INFO("first wrong element " << wrong << " of " << count);
                REQUIRE(wrong == count);
            }
        }
    }
}
