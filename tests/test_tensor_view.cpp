#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <set>
#include <vector>

#include <tensorops/core/tensor_view.hpp>

#include "reference.hpp"
#include "support.hpp"

using namespace tensorops;
using tensorops_test::test_rng;

namespace {
std::size_t total(const tensor_view<const float>& v) { return v.element_count(); }  // takes a const view

template <class F>
void expect_error(F&& f, const std::string& argument) {
    try {
        f();
        FAIL("expected tensorops::error naming '" << argument << "'");
    } catch (const tensorops::error& e) {
        CHECK(e.argument() == argument);
        CHECK(e.operator_name() == "tensor_view");
    }
}

// Brute force: do two coordinates share an offset?
bool brute_force_unique(const std::vector<std::size_t>& sizes, const std::vector<std::ptrdiff_t>& strides) {
    std::vector<std::ptrdiff_t> offsets;
    tensorops_test::reference::for_each_index(sizes, [&](const std::vector<std::size_t>& index) {
        std::ptrdiff_t offset = 0;
        for (std::size_t d = 0; d < sizes.size(); ++d) offset += static_cast<std::ptrdiff_t>(index[d]) * strides[d];
        offsets.push_back(offset);
    });
    std::sort(offsets.begin(), offsets.end());
    return std::adjacent_find(offsets.begin(), offsets.end()) == offsets.end();
}
}  // namespace

TEST_CASE("tensor_view: packed row-major by default") {
    std::vector<float> buffer(24);
    std::iota(buffer.begin(), buffer.end(), 0.0f);
    const std::array<std::size_t, 3> sizes{2, 3, 4};
    tensor_view<float> v(buffer.data(), sizes);
    REQUIRE(v.rank() == 3);
    CHECK(v.stride(0) == 12);
    CHECK(v.stride(1) == 4);
    CHECK(v.stride(2) == 1);
    CHECK(v.element_count() == 24);
    CHECK(v.required_span_size() == 24);
    CHECK(v.is_packed());
    CHECK(v.is_unique());
    CHECK(v(1, 2, 3) == 23.0f);
    CHECK(v(0, 1, 0) == 4.0f);
    v(1, 0, 0) = -1.0f;
    CHECK(buffer[12] == -1.0f);
    CHECK(total(v) == 24);  // implicit conversion to tensor_view<const float>
    const tensor_view<const float> c = v;
    CHECK(c.data() == buffer.data());
    CHECK(c.sizes()[1] == 3);
}

TEST_CASE("tensor_view: initializer lists, signed strides and spans") {
    std::vector<int> buffer{0, 1, 2, 3, 4, 5};
    // A reversed view of the last three elements: data points at the highest address.
    tensor_view<int> reversed(buffer.data() + 5, {3}, {-1});
    CHECK(reversed(0) == 5);
    CHECK(reversed(2) == 3);
    CHECK(reversed.min_offset() == -2);
    CHECK(reversed.max_offset() == 0);
    CHECK(reversed.required_span_size() == 3);
    CHECK_FALSE(reversed.is_packed());
    // A transposed 2x3 view of a packed 3x2 matrix.
    tensor_view<int> transposed(buffer.data(), {2, 3}, {1, 2});
    CHECK(transposed(1, 2) == 5);
    CHECK(transposed(0, 1) == 2);
    CHECK(transposed.required_span_size() == 6);
    // Broadcast: stride 0 repeats one element.
    tensor_view<const int> broadcast(buffer.data() + 4, {3, 2}, {0, 1});
    CHECK(broadcast(2, 1) == 5);
    CHECK(broadcast.required_span_size() == 2);
    CHECK_FALSE(broadcast.is_unique());
    // Size-1 dimensions may carry any stride and still count as packed.
    tensor_view<int> with_unit(buffer.data(), {1, 6}, {999, 1});
    CHECK(with_unit.is_packed());
}

