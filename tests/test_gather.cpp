// gather_nd against ONNX GatherND: its five examples (batch_dims 0 and 1), random cases against the reference for
// every element type × index type × k × batch_dims × layout, gather(scatter(x)) round trips, user-defined
// element types, and every error rule with proof that nothing was written.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
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
namespace tt = tensorops_test;

namespace {

template <class T, class I = std::int64_t>
std::vector<T> gather_packed(const std::vector<std::size_t>& input_sizes, const std::vector<T>& input, const std::vector<std::size_t>& index_sizes,
                             const std::vector<I>& indices, const std::vector<std::size_t>& output_sizes, std::size_t batch_dims = 0) {
    std::vector<T> output(ref::dense<int>::element_count(output_sizes), T(-1));
    gather_nd(tensor_view<const T>(input.data(), input_sizes), tensor_view<const I>(indices.data(), index_sizes),
              tensor_view<T>(output.data(), output_sizes), batch_dims);
    return output;
}

/// One random case against the reference: random ranks, batch_dims, k, sizes, tuples (duplicates and negative
/// spellings included), layouts and misalignment. The output must match bit for bit, nothing outside it may be
/// written, and the inputs must be unchanged.
template <class T>
void check_random_gather(test_rng& rng, tt::index_kind kind) {
    const std::size_t r = rng.uniform<std::size_t>(1, 5);
    const auto input_sizes = tt::random_sizes(rng, r, 400);
    const std::size_t b = rng.uniform<std::size_t>(0, std::min<std::size_t>(r - 1, 2));
    const std::size_t k = rng.uniform<std::size_t>(1, r - b);
    std::vector<std::size_t> tuple_sizes(input_sizes.begin(), input_sizes.begin() + static_cast<std::ptrdiff_t>(b));
    const auto extra = tt::random_sizes(rng, rng.uniform<std::size_t>(0, 2), rng.chance(0.2) ? 300 : 20);
    tuple_sizes.insert(tuple_sizes.end(), extra.begin(), extra.end());
    std::vector<std::size_t> index_sizes = tuple_sizes, output_sizes = tuple_sizes;
    index_sizes.push_back(k);
    output_sizes.insert(output_sizes.end(), input_sizes.begin() + static_cast<std::ptrdiff_t>(b + k), input_sizes.end());
    const std::vector<std::size_t> extents(input_sizes.begin() + static_cast<std::ptrdiff_t>(b), input_sizes.begin() + static_cast<std::ptrdiff_t>(b + k));

    guarded_buffer<T> input(input_sizes, tt::random_strides(rng, input_sizes, tt::input_layout_kinds[rng.uniform<std::size_t>(0, 5)]),
                            rng.uniform<std::size_t>(0, 7));
    auto index_strides = tt::random_strides(rng, index_sizes, tt::input_layout_kinds[rng.uniform<std::size_t>(0, 5)]);
    if (index_strides.back() == 0) index_strides.back() = 1;  // broadcast tuples, never coordinates (they would mix)
    guarded_buffer<T> output(output_sizes, tt::random_strides(rng, output_sizes, tt::output_layout_kinds[rng.uniform<std::size_t>(0, 4)]),
                             rng.uniform<std::size_t>(0, 7));
    std::vector<T> values(ref::dense<int>::element_count(input_sizes));
    for (auto& v : values) v = tt::random_value<T>(rng);
    input.assign(values);
    const auto x = input.values();
    const auto tuples = tt::random_tuples(rng, ref::dense<int>::element_count(tuple_sizes), extents, rng.chance(0.3), tt::is_signed(kind));

    INFO("index type " << tt::index_kind_name(kind) << ", batch_dims " << b << ", k " << k << "; input "
                       << tt::describe_layout(input_sizes, input.strides()) << "; indices " << tt::describe_layout(index_sizes, index_strides)
                       << "; output " << tt::describe_layout(output_sizes, output.strides()));
    const auto p = tt::run_with_indices(kind, index_sizes, index_strides, rng.uniform<std::size_t>(0, 3), tuples,
                                        [&](auto indices) { gather_nd(input.const_view(), indices, output.view(), b); });

    const auto expected = ref::gather_nd(ref::dense<T>(input_sizes, x), ref::dense<std::int64_t>(index_sizes, p), b);
    tt::check_elements(output.values(), expected.values, true);
    REQUIRE(output.untouched_outside_view());
    REQUIRE(input.untouched_outside_view());
    tt::check_elements(input.values(), x, true);
}

}  // namespace

