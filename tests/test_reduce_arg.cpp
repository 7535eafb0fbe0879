// argmax / argmin: random cases against the reference, long groups (many blocks, ties across blocks), the extreme
// at every position of a row, NaN in every position, both layouts.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
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

/// argmax (`maximum`) or argmin of x into y over `axes`, on `pool` if there is one, else sequentially.
template <class T>
void arg_extreme(tensorops::thread_pool* pool, bool maximum, const tensor_view<const T>& x, const tensor_view<std::int64_t>& y,
                 const std::vector<std::size_t>& axes, axis_direction direction) {
    if (pool != nullptr) {
        if (maximum) argmax(*pool, x, y, axes, direction);
        else argmin(*pool, x, y, axes, direction);
    } else {
        if (maximum) argmax(x, y, axes, direction);
        else argmin(x, y, axes, direction);
    }
}

TEMPLATE_LIST_TEST_CASE("reduce: argmax and argmin, random, against the reference", "", tensorops_test::random_test_types) {
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
        if (!tensorops_test::runs_in_this_build(static_cast<std::size_t>(trial))) continue;
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

// The outer kernel walks the rows of a long line in far-apart pairs — the first half beside the second, each into a
// running best of its own, merged at the end (arg_reduce/outer.hpp, arg_walk_rows) — and a parallel band does the
// same within itself. Few distinct values (ties everywhere, within and across the halves), the extreme planted in the
// second half only for some columns, and for others twice in the first half, once among the rows walked before the
// second running best starts as a copy of the first (a tie that must lose to the later row); NaN in floating types;
// first and last, argmax and argmin; rows of 4 KiB, rows wider than a panel with a ragged end, and bands of 4 MiB on a
// two-thread pool (pieces of at least 4 MiB: two bands, each paired).
TEMPLATE_TEST_CASE("reduce: argmax/argmin over rows walked in far-apart pairs, against the reference", "", tensorops::float16, float, double,
                   std::int32_t, std::uint64_t) {
    using T = TestType;
    test_rng rng(std::string("arg reduce far pairs ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    struct pair_case {
        std::size_t rows, columns;
        bool on_pool;
    };
    const pair_case cases[] = {{1100, 4096 / sizeof(T), false}, {601, 8400 / sizeof(T) + 3, false}, {2100, 4096 / sizeof(T), true}};
    tensorops::thread_pool pool(2, std::size_t{4} << 20);
    for (std::size_t case_index = 0; case_index < std::size(cases); ++case_index) {
        const auto& c = cases[case_index];
        const std::vector<std::size_t> sizes{c.rows, c.columns};
        const std::size_t walked = c.on_pool ? c.rows / 2 : c.rows;  // rows per band on the pool: two bands
        CHECK(tensorops::detail::arg_walks_pairs(walked, c.columns * sizeof(T)));
        std::vector<T> values(c.rows * c.columns);
        for (auto& x : values) x = static_cast<T>(rng.uniform<int>(0, 5));
        const std::size_t half = (walked + 1) / 2;
        for (std::size_t j = 0; j < c.columns; j += 3) {  // the extreme (9 or -1) in the second half of a band only
            const std::size_t band_start = c.on_pool && rng.chance(0.5) ? walked : 0;
            const std::size_t row = band_start + half + rng.uniform<std::size_t>(0, walked - half - 1);
            values[row * c.columns + j] = static_cast<T>(j % 2 == 0 ? 9 : -1);
            if (row + 1 < band_start + walked && rng.chance(0.3)) values[(row + 1) * c.columns + j] = values[row * c.columns + j];  // a tie after it
        }
        for (std::size_t j = 1; j < c.columns; j += 3) {  // the extreme in a band's first rows, walked before the second
            // running best starts as a copy, and again later in its first half: the last is the later one
            const std::size_t band_start = c.on_pool && rng.chance(0.5) ? walked : 0;
            const auto extreme = static_cast<T>(j % 2 == 0 ? 9 : -1);
            values[(band_start + rng.uniform<std::size_t>(0, tensorops::detail::arg_warm_rows - 1)) * c.columns + j] = extreme;
            values[(band_start + rng.uniform<std::size_t>(tensorops::detail::arg_warm_rows, half - 1)) * c.columns + j] = extreme;
        }
        if constexpr (!std::is_integral_v<T>)
            for (int k = 0; k < 40; ++k) values[rng.uniform<std::size_t>(0, values.size() - 1)] = static_cast<T>(std::numeric_limits<float>::quiet_NaN());
        std::vector<std::int64_t> out(c.columns);
        const tensor_view<const T> x(values.data(), sizes);
        const tensor_view<std::int64_t> y(out.data(), {1, c.columns});
        for (int mode = 0; mode < 4; ++mode) {
            if (!tensorops_test::runs_in_this_build(case_index + static_cast<std::size_t>(mode), 4)) continue;
            const bool maximum = mode < 2, last = mode % 2 == 1;
            const auto direction = last ? axis_direction::decreasing : axis_direction::increasing;
            INFO("shape " << c.rows << " x " << c.columns << (c.on_pool ? " on a pool" : "") << " mode " << mode);
            arg_extreme(c.on_pool ? &pool : nullptr, maximum, x, y, {0}, direction);
            CHECK(out == ref::arg_reduce(ref::dense<T>(sizes, values), {0}, maximum, last).values);
        }
    }
}

// Rows arg_grouped_row_bytes apart or more are compared with the running best arg_group_rows at a time
// (arg_reduce/outer.hpp, arg_update_rows_in_turn): one pass over the best per group, its rows taken in turn. Few
// distinct values (ties everywhere); per column the extreme planted twice within one group (the first or the last of
// the two wins), in one group and again in a later one, among the fresh walk's first rows (branchless) and among the
// rows after the last whole group; NaN in floating types; rows as wide as the threshold, wider than a panel with a
// ragged end, and read as a strided view (rows further apart than they are wide), wider than the panel the kernel
// allocates for a walk of a MiB or more (arg_heap_panel_bytes); alone and on a two-thread pool.
TEMPLATE_TEST_CASE("reduce: argmax/argmin over wide rows compared in groups, against the reference", "",
                   tensorops::float16, float, double, std::int32_t, std::uint64_t) {
    using T = TestType;
    constexpr std::size_t G = tensorops::detail::arg_group_rows;
    test_rng rng(std::string("arg reduce row groups ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    struct group_case {
        std::size_t rows, columns, pitch;  // pitch: elements from row to row
        bool on_pool;
    };
    const std::size_t threshold = tensorops::detail::arg_grouped_row_bytes / sizeof(T);
    // Lanes of the allocated panel: the running best and its index, each as wide as the compute type.
    const std::size_t heap_panel =
        tensorops::detail::arg_heap_panel_bytes / (2 * sizeof(tensorops::simd::compute_t<T>));
    const group_case cases[] = {{4 * G + 2, threshold, threshold, false},
                                {2 * G + 1, heap_panel + 37, heap_panel + 37, false},
                                {tensorops::detail::arg_branchless_rows + 5 * G + 3, threshold + threshold / 3 + 5,
                                 threshold + threshold / 3 + 5, false},
                                {3 * G + 1, threshold / 2 + 9, threshold + 64, false},
                                {2 * G + 3, 2 * threshold + 7, 2 * threshold + 7, true}};
    tensorops::thread_pool pool(2, 1);
    for (std::size_t case_index = 0; case_index < std::size(cases); ++case_index) {
        const auto& c = cases[case_index];
        REQUIRE(tensorops::detail::arg_walks_groups(c.rows, c.pitch * sizeof(T)));
        if (c.columns > heap_panel)
            REQUIRE(c.rows * c.columns * sizeof(T) >= tensorops::detail::arg_heap_panel_min_bytes);
        std::vector<T> values(c.rows * c.pitch);
        for (auto& x : values) x = static_cast<T>(rng.uniform<int>(0, 5));
        const auto at = [&](std::size_t row, std::size_t column) -> T& { return values[row * c.pitch + column]; };
        const std::size_t groups_end = c.rows - (c.rows - 1) % G;  // a fresh walk takes its first row alone
        for (std::size_t j = 0; j < c.columns; ++j) {
            const auto extreme = static_cast<T>(j % 2 == 0 ? 9 : -1);
            const std::size_t group =
                1 + G * rng.uniform<std::size_t>(0, (groups_end - 1) / G - 1);  // a group's first row
            switch (j % 4) {
                case 0:  // twice within one group
                    at(group + rng.uniform<std::size_t>(0, 1), j) = extreme;
                    at(group + rng.uniform<std::size_t>(2, G - 1), j) = extreme;
                    break;
                case 1:  // in one group, and again in a later row
                    at(group, j) = extreme;
                    at(rng.uniform<std::size_t>(group + 1, c.rows - 1), j) = extreme;
                    break;
                case 2:  // among the first rows
                    at(rng.uniform<std::size_t>(0,
                                                std::min<std::size_t>(c.rows, tensorops::detail::arg_branchless_rows) -
                                                    1),
                       j) = extreme;
                    break;
                default:  // after the last whole group, or in the first row (alone)
                    at(rng.chance(0.5) || groups_end == c.rows ? 0 : rng.uniform<std::size_t>(groups_end, c.rows - 1),
                       j) = extreme;
            }
        }
        if constexpr (!std::is_integral_v<T>)
            for (int k = 0; k < 40; ++k)
                at(rng.uniform<std::size_t>(0, c.rows - 1), rng.uniform<std::size_t>(0, c.columns - 1)) =
                    static_cast<T>(std::numeric_limits<float>::quiet_NaN());
        const std::vector<std::size_t> sizes{c.rows, c.columns};
        const std::vector<std::ptrdiff_t> strides{static_cast<std::ptrdiff_t>(c.pitch), 1};
        std::vector<T> packed(c.rows * c.columns);
        for (std::size_t i = 0; i < c.rows; ++i)
            std::copy_n(&at(i, 0), c.columns, packed.begin() + static_cast<std::ptrdiff_t>(i * c.columns));
        std::vector<std::int64_t> out(c.columns);
        const tensor_view<const T> x(values.data(), sizes, strides);
        const tensor_view<std::int64_t> y(out.data(), {1, c.columns});
        for (int mode = 0; mode < 4; ++mode) {
            // Under the sanitizers two modes a case (first and last, argmax and argmin, between consecutive cases).
            if (!tensorops_test::runs_in_this_build(case_index + static_cast<std::size_t>(mode), 2)) continue;
            const bool maximum = mode < 2, last = mode % 2 == 1;
            INFO("shape " << c.rows << " x " << c.columns << ", row pitch " << c.pitch
                          << (c.on_pool ? " on a pool" : "") << ", mode " << mode);
            arg_extreme(c.on_pool ? &pool : nullptr, maximum, x, y, {0},
                        last ? axis_direction::decreasing : axis_direction::increasing);
            CHECK(out == ref::arg_reduce(ref::dense<T>(sizes, packed), {0}, maximum, last).values);
        }
    }
}

// 8- and 16-bit lanes cannot hold a flat index: over an outer axis their kernel finds each column's extreme, then walks
// the rows again (in reverse for the last) to where it occurs (arg_reduce/outer_by_extreme.hpp, arg_reduce_rows_by_extreme).
// Columns whose extreme occurs once (in the first row, the last row or anywhere), several times, or is the type's own
// lowest / highest value (the identity the first pass starts from); a panel's worth of columns and more with a ragged
// end; groups of one line and of several (two reduced axes around a kept one); argmax and argmin, first and last; on
// pools of 2, 3 and 7 threads too (bands of rows merged in order, or pieces of columns).
TEMPLATE_TEST_CASE("reduce: argmax/argmin of 8- and 16-bit integers over outer axes, against the reference", "", std::int8_t, std::uint8_t,
                   std::int16_t, std::uint16_t) {
    using T = TestType;
    test_rng rng(std::string("arg reduce narrow outer ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    struct narrow_case {
        std::vector<std::size_t> sizes, axes;
    };
    const std::size_t panel = tensorops::detail::arg_extreme_panel;
    const narrow_case cases[] = {{{300, panel + 77}, {0}},     {{5, 64}, {0}},        {{1, 33}, {0}},
                                 {{3, 5, 40, 70}, {0, 2}},     {{2, 260, 96}, {1}},   {{700, 2 * panel}, {0}}};
    tensorops::thread_pool pools[] = {tensorops::thread_pool(2, 4096), tensorops::thread_pool(3, 4096), tensorops::thread_pool(7, 4096)};
    for (std::size_t case_index = 0; case_index < std::size(cases); ++case_index) {
        const auto& c = cases[case_index];
        const std::size_t columns = c.sizes.back(), count = ref::dense<int>::element_count(c.sizes), rows = count / columns;
        std::vector<T> values(count);
        for (auto& x : values) x = static_cast<T>(rng.uniform<int>(10, 14));
        // Column j's kind: its extremes (the type's highest and lowest, or 20 and 3) once at a random row, in the
        // first row, in the last row, at several rows, or (kind 4) the type's own extremes everywhere.
        for (std::size_t j = 0; j < columns; ++j) {
            const int kind = static_cast<int>(j % 5);
            const bool type_extremes = j % 2 == 0;
            const T high = type_extremes ? std::numeric_limits<T>::max() : T(20), low = type_extremes ? std::numeric_limits<T>::lowest() : T(3);
            const auto plant = [&](std::size_t row, T v) { values[row * columns + j] = v; };
            if (kind == 4) {
                for (std::size_t i = 0; i < rows; ++i) plant(i, i % 2 ? high : low);
                continue;
            }
            const std::size_t at = kind == 1 ? 0 : kind == 2 ? rows - 1 : rng.uniform<std::size_t>(0, rows - 1);
            plant(at, high);
            plant(rng.uniform<std::size_t>(0, rows - 1), low);
            if (kind == 3)
                for (int k = 0; k < 3; ++k) {
                    plant(rng.uniform<std::size_t>(0, rows - 1), high);
                    plant(rng.uniform<std::size_t>(0, rows - 1), low);
                }
        }
        const auto out_sizes = ref::reduced_sizes(c.sizes, c.axes);
        std::vector<std::int64_t> out(ref::dense<int>::element_count(out_sizes));
        const tensor_view<const T> x(values.data(), c.sizes);
        const tensor_view<std::int64_t> y(out.data(), out_sizes);
        const ref::dense<T> reference_input(c.sizes, values);
        for (int mode = 0; mode < 4; ++mode) {
            const bool maximum = mode % 2 == 0, last = mode >= 2;
            const auto direction = last ? axis_direction::decreasing : axis_direction::increasing;
            const auto expected = ref::arg_reduce(reference_input, c.axes, maximum, last).values;
            for (int pool_index = -1; pool_index < static_cast<int>(std::size(pools)); ++pool_index) {  // -1: sequential
                INFO("case " << case_index << (maximum ? " argmax" : " argmin") << (last ? " last" : " first") << " pool " << pool_index);
                std::fill(out.begin(), out.end(), -1);
                arg_extreme(pool_index >= 0 ? &pools[pool_index] : nullptr, maximum, x, y, c.axes, direction);
                CHECK(out == expected);
            }
        }
    }
}

// The contiguous kernel ends each row by finding the extreme's position inside one step of four vectors, with a
// sentinel for lanes that do not hold it — a sentinel that equals a real position when the step has 256 lanes
// (int8 with 64-byte registers). So: the extreme at every position of rows longer than two such steps, alone and as
// a pair of adjacent ties (which straddle a step's edge at some positions), first and last.
TEMPLATE_LIST_TEST_CASE("reduce: argmax/argmin find the extreme at every position of a row, ties with a neighbour too", "",
                        tensorops_test::builtin_types) {
    using T = TestType;
    constexpr std::size_t n = 600;
    std::int64_t index = -1;
    for (std::size_t position = 0; position < n; ++position) {
        for (int tied = 0; tied < 2; ++tied) {
            const std::size_t second = tied && position + 1 < n ? position + 1 : position;
            std::vector<T> x(n);
            for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<T>(1 + static_cast<int>(i % 5));
            const tensor_view<const T> input(x.data(), {n});
            const tensor_view<std::int64_t> output(&index, {1});
            INFO("position " << position << ", tied with the next " << tied);
            x[position] = x[second] = static_cast<T>(9);
            argmax(input, output, {0});
            CHECK(index == static_cast<std::int64_t>(position));
            argmax(input, output, {0}, axis_direction::decreasing);
            CHECK(index == static_cast<std::int64_t>(second));
            x[position] = x[second] = static_cast<T>(0);
            argmin(input, output, {0});
            CHECK(index == static_cast<std::int64_t>(position));
            argmin(input, output, {0}, axis_direction::decreasing);
            CHECK(index == static_cast<std::int64_t>(second));
        }
    }
}

// Rows of at most short_arg_row elements take the short-row kernel (locate_in_short_row): the row in a few vectors,
// the last read whole where more rows follow back to back, its lanes past the row replaced. So: every length up to a
// little past that limit, rows packed (the next rows' extremes must not leak into a row) and rows with a gap after
// each whose elements would win (NaN, or the type's extremes) if a kernel looked at them, the last row ending the
// allocation (read in part: the sanitizers watch), a row of ties, of −inf (the identity the lanes past a row get), the
// extreme at either end, NaN — first and last, sequentially and on three threads.
TEMPLATE_LIST_TEST_CASE("reduce: argmax/argmin of short contiguous rows, packed and with winning gaps after them", "",
                        tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng(std::string("arg reduce short rows ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    constexpr bool floating = !std::is_integral_v<T>;
    constexpr std::size_t rows = 6;
    const T high = floating ? static_cast<T>(std::numeric_limits<float>::infinity()) : std::numeric_limits<T>::max();
    const T low = floating ? static_cast<T>(-std::numeric_limits<float>::infinity()) : std::numeric_limits<T>::lowest();
    tensorops::thread_pool pool(3, 1);
    for (std::size_t n = 1; n <= tensorops::detail::short_arg_row<T> + 3; ++n) {
        for (const std::size_t gap : {std::size_t{0}, std::size_t{5}}) {
            const std::size_t pitch = n + gap;
            // Gaps: what would win either way if read (NaN; for integers the highest and the lowest in turn).
            std::vector<T> buffer(rows * pitch - gap);  // the last row ends the allocation
            for (std::size_t i = 0; i < buffer.size(); ++i)
                buffer[i] = floating ? static_cast<T>(std::numeric_limits<float>::quiet_NaN()) : (i % 2 ? high : low);
            const auto at = [&](std::size_t row, std::size_t j) -> T& { return buffer[row * pitch + j]; };
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t j = 0; j < n; ++j) at(r, j) = static_cast<T>(rng.uniform<int>(2, 6));
            const std::size_t p = rng.uniform<std::size_t>(0, n - 1);
            at(0, p) = static_cast<T>(9);  // one maximum, tied with its neighbour where there is one
            at(0, std::min(p + 1, n - 1)) = static_cast<T>(9);
            at(0, rng.uniform<std::size_t>(0, n - 1)) = static_cast<T>(0);
            for (std::size_t j = 0; j < n; ++j) at(1, j) = static_cast<T>(4);  // all ties
            for (std::size_t j = 0; j < n; ++j) at(2, j) = low;                // all −inf (the lowest integer)
            at(3, 0) = at(3, n - 1) = high;                                    // extremes at both ends
            at(3, n / 2) = low;
            if constexpr (floating) at(4, rng.uniform<std::size_t>(0, n - 1)) = static_cast<T>(std::numeric_limits<float>::quiet_NaN());
            else at(4, n - 1) = high;
            at(5, n - 1) = low;
            std::vector<T> logical;
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t j = 0; j < n; ++j) logical.push_back(at(r, j));
            const std::vector<std::size_t> sizes{rows, n};
            const tensor_view<const T> x(buffer.data(), {rows, n}, {static_cast<std::ptrdiff_t>(pitch), 1});
            std::vector<std::int64_t> out(rows);
            const tensor_view<std::int64_t> y(out.data(), {rows, 1});
            for (int mode = 0; mode < 8; ++mode) {
                const bool maximum = mode % 2 == 0, last = mode % 4 >= 2, threads = mode >= 4;
                const auto direction = last ? axis_direction::decreasing : axis_direction::increasing;
                INFO("n " << n << " gap " << gap << (maximum ? " argmax" : " argmin") << (last ? " last" : " first") << (threads ? " pool" : ""));
                std::fill(out.begin(), out.end(), -1);
                arg_extreme(threads ? &pool : nullptr, maximum, x, y, {1}, direction);
                CHECK(out == ref::arg_reduce(ref::dense<T>(sizes, logical), {1}, maximum, last).values);
            }
        }
    }
}

// Rows of 2 … W elements back to back (32- and 64-bit lanes) take the narrow-row kernel (locate_in_narrow_rows):
// W rows at a time as L registers, transposed, walked element by element; the rows after the last whole W go one by
// one. So: every length from 1 to a register and one more, in lines of several whole W rows and a few more, two
// lines (an outer kept dimension: the kernel's starting offsets), written densely and every other element (its step
// between outputs; the elements between must stay untouched), values from a few levels (ties everywhere) with NaN
// sprinkled in for floating types, the type's extremes too — first and last, argmax and argmin, sequentially and on
// three threads, against the reference.
TEMPLATE_LIST_TEST_CASE("reduce: argmax/argmin of narrow rows back to back (the narrow-row kernel)", "", tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng(std::string("arg reduce narrow rows ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    constexpr bool floating = !std::is_integral_v<T>;
    constexpr std::size_t W = tensorops::simd::lanes<T>;
    const T high = floating ? static_cast<T>(std::numeric_limits<float>::infinity()) : std::numeric_limits<T>::max();
    const T low = floating ? static_cast<T>(-std::numeric_limits<float>::infinity()) : std::numeric_limits<T>::lowest();
    tensorops::thread_pool pool(3, 1);
    for (std::size_t n = 1; n <= W + 1; ++n) {
        for (const std::size_t rows : {std::size_t{W - 1}, 3 * W + 3}) {
            constexpr std::size_t lines = 2;
            std::vector<T> x(lines * rows * n);
            for (auto& v : x) {
                const int pick = rng.uniform<int>(0, 31);
                v = pick == 0 ? high : pick == 1 ? low : static_cast<T>(rng.uniform<int>(0, 3));
                if (floating && pick == 2) v = static_cast<T>(std::numeric_limits<float>::quiet_NaN());
            }
            const std::vector<std::size_t> sizes{lines, rows, n};
            const tensor_view<const T> input(x.data(), sizes);
            for (const std::ptrdiff_t spread : {1, 2}) {  // output element i of the [lines · rows] answers at i · spread
                std::vector<std::int64_t> out(lines * rows * static_cast<std::size_t>(spread));
                const auto line_step = static_cast<std::ptrdiff_t>(rows) * spread;
                const tensor_view<std::int64_t> y(out.data(), {lines, rows, 1}, {line_step, spread, 1});
                for (int mode = 0; mode < 8; ++mode) {
                    const bool maximum = mode % 2 == 0, last = mode % 4 >= 2, threads = mode >= 4;
                    const auto direction = last ? axis_direction::decreasing : axis_direction::increasing;
                    INFO("n " << n << " rows " << rows << " spread " << spread << (maximum ? " argmax" : " argmin") << (last ? " last" : " first")
                              << (threads ? " pool" : ""));
                    std::fill(out.begin(), out.end(), -1);
                    arg_extreme(threads ? &pool : nullptr, maximum, input, y, {2}, direction);
                    std::vector<std::int64_t> answers, between;
                    for (std::size_t i = 0; i < out.size(); ++i) (i % static_cast<std::size_t>(spread) == 0 ? answers : between).push_back(out[i]);
                    CHECK(answers == ref::arg_reduce(ref::dense<T>(sizes, x), {2}, maximum, last).values);
                    CHECK(between == std::vector<std::int64_t>(between.size(), -1));
                }
            }
        }
    }
}

// Back-to-back rows narrower than arg_fused_row_bytes, reduced over the rows ([n, w] over n), are walked fused: arg_fused_rows
// of them as one row, each segment of its lanes a running best of its own, the rows left over into the first segment,
// the segments compared at the end by value and then by index (arg_reduce/outer.hpp). Few distinct values, so that
// every column has ties across segments, and per column the extreme planted in a late segment early and again in an
// early segment later (the first and the last of them are in different segments, in either order), sometimes in the
// rows left over; NaN in floating types; one group and several, with and without rows left over; a kept outer axis
// ([2, n, w] over n); alone and on a pool (bands of groups).
TEMPLATE_LIST_TEST_CASE("reduce: argmax/argmin over narrow rows back to back, fused into wide rows, against the reference", "",
                        tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng(std::string("arg reduce fused rows ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    constexpr bool floating = !std::is_integral_v<T>;
    constexpr std::size_t W = tensorops::simd::lanes<T>;
    const T high = floating ? static_cast<T>(std::numeric_limits<float>::infinity()) : std::numeric_limits<T>::max();
    const T low = floating ? static_cast<T>(-std::numeric_limits<float>::infinity()) : std::numeric_limits<T>::lowest();
    tensorops::thread_pool pool(2, 1);
    std::size_t case_index = 0;
    for (const std::size_t w : {std::size_t{1}, std::size_t{3}, std::max<std::size_t>(W - 1, 2), W, W + 3, 127 / sizeof(T)}) {
        const std::size_t fuse = tensorops::detail::arg_fused_rows<T>(w, static_cast<std::ptrdiff_t>(w), std::size_t{1} << 30);
        if constexpr (sizeof(tensorops::simd::compute_t<T>) >= 4) CHECK(fuse > 1);  // the fused walk is what this tests
        for (const std::size_t groups : {std::size_t{1}, std::size_t{3}}) {
            for (const std::size_t left_over : {std::size_t{0}, rng.uniform<std::size_t>(1, fuse - 1)}) {
                const std::size_t n = groups * fuse + left_over, lines = (case_index++ % 2) + 1;
                std::vector<T> x(lines * n * w);
                for (auto& v : x) v = static_cast<T>(rng.uniform<int>(0, 3));
                for (std::size_t line = 0; line < lines; ++line) {
                    for (std::size_t j = 0; j < w; ++j) {
                        const auto at = [&](std::size_t row) -> T& { return x[(line * n + row) * w + j]; };
                        const T extreme = j % 2 == 0 ? high : low;
                        if (rng.chance(0.6) && fuse >= 2) {  // a late segment's early row, then an early segment's later row
                            const std::size_t segment = rng.uniform<std::size_t>(1, fuse - 1);
                            const std::size_t group = rng.uniform<std::size_t>(0, groups - 1);
                            at(group * fuse + segment) = extreme;
                            const std::size_t later = rng.uniform<std::size_t>(group + 1, groups);
                            if (later < groups) at(later * fuse + rng.uniform<std::size_t>(0, segment - 1)) = extreme;
                        }
                        if (left_over > 0 && rng.chance(0.3)) at(groups * fuse + rng.uniform<std::size_t>(0, left_over - 1)) = extreme;
                        if (floating && rng.chance(0.15))
                            at(rng.uniform<std::size_t>(0, n - 1)) = static_cast<T>(std::numeric_limits<float>::quiet_NaN());
                    }
                }
                const std::vector<std::size_t> sizes{lines, n, w};
                const tensor_view<const T> input(x.data(), sizes);
                std::vector<std::int64_t> out(lines * w);
                const tensor_view<std::int64_t> y(out.data(), {lines, 1, w});
                for (int mode = 0; mode < 8; ++mode) {
                    const bool maximum = mode % 2 == 0, last = mode % 4 >= 2, threads = mode >= 4;
                    if (!tensorops_test::runs_in_this_build(case_index + static_cast<std::size_t>(mode), 2)) continue;
                    const auto direction = last ? axis_direction::decreasing : axis_direction::increasing;
                    INFO("w " << w << " fuse " << fuse << " n " << n << " lines " << lines << (maximum ? " argmax" : " argmin")
                              << (last ? " last" : " first") << (threads ? " pool" : ""));
                    std::fill(out.begin(), out.end(), -1);
                    if (lines == 1) {  // [n, w] over n: on a pool, bands of groups
                        arg_extreme(threads ? &pool : nullptr, maximum, tensor_view<const T>(x.data(), {n, w}),
                                    tensor_view<std::int64_t>(out.data(), {1, w}), {0}, direction);
                    } else {
                        arg_extreme(threads ? &pool : nullptr, maximum, input, y, {1}, direction);
                    }
                    CHECK(out == ref::arg_reduce(ref::dense<T>(sizes, x), {1}, maximum, last).values);
                }
            }
        }
    }
}

TEMPLATE_LIST_TEST_CASE("reduce: NaN in every position propagates through MAX and MIN and wins ARGMAX/ARGMIN", "",
                        tensorops_test::floating_types_with_bfloat16) {
    using T = TestType;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t n : {1u, 7u, 8u, 9u, 33u, 70u, 200u, 301u}) {
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

