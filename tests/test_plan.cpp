#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <vector>

#include <tensorops/iter/nd_loop.hpp>
#include <tensorops/iter/plan.hpp>

#include "reference.hpp"
#include "support.hpp"

using namespace tensorops;
using namespace tensorops::iter;

namespace {
template <std::size_t N>
loop_request<N> request_of(std::vector<std::size_t> sizes, std::array<std::vector<std::ptrdiff_t>, N> strides) {
    loop_request<N> r;
    r.rank = sizes.size();
    for (std::size_t d = 0; d < r.rank; ++d) {
        r.sizes[d] = sizes[d];
        for (std::size_t o = 0; o < N; ++o) r.strides[o][d] = strides[o][d];
    }
    return r;
}
template <std::size_t N>
std::vector<std::size_t> sizes_of(const loop_nest<N>& nest) {
    return {nest.sizes.begin(), nest.sizes.begin() + static_cast<std::ptrdiff_t>(nest.rank)};
}
template <std::size_t N>
std::vector<std::ptrdiff_t> strides_of(const loop_nest<N>& nest, std::size_t operand) {
    return {nest.strides[operand].begin(), nest.strides[operand].begin() + static_cast<std::ptrdiff_t>(nest.rank)};
}
using sizes_t = std::vector<std::size_t>;
using strides_t = std::vector<std::ptrdiff_t>;
}  // namespace

TEST_CASE("plan: a packed tensor becomes one contiguous dimension") {
    const auto nest = plan_loops(request_of<1>({2, 3, 4}, {strides_t{12, 4, 1}}));
    CHECK(sizes_of(nest) == sizes_t{24});
    CHECK(strides_of(nest, 0) == strides_t{1});
    CHECK(nest.offsets[0] == 0);
    CHECK(nest.inner_is_contiguous({0}));
    CHECK(nest.origin[0].count() == 3);
}

TEST_CASE("plan: transposed operands are reordered by stride, then merged") {
    const auto nest = plan_loops(request_of<2>({2, 3}, {strides_t{1, 2}, strides_t{1, 2}}));
    CHECK(sizes_of(nest) == sizes_t{6});
    CHECK(strides_of(nest, 1) == strides_t{1});
}

TEST_CASE("plan: operand 0 decides the order; dimensions that do not chain for all operands stay apart") {
    const auto nest = plan_loops(request_of<2>({2, 3}, {strides_t{3, 1}, strides_t{1, 2}}));
    CHECK(sizes_of(nest) == sizes_t{2, 3});
    CHECK(strides_of(nest, 0) == strides_t{3, 1});
    CHECK(strides_of(nest, 1) == strides_t{1, 2});
}

TEST_CASE("plan: broadcast inputs keep their dimension; zero strides defer to the next operand") {
    const auto nest = plan_loops(request_of<2>({4, 5}, {strides_t{5, 1}, strides_t{0, 1}}));
    CHECK(sizes_of(nest) == sizes_t{4, 5});
    CHECK(strides_of(nest, 1) == strides_t{0, 1});
    // Output stride 0 is ambiguous (a reduced axis): the input decides the order.
    const auto reduce_like = plan_loops(request_of<2>({4, 5}, {strides_t{1, 0}, strides_t{1, 4}}));
    CHECK(sizes_of(reduce_like) == sizes_t{5, 4});
    CHECK(strides_of(reduce_like, 1) == strides_t{4, 1});
}

TEST_CASE("plan: size-1 dimensions are dropped unless kept") {
    auto request = request_of<1>({1, 5, 1}, {strides_t{7, 1, 3}});
    CHECK(sizes_of(plan_loops(request)) == sizes_t{5});
    request.keep.set(2);
    const auto kept = plan_loops(request);
    CHECK(sizes_of(kept) == sizes_t{1, 5});  // ordered by stride: 3 is outside 1
    CHECK(kept.position_of(2) == 0);
    CHECK(kept.position_of(0) == kept.npos);
}

TEST_CASE("plan: reverse walks a dimension backwards from its last index") {
    auto request = request_of<2>({3, 4}, {strides_t{4, 1}, strides_t{4, 1}});
    request.reverse.set(1);
    request.keep.set(1);
    request.ordered.set(1);
    const auto nest = plan_loops(request);
    CHECK(sizes_of(nest) == sizes_t{3, 4});
    CHECK(strides_of(nest, 0) == strides_t{4, -1});
    CHECK(nest.offsets[0] == 3);
    CHECK(nest.offsets[1] == 3);
}