TEST_CASE("gather_nd: the ONNX GatherND examples", "[gather]") {
    const std::vector<std::int32_t> square{0, 1, 2, 3};
    CHECK(gather_packed<std::int32_t>({2, 2}, square, {2, 2}, {0, 0, 1, 1}, {2}) == std::vector<std::int32_t>{0, 3});
    CHECK(gather_packed<std::int32_t>({2, 2}, square, {2, 1}, {1, 0}, {2, 2}) == std::vector<std::int32_t>{2, 3, 0, 1});
    const std::vector<float> cube{0, 1, 2, 3, 4, 5, 6, 7};
    CHECK(gather_packed<float>({2, 2, 2}, cube, {2, 2}, {0, 1, 1, 0}, {2, 2}) == std::vector<float>{2, 3, 4, 5});
    CHECK(gather_packed<float>({2, 2, 2}, cube, {2, 1, 2}, {0, 1, 1, 0}, {2, 1, 2}) == std::vector<float>{2, 3, 4, 5});
    // batch_dims 1: tuple b indexes batch b of the input.
    CHECK(gather_packed<float>({2, 2, 2}, cube, {2, 1}, {1, 0}, {2, 2}, 1) == std::vector<float>{2, 3, 4, 5});
    // The same with every index type, negative spellings, and a mutable indices view.
    CHECK(gather_packed<float, std::int32_t>({2, 2, 2}, cube, {2, 1}, {-1, -2}, {2, 2}, 1) == std::vector<float>{2, 3, 4, 5});
    CHECK(gather_packed<float, std::uint32_t>({2, 2, 2}, cube, {2, 1}, {1, 0}, {2, 2}, 1) == std::vector<float>{2, 3, 4, 5});
    CHECK(gather_packed<float, std::uint64_t>({2, 2, 2}, cube, {2, 2}, {0, 1, 1, 0}, {2, 2}) == std::vector<float>{2, 3, 4, 5});
    std::vector<std::int64_t> mutable_indices{0, 0, 1, 1};
    std::vector<std::int32_t> out(2);
    gather_nd(tensor_view<const std::int32_t>(square.data(), {2, 2}), tensor_view<std::int64_t>(mutable_indices.data(), {2, 2}),
              tensor_view<std::int32_t>(out.data(), {2}));
    CHECK(out == std::vector<std::int32_t>{0, 3});
    // batch_dims 2 on [2, 2, 2] with k = 1: output[b0, b1] = input[b0, b1, indices[b0, b1, 0]].
    CHECK(gather_packed<float>({2, 2, 2}, cube, {2, 2, 1}, {1, 0, 0, 1}, {2, 2}, 2) == std::vector<float>{1, 2, 4, 7});
}

TEMPLATE_LIST_TEST_CASE("gather_nd: random shapes, layouts, index types and batch_dims against the reference", "[gather]",
                        tensorops_test::random_test_types) {
    using T = TestType;
    test_rng rng("gather random " + std::string(tt::type_name<T>()));
    INFO(rng.describe());
    for (tt::index_kind kind : tt::all_index_kinds)
        for (int trial = 0; trial < 30; ++trial) check_random_gather<T>(rng, kind);
}