TEST_CASE("tensor_view: rank 0 and empty views") {
    float scalar = 3.5f;
    tensor_view<float> v(&scalar, std::span<const std::size_t>{});
    CHECK(v.rank() == 0);
    CHECK(v.element_count() == 1);
    CHECK(v() == 3.5f);
    CHECK(v.required_span_size() == 1);
    tensor_view<float> empty(nullptr, {3, 0, 2});
    CHECK(empty.empty());
    CHECK(empty.element_count() == 0);
    CHECK(empty.required_span_size() == 0);
    CHECK(empty.is_unique());
}

TEST_CASE("tensor_view: a default-constructed view is empty: rank 1, size 0, no data") {
    const tensor_view<float> none;
    CHECK(none.rank() == 1);
    CHECK(none.size(0) == 0);
    CHECK(none.empty());
    CHECK(none.element_count() == 0);
    CHECK(none.data() == nullptr);
    CHECK(none.is_unique());
    const tensor_view<const float> also_none = none;
    CHECK(also_none.empty());
}

TEST_CASE("tensor_view: checked access") {
    std::vector<int> buffer(6);
    tensor_view<int> v(buffer.data(), {2, 3});
    const std::array<std::size_t, 2> good{1, 2}, bad{2, 0};
    const std::array<std::size_t, 1> short_index{1};
    v.at(good) = 7;
    CHECK(buffer[5] == 7);
    CHECK_THROWS_AS(v.at(bad), tensorops::error);
    CHECK_THROWS_AS(v.at(short_index), tensorops::error);
}

TEST_CASE("tensor_view: construction errors name the argument") {
    std::vector<float> buffer(16);
    const std::vector<std::size_t> nine(9, 1);
    expect_error([&] { tensor_view<float> v(buffer.data(), nine); }, "sizes");
    const std::array<std::size_t, 2> sizes{2, 2};
    const std::array<std::ptrdiff_t, 1> one_stride{1};
    expect_error([&] { tensor_view<float> v(buffer.data(), sizes, one_stride); }, "strides");
    expect_error([&] { tensor_view<float> v(nullptr, {2, 2}); }, "data");
    expect_error([&] { tensor_view<float> v(nullptr, std::span<const std::size_t>{}); }, "data");
    const std::size_t huge = std::size_t{1} << 40;
    expect_error([&] { tensor_view<float> v(buffer.data(), {huge, huge}); }, "sizes");
    const std::ptrdiff_t big_stride = std::ptrdiff_t{1} << 62;
    expect_error([&] { tensor_view<float> v(buffer.data(), {3, 2}, {big_stride, 1}); }, "strides");
}

TEST_CASE("tensor_view: the byte span must fit std::ptrdiff_t and the address space") {
    // No memory is needed: every view below addresses a small buffer with huge strides and must be refused at
    // construction, before anything could read or write through it.
    std::vector<double> buffer(4);
    float* floats = reinterpret_cast<float*>(buffer.data());
    constexpr std::ptrdiff_t two_62 = std::ptrdiff_t{1} << 62, two_61 = std::ptrdiff_t{1} << 61;
    // Element offsets 0 and 2^62 differ, but 2^62 floats are 2^64 bytes: both elements would be at one address.
    expect_error([&] { tensor_view<float> v(floats, {2}, {two_62}); }, "strides");
    expect_error([&] { tensor_view<float> v(floats, {2}, {two_62 + 1}); }, "strides");  // wraps onto element 1
    expect_error([&] { tensor_view<double> v(buffer.data(), {2}, {-two_61}); }, "strides");
    expect_error([&] { tensor_view<float> v(floats, {2, 2}, {two_61, two_61}); }, "strides");  // 2-D reach of 2^64 bytes
    expect_error([&] { tensor_view<float> v(floats, {2}, {two_61 - 1}); }, "strides");  // a span of 2^63 bytes, one too many
    expect_error([&] { tensor_view<float> v(floats, {std::size_t{1} << 31, std::size_t{1} << 30}); }, "sizes");  // 2^63 bytes packed
    // Below address 0: 2^58 bytes back from a user-space pointer (user addresses stay below 2^57).
    expect_error([&] { tensor_view<double> v(buffer.data() + 3, {2}, {-(std::ptrdiff_t{1} << 55)}); }, "strides");
    // The largest span that fits: (2^61 − 1) floats, 2^63 − 4 bytes (valid to describe; never dereferenced here).
    const tensor_view<float> widest(floats, {2}, {two_61 - 2});
    CHECK(widest.required_span_size() == (std::size_t{1} << 61) - 1);
    // The rule is on bytes: a one-byte element may have the element span the float view may not.
    CHECK_NOTHROW(tensor_view<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(buffer.data()), {2}, {two_62}));
    // Overlap of such a view with another is computed without overflow (UBSan): the far element is 2^63 − 8
    // bytes away, the near one is element 0, and float 1 is neither.
    CHECK(memory_overlap(widest, tensor_view<float>(floats + 1, {1})) == overlap::none);
    CHECK(memory_overlap(widest, tensor_view<float>(floats, {1})) == overlap::partial);
}

