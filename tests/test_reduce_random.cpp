// reduce: random shapes, axes and layouts for every function × element type against the long-double reference.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
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

TEMPLATE_LIST_TEST_CASE("reduce: random shapes, axes and layouts against the reference", "", tensorops_test::random_test_types) {
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


// The outer kernel streams whole rows into rows of accumulators: rows wider than its panel are cut (panels of
// 2048–8192 lanes, a partial vector at the end), narrow rows that lie back to back are fused into wide ones (with
// single rows left over), float sums climb a three-level cascade every 128 rows and every 128 blocks,
// log-sum-exp works in blocks of 64 rows, argmax/argmin in groups of 4. Shapes past each of those edges, for every
// function; [17000, 9] with a row stride of 10 has narrow rows that are not adjacent, so 17000 single rows reach the
// cascade's top level; rows narrower than a vector are fused when adjacent ([5001, 3], [2, 777, 2]) and left to the
// scalar kernel when not ([300, 3] with a row stride of 5).
TEMPLATE_LIST_TEST_CASE("reduce: outer layout past the panel width, the cascade levels and the row blocks", "",
                        tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng(std::string("reduce outer edges ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    using tensorops_test::layout_kind;
    struct edge_case {
        std::vector<std::size_t> sizes, axes;
        std::vector<std::ptrdiff_t> strides;  // empty: packed
    };
    const std::vector<edge_case> cases{{{3, 8195}, {0}, {}},   {{2, 3, 16411}, {0, 1}, {}}, {{17000, 9}, {0}, {}},
                                       {{131, 37}, {0}, {}},   {{64, 40}, {0}, {}},         {{65, 40}, {0}, {}},
                                       {{1001, 300}, {0}, {}}, {{17000, 9}, {0}, {10, 1}},  {{5001, 3}, {0}, {}},
                                       {{2, 777, 2}, {1}, {}}, {{300, 3}, {0}, {5, 1}}};
    for (std::size_t case_index = 0; case_index < cases.size(); ++case_index) {
        const auto& c = cases[case_index];
        const auto& sizes = c.sizes;
        for (std::size_t function_index = 0; function_index < std::size(value_functions); ++function_index) {
            const reduce_function f = value_functions[function_index];
            if (std::is_integral_v<T> && !integer_capable(f)) continue;
            if (!tensorops_test::runs_in_this_build(case_index + function_index, 4)) continue;
            INFO("shape " << sizes[0] << " x " << sizes[1] << (sizes.size() == 3 ? " x " + std::to_string(sizes[2]) : std::string()));
            const auto strides = c.strides.empty() ? tensorops_test::random_strides(rng, sizes, layout_kind::packed) : c.strides;
            check_reduce<T>(rng, f, sizes, c.axes, strides, layout_kind::packed);
        }
    }
}

// Rows reduced over an outer axis are folded two at a time once blocks of 128 rows lie at least 2 MiB apart
// (ops/detail/reduce/outer.hpp, row_units): in windows of 2 · d blocks, block j beside block j + d (d the fewest blocks
// 2 MiB apart), row i of one with row i of the other. Back-to-back rows of 2 KiB fused two at a time with one row left
// over ([1541, 2048 bytes]: 770 fused rows, 7 blocks, d = 4: one window cut short, three pairs, the last partner cut
// short, the middle block alone); rows of 8200 bytes (not fused; 790 rows, 7 blocks, d = 2: a whole window, then one
// of three blocks — a pair whose partner is cut short and a block alone); rows of 16 KiB and a lane, wider than a
// panel, with a partial vector at the end (d = 1: a window, and a block alone). Every function against the reference,
// each on one of the shapes (float16: on two; in sanitised builds fewer), for element types of every width and float16
// (whose lanes are wider than its elements).
TEMPLATE_TEST_CASE("reduce: rows over an outer axis folded in far-apart pairs, against the reference", "", tensorops::float16,
                   float, double, std::int32_t, std::uint8_t) {
    using T = TestType;
    test_rng rng(std::string("reduce far row pairs ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    struct pair_case {
        std::size_t rows, columns, fused;
    };
    struct windows {
        std::size_t distance, units;
    };
    const pair_case cases[] = {{1541, 2048 / sizeof(T), 2},
                               {790, 8200 / sizeof(T), 1},
                               {260, 16384 / sizeof(T) + 1, 1}};
    const windows planned[] = {{4, 4}, {2, 4}, {1, 2}};
    for (std::size_t case_index = 0; case_index < std::size(cases); ++case_index) {
        const auto& c = cases[case_index];
        const std::vector<std::size_t> sizes{c.rows, c.columns};
        INFO("shape " << c.rows << " x " << c.columns);
        // The kernel fuses and pairs these rows as described (in a build with the vector kernels, which the plan is for).
        const auto plan = tensorops::detail::row_units::of_line<T>(c.columns, c.rows, static_cast<std::ptrdiff_t>(c.columns));
        CHECK(plan.fuse == c.fused);
        CHECK(plan.paired());
        CHECK(plan.distance == planned[case_index].distance);
        CHECK(plan.units == planned[case_index].units);
        for (std::size_t function_index = 0; function_index < std::size(value_functions); ++function_index) {
            if (std::is_integral_v<T> && !integer_capable(value_functions[function_index])) continue;
            // float16 (paired first, and the slowest kernel to pair) on two of the shapes, the other types on one.
            const bool on_this_shape = std::is_same_v<T, tensorops::float16> ? (function_index + case_index) % 3 != 2 : (function_index + case_index) % 3 == 0;
            if (!on_this_shape || !tensorops_test::runs_in_this_build(function_index + case_index, 6)) continue;
            check_reduce<T>(rng, value_functions[function_index], sizes, {0}, tensorops_test::layout_kind::packed, tensorops_test::layout_kind::packed);
        }
    }
}

// A line of at most few_rows_max rows that are not fused is walked a strip of columns at a time with its accumulators in
// registers (ops/detail/reduce/few_rows.hpp), a line of more rows wider than the L1 panel in stretches of
// outer_stretch_bytes, its unpaired rows folded rows_in_turn at a time (reduce_wide_rows). Both must keep each lane's
// order of operations: their bits must equal those of the panel walk of a group of lines (reduce_rows_of_group), which
// walks a line of unpaired rows one row at a time in the same order — zeros of both signs and NaN in the input, SUM and
// MAX; and every function against the reference on the same shapes: few rows (1, few_rows_max, and with a padded row
// stride), wide rows with a group's remainder (few_rows_max + 1 rows, 7 and 130 rows: two units), a row of two
// stretches and a partial vector, rows not back to back.
TEMPLATE_TEST_CASE("reduce: lines of few rows and of wide rows keep the panel walk's bits", "", tensorops::float16, float, double,
                   std::uint32_t, std::uint8_t) {
    using T = TestType;
    using C = simd::compute_t<T>;
    namespace d = tensorops::detail;
    test_rng rng(std::string("reduce few and wide rows ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    struct line_case {
        std::size_t rows, columns, pitch;
    };
    const std::size_t page_row = 4100 / sizeof(T) + 1, wide_row = 16384 / sizeof(T) + 3, stretched = d::stretch_lanes<C> + 13;
    const line_case cases[] = {{1, page_row, page_row},
                               {d::few_rows_max, page_row, page_row},
                               {d::few_rows_max - 1, 3000, 3007},
                               {d::few_rows_max + 1, wide_row, wide_row},
                               {7, stretched, stretched},
                               {130, 8200 / sizeof(T) + 5, 8200 / sizeof(T) + 5},
                               {11, 3000, 3011}};
    for (std::size_t case_index = 0; case_index < std::size(cases); ++case_index) {
        const auto& c = cases[case_index];
        INFO("rows " << c.rows << " of " << c.columns << ", pitch " << c.pitch);
        std::vector<T> x(c.rows * c.pitch);
        for (auto& v : x) {
            v = tensorops_test::random_value<T>(rng);
            if constexpr (!std::is_integral_v<T>) {
                if (rng.chance(0.01)) v = static_cast<T>(rng.chance(0.5) ? -0.0f : 0.0f);
                if (rng.chance(0.0005)) v = std::numeric_limits<T>::quiet_NaN();
            }
        }
        const auto plan = d::row_units::of_line<T>(c.columns, c.rows, static_cast<std::ptrdiff_t>(c.pitch));
        CHECK(plan.fuse == 1);
        CHECK(!plan.paired());
        iter::loop_nest<2> group;
        group.rank = 1;
        group.sizes[0] = c.rows;
        group.strides[1][0] = static_cast<std::ptrdiff_t>(c.pitch);
        const auto same_as_panel_walk = [&](const auto& r) {
            std::vector<T> walked(c.columns), panels(c.columns);
            d::reduce_rows(x.data(), walked.data(), c.columns, group, c.rows, r);
            d::reduce_rows_of_group(x.data(), panels.data(), c.columns, group, c.rows, r);
            std::size_t differ = 0;
            for (std::size_t j = 0; j < c.columns; ++j) differ += tensorops_test::same_bits(walked[j], panels[j]) ? 0 : 1;
            CHECK(differ == 0);
        };
        same_as_panel_walk(d::sum_reduction<T, d::lift_kind::value, d::finish_kind::value>{});
        same_as_panel_walk(d::extreme_reduction<T, true>{});
        for (std::size_t function_index = 0; function_index < std::size(value_functions); ++function_index) {
            const reduce_function f = value_functions[function_index];
            if (std::is_integral_v<T> && !integer_capable(f)) continue;
            if ((function_index + case_index) % 3 != 0 || !tensorops_test::runs_in_this_build(function_index + case_index, 4)) continue;
            const std::vector<std::ptrdiff_t> strides{static_cast<std::ptrdiff_t>(c.pitch), 1};
            check_reduce<T>(rng, f, {c.rows, c.columns}, {0}, strides, tensorops_test::layout_kind::packed);
        }
    }
}

// The short-row kernel takes contiguous reduced runs of up to short_row_elements (64 vectors of up to 32 bytes), eight
// rows at a time (log-sum-exp: up to a quarter of that, log_sum_exp_short_row_elements): lengths below one vector (a partial load), at
// and around every vector boundary up to its limits and just past them (the general kernel again), with 1 to 19 rows
// (full groups and a remainder that repeats its last row), packed or with a padded row stride, under a second kept
// dimension.
TEMPLATE_LIST_TEST_CASE("reduce: short contiguous rows, every length class, groups of rows and their remainder", "",
                        tensorops_test::builtin_types) {
    using T = TestType;
    constexpr std::size_t W = simd::lanes<T>;
    test_rng rng(std::string("reduce short rows ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    constexpr std::size_t limit = tensorops::detail::short_row_elements<T>;
    constexpr std::size_t lse_limit = tensorops::detail::log_sum_exp_short_row_elements<T>;
    static_assert(lse_limit < limit);
    std::vector<std::size_t> lengths{1, 2, 3, W - 1, W, W + 1, 2 * W - 1, 2 * W + 3, 5 * W + 2,
                                     lse_limit - 1, lse_limit, lse_limit + 1, limit - 1, limit, limit + 1};
    lengths.push_back(rng.uniform<std::size_t>(W, limit));
    std::size_t case_index = 0;
    for (std::size_t length : lengths) {
        if (length == 0) continue;
        for (reduce_function f : value_functions) {
            if (std::is_integral_v<T> && !integer_capable(f)) continue;
            if (!tensorops_test::runs_in_this_build(case_index++)) continue;
            const std::size_t rows = rng.uniform<std::size_t>(1, 19), outer = rng.uniform<std::size_t>(1, 3);
            const std::vector<std::size_t> sizes{outer, rows, length};
            const std::size_t row_stride = length + (rng.chance(0.5) ? 0 : rng.uniform<std::size_t>(1, 5));
            const std::vector<std::ptrdiff_t> strides{static_cast<std::ptrdiff_t>(rows * row_stride), static_cast<std::ptrdiff_t>(row_stride), 1};
            INFO("rows " << outer << " x " << rows << " of " << length << ", row stride " << row_stride);
            check_reduce<T>(rng, f, sizes, {2}, strides, tensorops_test::layout_kind::mixed);
        }
    }
}

// Back-to-back rows narrower than a register (2 ≤ length ≤ narrow_row_max; 32- and 64-bit lanes, 8- and 16-bit
// integers widened to 32-bit lanes) take the narrow-row kernel, which assembles W rows' components from L whole
// registers by permutes and blends; it must give every row exactly the short-row kernel's value (reduce/narrow_rows.hpp),
// which the same rows with a padded row stride take —
// NaN, −0 and infinities included, for every whole group of W rows and the partial rest, into a packed or strided
// output. Lengths up to W + 1 cover both kernels' limits; types without the kernel must agree as well.
TEMPLATE_LIST_TEST_CASE("reduce: back-to-back narrow rows give each row the padded rows' value, bit for bit", "", tensorops_test::builtin_types) {
    using T = TestType;
    constexpr std::size_t W = simd::lanes<T>;
    test_rng rng(std::string("reduce narrow rows ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    std::size_t case_index = 0;
    for (std::size_t length = 2; length <= std::max<std::size_t>(W + 1, 5); ++length) {
        for (const std::size_t rows : {std::size_t{1}, W - 1, W, 3 * W + rng.uniform<std::size_t>(1, W)}) {
            if (rows == 0) continue;
            for (const reduce_function f : value_functions) {
                if (std::is_integral_v<T> && !integer_capable(f)) continue;
                if (!tensorops_test::runs_in_this_build(case_index++)) continue;
                std::vector<T> values(rows * length);
                for (auto& v : values) {
                    v = f == reduce_function::multiply ? static_cast<T>(rng.uniform_real(0.5, 1.5)) : tensorops_test::random_value<T>(rng);
                    if constexpr (!std::is_integral_v<T>) {
                        const double special = rng.uniform_real(0.0, 1.0);
                        if (special < 0.03) v = std::numeric_limits<T>::quiet_NaN();
                        else if (special < 0.06) v = static_cast<T>(-0.0);
                        else if (special < 0.08) v = static_cast<T>(special < 0.07 ? -1.0 : 1.0) * std::numeric_limits<T>::infinity();
                    }
                }
                const std::vector<std::size_t> sizes{rows, length}, out_sizes{rows, 1};
                guarded_buffer<T> packed(sizes, {static_cast<std::ptrdiff_t>(length), 1}), padded(sizes, {static_cast<std::ptrdiff_t>(length + 1), 1});
                packed.assign(values);
                padded.assign(values);
                const std::vector<std::ptrdiff_t> out_strides{rng.chance(0.5) ? 1 : 3, 1};
                guarded_buffer<T> got(out_sizes, out_strides), expected(out_sizes, out_strides);
                reduce(packed.const_view(), got.view(), f, {1});
                reduce(padded.const_view(), expected.view(), f, {1});
                INFO(rows << " rows of " << length << ", function " << static_cast<int>(f) << ", output stride " << out_strides[0]);
                const auto a = got.values(), b = expected.values();
                CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
                CHECK(got.untouched_outside_view());
            }
        }
    }
}

#if TENSOROPS_TEST_HAS_PAGE_GUARD
// Back-to-back rows shorter than a register are read a whole register each where the rows after them are input
// (reduce/short_rows.hpp, reduce_short_rows; argmax's short rows likewise): never past the tensor's last element. Rows
// ending at an inaccessible page, every length below a register and a few past it, with rows left over from the
// groups of eight and of W: a read past the last row faults; every value is the padded rows' (partial loads), bit
// for bit.
TEMPLATE_LIST_TEST_CASE("reduce: back-to-back short rows ending at an inaccessible page are read within the tensor", "",
                        tensorops_test::builtin_types) {
    using T = TestType;
    constexpr std::size_t W = simd::lanes<T>;
    test_rng rng(std::string("reduce rows at a page end ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    std::size_t case_index = 0;
    for (std::size_t length = 1; length <= W + 1; ++length) {
        for (const std::size_t rows : {std::size_t{1}, std::size_t{2}, std::size_t{9}, W + 3}) {
            for (const reduce_function f : {reduce_function::sum, reduce_function::max, reduce_function::log_sum_exp, reduce_function::argmax}) {
                if (std::is_integral_v<T> && f == reduce_function::log_sum_exp) continue;
                if (!tensorops_test::runs_in_this_build(case_index++)) continue;
                tensorops_test::page_end_array<T> packed(rows * length);
                std::vector<T> values(rows * length);
                for (auto& v : values) v = tensorops_test::random_value<T>(rng);
                std::copy(values.begin(), values.end(), packed.data());
                const std::vector<std::size_t> sizes{rows, length}, out_sizes{rows, 1};
                guarded_buffer<T> padded(sizes, {static_cast<std::ptrdiff_t>(length + 1), 1});
                padded.assign(values);
                const tensor_view<const T> packed_view(packed.data(), {rows, length});
                INFO(rows << " rows of " << length << ", function " << static_cast<int>(f));
                if (f == reduce_function::argmax) {
                    std::vector<std::int64_t> got(rows), expected(rows);
                    argmax(packed_view, tensor_view<std::int64_t>(got.data(), {rows, 1}), {1});
                    argmax(padded.const_view(), tensor_view<std::int64_t>(expected.data(), {rows, 1}), {1});
                    CHECK(got == expected);
                } else {
                    std::vector<T> got(rows), expected(rows);
                    reduce(packed_view, tensor_view<T>(got.data(), {rows, 1}), f, {1});
                    reduce(padded.const_view(), tensor_view<T>(expected.data(), {rows, 1}), f, {1});
                    CHECK(std::memcmp(got.data(), expected.data(), rows * sizeof(T)) == 0);
                }
            }
        }
    }
}
#endif

// Log-sum-exp of short rows whose maximum is not finite — all −inf, a +inf, a NaN — beside ordinary rows in the same
// group of eight: each row's own answer (SEMANTICS.md §2), whichever lane of the group it takes.
// Log-sum-exp along an outer axis takes blocks of lse_block_rows rows in one pass, eight rows at a time, shifting each
// lane by a reference (the maximum of the block's first four rows), keeping a maximum blind to NaN, and redoing with
// the exact shift every vector of lanes whose reference cannot serve or whose sum a NaN or +inf made NaN
// (log_sum_exp/outer.hpp, log_sum_exp_block). Columns of every kind, in every lane position of a vector and its partial
// tail, for block counts with rows left over and groups of eight cut short: each column's answer against the reference.
// Each kind also alone among ordinary columns: a vector is redone whole when one of its lanes is not served, so mixed
// with kinds that are never served, a kind's own one-pass result would go unchecked (a version that judged the
// reference by the sum alone, blind to terms past exp_over_power_of_two's range, passed the mixed columns).
TEMPLATE_TEST_CASE("reduce: log-sum-exp along an outer axis, where a block's reference is far from its maximum", "", float, double,
                   tensorops::float16) {
    using T = TestType;
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = static_cast<double>(std::bit_cast<float>(0x7FFFFFFFu));  // a payload in every mantissa bit
    test_rng rng(std::string("lse outer references ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    constexpr int kinds = 13;
    constexpr std::size_t block = tensorops::detail::lse_block_rows;
    const double other_nan = -static_cast<double>(std::bit_cast<float>(0x7FC00001u));  // sign and lowest payload bit
    const auto value = [&](int kind, std::size_t row, std::size_t column, std::size_t n) -> double {
        const std::size_t in_block = row % block;
        const double noise = rng.uniform_real(-3.0, 3.0);
        switch (kind) {
            case 1: return -inf;                                                         // every element −inf
            case 2: return in_block < 4 ? -inf : noise;                                  // the reference is −inf
            case 3: return row == (column * 7 + 5) % n ? 5.0 : -100.0 + noise;           // the maximum 105 above the rest
            case 4: return in_block == block - 1 || row + 1 == n ? 55.0 + noise : noise; // within reach: terms up to e^61
            case 5: return row == (column * 11 + 3) % n ? inf : noise;                   // one +inf
            case 6: return row == (column * 13 + 1) % n ? nan : noise;                   // one NaN
            case 7: return row % 3 == 0 ? -inf : noise;                                  // scattered −inf
            case 8: return row == (column * 5) % n ? 30.0 : -50.0 + noise;               // beyond reach (80) or the reference
            case 9: return row == (column * 3 + 2) % n ? inf : row == (column * 7) % n ? other_nan : noise;  // +inf and NaN
            case 10: return row == n / 2 ? other_nan : row % 5 == 1 ? -inf : noise;     // another NaN, −inf around it
            case 11: return 1.0e30 * (1.0 + 1.0e-3 * noise);  // beyond a power-of-two reference: redone, not NaN
            case 12: return row == (column * 3 + 1) % n ? 70.0 + noise : noise;         // terms ~2^97–2^105 over the reference
            default: return noise;
        }
    };
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{4}, std::size_t{5}, std::size_t{7}, std::size_t{8},
                          std::size_t{9}, std::size_t{17}, std::size_t{64}, block, block + 2, block + 3, 2 * block + 3, 3 * block + 11}) {
        for (std::size_t width : {std::size_t{3}, std::size_t{13}, std::size_t{37}}) {
            // Layouts: every kind in turn across the columns, from four starting kinds (which lane each lands in); then
            // each kind alone in one column, the others ordinary (kind 0).
            constexpr int mixed = (kinds + 3) / 4;
            for (int layout = 0; layout < mixed + kinds; ++layout) {
                const auto kind_of = [&](std::size_t c) {
                    if (layout < mixed) return static_cast<int>((c + 4 * static_cast<std::size_t>(layout)) % kinds);
                    const int alone = layout - mixed;
                    return c == static_cast<std::size_t>(alone) * 5 % width ? alone : 0;
                };
                std::vector<T> x(n * width);
                for (std::size_t r = 0; r < n; ++r)
                    for (std::size_t c = 0; c < width; ++c) x[r * width + c] = static_cast<T>(value(kind_of(c), r, c, n));
                std::vector<T> y(width);
                reduce(tensor_view<const T>(x.data(), {n, width}), tensor_view<T>(y.data(), {1, width}), reduce_function::log_sum_exp, {0});
                for (std::size_t c = 0; c < width; ++c) {
                    std::vector<T> column(n);
                    for (std::size_t r = 0; r < n; ++r) column[r] = x[r * width + c];
                    const auto expected = ref::reduce(ref::dense<T>({n}, column), {0}, ref::reduce_operation::log_sum_exp).values[0];
                    long double magnitude = 0;
                    for (const T& v : column) magnitude += std::fabs(ref::widen(v));
                    const long double got = ref::widen(y[c]);
                    INFO("rows " << n << ", width " << width << ", layout " << layout << ", column " << c << " (kind " << kind_of(c)
                                 << "): got " << static_cast<double>(got) << ", expected " << static_cast<double>(expected));
                    if (std::isnan(expected)) CHECK(std::isnan(got));
                    else if (std::isinf(expected)) CHECK(got == expected);
                    else CHECK(std::fabs(got - expected) <= tolerance<T>(reduce_function::log_sum_exp, n, magnitude, expected));
                }
            }
        }
    }
}

// The outer log-sum-exp kernel's rows of accumulators are placed in L1 sets apart from its input's (a group's rows of
// 4 KiB lie in one set): for every input address, each row lies whole inside its storage, and lane j of row k half a
// way plus lines_after + k lines (to within one) after the set of the input's lane j — never in the same set.
TEMPLATE_TEST_CASE("reduce: accumulator rows placed apart from an input lie inside their storage, in other L1 sets", "", float, double) {
    using C = TestType;
    const auto check = [](auto& rows, std::size_t row_count) {
        using rows_t = std::remove_reference_t<decltype(rows)>;
        const auto set_of = [](std::uintptr_t address) { return address / tensorops::simd::cache_line_bytes % 64; };
        for (std::uintptr_t input = 0x7f0000100000; input < 0x7f0000100000 + 2 * tensorops::simd::l1_way_bytes; input += 4 * sizeof(C)) {
            for (const std::size_t after : {std::size_t{0}, std::size_t{5}}) {
                rows.place_apart_from(reinterpret_cast<const void*>(input), after);
                for (std::size_t k = 0; k < row_count; ++k) {
                    INFO("input at " << input % tensorops::simd::l1_way_bytes << " of its way, lines after " << after << ", row " << k);
                    REQUIRE(rows.row(k) >= rows.storage());
                    REQUIRE(rows.row(k) + rows_t::panel <= rows.storage() + rows_t::storage_lanes);
                    for (std::size_t j = 0; j < rows_t::panel; j += 5) {
                        const std::uintptr_t lane = reinterpret_cast<std::uintptr_t>(rows.row(k) + j);
                        const std::size_t distance = (set_of(lane) + 64 - set_of(input + j * sizeof(C))) % 64;
                        const std::size_t wanted = 32 + after + k;
                        if (distance != wanted && distance + 1 != wanted) FAIL_CHECK("lane " << j << " lies " << distance << " sets after");
                    }
                }
            }
        }
    };
    tensorops::detail::accumulator_rows<C, tensorops::detail::lse_accumulator_rows> five;
    check(five, tensorops::detail::lse_accumulator_rows);
    tensorops::detail::accumulator_rows<C, 2> two;
    check(two, 2);
}

// The same kernel's accuracy when a block's first rows lie far below the rest (its reference far below its
// maximum): within a few ulp of the result, as when the reference is the maximum (a version that rounded the
// distance from the reference lost up to 80 ulp here).
TEST_CASE("reduce: log-sum-exp along an outer axis stays within a few ulp when a block's first rows lie far below") {
    test_rng rng("lse outer accuracy");
    INFO(rng.describe());
    for (const double below : {10.0, 30.0, 60.0, 85.0}) {
        for (const std::size_t n : {std::size_t{5}, std::size_t{8}, std::size_t{64}, std::size_t{200}}) {
            const std::size_t width = 256;
            std::vector<float> x(n * width);
            for (std::size_t r = 0; r < n; ++r)
                for (std::size_t c = 0; c < width; ++c) x[r * width + c] = static_cast<float>((r % 64 < 4 ? -below : 0.0) + rng.uniform_real(-1.0, 1.0));
            std::vector<float> y(width);
            reduce(tensor_view<const float>(x.data(), {n, width}), tensor_view<float>(y.data(), {1, width}), reduce_function::log_sum_exp, {0});
            for (std::size_t c = 0; c < width; ++c) {
                std::vector<float> column(n);
                for (std::size_t r = 0; r < n; ++r) column[r] = x[r * width + c];
                const long double expected = ref::reduce(ref::dense<float>({n}, column), {0}, ref::reduce_operation::log_sum_exp).values[0];
                // An ulp of the result, of the maximum (the result is shift + ln Σ) or of 1 (ln Σ's own error), the largest.
                const float scale =
                    std::max({static_cast<float>(std::fabs(expected)), std::fabs(*std::max_element(column.begin(), column.end())), 1.0f});
                const long double ulp = std::nextafter(scale, 1e30f) - scale;
                INFO("first rows " << below << " below, " << n << " rows, column " << c);
                CHECK(std::fabs(static_cast<long double>(y[c]) - expected) <= 6 * ulp);
            }
        }
    }
}

TEMPLATE_TEST_CASE("reduce: log-sum-exp of short rows with non-finite maxima, in every lane of a group", "", float, double) {
    using T = TestType;
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    for (std::size_t length : {std::size_t{3}, std::size_t{13}, std::size_t{40}}) {
        for (std::size_t special = 0; special < 11; ++special) {
            std::vector<T> x(11 * length);
            for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(static_cast<double>(i % 7) - 3.0);
            T* row = x.data() + special * length;
            const int kind = static_cast<int>(special % 3);
            if (kind == 0) std::fill(row, row + length, -inf);
            if (kind == 1) row[length / 2] = inf;
            if (kind == 2) row[length - 1] = nan;
            std::vector<T> y(11);
            reduce(tensor_view<const T>(x.data(), {11, length}), tensor_view<T>(y.data(), {11, 1}), reduce_function::log_sum_exp, {1});
            INFO("length " << length << ", special row " << special << ", kind " << kind);
            if (kind == 0) CHECK(y[special] == -inf);
            if (kind == 1) CHECK(y[special] == inf);
            if (kind == 2) CHECK(std::isnan(y[special]));
            for (std::size_t r = 0; r < 11; ++r) {
                if (r == special) continue;
                const auto expected = ref::reduce(ref::dense<T>({length}, std::vector<T>(x.begin() + r * length, x.begin() + (r + 1) * length)), {0},
                                                  ref::reduce_operation::log_sum_exp).values[0];
                CHECK(static_cast<double>(y[r]) == Approx(static_cast<double>(expected)).epsilon(1e-6));
            }
        }
    }
}
