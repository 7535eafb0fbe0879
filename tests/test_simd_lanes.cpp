// Tests of simd/: lane-wise arithmetic, minimum and maximum, shifts, permutations, scans, horizontal combinations,
// selections and masks, against plain scalar loops for every built-in element type. Compiled twice: with xsimd at
// the build's ISA level, and with TENSOROPS_NO_XSIMD (one-lane registers).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include <tensorops/simd/arithmetic.hpp>
#include <tensorops/simd/copy.hpp>
#include <tensorops/simd/horizontal.hpp>
#include <tensorops/simd/math.hpp>
#include <tensorops/simd/minmax.hpp>
#include <tensorops/simd/pack.hpp>
#include <tensorops/simd/prefetch.hpp>
#include <tensorops/simd/scan.hpp>
#include <tensorops/simd/shuffle.hpp>

#include "simd_helpers.hpp"
#include "support.hpp"

using namespace tensorops;
using tensorops_test::test_rng;

TEMPLATE_LIST_TEST_CASE("simd: horizontal sum, product, min and max", "", tensorops_test::builtin_types) {
    using T = TestType;
    using P = simd::pack<T>;
    test_rng rng("simd horizontal");
    INFO(rng.describe());
    for (int trial = 0; trial < 50; ++trial) {
        const bool small = trial % 2 == 0;  // small values: float sums and products are exact in any order
        const auto lanes = random_lanes<T>(rng, small);
        C<T> sum = C<T>(0), product = C<T>(1), low = lanes[0], high = lanes[0];
        for (auto v : lanes) {
            sum = wrap<T>(sum, v, [](auto a, auto b) { return a + b; });
            product = wrap<T>(product, v, [](auto a, auto b) { return a * b; });
            low = v < low ? v : low;
            high = high < v ? v : high;
        }
        const P p = simd::from_array<P>(lanes);
        if (small || std::is_integral_v<C<T>>) {
            CHECK(simd::reduce_add(p) == sum);
            CHECK(simd::reduce_mul(p) == product);
        } else {
            CHECK(simd::reduce_add(p) == Approx(sum).epsilon(1e-5));
        }
        CHECK(simd::reduce_min(p) == low);
        CHECK(simd::reduce_max(p) == high);
    }
}

// reduce_lanes_of_rows folds G registers at once; lane p must be exactly (bit for bit, rounding included) what
// reduce_add / reduce_max give for register p alone — whichever p, so a row's value does not depend on its place.
TEMPLATE_LIST_TEST_CASE("simd: reduce_lanes_of_rows gives each row's reduce_add / reduce_max bits in its lane", "", tensorops_test::builtin_types) {
    using T = TestType;
    using P = simd::pack<T>;
    constexpr std::size_t G = W<T> < 8 ? W<T> : 8;
    test_rng rng("simd rows fold");
    INFO(rng.describe());
    for (int trial = 0; trial < 20; ++trial) {
        std::array<P, G> rows;
        for (auto& row : rows) row = simd::from_array<P>(random_lanes<T>(rng));
        if constexpr (std::is_floating_point_v<C<T>>)
            if (trial % 4 == 3) rows[static_cast<std::size_t>(trial) % G] = simd::from_array<P>(std::array<C<T>, W<T>>{}) + P(std::numeric_limits<C<T>>::quiet_NaN());
        const auto sums = simd::to_array(simd::reduce_lanes_of_rows(rows, [](const P& a, const P& b) { return a + b; }));
        const auto maxima = simd::to_array(simd::reduce_lanes_of_rows(rows, [](const P& a, const P& b) { return simd::max_propagate_nan(a, b); }));
        for (std::size_t p = 0; p < G; ++p) {
            INFO("row " << p);
            const C<T> sum = simd::reduce_add(rows[p]), maximum = simd::reduce_max(rows[p]);
            CHECK(std::memcmp(&sums[p], &sum, sizeof(sum)) == 0);
            CHECK(same<T>(maxima[p], maximum));
        }
    }
}

