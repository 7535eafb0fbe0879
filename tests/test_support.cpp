// Tests of the test support itself: a generator or guard that silently did nothing would make every
// random test vacuous.
#include <catch2/catch.hpp>

#include <set>

#include "support.hpp"

using namespace tensorops_test;

TEST_CASE("support: random layouts have the requested properties") {
    test_rng rng("support layouts");
    INFO(rng.describe());
    std::set<layout_kind> seen_negative, seen_zero;
    for (int trial = 0; trial < 300; ++trial) {
        const std::size_t rank = rng.uniform<std::size_t>(1, 8);
        const auto sizes = random_sizes(rng, rank, 5000);
        REQUIRE(sizes.size() == rank);
        std::size_t count = 1;
        for (auto s : sizes) {
            CHECK(s >= 1);
            count *= s;
        }
        CHECK(count <= 5000 * 70);
        for (layout_kind kind : input_layout_kinds) {
            const auto strides = random_strides(rng, sizes, kind);
            std::vector<float> buffer(1);
            guarded_buffer<float> guarded(sizes, strides, rng.uniform<std::size_t>(0, 7));
            const auto view = guarded.view();
            if (kind != layout_kind::broadcast) CHECK(view.is_unique());
            if (kind == layout_kind::packed) CHECK(view.is_packed());
            for (auto s : strides) {
                if (s < 0) seen_negative.insert(kind);
                if (s == 0) seen_zero.insert(kind);
            }
        }
    }
    CHECK(seen_negative.count(layout_kind::reversed) == 1);
    CHECK(seen_negative.count(layout_kind::mixed) == 1);
    CHECK(seen_zero.count(layout_kind::broadcast) == 1);
    CHECK(seen_zero.size() == 1);
}

TEST_CASE("support: guarded buffers detect a write outside the view, and misalign on request") {
    const std::vector<std::size_t> sizes{3, 4};
    const std::vector<std::ptrdiff_t> strides{-6, 1};  // reversed rows with a gap of two
    for (std::size_t misalignment = 0; misalignment < 4; ++misalignment) {
        guarded_buffer<double> buffer(sizes, strides, misalignment);
        auto view = buffer.view();
        CHECK(reinterpret_cast<std::uintptr_t>(view.data() + view.min_offset()) % 64 == misalignment * sizeof(double));
        std::vector<double> values(12);
        for (std::size_t i = 0; i < 12; ++i) values[i] = static_cast<double>(i);
        buffer.assign(values);
        CHECK(buffer.values() == values);
        CHECK(view(2, 3) == 11.0);
        CHECK(buffer.untouched_outside_view());
        view.data()[4] = 1.0;  // just past row 0, the highest row in memory
        CHECK_FALSE(buffer.untouched_outside_view());
    }
    guarded_buffer<std::int8_t> bytes({5}, {1});
    auto view = bytes.view();
    view.data()[5] = 1;  // one past the end
    CHECK_FALSE(bytes.untouched_outside_view());
}

TEST_CASE("support: the seed is reported and streams are reproducible") {
    test_rng a("stream"), b("stream"), c("other stream");
    CHECK(a.uniform<std::uint64_t>(0, ~std::uint64_t{0}) == b.uniform<std::uint64_t>(0, ~std::uint64_t{0}));
    CHECK(a.uniform<std::uint64_t>(0, ~std::uint64_t{0}) != c.uniform<std::uint64_t>(0, ~std::uint64_t{0}));
    CHECK(a.describe().find("TENSOROPS_TEST_SEED=") != std::string::npos);
}

TEST_CASE("support: real draws and chances are in range and follow the standard distributions") {
    test_rng rng("support draws"), mirror("support draws");
    INFO(rng.describe());
    bool any_low_half = false, any_high_half = false;
    for (int draw = 0; draw < 20000; ++draw) {
        const double low = -1.0 - draw % 3, high = 1.0 + draw % 5, probability = (draw % 101) / 100.0;
        const double value = rng.uniform_real(low, high);
        CHECK((value >= low && value < high));
        (value < (low + high) / 2 ? any_low_half : any_high_half) = true;
        const bool chance = rng.chance(probability);
        if (probability == 0.0) CHECK_FALSE(chance);
        if (probability == 1.0) CHECK(chance);
#if defined(__GLIBCXX__)
        // test_rng writes out libstdc++'s generate_canonical (support.hpp): the same draws, so the same test cases, as
        // the std distributions it replaced.
        CHECK(value == std::uniform_real_distribution<double>(low, high)(mirror.engine()));
        CHECK(chance == std::bernoulli_distribution(probability)(mirror.engine()));
#endif
    }
    CHECK((any_low_half && any_high_half));
}
