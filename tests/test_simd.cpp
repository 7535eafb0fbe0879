// Tests of simd/: every function against a plain scalar loop, for every built-in element type. This file is
// compiled twice: with xsimd at the build's ISA level, and with TENSOROPS_NO_XSIMD (one-lane registers).
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

#include "support.hpp"

using namespace tensorops;
using tensorops_test::test_rng;

namespace {
template <class T>
using C = simd::compute_t<T>;

template <class T>
constexpr std::size_t W = simd::lanes<T>;

template <class T>
std::array<C<T>, W<T>> random_lanes(test_rng& rng, bool small = false) {
    std::array<C<T>, W<T>> values;
    for (auto& v : values) v = static_cast<C<T>>(tensorops_test::random_value<T>(rng, small));
    return values;
}

template <class T>
bool same(C<T> a, C<T> b) {
    if constexpr (std::is_floating_point_v<C<T>>)
        if (std::isnan(a) && std::isnan(b)) return true;
    return a == b;
}

template <class T, class Op>
C<T> wrap(C<T> a, C<T> b, Op op) {
    return from_accumulator<C<T>>(op(to_accumulator(a), to_accumulator(b)));
}
}  // namespace

// The counted page hints of a row walk (page_hint_walk) must be prefetch_page_ahead's at every step: the first line of
// each page that begins within a step's bytes `distance` on — whatever the start's alignment and the distance.
template <std::size_t StepBytes>
void check_page_hint_walk(test_rng& rng) {
    constexpr std::uintptr_t page = simd::page_bytes;
    for (int trial = 0; trial < 200; ++trial) {
        // The first trials start page-aligned with a whole number of pages ahead (the hint on step 0, as for the
        // outer kernels' page-aligned rows); the rest anywhere.
        const bool aligned = trial < 10;
        const std::uintptr_t start = std::uintptr_t{1} << 30 | (aligned ? 0 : rng.uniform<std::uintptr_t>(0, 3 * page));
        const auto distance = static_cast<std::ptrdiff_t>(aligned ? rng.uniform<std::size_t>(0, 16) * page
                                                                  : rng.uniform<std::size_t>(0, 20000));
        simd::page_hint_walk<StepBytes> walk(reinterpret_cast<const void*>(start), distance);
        std::size_t hints = 0;
        for (std::size_t k = 0; k < 5 * page / StepBytes; ++k) {
            const std::uintptr_t first = start + static_cast<std::uintptr_t>(distance) + k * StepBytes;
            const std::uintptr_t next_page = (first + page - 1) / page * page;
            const void* expected = next_page - first < StepBytes ? reinterpret_cast<const void*>(next_page) : nullptr;
            INFO("step " << k << " of " << StepBytes << " bytes from " << start << ", " << distance << " ahead");
            REQUIRE(walk.at(k) == expected);
            hints += expected != nullptr;
        }
        CHECK(hints >= 4);  // a hint for every page the walk's look-ahead enters
    }
}

TEST_CASE("simd: page_hint_walk hints what prefetch_page_ahead hints at every step, counting steps between pages") {
    test_rng rng("page hint walk");
    INFO(rng.describe());
    check_page_hint_walk<64>(rng);
    check_page_hint_walk<256>(rng);
    check_page_hint_walk<4096>(rng);
}

TEST_CASE("simd: register width matches the build") {
#if defined(TENSOROPS_NO_XSIMD)
    STATIC_REQUIRE_FALSE(simd::vectorized);
    STATIC_REQUIRE(W<float> == 1);
#else
    STATIC_REQUIRE(simd::vectorized);
#if defined(__AVX512BW__)
    STATIC_REQUIRE(W<float> == 16);
    STATIC_REQUIRE(W<float16> == 16);
    STATIC_REQUIRE(W<std::int8_t> == 64);
#elif defined(__AVX2__)
    STATIC_REQUIRE(W<float> == 8);
    STATIC_REQUIRE(W<float16> == 8);
    STATIC_REQUIRE(W<std::int8_t> == 32);
#elif defined(__SSE2__)
    STATIC_REQUIRE(W<float> == 4);
    STATIC_REQUIRE(W<double> == 2);
#endif
#endif
}

