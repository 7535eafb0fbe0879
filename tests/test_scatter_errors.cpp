// scatter_nd's refusals (SEMANTICS.md §3, README "Reliability"): every broken rule throws tensorops::error naming the
// argument before anything is written, an index out of range is reported by position and value, views whose bytes
// overflow the address arithmetic are refused, and a reduction outside scatter_reduction is an error. (Its results:
// test_scatter.cpp.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "index_helpers.hpp"
#include "reference.hpp"
#include "support.hpp"

using namespace tensorops;
using tensorops_test::guarded_buffer;
using tensorops_test::test_rng;
namespace tt = tensorops_test;

TEST_CASE("scatter_nd: every broken rule throws tensorops::error naming the argument, before writing", "[scatter]") {
    std::vector<float> a(24, 1.0f), b(24, 7.0f), u(24, 2.0f);
    const tensor_view<const float> input(a.data(), {2, 3, 4});
    const tensor_view<float> output(b.data(), {2, 3, 4});
    const std::vector<std::int64_t> rows{1, 0};
    const tensor_view<const std::int64_t> row_indices(rows.data(), {2, 1});
    const tensor_view<const float> row_updates(u.data(), {2, 3, 4});
    auto expect = [&](auto call, const std::string& argument) {
        const std::string rule = tt::expect_error(call, "scatter_nd", argument);
        CHECK(std::all_of(b.begin(), b.end(), [](float v) { return v == 7.0f; }));  // nothing written
        return rule;
    };
    // reduction
    expect([&] { scatter_nd(input, row_indices, row_updates, output, static_cast<scatter_reduction>(9)); }, "reduction");
    // ranks and shapes
    float scalar = 1.0f, scalar_out = 0.0f;
    const std::vector<std::int64_t> one_zero{0};
    expect([&] {
        scatter_nd(tensor_view<const float>(&scalar, std::span<const std::size_t>{}), tensor_view<const std::int64_t>(one_zero.data(), {1}),
                   tensor_view<const float>(&scalar, std::span<const std::size_t>{}), tensor_view<float>(&scalar_out, std::span<const std::size_t>{}));
    }, "input");
    expect([&] {
        scatter_nd(input, tensor_view<const std::int64_t>(one_zero.data(), std::span<const std::size_t>{}), row_updates, output);
    }, "indices");
    expect([&] { scatter_nd(input, tensor_view<const std::int64_t>(rows.data(), {2, 0}), row_updates, output); }, "indices");  // k = 0
    const std::vector<std::int64_t> four(8, 0);
    const auto k_rule = expect([&] { scatter_nd(input, tensor_view<const std::int64_t>(four.data(), {2, 4}), tensor_view<const float>(u.data(), {2}), output); }, "indices");
    CHECK(k_rule.find("[1, 3]") != std::string::npos);
    expect([&] { scatter_nd(input, row_indices, row_updates, tensor_view<float>(b.data(), {2, 4, 3})); }, "output");
    expect([&] { scatter_nd(input, row_indices, row_updates, tensor_view<float>(b.data(), {2, 12})); }, "output");
    const auto updates_rule = expect([&] { scatter_nd(input, row_indices, tensor_view<const float>(u.data(), {2, 3, 3}), output); }, "updates");
    CHECK(updates_rule.find("{2, 3, 4}") != std::string::npos);  // the sizes it needs
    expect([&] { scatter_nd(input, row_indices, tensor_view<const float>(u.data(), {2, 12}), output); }, "updates");
    expect([&] { scatter_nd(input, row_indices, tensor_view<const float>(u.data(), {3, 4}), output); }, "updates");
    // output layout and memory
    expect([&] { scatter_nd(input, row_indices, row_updates, tensor_view<float>(b.data(), {2, 3, 4}, {0, 4, 1})); }, "output");
    expect([&] { scatter_nd(input, row_indices, row_updates, tensor_view<float>(b.data(), {2, 3, 4}, {4, 4, 1})); }, "output");
    std::vector<float> shared(40, 7.0f);
    const tensor_view<const float> shared_input(shared.data(), {2, 3, 4});
    const auto partial_rule = tt::expect_error([&] { scatter_nd(shared_input, row_indices, row_updates, tensor_view<float>(shared.data() + 1, {2, 3, 4})); },
                                               "scatter_nd", "output");
    CHECK(partial_rule.find("input") != std::string::npos);
    tt::expect_error([&] { scatter_nd(shared_input, row_indices, row_updates, tensor_view<float>(shared.data(), {2, 3, 4}, {1, 2, 6})); }, "scatter_nd", "output");
    CHECK(std::all_of(shared.begin(), shared.end(), [](float v) { return v == 7.0f; }));
    // The output over the memory of the indices, or of the updates.
    alignas(8) unsigned char raw[256] = {};
    auto* raw_indices = reinterpret_cast<const std::int64_t*>(raw);
    auto* raw_floats = reinterpret_cast<float*>(raw + 8);
    const auto indices_rule = tt::expect_error([&] {
        scatter_nd(input, tensor_view<const std::int64_t>(raw_indices, {2, 1}), row_updates, tensor_view<float>(raw_floats, {2, 3, 4}));
    }, "scatter_nd", "output");
    CHECK(indices_rule.find("indices") != std::string::npos);
    const auto updates_overlap = tt::expect_error([&] {
        scatter_nd(input, row_indices, tensor_view<const float>(b.data() + 4, {2, 3, 4}, {4, 1, 0}), output);
    }, "scatter_nd", "output");
    CHECK(updates_overlap.find("updates") != std::string::npos);
    CHECK(std::all_of(raw, raw + 256, [](unsigned char c) { return c == 0; }));
}