TEMPLATE_LIST_TEST_CASE("gather_nd reads back what scatter_nd wrote (distinct tuples)", "[gather][scatter]", tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng("gather scatter round trip " + std::string(tt::type_name<T>()));
    INFO(rng.describe());
    for (int trial = 0; trial < 24; ++trial) {
        const tt::index_kind kind = tt::all_index_kinds[trial % 4];
        const std::size_t r = rng.uniform<std::size_t>(1, 4);
        const auto sizes = tt::random_sizes(rng, r, 300);
        const std::size_t k = rng.uniform<std::size_t>(1, r);
        const std::vector<std::size_t> extents(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(k));
        // Distinct tuples: a random subset of the positions of the first k dimensions, in random order.
        std::vector<std::size_t> positions(ref::dense<int>::element_count(extents));
        std::iota(positions.begin(), positions.end(), std::size_t{0});
        std::shuffle(positions.begin(), positions.end(), rng.engine());
        positions.resize(rng.uniform<std::size_t>(1, positions.size()));
        std::vector<std::int64_t> tuples;
        for (std::size_t flat : positions) {
            std::vector<std::int64_t> coordinate(k);
            for (std::size_t c = k; c-- > 0;) {
                coordinate[c] = static_cast<std::int64_t>(flat % extents[c]);
                flat /= extents[c];
            }
            tuples.insert(tuples.end(), coordinate.begin(), coordinate.end());
        }
        const std::vector<std::size_t> index_sizes{positions.size(), k};
        std::vector<std::size_t> update_sizes{positions.size()};
        update_sizes.insert(update_sizes.end(), sizes.begin() + static_cast<std::ptrdiff_t>(k), sizes.end());
        std::vector<T> x(ref::dense<int>::element_count(sizes)), u(ref::dense<int>::element_count(update_sizes)), original(u.size());
        for (auto& v : x) v = tt::random_value<T>(rng);
        for (auto& v : u) v = tt::random_value<T>(rng);
        guarded_buffer<T> buffer(sizes, tt::random_strides(rng, sizes, tt::output_layout_kinds[rng.uniform<std::size_t>(0, 4)]));
        guarded_buffer<T> back(update_sizes, tt::random_strides(rng, update_sizes, tt::output_layout_kinds[rng.uniform<std::size_t>(0, 4)]));
        buffer.assign(x);
        INFO("trial " << trial << ", index type " << tt::index_kind_name(kind) << ", k " << k << ", " << positions.size() << " tuples");
        tt::run_with_indices(kind, index_sizes, {static_cast<std::ptrdiff_t>(k), 1}, 0, tuples, [&](auto indices) {
            // scatter u, read it back; then scatter x's own values at those places back: x is restored exactly.
            scatter_nd(buffer.const_view(), indices, tensor_view<const T>(u.data(), update_sizes), buffer.view());
            gather_nd(buffer.const_view(), indices, back.view());
            gather_nd(tensor_view<const T>(x.data(), sizes), indices, tensor_view<T>(original.data(), update_sizes));
            tt::check_elements(back.values(), u, true);
            scatter_nd(buffer.const_view(), indices, tensor_view<const T>(original.data(), update_sizes), buffer.view());
        });
        tt::check_elements(buffer.values(), x, true);
        REQUIRE(buffer.untouched_outside_view());
        REQUIRE(back.untouched_outside_view());
    }
}

namespace {
// One case of the test below (a function of its own: inlined into the test body, GCC 12 -O3 reports a spurious
// -Wfree-nonheap-object in std::vector).
[[gnu::noinline]] void check_many_tuples(test_rng& rng, int trial) {
    const std::vector<std::size_t> input_sizes{50, 3, 33};
    const std::size_t k = trial % 2 ? 1 : 2;
    std::vector<std::size_t> tuple_sizes{700};
    if (trial % 4 >= 2) tuple_sizes = {5, 130};
    std::vector<std::size_t> index_sizes = tuple_sizes, output_sizes = tuple_sizes;
    index_sizes.push_back(k);
    output_sizes.insert(output_sizes.end(), input_sizes.begin() + static_cast<std::ptrdiff_t>(k), input_sizes.end());
    guarded_buffer<double> input(input_sizes, tt::random_strides(rng, input_sizes, trial % 3 ? tt::layout_kind::packed : tt::layout_kind::mixed));
    guarded_buffer<std::int64_t> indices(index_sizes, tt::random_strides(rng, index_sizes, tt::layout_kind::mixed));
    guarded_buffer<double> output(output_sizes, tt::random_strides(rng, output_sizes, trial % 3 ? tt::layout_kind::packed : tt::layout_kind::reversed));
    std::vector<double> x(50 * 3 * 33);
    for (auto& v : x) v = tt::random_value<double>(rng);
    input.assign(x);
    const std::vector<std::size_t> extents(input_sizes.begin(), input_sizes.begin() + static_cast<std::ptrdiff_t>(k));
    const auto p = tt::random_tuples(rng, ref::dense<int>::element_count(tuple_sizes), extents, false, true);
    indices.assign(p);
    gather_nd(input.const_view(), indices.const_view(), output.view());
    const auto expected = ref::gather_nd(ref::dense<double>(input_sizes, x), ref::dense<std::int64_t>(index_sizes, p));
    INFO("trial " << trial);
    tt::check_elements(output.values(), expected.values, true);
    REQUIRE(output.untouched_outside_view());
}
}  // namespace