TEMPLATE_LIST_TEST_CASE("simd: load and store at every misalignment", "", tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng("simd load/store");
    INFO(rng.describe());
    std::vector<T> source(4 * W<T> + 8), destination(4 * W<T> + 8);
    for (auto& v : source) v = tensorops_test::random_value<T>(rng);
    for (std::size_t shift = 0; shift < W<T> + 3; ++shift) {
        for (auto& v : destination) v = T(0);
        const auto p = simd::load(source.data() + shift);
        const auto lanes = simd::to_array(p);
        for (std::size_t i = 0; i < W<T>; ++i) CHECK(same<T>(lanes[i], static_cast<C<T>>(source[shift + i])));
        simd::store(destination.data() + shift + 1, p);
        for (std::size_t i = 0; i < destination.size(); ++i) {
            const bool inside = i >= shift + 1 && i < shift + 1 + W<T>;
            CHECK(tensorops_test::same_bits(destination[i], inside ? source[i - 1] : T(0)));
        }
    }
}

TEST_CASE("simd: float16 stores round each lane once, to nearest even") {
    using P = simd::pack<float16>;
    std::array<float, W<float16>> values;
    const float candidates[] = {2049.0f, 2051.0f, 1.0f + 1.0f / 2048, 65519.0f, 65520.0f, -0.0f, 1e-8f, 3.0e-8f,
                                std::numeric_limits<float>::infinity(), 0.1f};
    std::size_t next = 0;
    for (std::size_t start = 0; start < std::size(candidates); start += W<float16>) {
        for (auto& v : values) v = candidates[next++ % std::size(candidates)];
        std::array<float16, W<float16>> stored;
        simd::store(stored.data(), simd::from_array<P>(values));
        for (std::size_t i = 0; i < W<float16>; ++i) CHECK(stored[i].to_bits() == float16(values[i]).to_bits());
    }
}

TEMPLATE_LIST_TEST_CASE("simd: partial loads and stores touch only their elements", "", tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng("simd partial");
    INFO(rng.describe());
    std::vector<T> source(W<T> + 2);
    for (auto& v : source) v = tensorops_test::random_value<T>(rng);
    for (std::size_t count = 0; count <= W<T>; ++count) {
        if (count < W<T>) {
            // From a heap block of exactly `count` elements, so that AddressSanitizer sees a read past them; with
            // fill 0 too (the masked loads leave zeros there, without a blend).
            const std::vector<T> exact(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(count));
            for (const C<T> fill : {C<T>(7), C<T>(0)}) {
                const auto lanes = simd::to_array(simd::load_partial(exact.data(), count, fill));
                for (std::size_t i = 0; i < W<T>; ++i) CHECK(same<T>(lanes[i], i < count ? static_cast<C<T>>(source[i]) : fill));
            }
        }
        std::vector<T> destination(W<T> + 2, T(3));
        simd::store_partial(destination.data() + 1, simd::load(source.data()), count);
        CHECK(tensorops_test::same_bits(destination[0], T(3)));
        for (std::size_t i = 0; i < count; ++i) CHECK(tensorops_test::same_bits(destination[1 + i], source[i]));
        for (std::size_t i = count; i < W<T> + 1; ++i) CHECK(tensorops_test::same_bits(destination[1 + i], T(3)));
    }
}

#if TENSOROPS_TEST_HAS_PAGE_GUARD
TEMPLATE_LIST_TEST_CASE("simd: a partial load ending at a page's end reads nothing past it", "", tensorops_test::builtin_types) {
    using T = TestType;
    tensorops_test::page_end_array<T> page_end(W<T>);  // the page after it faults when read
    for (std::size_t i = 0; i < W<T>; ++i) page_end.data()[i] = static_cast<T>(static_cast<C<T>>(i % 5 + 1));
    for (std::size_t count = 0; count < W<T>; ++count) {
        const T* const source = page_end.data() + (W<T> - count);  // its last element ends the page
        const auto lanes = simd::to_array(simd::load_partial(source, count, C<T>(7)));
        for (std::size_t i = 0; i < W<T>; ++i) CHECK(same<T>(lanes[i], i < count ? static_cast<C<T>>(source[i]) : C<T>(7)));
    }
}
#endif