TEST_CASE("scatter_nd: an index out of range is reported by position and value, and nothing is written", "[scatter]") {
    test_rng rng("scatter rejected calls");
    INFO(rng.describe());
    // In place, on a padded, partly reversed layout full of random bits: a rejected call must leave every
    // element bit for bit as it was, even though the tuples before the bad one are valid.
    const std::vector<std::size_t> sizes{4, 5};
    for (scatter_reduction reduction : {scatter_reduction::none, scatter_reduction::add, scatter_reduction::max}) {
        guarded_buffer<float> buffer(sizes, tt::random_strides(rng, sizes, tt::layout_kind::mixed), 3);
        std::vector<float> x(20);
        for (auto& v : x) v = tt::random_value<float>(rng);
        buffer.assign(x);
        const auto before = buffer.values();
        // indices [2, 3, 2]: tuple (1, 2) is {0, 5} — column 5 of 5 — and tuple (1, 1) valid, (0, *) valid.
        const std::vector<std::int64_t> tuples{0, 0, 1, 1, 2, 2, 3, 3, -4, -5, 0, 5};
        const std::vector<float> updates(6, 99.0f);
        const auto rule = tt::expect_error([&] {
            scatter_nd(buffer.const_view(), tensor_view<const std::int64_t>(tuples.data(), {2, 3, 2}), tensor_view<const float>(updates.data(), {2, 3}),
                       buffer.view(), reduction);
        }, "scatter_nd", "indices");
        CHECK(rule.find("indices[1, 2, :]") != std::string::npos);
        CHECK(rule.find("{0, 5}") != std::string::npos);
        CHECK(rule.find("coordinate 1 (5)") != std::string::npos);
        CHECK(rule.find("[-5, 4]") != std::string::npos);
        const auto after = buffer.values();
        for (std::size_t i = 0; i < after.size(); ++i) REQUIRE(tt::same_bits(after[i], before[i]));
        REQUIRE(buffer.untouched_outside_view());
    }
    // The first bad tuple in row-major order is the one named, even when a later one is also bad.
    std::vector<float> x(8, 1.0f), out(8, 7.0f);
    const std::vector<std::int32_t> two_bad{1, 8, 3, -9};
    const auto first_rule = tt::expect_error([&] {
        scatter_nd(tensor_view<const float>(x.data(), {8}), tensor_view<const std::int32_t>(two_bad.data(), {2, 2, 1}),
                   tensor_view<const float>(x.data(), {2, 2}), tensor_view<float>(out.data(), {8}));
    }, "scatter_nd", "indices");
    CHECK(first_rule.find("indices[0, 1, :] is {8}") != std::string::npos);
    CHECK(std::all_of(out.begin(), out.end(), [](float v) { return v == 7.0f; }));
    // Below −size for a signed type; a huge unsigned value.
    const std::vector<std::int64_t> too_negative{-9};
    const auto negative_rule = tt::expect_error([&] {
        scatter_nd(tensor_view<const float>(x.data(), {8}), tensor_view<const std::int64_t>(too_negative.data(), {1}),
                   tensor_view<const float>(x.data(), std::span<const std::size_t>{}), tensor_view<float>(out.data(), {8}));
    }, "scatter_nd", "indices");
    CHECK(negative_rule.find("(-9)") != std::string::npos);
    CHECK(negative_rule.find("[-8, 7]") != std::string::npos);
    const std::vector<std::uint64_t> huge{std::numeric_limits<std::uint64_t>::max()};
    const auto unsigned_rule = tt::expect_error([&] {
        scatter_nd(tensor_view<const float>(x.data(), {8}), tensor_view<const std::uint64_t>(huge.data(), {1, 1}),
                   tensor_view<const float>(x.data(), {1}), tensor_view<float>(out.data(), {8}));
    }, "scatter_nd", "indices");
    CHECK(unsigned_rule.find("[0, 7]") != std::string::npos);
    const std::vector<std::uint32_t> just_past{8};
    tt::expect_error([&] {
        scatter_nd(tensor_view<const float>(x.data(), {8}), tensor_view<const std::uint32_t>(just_past.data(), {1, 1}),
                   tensor_view<const float>(x.data(), {1}), tensor_view<float>(out.data(), {8}));
    }, "scatter_nd", "indices");
    const std::vector<std::int32_t> int_min{std::numeric_limits<std::int32_t>::min()};
    tt::expect_error([&] {
        scatter_nd(tensor_view<const float>(x.data(), {8}), tensor_view<const std::int32_t>(int_min.data(), {1, 1}),
                   tensor_view<const float>(x.data(), {1}), tensor_view<float>(out.data(), {8}));
    }, "scatter_nd", "indices");
    CHECK(std::all_of(out.begin(), out.end(), [](float v) { return v == 7.0f; }));
    // The extremes of the valid range are accepted.
    const std::vector<std::int32_t> extremes{-8, 7};
    const std::vector<float> marks{10, 20};
    scatter_nd(tensor_view<const float>(x.data(), {8}), tensor_view<const std::int32_t>(extremes.data(), {2, 1}),
               tensor_view<const float>(marks.data(), {2}), tensor_view<float>(out.data(), {8}));
    CHECK(out == std::vector<float>{10, 1, 1, 1, 1, 1, 1, 20});
}