TEMPLATE_LIST_TEST_CASE("simd: min and max propagate NaN from any lane and either operand", "", tensorops_test::floating_types) {
    using T = TestType;
    using P = simd::pack<T>;
    test_rng rng("simd nan");
    INFO(rng.describe());
    const C<T> nan = std::numeric_limits<C<T>>::quiet_NaN();
    for (std::size_t lane = 0; lane < W<T>; ++lane) {
        auto a = random_lanes<T>(rng), b = random_lanes<T>(rng);
        a[lane] = nan;
        const P pa = simd::from_array<P>(a), pb = simd::from_array<P>(b);
        CHECK(std::isnan(simd::reduce_max(pa)));
        CHECK(std::isnan(simd::reduce_min(pa)));
        for (const auto& result : {simd::max_propagate_nan(pa, pb), simd::max_propagate_nan(pb, pa),
                                   simd::min_propagate_nan(pa, pb), simd::min_propagate_nan(pb, pa)}) {
            const auto out = simd::to_array(result);
            for (std::size_t i = 0; i < W<T>; ++i) {
                if (i == lane) CHECK(std::isnan(out[i]));
                else CHECK_FALSE(std::isnan(out[i]));
            }
        }
        const auto mask_lanes = simd::to_array(simd::select(simd::is_nan(pa), P(C<T>(1)), P(C<T>(0))));
        for (std::size_t i = 0; i < W<T>; ++i) CHECK(mask_lanes[i] == (i == lane ? 1 : 0));
        CHECK(simd::any(simd::is_nan(pa)));
        CHECK_FALSE(simd::any(simd::is_nan(pb)));
    }
    CHECK(simd::max_propagate_nan(C<T>(1), nan) != simd::max_propagate_nan(C<T>(1), nan));
    CHECK(simd::min_propagate_nan(nan, C<T>(1)) != simd::min_propagate_nan(nan, C<T>(1)));
    CHECK(simd::max_propagate_nan(C<T>(1), C<T>(2)) == C<T>(2));
    CHECK(simd::min_propagate_nan(C<T>(1), C<T>(2)) == C<T>(1));
}

TEMPLATE_LIST_TEST_CASE("simd: lane-wise min and max of integers", "", tensorops_test::integer_types) {
    using T = TestType;
    using P = simd::pack<T>;
    test_rng rng("simd integer minmax");
    INFO(rng.describe());
    for (int trial = 0; trial < 20; ++trial) {
        const auto a = random_lanes<T>(rng), b = random_lanes<T>(rng);
        const auto high = simd::to_array(simd::max_propagate_nan(simd::from_array<P>(a), simd::from_array<P>(b)));
        const auto low = simd::to_array(simd::min_propagate_nan(simd::from_array<P>(a), simd::from_array<P>(b)));
        for (std::size_t i = 0; i < W<T>; ++i) {
            CHECK(high[i] == std::max(a[i], b[i]));
            CHECK(low[i] == std::min(a[i], b[i]));
        }
    }
}

namespace {
template <class T, std::size_t... K>
void check_shifts(test_rng& rng, std::index_sequence<K...>) {
    using P = simd::pack<T>;
    const auto lanes = random_lanes<T>(rng);
    [[maybe_unused]] const P p = simd::from_array<P>(lanes);
    for ([[maybe_unused]] const C<T> fill : {C<T>(0), C<T>(5)}) {
        (
            [&] {
                constexpr std::size_t shift = K + 1;
                const auto up = simd::to_array(simd::shift_lanes_up<shift>(p, fill));
                const auto down = simd::to_array(simd::shift_lanes_down<shift>(p, fill));
                for (std::size_t i = 0; i < W<T>; ++i) {
                    INFO("shift " << shift << " lane " << i);
                    CHECK(same<T>(up[i], i < shift ? fill : lanes[i - shift]));
                    CHECK(same<T>(down[i], i + shift < W<T> ? lanes[i + shift] : fill));
                }
            }(),
            ...);
    }
}
}  // namespace