TEST_CASE("gather_nd: many tuples (several chunks), strided indices, row slices", "[gather]") {
    test_rng rng("gather many tuples");
    INFO(rng.describe());
    for (int trial = 0; trial < 8; ++trial) check_many_tuples(rng, trial);
}

TEST_CASE("gather_nd: user-defined element types", "[gather]") {
    using tensorops_test::mod_prime;
    std::vector<mod_prime> x{{1}, {2}, {3}, {4}, {5}, {6}}, out(4);
    const std::vector<std::uint32_t> rows{2, 0};
    gather_nd(tensor_view<const mod_prime>(x.data(), {3, 2}), tensor_view<const std::uint32_t>(rows.data(), {2, 1}),
              tensor_view<mod_prime>(out.data(), {2, 2}));
    CHECK(out == std::vector<mod_prime>{{5}, {6}, {1}, {2}});
    std::vector<std::string> words{"a", "b", "c", "d", "e", "f"}, picked(9);
    const std::vector<std::int64_t> rows_picked{-1, 0, 1};
    gather_nd(tensor_view<const std::string>(words.data(), {2, 3}, {1, 2}), tensor_view<const std::int64_t>(rows_picked.data(), {3, 1}),
              tensor_view<std::string>(picked.data(), {3, 3}, {1, 3}));
    // Input [2, 3] stored transposed: row 0 is a c e, row 1 is b d f. Rows −1, 0, 1 into a transposed output.
    CHECK(picked == std::vector<std::string>{"b", "a", "b", "d", "c", "d", "f", "e", "f"});
}

TEST_CASE("gather_nd: empty tensors", "[gather]") {
    std::vector<float> x{1, 2, 3, 4};
    std::vector<float> out(1, -1.0f);
    gather_nd(tensor_view<const float>(x.data(), {2, 2}), tensor_view<const std::int32_t>(nullptr, {0, 1}), tensor_view<float>(out.data(), {0, 2}));
    CHECK(out[0] == -1.0f);
    const std::vector<std::int32_t> one{1};
    gather_nd(tensor_view<const float>(nullptr, {2, 0}), tensor_view<const std::int32_t>(one.data(), {1, 1}), tensor_view<float>(out.data(), {1, 0}));
    CHECK(out[0] == -1.0f);
}

TEST_CASE("gather_nd: the range check is exact up to the largest dimension a view can have", "[gather]") {
    // A broadcast input (stride 0) may have PTRDIFF_MAX elements: every valid index reads the one value.
    const float value = 42.0f;
    constexpr auto huge = std::numeric_limits<std::ptrdiff_t>::max();
    const tensor_view<const float> input(&value, {static_cast<std::size_t>(huge)}, {0});
    float out = 0.0f;
    const auto gather_one = [&](auto index) {
        out = 0.0f;
        gather_nd(input, tensor_view<const decltype(index)>(&index, {1}), tensor_view<float>(&out, std::span<const std::size_t>{}));
    };
    for (std::int64_t index : {-huge, -huge + 1, std::int64_t{-1}, std::int64_t{0}, huge - 1}) {
        INFO("index " << index);
        gather_one(index);
        CHECK(out == 42.0f);
    }
    gather_one(static_cast<std::uint64_t>(huge - 1));
    CHECK(out == 42.0f);
    for (std::int64_t index : {std::numeric_limits<std::int64_t>::min(), huge}) {
        INFO("index " << index);
        tt::expect_error([&] { gather_one(index); }, "gather_nd", "indices");
    }
    for (std::uint64_t index : {static_cast<std::uint64_t>(huge), static_cast<std::uint64_t>(huge) + 1, std::numeric_limits<std::uint64_t>::max()}) {
        INFO("index " << index);
        tt::expect_error([&] { gather_one(index); }, "gather_nd", "indices");
    }
    // int32 extremes against small dimensions.
    const std::vector<float> four{1, 2, 3, 4};
    for (std::int32_t index : {std::numeric_limits<std::int32_t>::min(), std::int32_t{-5}, std::int32_t{4}, std::numeric_limits<std::int32_t>::max()}) {
        INFO("index " << index);
        tt::expect_error([&] {
            gather_nd(tensor_view<const float>(four.data(), {4}), tensor_view<const std::int32_t>(&index, {1}), tensor_view<float>(&out, std::span<const std::size_t>{}));
        }, "gather_nd", "indices");
    }
}

