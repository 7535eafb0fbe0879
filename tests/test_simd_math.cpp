// Tests of simd/: square root, exponentials and logarithm per lane, against <cmath> in wider precision. Compiled
// twice: with xsimd at the build's ISA level, and with TENSOROPS_NO_XSIMD (one-lane registers).
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

TEST_CASE("simd: float exp and log over their whole domains within 2 ulp: subnormals, overflow, the special values") {
    using P = simd::pack<float>;
    constexpr std::size_t lanes = P::size;
    test_rng rng("simd float exp and log domains");
    INFO(rng.describe());
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    // |got − exact| in units of the last place of a float of exact's size (of the smallest subnormal at the least).
    const auto ulps = [](float got, long double exact) {
        if (exact == 0) return got == 0.0f ? 0.0L : std::numeric_limits<long double>::infinity();
        const long double spacing = std::max(std::ldexp(1.0L, std::ilogb(exact) - 23), 0x1p-149L);
        return std::fabs(static_cast<long double>(got) - exact) / spacing;
    };
    for (int trial = 0; trial < 4000; ++trial) {
        std::array<float, lanes> x, positive;
        for (std::size_t i = 0; i < lanes; ++i) {
            // exp: the whole range, the subnormal results and the overflow's edge; log: every positive float's bits
            // (subnormals included), and numbers near 1 (where ln x is small).
            switch (rng.uniform(0, 2)) {
                case 0: x[i] = static_cast<float>(rng.uniform_real(-110.0, 95.0)); break;
                case 1: x[i] = static_cast<float>(rng.uniform_real(-104.5, -87.0)); break;
                default: x[i] = static_cast<float>(rng.uniform_real(88.0, 89.0)); break;
            }
            positive[i] = rng.uniform(0, 3) == 0 ? static_cast<float>(1.0 + rng.uniform_real(-0.4, 0.4))
                                                : std::bit_cast<float>(rng.uniform<std::uint32_t>(1, 0x7F7FFFFF));
        }
        const auto exps = simd::to_array(simd::exp(simd::from_array<P>(x)));
        const auto logs = simd::to_array(simd::log(simd::from_array<P>(positive)));
        for (std::size_t i = 0; i < lanes; ++i) {
            const long double exact_exp = std::exp(static_cast<long double>(x[i])), exact_log = std::log(static_cast<long double>(positive[i]));
            INFO("exp(" << x[i] << ") = " << exps[i] << ", exact " << static_cast<double>(exact_exp) << "; log(" << positive[i] << ") = " << logs[i]
                        << ", exact " << static_cast<double>(exact_log));
            if (exact_exp >= 0x1p128L) CHECK(exps[i] == inf);
            else if (exps[i] == inf) CHECK(exact_exp >= 0x1.fffffcp127L);  // within 2 ulp of the largest float
            else CHECK(ulps(exps[i], exact_exp) <= 2);
            CHECK(ulps(logs[i], exact_log) <= 2);
        }
    }
    const auto exp_of = [](float v) { return simd::to_array(simd::exp(P(v)))[0]; };
    const auto log_of = [](float v) { return simd::to_array(simd::log(P(v)))[0]; };
    CHECK(exp_of(-inf) == 0.0f);
    CHECK(exp_of(inf) == inf);
    CHECK(exp_of(0.0f) == 1.0f);
    CHECK(exp_of(-0.0f) == 1.0f);
    CHECK(exp_of(89.0f) == inf);
    CHECK(exp_of(-104.0f) == 0.0f);
    CHECK(exp_of(88.7f) < inf);
    CHECK(std::isnan(exp_of(nan)));
    CHECK(log_of(1.0f) == 0.0f);
    CHECK(log_of(0.0f) == -inf);
    CHECK(log_of(-0.0f) == -inf);
    CHECK(log_of(inf) == inf);
    CHECK(std::isnan(log_of(-1.0f)));
    CHECK(std::isnan(log_of(-inf)));
    CHECK(std::isnan(log_of(-std::numeric_limits<float>::denorm_min())));
    CHECK(std::isnan(log_of(nan)));
    CHECK(ulps(log_of(std::numeric_limits<float>::denorm_min()), std::log(0x1p-149L)) <= 2);
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

TEST_CASE("simd: the table of exp_over_power_of_two's eighths holds 2^(j/8) rounded to float") {
    for (int j = 0; j < 8; ++j) {
        INFO("j = " << j);
        CHECK(simd::detail::exp2_eighths[j] == static_cast<float>(std::exp2(static_cast<long double>(j) / 8)));
        // Its entry put back where power_of_two_in_eighths xors it: 2^(j/8) for the exponent bits of 2^0.
        const std::int32_t bits = (0x3F800000 | (j << 20)) ^ simd::detail::eighth_table_entry(j);
        CHECK(std::bit_cast<float>(bits) == simd::detail::exp2_eighths[j]);
    }
}

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