TEMPLATE_LIST_TEST_CASE("simd: lane shifts by every distance, with zero and non-zero fill", "", tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng("simd shifts");
    INFO(rng.describe());
    check_shifts<T>(rng, std::make_index_sequence<W<T> - 1>{});
    const auto lanes = random_lanes<T>(rng);
    const auto last = simd::to_array(simd::broadcast_last(simd::from_array<simd::pack<T>>(lanes)));
    const auto first = simd::to_array(simd::broadcast_first(simd::from_array<simd::pack<T>>(lanes)));
    for (std::size_t i = 0; i < W<T>; ++i) {
        CHECK(same<T>(last[i], lanes[W<T> - 1]));
        CHECK(same<T>(first[i], lanes[0]));
    }
}

namespace {
/// Permutation patterns for permute_constant: reversed lanes, a rotation, every lane from lane 1, and the narrow-row
/// kernel's component gather for rows of 3 ((3p + 2) mod W).
struct reversed_lanes {
    static constexpr std::size_t get(unsigned lane, unsigned size) { return size - 1 - lane; }
};
struct rotated_lanes {
    static constexpr std::size_t get(unsigned lane, unsigned size) { return (lane + 3) % size; }
};
struct lane_one_everywhere {
    static constexpr std::size_t get(unsigned, unsigned size) { return size > 1 ? 1 : 0; }
};
struct third_component_of_rows_of_three {
    static constexpr std::size_t get(unsigned lane, unsigned size) { return (3 * lane + 2) % size; }
};

template <class T, class Pattern>
void check_permute(const std::array<C<T>, W<T>>& lanes) {
    const auto got = simd::to_array(simd::permute_constant<Pattern>(simd::from_array<simd::pack<T>>(lanes)));
    for (unsigned i = 0; i < W<T>; ++i) {
        INFO("lane " << i);
        CHECK(same<T>(got[i], lanes[Pattern::get(i, static_cast<unsigned>(W<T>))]));
    }
}
}  // namespace

// One instruction for 32- and 64-bit lanes on x86 (pshufd, vpermd, vpermq), through memory for the others.
TEMPLATE_LIST_TEST_CASE("simd: permute_constant moves every lane where its pattern says", "", tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng("simd permute");
    INFO(rng.describe());
    const auto lanes = random_lanes<T>(rng);
    check_permute<T, reversed_lanes>(lanes);
    check_permute<T, rotated_lanes>(lanes);
    check_permute<T, lane_one_everywhere>(lanes);
    check_permute<T, third_component_of_rows_of_three>(lanes);
}

TEMPLATE_LIST_TEST_CASE("simd: in-register inclusive scans", "", tensorops_test::builtin_types) {
    using T = TestType;
    using P = simd::pack<T>;
    test_rng rng("simd scan");
    INFO(rng.describe());
    for (int trial = 0; trial < 30; ++trial) {
        const bool small = !std::is_integral_v<C<T>> || trial % 2 == 0;  // float scans compared exactly
        auto lanes = random_lanes<T>(rng, small);
        if (std::is_floating_point_v<C<T>>)
            for (auto& v : lanes) v = v == C<T>(0) ? C<T>(1) : v;  // keep products away from 0 and exact
        const auto sums = simd::to_array(simd::inclusive_scan_add(simd::from_array<P>(lanes)));
        const auto suffix_sums = simd::to_array(simd::inclusive_suffix_scan(
            simd::from_array<P>(lanes), [](const P& a, const P& b) { return a + b; }, C<T>(0)));
        C<T> suffix = C<T>(0);
        for (std::size_t i = W<T>; i-- > 0;) {
            suffix = wrap<T>(suffix, lanes[i], [](auto a, auto b) { return a + b; });
            INFO("suffix lane " << i);
            CHECK(suffix_sums[i] == suffix);
        }
        const auto products = simd::to_array(simd::inclusive_scan_mul(simd::from_array<P>(lanes)));
        C<T> sum = C<T>(0), product = C<T>(1);
        for (std::size_t i = 0; i < W<T>; ++i) {
            sum = wrap<T>(sum, lanes[i], [](auto a, auto b) { return a + b; });
            product = wrap<T>(product, lanes[i], [](auto a, auto b) { return a * b; });
            INFO("lane " << i);
            CHECK(sums[i] == sum);
            CHECK(products[i] == product);
        }
    }
}