TEST_CASE("gather_nd: every broken rule throws tensorops::error naming the argument, before writing", "[gather]") {
    std::vector<float> a(24, 1.0f), b(24, 7.0f);
    const tensor_view<const float> input(a.data(), {2, 3, 4});
    const std::vector<std::int64_t> rows{1, 0};
    const tensor_view<const std::int64_t> row_indices(rows.data(), {2, 1});
    const tensor_view<float> output(b.data(), {2, 3, 4});
    auto expect = [&](auto call, const std::string& argument) {
        const std::string rule = tt::expect_error(call, "gather_nd", argument);
        CHECK(std::all_of(b.begin(), b.end(), [](float v) { return v == 7.0f; }));
        return rule;
    };
    float scalar = 1.0f;
    expect([&] { gather_nd(tensor_view<const float>(&scalar, std::span<const std::size_t>{}), row_indices, output); }, "input");
    expect([&] { gather_nd(input, tensor_view<const std::int64_t>(rows.data(), std::span<const std::size_t>{}), output); }, "indices");
    expect([&] { gather_nd(input, row_indices, output, 2); }, "batch_dims");  // not below the rank of indices (2)
    const std::vector<std::int64_t> deep(16, 0);
    expect([&] { gather_nd(input, tensor_view<const std::int64_t>(deep.data(), {2, 3, 1, 1, 1}), output, 3); }, "batch_dims");  // input rank 3
    expect([&] { gather_nd(input, tensor_view<const std::int64_t>(rows.data(), {2, 0}), output); }, "indices");
    const auto k_rule = expect([&] { gather_nd(input, tensor_view<const std::int64_t>(deep.data(), {2, 3}), tensor_view<float>(b.data(), {2, 4}), 1); }, "indices");
    CHECK(k_rule.find("[1, 2]") != std::string::npos);
    expect([&] { gather_nd(input, tensor_view<const std::int64_t>(deep.data(), {3, 1}), tensor_view<float>(b.data(), {3, 4}), 1); }, "indices");  // batch size 3 ≠ 2
    const auto output_rule = expect([&] { gather_nd(input, row_indices, tensor_view<float>(b.data(), {2, 3, 3})); }, "output");
    CHECK(output_rule.find("{2, 3, 4}") != std::string::npos);
    expect([&] { gather_nd(input, row_indices, tensor_view<float>(b.data(), {2, 12})); }, "output");
    expect([&] { gather_nd(input, row_indices, tensor_view<float>(b.data(), {2, 3, 4}, {0, 4, 1})); }, "output");
    // The output over the input, or over the indices.
    std::vector<float> shared(24, 7.0f);
    const auto overlap_rule = tt::expect_error([&] {
        gather_nd(tensor_view<const float>(shared.data(), {2, 3, 4}), row_indices, tensor_view<float>(shared.data(), {2, 3, 4}));
    }, "gather_nd", "output");
    CHECK(overlap_rule.find("input") != std::string::npos);
    CHECK(std::all_of(shared.begin(), shared.end(), [](float v) { return v == 7.0f; }));
    alignas(8) unsigned char raw[256] = {};
    const auto indices_rule = tt::expect_error([&] {
        gather_nd(input, tensor_view<const std::int64_t>(reinterpret_cast<const std::int64_t*>(raw), {2, 1}),
                  tensor_view<float>(reinterpret_cast<float*>(raw + 8), {2, 3, 4}));
    }, "gather_nd", "output");
    CHECK(indices_rule.find("indices") != std::string::npos);
    CHECK(std::all_of(raw, raw + 256, [](unsigned char c) { return c == 0; }));
    // Out of range: the first bad tuple, by position and value; batch_dims shifts the dimension named.
    const std::vector<std::int32_t> bad{0, 1, 2, -4, 3, 0};  // [3, 2] tuples into dims 1 and 2 of a [3, 3, 4] input, batch 1
    std::vector<float> cube(36, 1.0f), picked(3, 7.0f);
    const auto rule = tt::expect_error([&] {
        gather_nd(tensor_view<const float>(cube.data(), {3, 3, 4}), tensor_view<const std::int32_t>(bad.data(), {3, 2}), tensor_view<float>(picked.data(), {3}), 1);
    }, "gather_nd", "indices");
    CHECK(rule.find("indices[1, :] is {2, -4}") == std::string::npos);  // {2, −4} is valid: −4 is the first of 4
    CHECK(rule.find("indices[2, :] is {3, 0}") != std::string::npos);
    CHECK(rule.find("dimension 1 of input") != std::string::npos);
    CHECK(rule.find("[-3, 2]") != std::string::npos);
    CHECK(std::all_of(picked.begin(), picked.end(), [](float v) { return v == 7.0f; }));
}