TEST_CASE("plan: negative strides of unordered dimensions are flipped to walk memory upwards") {
    const auto nest = plan_loops(request_of<1>({2, 3}, {strides_t{-3, -1}}));
    CHECK(sizes_of(nest) == sizes_t{6});
    CHECK(strides_of(nest, 0) == strides_t{1});
    CHECK(nest.offsets[0] == -5);
    auto ordered = request_of<1>({2, 3}, {strides_t{-3, -1}});
    ordered.ordered.set();
    const auto kept_direction = plan_loops(ordered);
    CHECK(strides_of(kept_direction, 0) == strides_t{-1});
    CHECK(kept_direction.offsets[0] == 0);
}

TEST_CASE("plan: walk_down flips positive strides of unordered dimensions to walk memory downwards") {
    // A decreasing scan of 3 contiguous lines of 4: the scan axis reversed and kept, the lines walked downwards too,
    // so the nest starts at the last element and every stride is negative.
    auto request = request_of<2>({3, 4}, {strides_t{4, 1}, strides_t{4, 1}});
    request.reverse.set(1);
    request.keep.set(1);
    const auto upwards = plan_loops(request);
    CHECK(strides_of(upwards, 0) == strides_t{4, -1});
    CHECK(upwards.offsets[0] == 3);
    request.walk_down = true;
    const auto downwards = plan_loops(request);
    CHECK(sizes_of(downwards) == sizes_t{3, 4});
    CHECK(strides_of(downwards, 0) == strides_t{-4, -1});
    CHECK(strides_of(downwards, 1) == strides_t{-4, -1});
    CHECK(downwards.offsets[0] == 11);
    CHECK(downwards.offsets[1] == 11);
    // Ordered dimensions keep their direction; negative strides stay negative.
    auto ordered = request_of<1>({2, 3}, {strides_t{3, -1}});
    ordered.walk_down = true;
    ordered.ordered.set(0);
    const auto kept = plan_loops(ordered);
    CHECK(strides_of(kept, 0) == strides_t{3, -1});
    CHECK(kept.offsets[0] == 0);
}

TEST_CASE("plan: groups never merge, keep never merges, ordered dimensions keep their order") {
    auto request = request_of<1>({4, 5, 6}, {strides_t{30, 6, 1}});
    request.group = {0, 1, 0};
    CHECK(sizes_of(plan_loops(request)) == sizes_t{4, 5, 6});
    request.group = {0, 0, 0};
    request.keep.set(1);
    CHECK(sizes_of(plan_loops(request)) == sizes_t{4, 5, 6});
    // Two ordered dimensions of one group stay in caller order even when strides say otherwise.
    auto transposed = request_of<1>({3, 4}, {strides_t{1, 3}});
    transposed.ordered.set(0);
    transposed.ordered.set(1);
    const auto nest = plan_loops(transposed);
    CHECK(sizes_of(nest) == sizes_t{3, 4});
    CHECK(strides_of(nest, 0) == strides_t{1, 3});
}

TEST_CASE("plan: empty and rank-0 requests") {
    const auto empty = plan_loops(request_of<1>({3, 0, 2}, {strides_t{1, 1, 1}}));
    CHECK(empty.element_count() == 0);
    const auto scalar = plan_loops(loop_request<1>{});
    CHECK(scalar.rank == 0);
    CHECK(scalar.element_count() == 1);
}

TEST_CASE("plan: usable in constant evaluation") {
    constexpr auto nest = [] {
        loop_request<1> r;
        r.rank = 2;
        r.sizes[0] = 3;
        r.sizes[1] = 5;
        r.strides[0][0] = 5;
        r.strides[0][1] = 1;
        return plan_loops(r);
    }();
    STATIC_REQUIRE(nest.rank == 1);
    STATIC_REQUIRE(nest.sizes[0] == 15);
}