TEMPLATE_LIST_TEST_CASE("simd: scan_lanes, forward and backward, for + and ×", "", tensorops_test::builtin_types) {
    using T = TestType;
    using P = simd::pack<T>;
    test_rng rng("simd scan_lanes");
    INFO(rng.describe());
    const auto add = [](const P& a, const P& b) { return a + b; };
    const auto mul = [](const P& a, const P& b) { return simd::mul(a, b); };
    for (int trial = 0; trial < 30; ++trial) {
        const bool small = !std::is_integral_v<C<T>> || trial % 2 == 0;
        auto lanes = random_lanes<T>(rng, small);
        if (std::is_floating_point_v<C<T>>)
            for (auto& v : lanes) v = v == C<T>(0) ? C<T>(1) : v;
        const P p = simd::from_array<P>(lanes);
        const auto forward_sum = simd::to_array(simd::scan_lanes<false>(p, add, C<T>(0)));
        const auto forward_product = simd::to_array(simd::scan_lanes<false>(p, mul, C<T>(1)));
        const auto backward_sum = simd::to_array(simd::scan_lanes<true>(p, add, C<T>(0)));
        const auto backward_product = simd::to_array(simd::scan_lanes<true>(p, mul, C<T>(1)));
        C<T> sum = C<T>(0), product = C<T>(1);
        for (std::size_t i = 0; i < W<T>; ++i) {
            sum = wrap<T>(sum, lanes[i], [](auto a, auto b) { return a + b; });
            product = wrap<T>(product, lanes[i], [](auto a, auto b) { return a * b; });
            INFO("forward lane " << i);
            CHECK(forward_sum[i] == sum);
            CHECK(forward_product[i] == product);
        }
        sum = C<T>(0);
        product = C<T>(1);
        for (std::size_t i = W<T>; i-- > 0;) {
            sum = wrap<T>(sum, lanes[i], [](auto a, auto b) { return a + b; });
            product = wrap<T>(product, lanes[i], [](auto a, auto b) { return a * b; });
            INFO("backward lane " << i);
            CHECK(backward_sum[i] == sum);
            CHECK(backward_product[i] == product);
        }
    }
}

TEMPLATE_LIST_TEST_CASE("simd: add is bit-identical to +, signed zeros and NaN included", "", tensorops_test::floating_types) {
    using T = TestType;
    using P = simd::pack<T>;
    test_rng rng("simd add");
    INFO(rng.describe());
    const C<T> specials[] = {C<T>(0), -C<T>(0), std::numeric_limits<C<T>>::infinity(), -std::numeric_limits<C<T>>::infinity(),
                             std::numeric_limits<C<T>>::quiet_NaN(), std::numeric_limits<C<T>>::denorm_min(), C<T>(1)};
    for (int trial = 0; trial < 50; ++trial) {
        auto a = random_lanes<T>(rng), b = random_lanes<T>(rng);
        for (std::size_t i = 0; i < W<T>; ++i) {
            if (rng.chance(0.3)) a[i] = specials[rng.uniform<std::size_t>(0, std::size(specials) - 1)];
            if (rng.chance(0.3)) b[i] = specials[rng.uniform<std::size_t>(0, std::size(specials) - 1)];
        }
        const auto sum = simd::to_array(simd::add(simd::from_array<P>(a), simd::from_array<P>(b)));
        for (std::size_t i = 0; i < W<T>; ++i) {
            const C<T> expected = a[i] + b[i];
            CHECK(tensorops_test::same_bits(sum[i], expected));
        }
    }
}