namespace {
// One row length of the test below: 24 rows of `bytes` bytes (bytes / sizeof(T) elements), 72 tuples (duplicates
// included), every buffer misaligned by `shift` elements; scattered in place, gathered back, scattered again with the
// max reduction, and gathered with a batch dimension (whose lines step the indexed base) — each against the reference.
template <class T>
void check_row_copies(test_rng& rng, std::size_t bytes, std::size_t shift, tt::layout_kind index_layout) {
    const std::size_t n = bytes / sizeof(T), rows = 24, count = 72;  // more tuples than any hint distance (at most 64)
    const std::vector<std::size_t> sizes{rows, n}, index_sizes{count, 1}, update_sizes{count, n};
    std::vector<T> x(rows * n), u(count * n);
    for (auto& v : x) v = tt::random_value<T>(rng);
    for (auto& v : u) v = tt::random_value<T>(rng);
    const auto p = tt::random_tuples(rng, count, {rows}, true, true);
    guarded_buffer<T> buffer(sizes, tt::random_strides(rng, sizes, tt::layout_kind::packed), shift);
    guarded_buffer<std::int64_t> indices(index_sizes, tt::random_strides(rng, index_sizes, index_layout), shift % 2);
    guarded_buffer<T> updates(update_sizes, tt::random_strides(rng, update_sizes, tt::layout_kind::packed), (shift + 1) % 4);
    guarded_buffer<T> back(update_sizes, tt::random_strides(rng, update_sizes, tt::layout_kind::packed), (shift + 2) % 4);
    buffer.assign(x);
    updates.assign(u);
    indices.assign(p);
    INFO("rows of " << bytes << " bytes (" << n << " " << tt::type_name<T>() << "), misaligned by " << shift << ", indices "
                    << tt::describe_layout(index_sizes, indices.strides()));
    scatter_nd(buffer.const_view(), indices.const_view(), updates.const_view(), buffer.view());
    const auto scattered = ref::scatter_nd(ref::dense<T>(sizes, x), ref::dense<std::int64_t>(index_sizes, p), ref::dense<T>(update_sizes, u));
    tt::check_elements(buffer.values(), scattered.values, true);
    REQUIRE(buffer.untouched_outside_view());
    gather_nd(buffer.const_view(), indices.const_view(), back.view());
    tt::check_elements(back.values(), ref::gather_nd(scattered, ref::dense<std::int64_t>(index_sizes, p)).values, true);
    REQUIRE(back.untouched_outside_view());

    // With a reduction the rows go through the chunks (hinted a chunk ahead, in groups): max, exact for every type.
    const auto before = buffer.values();
    scatter_nd(buffer.const_view(), indices.const_view(), updates.const_view(), buffer.view(), scatter_reduction::max);
    const auto maxed = ref::scatter_nd(ref::dense<T>(sizes, before), ref::dense<std::int64_t>(index_sizes, p), ref::dense<T>(update_sizes, u),
                                       ref::scatter_mode::max);
    tt::check_elements(buffer.values(), maxed.values, true);
    REQUIRE(buffer.untouched_outside_view());

    // batch_dims 1: two batches of 12 rows, 36 tuples each.
    const std::vector<std::size_t> batch_sizes{2, rows / 2, n}, batch_index_sizes{2, count / 2, 1}, batch_output_sizes{2, count / 2, n};
    const auto q = tt::random_tuples(rng, count, {rows / 2}, true, true);
    guarded_buffer<std::int64_t> batch_indices(batch_index_sizes, tt::random_strides(rng, batch_index_sizes, index_layout));
    guarded_buffer<T> batch_output(batch_output_sizes, tt::random_strides(rng, batch_output_sizes, tt::layout_kind::packed), shift);
    batch_indices.assign(q);
    gather_nd(tensor_view<const T>(x.data(), batch_sizes), batch_indices.const_view(), batch_output.view(), 1);
    tt::check_elements(batch_output.values(), ref::gather_nd(ref::dense<T>(batch_sizes, x), ref::dense<std::int64_t>(batch_index_sizes, q), 1).values,
                       true);
    REQUIRE(batch_output.untouched_outside_view());
}
}  // namespace