TEST_CASE("tensor_view: uniqueness of layouts") {
    std::vector<float> b(64);
    auto unique = [&](std::initializer_list<std::size_t> sizes, std::initializer_list<std::ptrdiff_t> strides) {
        return tensor_view<float>(b.data() + 32, sizes, strides).is_unique();
    };
    CHECK(unique({2, 3}, {3, 1}));
    CHECK(unique({2, 3}, {1, 2}));     // transposed
    CHECK(unique({2, 3}, {-3, -1}));   // reversed
    CHECK(unique({2, 3}, {7, 2}));     // padded
    CHECK(unique({3, 2}, {2, 3}));     // interleaved but unique (0,3,2,5,4,7): found by the gcd rule
    CHECK(unique({1, 4}, {0, 1}));     // stride 0 on a size-1 dimension is harmless
    CHECK_FALSE(unique({2, 3}, {2, 1}));  // offsets 0,1,2,2,3,4
    CHECK_FALSE(unique({2, 2}, {1, 1}));
    CHECK_FALSE(unique({4}, {0}));
    CHECK_FALSE(unique({2, 2}, {-1, 1}));

    test_rng rng("tensor_view uniqueness");
    INFO(rng.describe());
    for (int trial = 0; trial < 400; ++trial) {
        const std::size_t rank = rng.uniform<std::size_t>(1, 4);
        std::vector<std::size_t> sizes(rank);
        std::vector<std::ptrdiff_t> strides(rank);
        for (std::size_t d = 0; d < rank; ++d) {
            sizes[d] = rng.uniform<std::size_t>(1, 4);
            strides[d] = rng.uniform<std::ptrdiff_t>(-6, 6);
        }
        std::vector<float> buffer(512);
        const tensor_view<float> v(buffer.data() + 256, sizes, strides);
        INFO(tensorops_test::describe_layout(sizes, strides));
        CHECK(v.is_unique() == brute_force_unique(sizes, strides));
    }
}