TEMPLATE_TEST_CASE("simd: 8- and 16-bit integers widened to 32-bit lanes and narrowed back", "", std::int8_t, std::uint8_t, std::int16_t,
                   std::uint16_t) {
    using T = TestType;
    using U = std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>;
    constexpr std::size_t N = simd::lanes<U>;
    test_rng rng("simd widen");
    INFO(rng.describe());
    std::vector<T> source(N);
    for (auto& v : source) v = tensorops_test::random_value<T>(rng);
    source[0] = std::numeric_limits<T>::min();
    source[N - 1] = std::numeric_limits<T>::max();
    const auto widened = simd::to_array(simd::load_widened<U>(source.data()));
    for (std::size_t i = 0; i < N; ++i) CHECK(widened[i] == static_cast<U>(source[i]));  // sign- or zero-extended
    for (std::size_t count = 0; count <= N; ++count) {  // from a block of exactly `count` elements (AddressSanitizer)
        const std::vector<T> exact(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(count));
        const auto partial = simd::to_array(simd::load_widened_partial<U>(exact.data(), count));
        for (std::size_t i = 0; i < N; ++i) CHECK(partial[i] == (i < count ? static_cast<U>(source[i]) : U(0)));
    }
    // Lanes past T's range come back truncated (the value modulo 2^n); nothing is written past the N elements.
    std::array<U, N> lanes_out;
    for (std::size_t i = 0; i < N; ++i) lanes_out[i] = static_cast<U>(rng.uniform<std::uint32_t>(0, 0xFFFFFFFFu));
    std::vector<T> destination(N + 2, T(5));
    simd::store_narrowed<T, U>(destination.data() + 1, simd::from_array<simd::pack<U>>(lanes_out));
    CHECK(destination[0] == T(5));
    for (std::size_t i = 0; i < N; ++i) CHECK(destination[1 + i] == static_cast<T>(lanes_out[i]));
    CHECK(destination[N + 1] == T(5));
}

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

TEMPLATE_LIST_TEST_CASE("simd: sqrt, exp and log per lane within a few ulp", "", tensorops_test::floating_types) {
    using T = TestType;
    using P = simd::pack<T>;
    using F = C<T>;
    test_rng rng("simd math");
    INFO(rng.describe());
    const F ulp = std::numeric_limits<F>::epsilon();
    for (int trial = 0; trial < 50; ++trial) {
        std::array<F, W<T>> positive, any;
        for (std::size_t i = 0; i < W<T>; ++i) {
            positive[i] = static_cast<F>(rng.uniform_real(1e-3, 1e3));
            any[i] = static_cast<F>(rng.uniform_real(-80.0, 80.0));
        }
        const auto roots = simd::to_array(simd::sqrt(simd::from_array<P>(positive)));
        const auto logs = simd::to_array(simd::log(simd::from_array<P>(positive)));
        const auto exps = simd::to_array(simd::exp(simd::from_array<P>(any)));
        for (std::size_t i = 0; i < W<T>; ++i) {
            CHECK(roots[i] == std::sqrt(positive[i]));  // correctly rounded
            CHECK(std::fabs(logs[i] - std::log(positive[i])) <= 4 * ulp * std::max(F(1), std::fabs(std::log(positive[i]))));
            CHECK(std::fabs(exps[i] - std::exp(any[i])) <= 4 * ulp * std::exp(any[i]));
        }
    }
    const F inf = std::numeric_limits<F>::infinity();
    CHECK(simd::to_array(simd::exp(P(-inf)))[0] == F(0));
    CHECK(simd::to_array(simd::log(P(F(0))))[0] == -inf);
    CHECK(std::isnan(simd::to_array(simd::exp(P(std::numeric_limits<F>::quiet_NaN())))[0]));
}

TEMPLATE_LIST_TEST_CASE("simd: exp_shifted is e^(x - shift) to a few ulp plus |x - shift| ulp, whatever the shift, at most 2^-124 below",
                        "", tensorops_test::floating_types) {
    using T = TestType;
    using P = simd::pack<T>;
    using F = C<T>;
    test_rng rng("simd exp_shifted");
    INFO(rng.describe());
    const double ulp = std::numeric_limits<F>::epsilon();
    const F inf = std::numeric_limits<F>::infinity();
    for (int trial = 0; trial < 2000; ++trial) {
        // Shifts from tiny to 10^30 (float's log2 e · shift rounds by more than 1 past 2^23); x from far below the shift
        // (terms that vanish) up to the shift (the maximum).
        const double magnitude = std::pow(10.0, rng.uniform_real(-3.0, 30.0));
        const F shift = static_cast<F>(rng.uniform(0, 1) ? magnitude : -magnitude);
        std::array<F, W<T>> x;
        for (auto& lane : x) lane = std::min(shift, static_cast<F>(static_cast<double>(shift) + rng.uniform_real(-100.0, 0.0)));
        const auto got = simd::to_array(simd::exp_shifted(simd::from_array<P>(x), P(shift)));
        for (std::size_t i = 0; i < W<T>; ++i) {
            const double exact = std::exp(static_cast<double>(x[i]) - static_cast<double>(shift));
            INFO("x = " << x[i] << ", shift = " << shift << ", got " << got[i] << ", exact " << exact);
            if (exact >= 0x1p-124) {
                const double tolerance = exact * (4 * ulp + std::fabs(static_cast<double>(x[i]) - static_cast<double>(shift)) * 2 * ulp);
                CHECK(std::fabs(static_cast<double>(got[i]) - exact) <= tolerance);
            } else {
                CHECK(static_cast<double>(got[i]) >= 0.0);
                CHECK(static_cast<double>(got[i]) <= 0x1p-124);
            }
        }
    }
    // The maximum itself contributes 1 (exactly, for shift 0); −inf contributes nothing visible next to it.
    CHECK(simd::to_array(simd::exp_shifted(P(F(0)), P(F(0))))[0] == F(1));
    CHECK(static_cast<double>(simd::to_array(simd::exp_shifted(P(-inf), P(F(3))))[0]) <= 0x1p-124);
    CHECK(simd::to_array(simd::exp_shifted(P(F(-1)), P(F(0))))[0] == Approx(std::exp(-1.0)).epsilon(4 * ulp));
    if constexpr (std::is_same_v<F, double>) {
        // Double lanes also take x above the shift (the one-pass kernels' terms against a reference, term_lanes): they
        // promise e^(x − r), +inf for +inf or past ln(DBL_MAX), and NaN for NaN (detail::exp_double_lanes).
        CHECK(simd::to_array(simd::exp_shifted(P(F(40)), P(F(0))))[0] == Approx(std::exp(40.0)).epsilon(4 * ulp));
        CHECK(simd::to_array(simd::exp_shifted(P(inf), P(F(3))))[0] == inf);
        CHECK(simd::to_array(simd::exp_shifted(P(F(800)), P(F(0))))[0] == inf);
        CHECK(std::isnan(simd::to_array(simd::exp_shifted(P(std::numeric_limits<F>::quiet_NaN()), P(F(0))))[0]));
    }
}