TEST_CASE("plan: the nest visits exactly the original (offset, offset, offset) tuples") {
    tensorops_test::test_rng rng("plan property");
    INFO(rng.describe());
    for (int trial = 0; trial < 300; ++trial) {
        const std::size_t rank = rng.uniform<std::size_t>(1, 6);
        const auto sizes = tensorops_test::random_sizes(rng, rank, 400);
        std::array<strides_t, 3> strides;
        for (std::size_t o = 0; o < 3; ++o) {
            const auto kind = o == 0 ? tensorops_test::output_layout_kinds[rng.uniform<std::size_t>(0, 4)]
                                     : tensorops_test::input_layout_kinds[rng.uniform<std::size_t>(0, 5)];
            strides[o] = tensorops_test::random_strides(rng, sizes, kind);
        }
        auto request = request_of<3>(sizes, strides);
        for (std::size_t d = 0; d < rank; ++d) {
            request.group[d] = static_cast<std::uint8_t>(rng.uniform<int>(0, 1));
            if (rng.chance(0.2)) request.keep.set(d);
            if (rng.chance(0.2)) request.reverse.set(d);
        }
        INFO("operand 0 " << tensorops_test::describe_layout(sizes, strides[0]));
        INFO("operand 1 " << tensorops_test::describe_layout(sizes, strides[1]));
        INFO("operand 2 " << tensorops_test::describe_layout(sizes, strides[2]));
        std::vector<std::array<std::ptrdiff_t, 3>> expected, actual;
        tensorops_test::reference::for_each_index(sizes, [&](const std::vector<std::size_t>& index) {
            std::array<std::ptrdiff_t, 3> offsets{};
            for (std::size_t o = 0; o < 3; ++o)
                for (std::size_t d = 0; d < rank; ++d) offsets[o] += static_cast<std::ptrdiff_t>(index[d]) * strides[o][d];
            expected.push_back(offsets);
        });
        const auto nest = plan_loops(request);
        for_each_element(nest, [&](const std::array<std::ptrdiff_t, 3>& offsets) { actual.push_back(offsets); });
        std::sort(expected.begin(), expected.end());
        std::sort(actual.begin(), actual.end());
        REQUIRE(actual == expected);
        CHECK(nest.rank <= rank);
        for (std::size_t d = 0; d < rank; ++d)  // kept dimensions survive, alone
            if (request.keep.test(d)) CHECK(nest.origin[nest.position_of(d)].count() == 1);
    }
}

TEST_CASE("plan: reversed, ordered dimensions are walked from the last index to the first") {
    tensorops_test::test_rng rng("plan reversed order");
    INFO(rng.describe());
    for (int trial = 0; trial < 100; ++trial) {
        const auto sizes = tensorops_test::random_sizes(rng, rng.uniform<std::size_t>(1, 4), 200);
        const auto strides = tensorops_test::random_strides(rng, sizes, tensorops_test::layout_kind::mixed);
        INFO(tensorops_test::describe_layout(sizes, strides));
        auto request = request_of<1>(sizes, {strides});
        const std::size_t axis = rng.uniform<std::size_t>(0, sizes.size() - 1);
        request.keep.set(axis);
        request.ordered.set(axis);
        request.reverse.set(axis);
        auto nest = plan_loops(request);
        const std::size_t position = nest.position_of(axis);
        REQUIRE(position != nest.npos);
        CHECK(nest.sizes[position] == sizes[axis]);
        CHECK(nest.strides[0][position] == -strides[axis]);  // each step goes one index down
        // Every line starts at an element whose index along the axis is n - 1.
        std::vector<std::ptrdiff_t> expected_starts, starts;
        auto line_sizes = sizes;
        line_sizes[axis] = 1;
        tensorops_test::reference::for_each_index(line_sizes, [&](const std::vector<std::size_t>& index) {
            std::ptrdiff_t offset = static_cast<std::ptrdiff_t>(sizes[axis] - 1) * strides[axis];
            for (std::size_t d = 0; d < sizes.size(); ++d) offset += static_cast<std::ptrdiff_t>(index[d]) * strides[d];
            expected_starts.push_back(offset);
        });
        nest.sizes[position] = 1;
        for_each_element(nest, [&](const std::array<std::ptrdiff_t, 1>& offsets) { starts.push_back(offsets[0]); });
        std::sort(expected_starts.begin(), expected_starts.end());
        std::sort(starts.begin(), starts.end());
        CHECK(starts == expected_starts);
    }
}