TEMPLATE_LIST_TEST_CASE("simd: lane-wise products wrap without undefined behaviour", "", tensorops_test::builtin_types) {
    using T = TestType;
    using P = simd::pack<T>;
    test_rng rng("simd mul");
    INFO(rng.describe());
    for (int trial = 0; trial < 50; ++trial) {
        const auto a = random_lanes<T>(rng), b = random_lanes<T>(rng);
        const auto product = simd::to_array(simd::mul(simd::from_array<P>(a), simd::from_array<P>(b)));
        for (std::size_t i = 0; i < W<T>; ++i) CHECK(same<T>(product[i], wrap<T>(a[i], b[i], [](auto x, auto y) { return x * y; })));
    }
}

TEMPLATE_LIST_TEST_CASE("simd: abs per lane; integers wrap at the minimum", "", tensorops_test::builtin_types) {
    using T = TestType;
    using P = simd::pack<T>;
    test_rng rng("simd abs");
    INFO(rng.describe());
    for (int trial = 0; trial < 20; ++trial) {
        auto lanes = random_lanes<T>(rng);
        lanes[0] = std::numeric_limits<C<T>>::lowest();
        const auto result = simd::to_array(simd::abs(simd::from_array<P>(lanes)));
        for (std::size_t i = 0; i < W<T>; ++i) {
            if constexpr (std::is_unsigned_v<C<T>>) CHECK(result[i] == lanes[i]);
            else if constexpr (std::is_integral_v<C<T>>) CHECK(result[i] == (lanes[i] < 0 ? wrap<T>(C<T>(0), lanes[i], [](auto a, auto b) { return a - b; }) : lanes[i]));
            else CHECK(result[i] == std::fabs(lanes[i]));
        }
    }
}

TEMPLATE_LIST_TEST_CASE("simd: select_lanes picks index lanes by a value mask", "", tensorops_test::builtin_types) {
    using T = TestType;
    using P = simd::pack<T>;
    using Q = simd::lane_index_pack<P>;
    STATIC_REQUIRE(Q::size == P::size);
    STATIC_REQUIRE(sizeof(typename Q::value_type) == sizeof(C<T>));
    std::array<C<T>, W<T>> values;
    std::array<typename Q::value_type, W<T>> a, b;
    for (std::size_t i = 0; i < W<T>; ++i) {
        values[i] = static_cast<C<T>>(i % 3);
        a[i] = static_cast<typename Q::value_type>(i + 1);
        b[i] = static_cast<typename Q::value_type>(100 + i);
    }
    const auto mask = simd::from_array<P>(values) == P(C<T>(1));
    const auto chosen = simd::to_array(simd::select_lanes<P>(mask, simd::from_array<Q>(a), simd::from_array<Q>(b)));
    for (std::size_t i = 0; i < W<T>; ++i) CHECK(chosen[i] == (i % 3 == 1 ? a[i] : b[i]));
}

TEMPLATE_LIST_TEST_CASE("simd: and_not and any_and_not see the lanes set in one mask and not in the other", "", tensorops_test::builtin_types) {
    using T = TestType;
    using P = simd::pack<T>;
    test_rng rng("simd and_not");
    INFO(rng.describe());
    const auto mask_of_bits = [](std::uint64_t bits) {
        std::array<C<T>, W<T>> lanes;
        for (std::size_t i = 0; i < W<T>; ++i) lanes[i] = static_cast<C<T>>((bits >> i) & 1);
        return simd::from_array<P>(lanes) == P(C<T>(1));
    };
    // Every pair of masks when there are few lanes, else random pairs (and the ones with a single lane apart).
    const std::uint64_t all = W<T> >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << W<T>) - 1;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
    if (W<T> <= 4) {
        for (std::uint64_t a = 0; a <= all; ++a)
            for (std::uint64_t b = 0; b <= all; ++b) pairs.emplace_back(a, b);
    } else {
        for (int k = 0; k < 300; ++k) pairs.emplace_back(rng.engine()() & all, rng.engine()() & all);
        for (std::size_t i = 0; i < W<T>; ++i) pairs.emplace_back(all, all & ~(std::uint64_t{1} << i));
        pairs.emplace_back(all, all);
        pairs.emplace_back(0, all);
    }
    for (const auto& [a, b] : pairs) {
        const auto lanes = simd::to_array(simd::select(simd::and_not(mask_of_bits(a), mask_of_bits(b)), P(C<T>(1)), P(C<T>(0))));
        for (std::size_t i = 0; i < W<T>; ++i) CHECK(lanes[i] == static_cast<C<T>>((a & ~b) >> i & 1));
        CHECK(simd::any_and_not(mask_of_bits(a), mask_of_bits(b)) == ((a & ~b) != 0));
    }
}