TEST_CASE("tensor_view: uniqueness is decided by rule, without listing offsets, where a rule settles it") {
    // Nested layouts of any size (interleaved complex pairs, colour planes, padded rows): settled by the stride rule.
    std::vector<float> b(64);
    const std::size_t n = std::size_t{1} << 40;  // never addressed: the decision reads sizes and strides only
    const auto big = static_cast<std::ptrdiff_t>(n);
    CHECK(tensor_view<float>(b.data(), {n, 2}, {2, 1}).uniqueness() == layout_uniqueness::unique);       // complex pairs
    CHECK(tensor_view<float>(b.data(), {2, n}, {1, 2}).uniqueness() == layout_uniqueness::unique);       // re / im planes
    CHECK(tensor_view<float>(b.data(), {n, 3}, {1, big}).uniqueness() == layout_uniqueness::unique);     // RGB planes
    CHECK(tensor_view<float>(b.data(), {3, n}, {1, 3}).uniqueness() == layout_uniqueness::unique);       // RGB interleaved
    CHECK(tensor_view<float>(b.data() + 63, {std::size_t{1} << 20, 4}, {-5, 1}).uniqueness() == layout_uniqueness::unique);  // padded, reversed
    // Two dimensions that are not nested: decided exactly by the gcd rule, at any size.
    CHECK(tensor_view<float>(b.data(), {4096, 4095}, {4095, 4096}).uniqueness() == layout_uniqueness::unique);
    CHECK(tensor_view<float>(b.data(), {4097, 4096}, {4095, 4096}).uniqueness() == layout_uniqueness::shared);  // 4096·4095 = 4095·4096
    CHECK(tensor_view<float>(b.data(), {n, 2}, {2, 3}).uniqueness() == layout_uniqueness::unique);  // odd never meets even
    CHECK(tensor_view<float>(b.data(), {n, 2}, {2, 4}).uniqueness() == layout_uniqueness::shared);  // 2·2 = 4·1
    // A small group that is not nested, under a large dimension: the group is listed, the rest settled by tiling
    // (its offsets {0, 2, 3, 4, 5, 7} are distinct modulo 6) or nesting.
    CHECK(tensor_view<float>(b.data(), {n, 3, 2}, {6, 2, 3}).uniqueness() == layout_uniqueness::unique);
    CHECK(tensor_view<float>(b.data(), {2, 3, n}, {3, 2, 6}).uniqueness() == layout_uniqueness::unique);
    CHECK(tensor_view<float>(b.data(), {n, 2, 2, 2}, {8, 3, 2, 1}).uniqueness() == layout_uniqueness::shared);  // 3 = 2 + 1
    // No rule settles a third dimension over a set too large to list (here 2·2049 offsets): unproven, refused by
    // operators with an error saying so, before anything is written.
    const tensor_view<float> unproven(b.data(), {2049, 2, 2}, {2, 3, 4});
    CHECK(unproven.uniqueness() == layout_uniqueness::unproven);
    CHECK_FALSE(unproven.is_unique());
    CHECK(tensor_view<float>(b.data(), {512, 2, 2}, {2, 3, 4}).uniqueness() == layout_uniqueness::shared);  // 2048 offsets, listed: 4 = 2·2

    // The gcd rule against brute force, on two dimensions of random sizes and strides.
    test_rng rng("tensor_view uniqueness of two dimensions");
    INFO(rng.describe());
    for (int trial = 0; trial < 300; ++trial) {
        const std::vector<std::size_t> sizes{rng.uniform<std::size_t>(2, 40), rng.uniform<std::size_t>(2, 40)};
        const std::vector<std::ptrdiff_t> strides{rng.uniform<std::ptrdiff_t>(-60, 60), rng.uniform<std::ptrdiff_t>(-60, 60)};
        std::vector<float> buffer(2 * 40 * 60 * 2 + 8);
        const tensor_view<float> v(buffer.data() + buffer.size() / 2, sizes, strides);
        INFO(tensorops_test::describe_layout(sizes, strides));
        CHECK(v.is_unique() == brute_force_unique(sizes, strides));
    }
    // Every rule against brute force, on three dimensions (sets of up to 1728 offsets, all listed).
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<std::size_t> sizes(3);
        std::vector<std::ptrdiff_t> strides(3);
        for (std::size_t d = 0; d < 3; ++d) {
            sizes[d] = rng.uniform<std::size_t>(1, 12);
            strides[d] = rng.uniform<std::ptrdiff_t>(-30, 30);
        }
        std::vector<float> buffer(2 * 3 * 11 * 30 + 8);
        const tensor_view<float> v(buffer.data() + buffer.size() / 2, sizes, strides);
        INFO(tensorops_test::describe_layout(sizes, strides));
        CHECK(v.uniqueness() == (brute_force_unique(sizes, strides) ? layout_uniqueness::unique : layout_uniqueness::shared));
    }
}

