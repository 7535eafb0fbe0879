#include <catch2/catch.hpp>

#include <array>
#include <vector>

#include <tensorops/iter/nd_loop.hpp>

using namespace tensorops;
using namespace tensorops::iter;

namespace {
loop_nest<2> make_nest() {
    loop_nest<2> nest;
    nest.rank = 3;
    nest.sizes = {2, 3, 4};
    nest.strides[0] = {100, 10, 1};
    nest.strides[1] = {-7, 0, 2};
    nest.offsets = {5, 50};
    return nest;
}
}  // namespace

TEST_CASE("nd_loop: the odometer visits outer indices in row-major order with exact offsets") {
    const auto nest = make_nest();
    std::vector<std::array<std::ptrdiff_t, 2>> visited;
    for_each_outer_index(nest, 2, [&](const std::array<std::ptrdiff_t, 2>& offsets) { visited.push_back(offsets); });
    REQUIRE(visited.size() == 6);
    std::size_t n = 0;
    for (std::ptrdiff_t i = 0; i < 2; ++i)
        for (std::ptrdiff_t j = 0; j < 3; ++j, ++n) {
            CHECK(visited[n][0] == 5 + 100 * i + 10 * j);
            CHECK(visited[n][1] == 50 - 7 * i);
        }
}

TEST_CASE("nd_loop: outer rank 0 calls once; an empty nest never calls") {
    auto nest = make_nest();
    int calls = 0;
    for_each_outer_index(nest, 0, [&](const std::array<std::ptrdiff_t, 2>& offsets) {
        ++calls;
        CHECK(offsets[0] == 5);
    });
    CHECK(calls == 1);
    nest.sizes[2] = 0;
    calls = 0;
    for_each_outer_index(nest, 2, [&](const auto&) { ++calls; });
    for_each_element(nest, [&](const auto&) { ++calls; });
    CHECK(calls == 0);
}

TEST_CASE("nd_loop: for_each_element walks every element, innermost fastest") {
    const auto nest = make_nest();
    std::vector<std::ptrdiff_t> first_operand;
    for_each_element(nest, [&](const std::array<std::ptrdiff_t, 2>& offsets) { first_operand.push_back(offsets[0]); });
    REQUIRE(first_operand.size() == 24);
    CHECK(first_operand[0] == 5);
    CHECK(first_operand[1] == 6);
    CHECK(first_operand[4] == 15);
    CHECK(first_operand[23] == 5 + 100 + 20 + 3);
    loop_nest<1> scalar;  // rank 0: one element at the base offset
    scalar.offsets = {9};
    std::vector<std::ptrdiff_t> single;
    for_each_element(scalar, [&](const std::array<std::ptrdiff_t, 1>& offsets) { single.push_back(offsets[0]); });
    CHECK(single == std::vector<std::ptrdiff_t>{9});
}

TEST_CASE("nd_loop: for_each_element_from walks any piece of for_each_element's order") {
    auto nest = make_nest();
    std::vector<std::array<std::ptrdiff_t, 2>> whole;
    for_each_element(nest, [&](const std::array<std::ptrdiff_t, 2>& offsets) { whole.push_back(offsets); });
    REQUIRE(whole.size() == 24);
    for (std::size_t first = 0; first <= whole.size(); ++first)
        for (std::size_t count = 0; first + count <= whole.size(); ++count) {
            std::vector<std::array<std::ptrdiff_t, 2>> piece;
            for_each_element_from(nest, first, count, [&](const std::array<std::ptrdiff_t, 2>& offsets) { piece.push_back(offsets); });
            INFO("first " << first << ", count " << count);
            CHECK(piece == std::vector<std::array<std::ptrdiff_t, 2>>(whole.begin() + static_cast<std::ptrdiff_t>(first),
                                                                        whole.begin() + static_cast<std::ptrdiff_t>(first + count)));
        }
    // Rank 0: one element.
    nest.rank = 0;
    int calls = 0;
    for_each_element_from(nest, 0, 1, [&](const std::array<std::ptrdiff_t, 2>& offsets) {
        ++calls;
        CHECK(offsets == nest.offsets);
    });
    CHECK(calls == 1);
}