TEST_CASE("scatter_nd: views whose bytes overflow the address arithmetic are refused before anything is written", "[scatter]") {
    // Input, indices, updates and output alike: offsets that differ as elements but wrap as bytes (2^62 floats and
    // 2^61 int64 are 2^64 bytes) make views that cannot be constructed, so scatter_nd never receives one.
    const std::vector<float> input{1, 2, 3, 4}, updates{9, 10};
    const std::vector<std::int64_t> indices{3, 1};
    std::vector<float> y(4, 7.0f);
    constexpr std::ptrdiff_t two_62 = std::ptrdiff_t{1} << 62, two_61 = std::ptrdiff_t{1} << 61;
    const tensor_view<const float> x(input.data(), {4}), u(updates.data(), {2});
    const tensor_view<const std::int64_t> i(indices.data(), {2, 1});
    const tensor_view<float> out(y.data(), {4});
    tt::expect_error([&] { scatter_nd(tensor_view<const float>(input.data(), {4}, {two_62}), i, u, out); }, "tensor_view", "strides");
    tt::expect_error([&] { scatter_nd(x, tensor_view<const std::int64_t>(indices.data(), {2, 1}, {two_61, 1}), u, out); }, "tensor_view", "strides");
    tt::expect_error([&] { scatter_nd(x, i, tensor_view<const float>(updates.data(), {2}, {two_62 + 1}), out); }, "tensor_view", "strides");
    tt::expect_error([&] { scatter_nd(sequential, x, i, u, tensor_view<float>(y.data(), {4}, {two_62})); }, "tensor_view", "strides");
    CHECK(y == std::vector<float>(4, 7.0f));
}

TEST_CASE("scatter_nd: a reduction outside scatter_reduction is an error, with or without an executor", "[scatter]") {
    const std::vector<float> input{1, 2, 3, 4}, updates{9, 10};
    const std::vector<std::int64_t> indices{3, 1};
    std::vector<float> y(4, 7.0f);
    const tensor_view<const float> x(input.data(), {4}), u(updates.data(), {2});
    const tensor_view<const std::int64_t> i(indices.data(), {2, 1});
    const tensor_view<float> out(y.data(), {4});
    tensorops::thread_pool pool(2, 1);
    for (int value : {5, -1, 255}) {
        INFO("reduction " << value);
        const auto reduction = static_cast<scatter_reduction>(value);
        const auto rule = tt::expect_error([&] { scatter_nd(x, i, u, out, reduction); }, "scatter_nd", "reduction");
        CHECK(rule.find(std::to_string(value)) != std::string::npos);
        tt::expect_error([&] { scatter_nd(pool, x, i, u, out, reduction); }, "scatter_nd", "reduction");
        tt::expect_error([&] { scatter_nd(sequential, x, i, u, out, reduction); }, "scatter_nd", "reduction");
    }
    CHECK(y == std::vector<float>(4, 7.0f));
}