/// Bits of every lane of pack<T>, and the masks the lane-mask tests take: none, all, each lane alone, 200 random.
template <class T>
std::uint64_t all_lanes() {
    return W<T> >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << W<T>) - 1;
}
template <class T>
std::vector<std::uint64_t> lane_mask_cases(test_rng& rng) {
    std::vector<std::uint64_t> masks{0, all_lanes<T>()};
    for (std::size_t i = 0; i < W<T>; ++i) masks.push_back(std::uint64_t{1} << i);
    for (int k = 0; k < 200; ++k) masks.push_back(rng.engine()() & all_lanes<T>());
    return masks;
}

TEMPLATE_LIST_TEST_CASE("simd: for_each_set_lane visits exactly the lanes set, in increasing order", "", tensorops_test::builtin_types) {
    using T = TestType;
    using P = simd::pack<T>;
    test_rng rng("simd for_each_set_lane");
    INFO(rng.describe());
    for (const std::uint64_t bits : lane_mask_cases<T>(rng)) {
        std::array<C<T>, W<T>> lanes;
        for (std::size_t i = 0; i < W<T>; ++i) lanes[i] = static_cast<C<T>>((bits >> i) & 1);
        std::vector<std::size_t> expected, visited;
        for (std::size_t i = 0; i < W<T>; ++i)
            if ((bits >> i) & 1) expected.push_back(i);
        simd::for_each_set_lane(simd::from_array<P>(lanes) == P(C<T>(1)), [&](std::size_t lane) { visited.push_back(lane); });
        INFO("mask " << bits);
        CHECK(visited == expected);
    }
}

TEMPLATE_LIST_TEST_CASE("simd: lane_bits puts lane i of a mask at bit i, and nothing above the lanes", "", tensorops_test::builtin_types) {
    using T = TestType;
    using P = simd::pack<T>;
    test_rng rng("simd lane_bits");
    INFO(rng.describe());
    for (const std::uint64_t bits : lane_mask_cases<T>(rng)) {
        std::array<C<T>, W<T>> lanes;
        for (std::size_t i = 0; i < W<T>; ++i) lanes[i] = static_cast<C<T>>((bits >> i) & 1 ? 7 : 2);
        INFO("mask " << bits);
        CHECK(simd::lane_bits(simd::from_array<P>(lanes) == P(C<T>(7))) == bits);
        CHECK(simd::lane_bits(simd::from_array<P>(lanes) < P(C<T>(7))) == (~bits & all_lanes<T>()));  // a mask made another way
    }
}

TEST_CASE("simd: integer lane arithmetic wraps on every path") {
    using P = simd::pack<std::int32_t>;
    const P big(std::numeric_limits<std::int32_t>::max());
    CHECK(simd::to_array(big + P(1))[0] == std::numeric_limits<std::int32_t>::lowest());
    CHECK(simd::reduce_add(simd::pack<std::uint16_t>(std::uint16_t{65535})) == static_cast<std::uint16_t>(65535u * W<std::uint16_t>));
    CHECK(simd::reduce_mul(simd::pack<std::int8_t>(std::int8_t{-128})) == static_cast<std::int8_t>(W<std::int8_t> == 1 ? -128 : 0));
}