TEST_CASE("tensor_view: memory overlap") {
    std::vector<float> buffer(64);
    float* base = buffer.data();
    const tensor_view<float> a(base, {4, 4});
    SECTION("the same view is an exact alias, also through const and size-1 strides") {
        CHECK(memory_overlap(a, a) == overlap::exact);
        const tensor_view<const float> c = a;
        CHECK(memory_overlap(c, a) == overlap::exact);
        CHECK(memory_overlap(tensor_view<float>(base, {1, 16}, {5, 1}), tensor_view<float>(base, {1, 16}, {0, 1})) ==
              overlap::exact);
    }
    SECTION("disjoint ranges") {
        CHECK(memory_overlap(a, tensor_view<float>(base + 16, {4, 4})) == overlap::none);
        CHECK(memory_overlap(a, tensor_view<float>(base + 16, {4, 4}, {-4, -1})) == overlap::partial);  // reaches back into a
    }
    SECTION("same memory, different mapping") {
        CHECK(memory_overlap(a, tensor_view<float>(base, {4, 4}, {1, 4})) == overlap::partial);  // transposed
        CHECK(memory_overlap(a, tensor_view<float>(base + 1, {4, 4})) == overlap::partial);      // shifted by one
        CHECK(memory_overlap(a, tensor_view<float>(base, {2, 4})) == overlap::partial);          // a prefix
    }
    SECTION("interleaved views are disjoint") {
        const tensor_view<float> even(base, {8, 2}, {4, 2});
        const tensor_view<float> odd(base + 1, {8, 2}, {4, 2});
        CHECK(memory_overlap(even, odd) == overlap::none);
        const tensor_view<std::int32_t> as_int(reinterpret_cast<std::int32_t*>(base + 1), {16}, {2});
        CHECK(memory_overlap(even, as_int) == overlap::none);
        const tensor_view<std::uint8_t> bytes(reinterpret_cast<std::uint8_t*>(base) + 2, {8}, {8});
        CHECK(memory_overlap(even, bytes) == overlap::partial);  // byte 2 of each even float
    }
    SECTION("empty views overlap nothing") {
        CHECK(memory_overlap(a, tensor_view<float>(base, {0, 4})) == overlap::none);
    }
}

TEST_CASE("tensor_view: memory_overlap is sound on random layouts") {
    test_rng rng("tensor_view overlap");
    INFO(rng.describe());
    std::vector<double> buffer(256);
    for (int trial = 0; trial < 500; ++trial) {
        auto random_view = [&] {
            const std::size_t rank = rng.uniform<std::size_t>(1, 3);
            std::vector<std::size_t> sizes(rank);
            std::vector<std::ptrdiff_t> strides(rank);
            for (std::size_t d = 0; d < rank; ++d) {
                sizes[d] = rng.uniform<std::size_t>(1, 4);
                strides[d] = rng.uniform<std::ptrdiff_t>(-5, 5);
            }
            return std::make_pair(tensor_view<double>(buffer.data() + rng.uniform<std::size_t>(80, 170), sizes, strides), sizes);
        };
        const auto first = random_view(), second = random_view();
        const tensor_view<double>& a = first.first;
        const tensor_view<double>& b = second.first;
        const std::vector<std::size_t>& sizes_a = first.second;
        const std::vector<std::size_t>& sizes_b = second.second;
        std::set<const double*> addresses_a, addresses_b;
        tensorops_test::reference::for_each_index(sizes_a, [&](const std::vector<std::size_t>& i) { addresses_a.insert(&a.at(i)); });
        tensorops_test::reference::for_each_index(sizes_b, [&](const std::vector<std::size_t>& i) { addresses_b.insert(&b.at(i)); });
        bool shared = false;
        for (const double* p : addresses_a) shared = shared || addresses_b.count(p) != 0;
        const overlap verdict = memory_overlap(a, b);
        INFO("a: " << tensorops_test::describe_layout(sizes_a, std::vector<std::ptrdiff_t>(a.strides().begin(), a.strides().end())));
        INFO("b: " << tensorops_test::describe_layout(sizes_b, std::vector<std::ptrdiff_t>(b.strides().begin(), b.strides().end())));
        if (verdict == overlap::none) CHECK_FALSE(shared);
        if (shared) CHECK(verdict != overlap::none);
        if (verdict == overlap::exact) {
            tensorops_test::reference::for_each_index(sizes_a, [&](const std::vector<std::size_t>& i) { CHECK(&a.at(i) == &b.at(i)); });
        }
    }
}
