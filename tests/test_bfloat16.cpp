// Tests for tensorops/core/bfloat16.hpp, bfloat16's vector loads and stores (simd/x86/bf16.hpp) and its float
// accumulation in the operators.
//
// Every conversion is checked against references written here, sharing no code with the library: the decoder follows
// the formula (−1)^s · 2^(e−127) · 1.f (subnormals f · 2^−133); float → bfloat16 compares the discarded low half with
// 0x8000 in integers; double (and float, as a cross-check) → bfloat16 searches the sorted list of every finite
// bfloat16 for the nearest one. The vector paths are compared with the scalar conversion on every pattern.
#include <catch2/catch.hpp>

#include <tensorops/tensorops.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <ios>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "support.hpp"

// A named namespace: in the unity build this file shares a translation unit with test_float16.cpp, whose helpers
// have the same names.
namespace bfloat16_tests {

using tensorops::bfloat16;

// ---------------------------------------------------------------------------------------------
// Independent references.

/// Decodes bfloat16 bits from the definition (NaN patterns give a quiet NaN with the pattern's sign).
double brain_decode(std::uint16_t bits) {
    const int exponent = (bits >> 7) & 0xFF;
    const int fraction = bits & 0x7F;
    double magnitude = 0;
    if (exponent == 0xFF)
        magnitude = fraction == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
    else if (exponent == 0) magnitude = std::ldexp(fraction, -133);
    else magnitude = std::ldexp(128 + fraction, exponent - 134);
    return std::copysign(magnitude, (bits & 0x8000) != 0 ? -1.0 : 1.0);
}

/// Magnitudes of the patterns 0x0000 … 0x7F7F in increasing order (index == pattern), then 2^128 at 0x7F80: the value
/// the next pattern would have with an unbounded exponent, so rounding to it means overflow, to the infinity pattern.
const std::vector<double>& brain_grid() {
    static const std::vector<double> grid = [] {
        std::vector<double> values(0x7F81);
        for (std::uint16_t bits = 0; bits < 0x7F80; ++bits) values[bits] = brain_decode(bits);
        values[0x7F80] = std::ldexp(1.0, 128);
        return values;
    }();
    return grid;
}

/// Nearest bfloat16 to a non-NaN double, ties to the even pattern. Midpoints have at most 9 significant bits, so the
/// comparisons with them are exact in double.
std::uint16_t brain_round(double x) {
    const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const double magnitude = std::fabs(x);
    const auto& grid = brain_grid();
    if (magnitude >= grid.back()) return sign | 0x7F80;
    const auto above = std::lower_bound(grid.begin(), grid.end(), magnitude);
    auto index = static_cast<std::uint16_t>(above - grid.begin());
    if (*above != magnitude) {
        const double midpoint = (grid[index - 1] + grid[index]) / 2;
        if (magnitude < midpoint || (magnitude == midpoint && (index - 1) % 2 == 0)) --index;
    }
    return static_cast<std::uint16_t>(sign | index);
}

/// float → bfloat16 in integers: keep the top half, round up when the discarded half exceeds 0x8000 or equals it with
/// an odd kept half (a carry may run into the exponent: up a binade, or to infinity). NaN: top half, quiet bit set.
std::uint16_t reference_from_float(float x) {
    const auto bits = std::bit_cast<std::uint32_t>(x);
    const std::uint32_t kept = bits >> 16, discarded = bits & 0xFFFF;
    if ((bits & 0x7F800000) == 0x7F800000 && (bits & 0x007FFFFF) != 0) return static_cast<std::uint16_t>(kept | 0x0040);
    const bool up = discarded > 0x8000 || (discarded == 0x8000 && (kept & 1) != 0);
    return static_cast<std::uint16_t>(kept + (up ? 1 : 0));
}

std::uint16_t reference_from_double(double x) {
    if (!std::isnan(x)) return brain_round(x);
    const auto bits = std::bit_cast<std::uint64_t>(x);  // sign, quiet bit, the top 7 payload bits
    return static_cast<std::uint16_t>(((bits >> 48) & 0x8000) | 0x7FC0 | ((bits >> 45) & 0x7F));
}

// ---------------------------------------------------------------------------------------------
// Helpers.

std::string hex(std::uint64_t value) {
    std::ostringstream out;
    out << "0x" << std::hex << value;
    return out.str();
}

/// Counts mismatches and keeps the first few, so sweeps over millions of inputs report one assertion.
struct mismatch_log {
    std::size_t count = 0;
    std::string first;
    void add(const std::string& what) {
        if (count++ < 8) first += what + "\n";
    }
};

bfloat16 brain(std::uint16_t bits) { return bfloat16::from_bits(bits); }
float float_of_bits(std::uint32_t bits) { return std::bit_cast<float>(bits); }

/// float → bfloat16 for one input: the library, the integer reference and (non-NaN) the grid reference agree.
void check_float_input(float x, mismatch_log& log) {
    const std::uint16_t expected = reference_from_float(x), actual = bfloat16(x).to_bits();
    const bool grid_agrees = std::isnan(x) || brain_round(static_cast<double>(x)) == expected;
    if (actual != expected || !grid_agrees)
        log.add("float " + hex(std::bit_cast<std::uint32_t>(x)) + ": expected " + hex(expected) + ", got " +
                hex(actual) + (grid_agrees ? "" : " (the references disagree)"));
}

void check_double_input(double x, mismatch_log& log) {
    const std::uint16_t expected = reference_from_double(x), actual = bfloat16(x).to_bits();
    if (actual != expected)
        log.add("double " + hex(std::bit_cast<std::uint64_t>(x)) + ": expected " + hex(expected) + ", got " +
                hex(actual));
}

// ---------------------------------------------------------------------------------------------
// Compile-time checks (constant evaluation of the same routines).

static_assert(sizeof(bfloat16) == 2 && std::is_trivially_copyable_v<bfloat16> && std::is_standard_layout_v<bfloat16>);
static_assert(!std::is_convertible_v<float, bfloat16> && !std::is_convertible_v<bfloat16, float>);
static_assert(tensorops::narrow_float<bfloat16> && tensorops::narrow_float<tensorops::float16> &&
              !tensorops::narrow_float<float>);
static_assert(bfloat16(1.0f).to_bits() == 0x3F80 && float(bfloat16::from_bits(0x3FC0)) == 1.5f);
static_assert(bfloat16(257.0f).to_bits() == bfloat16(256.0f).to_bits());         // tie to even
static_assert(bfloat16(259.0f).to_bits() == bfloat16(260.0f).to_bits());         // tie to even, upwards
static_assert(bfloat16(std::bit_cast<float>(0x7F7F8000u)).to_bits() == 0x7F80);  // max + ½ ulp: overflow
static_assert(bfloat16(std::bit_cast<float>(0x7F7F7FFFu)).to_bits() == 0x7F7F);
static_assert(bfloat16(std::bit_cast<float>(0x7F800001u)).to_bits() == 0x7FC0);   // signalling, low payload: NaN
static_assert(bfloat16(std::bit_cast<float>(0x00008001u)).to_bits() == 0x0001);   // subnormal kept
static_assert(bfloat16(1.0 + 0x1p-8 + 0x1p-40).to_bits() == 0x3F81);              // double: rounded once
static_assert(bfloat16(std::uint64_t{0x8080000000000001u}).to_bits() == 0x5F01);  // integer: rounded once
static_assert((bfloat16(1.0f) + bfloat16(2.0f)).to_bits() == 0x4040);

// ---------------------------------------------------------------------------------------------

TEST_CASE("bfloat16: every pattern widens exactly and round-trips") {
    mismatch_log log;
    for (std::uint32_t pattern = 0; pattern <= 0xFFFF; ++pattern) {
        const auto bits = static_cast<std::uint16_t>(pattern);
        const double expected = brain_decode(bits);
        const float widened = static_cast<float>(brain(bits));
        const double widened_double = static_cast<double>(brain(bits));
        if (std::bit_cast<std::uint32_t>(widened) != pattern << 16)
            log.add(hex(bits) + ": widening is not the top half");
        if (std::isnan(expected)) {  // NaN stays NaN with its sign and payload; narrowing sets the quiet bit
            if (!std::isnan(widened_double) || std::signbit(widened_double) != ((bits & 0x8000) != 0))
                log.add(hex(bits) + ": NaN lost");
            if (bfloat16(widened).to_bits() != (bits | 0x0040) || bfloat16(widened_double).to_bits() != (bits | 0x0040))
                log.add(hex(bits) + ": NaN did not round-trip to its quiet form");
            continue;
        }
        if (widened_double != expected || std::signbit(widened_double) != std::signbit(expected))
            log.add(hex(bits) + ": wrong value");
        if (bfloat16(widened).to_bits() != bits || bfloat16(widened_double).to_bits() != bits)
            log.add(hex(bits) + ": did not round-trip");
    }
    INFO(log.first);
    CHECK(log.count == 0);
}

TEST_CASE("bfloat16: midpoints between neighbours round to nearest even, from float and from double") {
    mismatch_log log;
    for (std::uint16_t bits = 0; bits < 0x7F80; ++bits) {
        const auto next = static_cast<std::uint16_t>(bits + 1);
        const double low = brain_decode(bits), high = next < 0x7F80 ? brain_decode(next) : std::ldexp(1.0, 128);
        const double midpoint = (low + high) / 2;
        const std::uint16_t even = bits % 2 == 0 ? bits : next;
        const auto midpoint_float = static_cast<float>(midpoint);
        REQUIRE(static_cast<double>(midpoint_float) == midpoint);  // 9 significant bits: a float
        const std::pair<double, std::uint16_t> expectations[] = {
            {low, bits},
            {midpoint, even},
            {std::nextafter(midpoint, 0.0), bits},
            {std::nextafter(midpoint, 1e300), next},
            {static_cast<double>(std::nextafter(midpoint_float, 0.0f)), bits},
            {static_cast<double>(std::nextafter(midpoint_float, std::numeric_limits<float>::infinity())), next},
        };
        for (const auto& [input, result] : expectations)
            for (const double signed_input : {input, -input}) {
                const auto expected = static_cast<std::uint16_t>(result | (std::signbit(signed_input) ? 0x8000 : 0));
                if (brain_round(signed_input) != expected) log.add("reference disagrees at " + hex(bits));
                check_double_input(signed_input, log);
                const auto as_float = static_cast<float>(signed_input);
                if (static_cast<double>(as_float) == signed_input) check_float_input(as_float, log);
            }
    }
    INFO(log.first);
    CHECK(log.count == 0);
}

TEST_CASE("bfloat16: float sweep matches both references") {
    mismatch_log log;
    // Every 1021st float pattern: all exponents, both signs, NaNs and infinities (about 4.2 million).
    for (std::uint64_t pattern = 0; pattern <= 0xFFFFFFFFu; pattern += 1021)
        check_float_input(float_of_bits(static_cast<std::uint32_t>(pattern)), log);
    // Every float within 2^16 patterns of the boundaries: zero and the subnormals (half the smallest bfloat16
    // subnormal is 0x00008000), the smallest normal, one, the overflow threshold (max + ½ ulp), infinity and the NaNs.
    for (const std::uint32_t centre : {0x00010000u, 0x00800000u, 0x3F800000u, 0x7F7F8000u, 0x7F800000u, 0x7FC00000u}) {
        for (std::uint32_t pattern = centre - std::min(centre, 0x10000u); pattern <= centre + 0x10000u; ++pattern) {
            check_float_input(float_of_bits(pattern), log);
            check_float_input(float_of_bits(pattern | 0x80000000u), log);
        }
    }
    INFO(log.first);
    CHECK(log.count == 0);
}

TEST_CASE("bfloat16: doubles are rounded once, directly") {
    mismatch_log log;
    tensorops_test::test_rng rng("bfloat16 doubles");
    INFO(rng.describe());
    for (int i = 0; i < 200000; ++i) {  // every binade from below the subnormals to past the overflow threshold
        const double x = std::ldexp(rng.uniform_real(1.0, 2.0), rng.uniform<int>(-140, 129));
        check_double_input(rng.chance(0.5) ? -x : x, log);
    }
    const auto& grid = brain_grid();
    for (std::uint16_t bits = 0; bits < 0x7F80; bits += 3) {  // a few double ulps off each midpoint
        const auto midpoint_bits = std::bit_cast<std::uint64_t>((grid[bits] + grid[bits + 1]) / 2);
        for (std::uint64_t ulps = 1; ulps <= 3; ++ulps) {
            check_double_input(std::bit_cast<double>(midpoint_bits + ulps), log);
            check_double_input(std::bit_cast<double>(midpoint_bits - ulps), log);
        }
    }
    INFO(log.first);
    CHECK(log.count == 0);
    // Just off a midpoint, where rounding to float first lands on the midpoint and ties-to-even picks wrong.
    const double above_even_tie = 1.0 + 0x1p-8 + 0x1p-40, below_odd_tie = 1.0 + 3 * 0x1p-8 - 0x1p-40;
    REQUIRE(bfloat16(static_cast<float>(above_even_tie)).to_bits() == 0x3F80);
    CHECK(bfloat16(above_even_tie).to_bits() == 0x3F81);
    REQUIRE(bfloat16(static_cast<float>(below_odd_tie)).to_bits() == 0x3F82);
    CHECK(bfloat16(below_odd_tie).to_bits() == 0x3F81);
    CHECK(bfloat16(0x1p-134 + 0x1p-170).to_bits() == 0x0001);  // above half the smallest subnormal
    CHECK(bfloat16(std::numeric_limits<double>::denorm_min()).to_bits() == 0x0000);
    CHECK(bfloat16(-std::numeric_limits<double>::max()).to_bits() == 0xFF80);
}

TEST_CASE("bfloat16: infinities, NaNs, zeros, subnormals and overflow") {
    constexpr float inf = std::numeric_limits<float>::infinity();
    CHECK(bfloat16(inf).to_bits() == 0x7F80);
    CHECK(bfloat16(-inf).to_bits() == 0xFF80);
    CHECK(float(brain(0xFF80)) == -inf);
    // NaN keeps its sign and top payload bits, becomes quiet, never infinity.
    CHECK(bfloat16(std::numeric_limits<float>::quiet_NaN()).to_bits() == 0x7FC0);
    CHECK(bfloat16(-std::numeric_limits<float>::quiet_NaN()).to_bits() == 0xFFC0);
    CHECK(bfloat16(float_of_bits(0x7F800001u)).to_bits() == 0x7FC0);
    CHECK(bfloat16(float_of_bits(0xFF80FFFFu)).to_bits() == 0xFFC0);  // would carry to 0xFF81 as a number
    CHECK(bfloat16(float_of_bits(0x7FBF8000u)).to_bits() == 0x7FFF);  // would carry to 0x7FC0 as a number
    CHECK(bfloat16(float_of_bits(0x7FA00000u)).to_bits() == 0x7FE0);
    CHECK(bfloat16(std::bit_cast<double>(0xFFF4000000000000u)).to_bits() == 0xFFE0);
    CHECK(std::bit_cast<std::uint32_t>(float(brain(0x7FA0))) == 0x7FA00000u);  // widening keeps a signalling NaN
    // Signed zeros and subnormals (bfloat16 has float's: down to 2^-133).
    CHECK(bfloat16(-0.0f).to_bits() == 0x8000);
    CHECK(bfloat16(-0.0).to_bits() == 0x8000);
    CHECK(std::signbit(float(brain(0x8000))));
    CHECK(bfloat16(-std::numeric_limits<float>::denorm_min()).to_bits() == 0x8000);
    CHECK(float(brain(0x0001)) == 0x1p-133f);
    CHECK(float(brain(0x007F)) == 127 * 0x1p-133f);
    CHECK(bfloat16(0x1p-134f).to_bits() == 0x0000);      // tie to even: zero
    CHECK(bfloat16(3 * 0x1p-134f).to_bits() == 0x0002);  // tie to even, upwards
    CHECK(bfloat16(float_of_bits(0x007FFFFFu)).to_bits() == 0x0080);  // the largest subnormal float: min normal
    CHECK(bfloat16(float_of_bits(0x007F7FFFu)).to_bits() == 0x007F);
    // Overflow: from max + ½ ulp (0x1.ffp127) up.
    CHECK(bfloat16(std::numeric_limits<float>::max()).to_bits() == 0x7F80);
    CHECK(bfloat16(-std::numeric_limits<float>::max()).to_bits() == 0xFF80);
    CHECK(bfloat16(0x1.fep127f).to_bits() == 0x7F7F);
    CHECK(bfloat16(0x1.ffp127).to_bits() == 0x7F80);  // the tie with 2^128 goes to the even pattern: infinity
    CHECK(bfloat16(std::nextafter(0x1.ffp127, 0.0)).to_bits() == 0x7F7F);
}

TEST_CASE("bfloat16: integers round once to nearest even") {
    CHECK(bfloat16(0).to_bits() == 0x0000);
    CHECK(bfloat16(true).to_bits() == 0x3F80);
    CHECK(bfloat16(-1).to_bits() == 0xBF80);
    CHECK(float(bfloat16(std::int8_t{-128})) == -128.0f);
    CHECK(float(bfloat16(257)) == 256.0f);  // ties to even
    CHECK(float(bfloat16(259u)) == 260.0f);
    CHECK(float(bfloat16(258L)) == 258.0f);
    CHECK(float(bfloat16(std::numeric_limits<std::int64_t>::min())) == -0x1p63f);
    CHECK(float(bfloat16(std::numeric_limits<std::uint64_t>::max())) == 0x1p64f);
    // Through double these would round twice: 2^63 + 2^55 + 1 is above the tie 2^63 + 2^55.
    CHECK(bfloat16(std::uint64_t{0x8080000000000001u}).to_bits() == 0x5F01);
    CHECK(bfloat16(-std::int64_t{0x4040000000000001}).to_bits() == 0xDE81);
    tensorops_test::test_rng rng("bfloat16 integers");
    INFO(rng.describe());
    mismatch_log log;
    for (int i = 0; i < 100000; ++i) {  // integers of every width against the grid reference (exact in long double)
        const auto wide = static_cast<std::int64_t>(rng.engine()()) >> rng.uniform<int>(0, 62);
        const auto magnitude = static_cast<long double>(wide);
        const double nearest = static_cast<double>(magnitude);  // exact: the grid's precision is what matters
        if (static_cast<long double>(nearest) == magnitude && bfloat16(wide).to_bits() != brain_round(nearest))
            log.add(std::to_string(wide));
    }
    INFO(log.first);
    CHECK(log.count == 0);
}

TEST_CASE("bfloat16: arithmetic is computed in float and rounded once") {
    CHECK(bfloat16(1) + bfloat16(2) == bfloat16(3));
    CHECK((bfloat16(256) + bfloat16(1)).to_bits() == bfloat16(256).to_bits());  // a bfloat16 sum stalls at 256
    CHECK((bfloat16(1) / bfloat16(3)).to_bits() == 0x3EAB);
    CHECK(isinf(std::numeric_limits<bfloat16>::max() + std::numeric_limits<bfloat16>::max()));
    CHECK(isnan(bfloat16(0) / bfloat16(0)));
    CHECK((-bfloat16(0)).to_bits() == 0x8000);
    CHECK((-brain(0x7FC0)).to_bits() == 0xFFC0);
    CHECK((+brain(0x8001)).to_bits() == 0x8001);
    bfloat16 x(10);
    x += bfloat16(5);
    x -= bfloat16(3);
    x *= bfloat16(0.5f);
    x /= bfloat16(4);
    CHECK(float(x) == 1.5f);
    // Sums and products of two bfloat16 are exact in double, or too far from a midpoint to round twice; a quotient
    // is rounded to double, then to bfloat16 without double-rounding error (53 ≥ 2 · 8 + 2).
    mismatch_log log;
    tensorops_test::test_rng rng("bfloat16 arithmetic");
    INFO(rng.describe());
    for (int i = 0; i < 100000; ++i) {
        const bfloat16 a = brain(rng.uniform<std::uint16_t>(0, 0xFFFF)),
                       b = brain(rng.uniform<std::uint16_t>(0, 0xFFFF));
        const double da = brain_decode(a.to_bits()), db = brain_decode(b.to_bits());
        const auto check = [&](bfloat16 actual, double exact, const char* op) {
            if (!(std::isnan(exact) && isnan(actual)) && actual.to_bits() != reference_from_double(exact))
                log.add(hex(a.to_bits()) + " " + op + " " + hex(b.to_bits()) + " gave " + hex(actual.to_bits()));
        };
        check(a + b, da + db, "+");
        check(a - b, da - db, "-");
        check(a * b, da * db, "*");
        check(a / b, da / db, "/");
    }
    INFO(log.first);
    CHECK(log.count == 0);
}

TEST_CASE("bfloat16: comparisons, classification and limits follow the decoded values") {
    mismatch_log log;
    const std::uint16_t pivots[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x3F7F, 0x3F80,
                                    0x3F81, 0xBF80, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0x7FA1};
    for (std::uint32_t pattern = 0; pattern <= 0xFFFF; ++pattern) {
        const bfloat16 a = brain(static_cast<std::uint16_t>(pattern));
        const double da = brain_decode(a.to_bits());
        for (const std::uint16_t pivot : pivots) {
            const bfloat16 b = brain(pivot);
            const double db = brain_decode(pivot);
            if ((a == b) != (da == db) || (a != b) != (da != db) || (a < b) != (da < db) || (a <= b) != (da <= db) ||
                (a > b) != (da > db) || (a >= b) != (da >= db))
                log.add(hex(pattern) + " vs " + hex(pivot));
        }
        if (isnan(a) != std::isnan(da) || isinf(a) != std::isinf(da) || isfinite(a) != std::isfinite(da) ||
            signbit(a) != ((pattern & 0x8000) != 0))
            log.add("classification of " + hex(pattern));
    }
    INFO(log.first);
    CHECK(log.count == 0);
    using limits = std::numeric_limits<bfloat16>;
    STATIC_REQUIRE((limits::is_specialized && limits::has_infinity && limits::has_quiet_NaN &&
                    limits::has_denorm == std::denorm_present));
    STATIC_REQUIRE(
        (limits::digits == 8 && limits::min_exponent == -125 && limits::max_exponent == 128 && limits::radix == 2));
    CHECK(double(limits::min()) == std::ldexp(1.0, limits::min_exponent - 1));
    CHECK(double(limits::max()) == std::ldexp(255.0, 120));
    CHECK(double(limits::lowest()) == -double(limits::max()));
    CHECK(double(limits::epsilon()) == std::ldexp(1.0, 1 - limits::digits));
    CHECK(bfloat16(1) + limits::epsilon() != bfloat16(1));
    CHECK(double(limits::round_error()) == 0.5);
    CHECK(double(limits::denorm_min()) == std::ldexp(1.0, -133));
    CHECK((isnan(limits::quiet_NaN()) && isnan(limits::signaling_NaN()) && isinf(limits::infinity())));
    CHECK(limits::digits10 == static_cast<int>(std::floor((limits::digits - 1) * std::log10(2.0))));
    CHECK(limits::max_digits10 == static_cast<int>(std::ceil(1 + limits::digits * std::log10(2.0))));
    CHECK(tensorops::element_identity<bfloat16>::max_identity().to_bits() == 0xFF80);
    STATIC_REQUIRE(std::is_same_v<tensorops::accumulator_t<bfloat16>, float>);
}

TEST_CASE("bfloat16: vector loads widen every pattern exactly and stores round as the scalar conversion does") {
    namespace simd = tensorops::simd;
    using P = simd::pack<bfloat16>;
    constexpr std::size_t lanes = simd::lanes<bfloat16>;
    mismatch_log log;
    std::vector<bfloat16> patterns(0x10000);
    for (std::uint32_t p = 0; p <= 0xFFFF; ++p) patterns[p] = brain(static_cast<std::uint16_t>(p));
    for (std::size_t i = 0; i + lanes <= patterns.size(); i += lanes) {
        const auto widened = simd::to_array(simd::load(patterns.data() + i));
        for (std::size_t k = 0; k < lanes; ++k)
            if (std::bit_cast<std::uint32_t>(widened[k]) != (i + k) << 16) log.add("load of " + hex(i + k));
    }
    // Stores: each pattern's float and its neighbours where rounding decides (just above, the tie, just past it, the
    // top of the interval) — every NaN, subnormal, overflow and tie — then registers mixing random normal floats with
    // one subnormal lane (which the AVX-512 BF16 path rounds by shifts) or none.
    std::vector<float> inputs;
    for (std::uint32_t p = 0; p <= 0xFFFF; ++p)
        for (const std::uint32_t low : {0x0000u, 0x0001u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu})
            inputs.push_back(float_of_bits(p << 16 | low));
    tensorops_test::test_rng rng("bfloat16 vector stores");
    INFO(rng.describe());
    for (int r = 0; r < 4000; ++r) {
        const std::size_t subnormal_lane = rng.uniform<std::size_t>(0, 2 * lanes - 1);
        for (std::size_t k = 0; k < lanes; ++k)
            inputs.push_back(k == subnormal_lane ? float_of_bits(rng.uniform<std::uint32_t>(1, 0x007FFFFF) |
                                                                 (rng.chance(0.5) ? 0x80000000u : 0u))
                                                 : static_cast<float>(rng.uniform_real(-1e6, 1e6)));
    }
    std::array<bfloat16, lanes> stored{};
    for (std::size_t i = 0; i + lanes <= inputs.size(); i += lanes) {
        std::array<float, lanes> values;
        std::copy_n(inputs.begin() + static_cast<std::ptrdiff_t>(i), lanes, values.begin());
        simd::store(stored.data(), simd::from_array<P>(values));
        for (std::size_t k = 0; k < lanes; ++k)
            if (stored[k].to_bits() != reference_from_float(values[k]))
                log.add("store of " + hex(std::bit_cast<std::uint32_t>(values[k])));
    }
    for (std::size_t count = 0; count < lanes; ++count) {  // partial loads, from a block of exactly `count` elements
        const std::vector<bfloat16> exact(patterns.begin() + 0x3F80,
                                          patterns.begin() + 0x3F80 + static_cast<std::ptrdiff_t>(count));
        for (const float fill : {0.0f, -7.0f}) {
            const auto widened = simd::to_array(simd::load_partial(exact.data(), count, fill));
            for (std::size_t k = 0; k < lanes; ++k)
                if (std::bit_cast<std::uint32_t>(widened[k]) !=
                    std::bit_cast<std::uint32_t>(k < count ? float(exact[k]) : fill))
                    log.add("partial load of " + std::to_string(count) + ", lane " + std::to_string(k));
        }
    }
    INFO(log.first);
    CHECK(log.count == 0);
}

TEST_CASE("bfloat16: sums carry a float past 2^8 and round once per output") {
    using tensorops::tensor_view;
    // A bfloat16 accumulator would stall at 256 (256 + 1 rounds back to 256).
    std::vector<bfloat16> ones(5000, bfloat16(1.0f)), out(5000), rows(5000 * 16);
    for (const bool exclusive : {false, true}) {
        tensorops::cumulative_sum(tensor_view<const bfloat16>(ones.data(), {5000}),
                                  tensor_view<bfloat16>(out.data(), {5000}),
                                  {0, tensorops::axis_direction::increasing, exclusive});
        for (std::size_t i = 0; i < 5000; ++i)
            REQUIRE(out[i].to_bits() == bfloat16(static_cast<float>(i + (exclusive ? 0 : 1))).to_bits());
        tensorops::cumulative_sum(tensor_view<const bfloat16>(ones.data(), {5000, 16}, {1, 0}),
                                  tensor_view<bfloat16>(rows.data(), {5000, 16}),
                                  {0, tensorops::axis_direction::increasing, exclusive});
        for (std::size_t i = 0; i < 5000; ++i)
            for (std::size_t j = 0; j < 16; ++j)
                REQUIRE(rows[i * 16 + j].to_bits() == bfloat16(static_cast<float>(i + (exclusive ? 0 : 1))).to_bits());
    }
    CHECK(float(out[4999]) == 4992.0f);  // 4999, rounded once
    bfloat16 sum{}, average{};
    tensorops::reduce(tensor_view<const bfloat16>(ones.data(), {5000}), tensor_view<bfloat16>(&sum, {1}),
                      tensorops::reduce_function::sum, {0});
    CHECK(float(sum) == 4992.0f);  // 5000 rounded once
    std::vector<bfloat16> columns(16);
    tensorops::reduce(tensor_view<const bfloat16>(ones.data(), {312, 16}),
                      tensor_view<bfloat16>(columns.data(), {1, 16}), tensorops::reduce_function::sum, {0});
    for (const bfloat16 c : columns) CHECK(float(c) == 312.0f);
    tensorops::reduce(tensor_view<const bfloat16>(ones.data(), {5000}), tensor_view<bfloat16>(&average, {1}),
                      tensorops::reduce_function::average, {0});
    CHECK(float(average) == 1.0f);
    // Scatter adds round once per update, as documented: a chain of duplicate updates rounds at every step.
    std::vector<bfloat16> base(4, bfloat16(256.0f)), updates(4, bfloat16(1.0f)), scattered(4);
    const std::int32_t indices[4] = {1, 1, 2, 3};
    tensorops::scatter_nd(tensor_view<const bfloat16>(base.data(), {4}),
                          tensor_view<const std::int32_t>(indices, {4, 1}),
                          tensor_view<const bfloat16>(updates.data(), {4}),
                          tensor_view<bfloat16>(scattered.data(), {4}), tensorops::scatter_reduction::add);
    CHECK(float(scattered[0]) == 256.0f);
    CHECK(float(scattered[1]) == 256.0f);  // 256 + 1 → 256, twice
    CHECK(float(scattered[2]) == 256.0f);
}

}  // namespace bfloat16_tests