#if TENSOROPS_X86_INTRINSICS
TEST_CASE("simd: the table of exp_over_power_of_two's eighths holds 2^(j/8) rounded to float") {
    for (int j = 0; j < 8; ++j) {
        INFO("j = " << j);
        CHECK(simd::detail::exp2_eighths[j] == static_cast<float>(std::exp2(static_cast<long double>(j) / 8)));
        // Its entry put back where power_of_two_in_eighths xors it: 2^(j/8) for the exponent bits of 2^0.
        const std::int32_t bits = (0x3F800000 | (j << 20)) ^ simd::detail::eighth_table_entry(j);
        CHECK(std::bit_cast<float>(bits) == simd::detail::exp2_eighths[j]);
    }
}

#endif
TEST_CASE("simd: exp_over_power_of_two and power_of_two_over_exp are a few ulp of 2^(x·L − k), however far from k") {
    using P = simd::pack<float>;
    constexpr std::size_t lanes = P::size;
    test_rng rng("simd exp over power of two");
    INFO(rng.describe());
    const long double L = 1.44269504088896341f;  // log2 e rounded to float, as both functions use it
    const long double ulp = std::numeric_limits<float>::epsilon();
    for (int trial = 0; trial < 3000; ++trial) {
        // References from small to the largest allowed (2^20); x from 140 powers of two below the reference (clamped
        // terms) to 120 above: with eighths (AVX2, AVX-512) every table entry and both ends of the exponent range.
        const double scale = std::pow(2.0, rng.uniform_real(0.0, std::log2(double{simd::largest_power_of_two_reference})));
        const float k = static_cast<float>(std::nearbyint(rng.uniform(0, 1) ? scale : -scale));
        std::array<float, lanes> x, top;
        for (std::size_t i = 0; i < lanes; ++i) {
            x[i] = static_cast<float>((static_cast<double>(k) + rng.uniform_real(-140.0, 120.0)) / static_cast<double>(L));
            top[i] = static_cast<float>((static_cast<double>(k) + rng.uniform_real(-0.9, 119.0)) / static_cast<double>(L));
        }
        const auto terms = simd::to_array(simd::exp_over_power_of_two(simd::from_array<P>(x), P(k)));
        const auto factors = simd::to_array(simd::power_of_two_over_exp(P(k), simd::from_array<P>(top)));
        for (std::size_t i = 0; i < lanes; ++i) {
            const long double exact_term = std::exp2(static_cast<long double>(x[i]) * L - k);
            const long double exact_factor = std::exp2(k - static_cast<long double>(top[i]) * L);
            INFO("k = " << k << ", x = " << x[i] << ", top = " << top[i] << ", term " << terms[i] << " (exact " << static_cast<double>(exact_term)
                        << "), factor " << factors[i] << " (exact " << static_cast<double>(exact_factor) << ")");
            if (exact_term >= 0x1p-124L) CHECK(std::fabs(terms[i] - exact_term) <= 4 * ulp * exact_term);
            else CHECK((terms[i] >= 0.0f && terms[i] <= 0x1p-124f));
            if (std::fabs(top[i]) < 0x1p24f) CHECK(std::fabs(factors[i] - exact_factor) <= 4 * ulp * exact_factor);
        }
    }
    // −inf contributes 2^−125 · 2^f at most; at x·L = k the term is 1 within an ulp.
    CHECK(simd::to_array(simd::exp_over_power_of_two(P(-std::numeric_limits<float>::infinity()), P(3.0f)))[0] <= 0x1p-124f);
    CHECK(simd::to_array(simd::exp_over_power_of_two(P(0.0f), P(0.0f)))[0] == 1.0f);
    CHECK(simd::to_array(simd::power_of_two_over_exp(P(0.0f), P(0.0f)))[0] == 1.0f);
    // NaN (whatever its sign and payload bits: a block's sum of terms must stay NaN) and +inf give NaN.
    for (const std::uint32_t bits : {0x7FC00000u, 0x7FFFFFFFu, 0xFFC00001u, 0x7F800001u, 0xFFFFFE01u, 0x7F800000u}) {
        INFO("x bits " << std::hex << bits);
        for (const float k : {0.0f, -7.0f, 90.0f})
            for (const float term : simd::to_array(simd::exp_over_power_of_two(P(std::bit_cast<float>(bits)), P(k)))) CHECK(std::isnan(term));
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

TEST_CASE("simd: copy_stream copies exactly its bytes, below and past its loop's threshold") {
    // Below stream_copy_min_bytes memcpy does it all; from it on, the hinted loop of four-register steps and memcpy
    // for the rest (a tail of 0 … step − 1 bytes); source and destination misaligned independently; the bytes around
    // the destination untouched.
    test_rng rng("copy_stream");
    INFO(rng.describe());
    constexpr std::size_t guard = 64, step = 4 * simd::copy_block_bytes;
    const std::size_t threshold = simd::stream_copy_min_bytes;
    std::vector<std::byte> source(threshold + 2 * step + 8);
    for (auto& b : source) b = static_cast<std::byte>(rng.uniform<int>(0, 255));
    const std::vector<std::size_t> lengths{0, 1, step, threshold - 1, threshold, threshold + 1, threshold + step - 1, threshold + step,
                                           threshold + 2 * step + 3};
    for (std::size_t n : lengths)
        for (std::size_t source_shift : {0, 5})
            for (std::size_t destination_shift : {0, 3, 32}) {
                std::vector<std::byte> destination(n + 2 * guard), expected;
                for (std::size_t k = 0; k < destination.size(); k += 97) destination[k] = static_cast<std::byte>(rng.uniform<int>(0, 255));
                expected = destination;
                std::copy_n(source.data() + source_shift, n, expected.data() + guard + destination_shift - 32);
                simd::copy_stream(destination.data() + guard + destination_shift - 32, source.data() + source_shift, n);
                INFO("length " << n << ", source shift " << source_shift << ", destination shift " << destination_shift);
                REQUIRE(destination == expected);
            }
}

TEST_CASE("simd: copy_bytes copies exactly its bytes, every length and misalignment") {
    // Lengths below one register (memcpy), whole and partial registers, four-register steps, the 2 KiB edge (memcpy
    // past it); source and destination misaligned independently; the bytes around the destination untouched.
    test_rng rng("copy_bytes");
    INFO(rng.describe());
    constexpr std::size_t guard = 80;
    std::vector<std::size_t> lengths;
    for (std::size_t n = 0; n <= 4 * simd::copy_block_bytes + 2 * simd::copy_block_bytes + 3; ++n) lengths.push_back(n);
    for (std::size_t n : {255, 256, 257, 511, 512, 513, 1000, 2047, 2048, 2049, 5000}) lengths.push_back(n);
    for (std::size_t n : lengths)
        for (std::size_t source_shift = 0; source_shift < 3; ++source_shift)
            for (std::size_t destination_shift : {0, 1, 7, 33}) {
                std::vector<std::byte> source(n + 8), destination(n + 2 * guard), expected;
                for (auto& b : source) b = static_cast<std::byte>(rng.uniform<int>(0, 255));
                for (auto& b : destination) b = static_cast<std::byte>(rng.uniform<int>(0, 255));
                expected = destination;
                std::memcpy(expected.data() + guard + destination_shift - 40, source.data() + source_shift, n);
                simd::copy_bytes(destination.data() + guard + destination_shift - 40, source.data() + source_shift, n);
                INFO("length " << n << ", source shift " << source_shift << ", destination shift " << destination_shift);
                REQUIRE(destination == expected);
            }
}