TEST_CASE("gather_nd and scatter_nd: rows of every size their copy treats apart, misaligned, in any index layout", "[gather][scatter]") {
    // The copy of whole rows (ops/detail/tuples/fused_copy.hpp, simd/copy.hpp) has code for rows of 32, 64, 128, 256 and
    // 512 bytes, a loop of four registers, one register and an overlapping last one for other rows up to 2 KiB, and
    // memcpy past that: every class, its edges, and lengths that are not a whole number of registers.
    test_rng rng("gather scatter row copies");
    INFO(rng.describe());
    const std::size_t row_bytes[] = {1, 15, 17, 31, 32, 33, 48, 63, 64, 65, 96, 127, 128, 129, 200, 255, 256,
                                     257, 320, 511, 512, 513, 1000, 2047, 2048, 2049, 3000};
    const tt::layout_kind index_layouts[] = {tt::layout_kind::packed, tt::layout_kind::reversed, tt::layout_kind::mixed};
    // Long rows take one misalignment; in the sanitised builds every row size takes one, a different one from its
    // neighbours (time under the sanitisers).
    for (std::size_t size_index = 0; size_index < std::size(row_bytes); ++size_index) {
        const std::size_t bytes = row_bytes[size_index], shifts = bytes <= 600 ? 3 : 1;
        for (std::size_t shift = 0; shift < shifts; ++shift) {
            if (tensorops_test::sanitized_build && shift != size_index % shifts) continue;
            check_row_copies<std::uint8_t>(rng, bytes, shift, index_layouts[shift]);
            if (bytes % sizeof(float) == 0 && bytes <= 600) check_row_copies<float>(rng, bytes, shift, index_layouts[(shift + 1) % 3]);
        }
    }
}

TEST_CASE("gather_nd: views whose bytes overflow the address arithmetic are refused before anything is written", "[gather]") {
    // Input, indices and output alike: offsets that differ as elements but wrap as bytes (2^62 floats and 2^61 int64
    // are 2^64 bytes) make views that cannot be constructed, so gather_nd never receives one.
    const std::vector<float> input{1, 2, 3, 4};
    const std::vector<std::int64_t> indices{3, 1};
    std::vector<float> y(2, 7.0f);
    constexpr std::ptrdiff_t two_62 = std::ptrdiff_t{1} << 62, two_61 = std::ptrdiff_t{1} << 61;
    const tensor_view<const float> x(input.data(), {4});
    const tensor_view<const std::int64_t> i(indices.data(), {2, 1});
    tt::expect_error([&] { gather_nd(tensor_view<const float>(input.data(), {4}, {two_62}), i, tensor_view<float>(y.data(), {2})); }, "tensor_view", "strides");
    tt::expect_error([&] { gather_nd(x, tensor_view<const std::int64_t>(indices.data(), {2, 1}, {two_61, 1}), tensor_view<float>(y.data(), {2})); },
                     "tensor_view", "strides");
    tt::expect_error([&] { gather_nd(sequential, x, i, tensor_view<float>(y.data(), {2}, {two_62})); }, "tensor_view", "strides");
    CHECK(y == std::vector<float>(2, 7.0f));
}

// A default-constructed view addresses nothing (rank 1, size 0): given where an operator's output or updates must hold
// elements — here a rank-0 output of one element, which a rank-0 default view had matched while pointing nowhere —
// it is refused by its sizes, never written through.
TEST_CASE("gather_nd and scatter_nd: a default-constructed view is refused by its sizes, never read or written", "[gather][scatter]") {
    const float x[4] = {1, 2, 3, 4};
    const std::int64_t at[1] = {2};
    const tensor_view<const float> input(x, {4});
    const tensor_view<const std::int64_t> one_tuple(at, {1});
    tt::expect_error([&] { gather_nd(input, one_tuple, tensor_view<float>{}); }, "gather_nd", "output");
    float y[4] = {0, 0, 0, 0};
    tt::expect_error([&] { scatter_nd(input, one_tuple, tensor_view<const float>{}, tensor_view<float>(y, {4})); }, "scatter_nd", "updates");
    CHECK(y[0] == 0.0f);
}
