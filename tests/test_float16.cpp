// Tests for tensorops/core/float16.hpp.
//
// Every conversion is checked against a reference written here from the definition of binary16 and
// sharing no code with the header: the decoder follows the formula (-1)^s · 2^(e-15) · 1.f, and the
// encoder searches the sorted list of all finite halves for the nearest one. The run-time path (F16C
// when the build enables it) and the portable constexpr path are compared with each other on every input.
#include <catch2/catch.hpp>

#include <tensorops/core/float16.hpp>

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

using tensorops::float16;

namespace {

// ---------------------------------------------------------------------------------------------
// Independent reference.

/// Decodes half bits from the definition (NaN patterns give a quiet NaN with the pattern's sign).
double reference_decode(std::uint16_t bits) {
    const int exponent = (bits >> 10) & 0x1F;
    const int fraction = bits & 0x3FF;
    double magnitude = 0;
    if (exponent == 0x1F) {
        magnitude = fraction == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
    } else if (exponent == 0) {
        magnitude = std::ldexp(fraction, -24);
    } else {
        magnitude = std::ldexp(1024 + fraction, exponent - 25);
    }
    return std::copysign(magnitude, (bits & 0x8000) != 0 ? -1.0 : 1.0);
}

/// Magnitudes of the halves 0x0000 … 0x7BFF in increasing order (so index == bit pattern), followed by
/// 2^16 at index 0x7C00: the value the next pattern would have with an unbounded exponent. Rounding to
/// that entry means overflow, and its index is exactly the pattern of +infinity.
const std::vector<double>& half_grid() {
    static const std::vector<double> grid = [] {
        std::vector<double> values(0x7C01);
        for (std::uint16_t bits = 0; bits < 0x7C00; ++bits) values[bits] = reference_decode(bits);
        values[0x7C00] = 65536.0;
        return values;
    }();
    return grid;
}

/// Nearest half to a non-NaN double, ties to the even pattern (even fraction). The midpoint of two
/// neighbouring halves has at most 12 significant bits, so comparing against it in double is exact.
std::uint16_t reference_round(double x) {
    const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const double magnitude = std::fabs(x);
    const auto& grid = half_grid();
    if (magnitude >= grid.back()) return sign | 0x7C00;
    const auto above = std::lower_bound(grid.begin(), grid.end(), magnitude);
    auto index = static_cast<std::uint16_t>(above - grid.begin());
    if (*above != magnitude) {
        const double midpoint = (grid[index - 1] + grid[index]) / 2;
        const bool lower_is_even = (index - 1) % 2 == 0;
        if (magnitude < midpoint || (magnitude == midpoint && lower_is_even)) --index;
    }
    return static_cast<std::uint16_t>(sign | index);
}

/// The NaN rule: sign kept, quiet bit set, top 10 payload bits kept.
std::uint16_t reference_nan_from_float(float x) {
    const auto bits = std::bit_cast<std::uint32_t>(x);
    return static_cast<std::uint16_t>(((bits >> 16) & 0x8000) | 0x7E00 | ((bits >> 13) & 0x3FF));
}
std::uint16_t reference_nan_from_double(double x) {
    const auto bits = std::bit_cast<std::uint64_t>(x);
    return static_cast<std::uint16_t>(((bits >> 48) & 0x8000) | 0x7E00 | ((bits >> 42) & 0x3FF));
}

std::uint16_t reference_from_float(float x) { return std::isnan(x) ? reference_nan_from_float(x) : reference_round(x); }
std::uint16_t reference_from_double(double x) { return std::isnan(x) ? reference_nan_from_double(x) : reference_round(x); }

// ---------------------------------------------------------------------------------------------
// Helpers.

std::string hex(std::uint64_t value) {
    std::ostringstream out;
    out << "0x" << std::hex << value;
    return out.str();
}

/// Counts mismatches and keeps a description of the first few, so million-input sweeps report
/// one assertion instead of millions.
struct mismatch_log {
    std::size_t count = 0;
    std::string first;
    void add(const std::string& what) {
        if (count++ < 8) first += what + "\n";
    }
};

std::uint16_t bits_of(float16 x) { return x.to_bits(); }
float16 half(std::uint16_t bits) { return float16::from_bits(bits); }

/// Checks float → half for one input: run-time path, portable path and reference agree.
void check_float_input(float x, mismatch_log& log) {
    const std::uint16_t expected = reference_from_float(x);
    const std::uint16_t runtime = bits_of(float16(x));
    const std::uint16_t portable = tensorops::detail::float_to_half_bits_portable(x);
    if (runtime != expected || portable != expected) {
        log.add("float " + hex(std::bit_cast<std::uint32_t>(x)) + ": expected " + hex(expected) + ", run time " +
                hex(runtime) + ", portable " + hex(portable));
    }
}

/// Checks double → half for one input against the reference.
void check_double_input(double x, mismatch_log& log) {
    const std::uint16_t expected = reference_from_double(x);
    const std::uint16_t actual = bits_of(float16(x));
    if (actual != expected) {
        log.add("double " + hex(std::bit_cast<std::uint64_t>(x)) + ": expected " + hex(expected) + ", got " +
                hex(actual));
    }
}

constexpr float next_float_up(float x) { return std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) + 1); }
constexpr float next_float_down(float x) { return std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) - 1); }

// ---------------------------------------------------------------------------------------------
// Tables computed in constant evaluation (the portable path), compared at run time.

constexpr int compile_time_half_stride = 13;
constexpr int compile_time_half_count = 65536 / compile_time_half_stride + 1;

/// Float bits of sampled half patterns, widened in constant evaluation.
constexpr auto compile_time_widened = [] {
    std::array<std::uint32_t, compile_time_half_count> bits{};
    for (int i = 0; i < compile_time_half_count; ++i) {
        const auto pattern = static_cast<std::uint16_t>(i * compile_time_half_stride);
        bits[i] = std::bit_cast<std::uint32_t>(static_cast<float>(float16::from_bits(pattern)));
    }
    return bits;
}();

struct narrowing_case {
    float input;
    std::uint16_t half_bits;
};

constexpr int compile_time_midpoint_stride = 31;
constexpr int compile_time_midpoint_samples = 0x7C00 / compile_time_midpoint_stride + 1;

/// For sampled finite halves h: h itself, the midpoint to the next half, its two float neighbours, and
/// the negated midpoint — narrowed in constant evaluation.
constexpr auto compile_time_narrowed = [] {
    std::array<narrowing_case, 5 * compile_time_midpoint_samples> cases{};
    int n = 0;
    for (int i = 0; i < compile_time_midpoint_samples; ++i) {
        const auto pattern = static_cast<std::uint16_t>(i * compile_time_midpoint_stride);
        const float low = static_cast<float>(float16::from_bits(pattern));
        const float high = pattern + 1 < 0x7C00 ? static_cast<float>(float16::from_bits(pattern + 1)) : 65536.0f;
        const float midpoint = (low + high) / 2;
        for (const float input : {low, midpoint, next_float_down(midpoint), next_float_up(midpoint), -midpoint}) {
            cases[n++] = {input, float16(input).to_bits()};
        }
    }
    return cases;
}();

// ---------------------------------------------------------------------------------------------
// Compile-time checks of the portable path.

static_assert(sizeof(float16) == 2);
static_assert(std::is_trivially_copyable_v<float16> && std::is_standard_layout_v<float16>);
static_assert(std::is_trivially_default_constructible_v<float16>);
static_assert(!std::is_convertible_v<float, float16> && !std::is_convertible_v<float16, float>);
static_assert(float16(1.0f).to_bits() == 0x3C00);
static_assert(float(float16(1.5f)) == 1.5f);
static_assert(float(float16::from_bits(0x0001)) == 5.9604644775390625e-08f);
static_assert(float(float16::from_bits(0x03FF)) == 6.09755516052246094e-05f);
static_assert(double(float16::from_bits(0x7BFF)) == 65504.0);
static_assert(float16(65519.0f).to_bits() == 0x7BFF);
static_assert(float16(65520.0f).to_bits() == 0x7C00);
static_assert(float16(-0.0f).to_bits() == 0x8000);
static_assert(float16(0x1p-25f).to_bits() == 0x0000);
static_assert(float16(next_float_up(0x1p-25f)).to_bits() == 0x0001);
static_assert(float16(std::bit_cast<float>(0x7F800001u)).to_bits() == 0x7E00);
static_assert(float16(1.0 + 0x1p-11 + 0x1p-40).to_bits() == 0x3C01);  // direct from double
static_assert(float16(2049).to_bits() == 0x6800);
static_assert((float16(1.0f) + float16(2.0f)).to_bits() == 0x4200);
static_assert(float16(1.0f) < float16(2.0f) && float16(0.0f) == -float16(0.0f));
static_assert(isnan(std::numeric_limits<float16>::quiet_NaN()) && isinf(std::numeric_limits<float16>::infinity()));

}  // namespace

// ---------------------------------------------------------------------------------------------

TEST_CASE("float16: every half pattern widens exactly and round-trips") {
    mismatch_log log;
    for (std::uint32_t pattern = 0; pattern <= 0xFFFF; ++pattern) {
        const auto bits = static_cast<std::uint16_t>(pattern);
        const double expected = reference_decode(bits);
        const float widened = static_cast<float>(half(bits));
        const double widened_double = static_cast<double>(half(bits));
        const float portable = tensorops::detail::half_bits_to_float_portable(bits);
        if (std::bit_cast<std::uint32_t>(widened) != std::bit_cast<std::uint32_t>(portable)) {
            log.add(hex(bits) + ": run-time and portable widening differ");
        }
        if (std::isnan(expected)) {
            // NaN stays NaN with its sign; widening quietens it and narrowing keeps the payload.
            const bool sign = (bits & 0x8000) != 0;
            if (!std::isnan(widened) || std::signbit(widened) != sign || !std::isnan(widened_double) ||
                std::signbit(widened_double) != sign) {
                log.add(hex(bits) + ": NaN widened to a non-NaN or lost its sign");
            }
            if (bits_of(float16(widened)) != (bits | 0x0200) || bits_of(float16(widened_double)) != (bits | 0x0200)) {
                log.add(hex(bits) + ": NaN did not round-trip to its quiet form");
            }
            continue;
        }
        if (static_cast<double>(widened) != expected || std::signbit(widened) != std::signbit(expected) ||
            widened_double != expected || std::signbit(widened_double) != std::signbit(expected)) {
            log.add(hex(bits) + ": widened to " + std::to_string(widened));
        }
        if (bits_of(float16(widened)) != bits || bits_of(float16(widened_double)) != bits ||
            tensorops::detail::float_to_half_bits_portable(widened) != bits) {
            log.add(hex(bits) + ": did not round-trip");
        }
    }
    INFO(log.first);
    CHECK(log.count == 0);
}

TEST_CASE("float16: midpoints between neighbouring halves round to nearest even") {
    // For each finite half h ≥ 0 and its successor (65536 stands for the overflow threshold beyond 65504):
    // h itself is exact, the exact midpoint goes to the even pattern, and the next float or double
    // above/below the midpoint goes up/down. Both signs, float and double inputs.
    mismatch_log log;
    for (std::uint16_t bits = 0; bits < 0x7C00; ++bits) {
        const auto next = static_cast<std::uint16_t>(bits + 1);
        const double low = reference_decode(bits);
        const double high = next < 0x7C00 ? reference_decode(next) : 65536.0;
        const double midpoint = (low + high) / 2;
        const std::uint16_t even = bits % 2 == 0 ? bits : next;
        const auto midpoint_float = static_cast<float>(midpoint);
        REQUIRE(static_cast<double>(midpoint_float) == midpoint);
        struct expectation {
            double input;
            std::uint16_t result;
        };
        const expectation expectations[] = {
            {low, bits},
            {midpoint, even},
            {std::nextafter(midpoint, 0.0), bits},
            {std::nextafter(midpoint, 1e300), next},
            {static_cast<double>(std::nextafter(midpoint_float, 0.0f)), bits},
            {static_cast<double>(std::nextafter(midpoint_float, 1e30f)), next},
        };
        for (const auto& [input, result] : expectations) {
            for (const double signed_input : {input, -input}) {
                const auto expected = static_cast<std::uint16_t>(result | (std::signbit(signed_input) ? 0x8000 : 0));
                if (reference_round(signed_input) != expected) log.add("reference disagrees at " + hex(bits));
                check_double_input(signed_input, log);
                const auto as_float = static_cast<float>(signed_input);
                if (static_cast<double>(as_float) == signed_input) check_float_input(as_float, log);
            }
        }
    }
    INFO(log.first);
    CHECK(log.count == 0);
}

TEST_CASE("float16: float sweep matches the reference rounding") {
    mismatch_log log;
    // Every 1021st float bit pattern: all exponents, both signs, NaNs and infinities (about 4.2 million).
    for (std::uint64_t pattern = 0; pattern <= 0xFFFFFFFFu; pattern += 1021) {
        check_float_input(std::bit_cast<float>(static_cast<std::uint32_t>(pattern)), log);
    }
    // Every float within 2^16 patterns of the interesting boundaries: the overflow threshold, the
    // smallest normal half, the smallest subnormal half and half of it, and one.
    for (const float centre : {65520.0f, 0x1p-14f, 0x1p-24f, 0x1p-25f, 1.0f}) {
        const auto centre_bits = std::bit_cast<std::uint32_t>(centre);
        for (std::uint32_t pattern = centre_bits - 0x10000; pattern <= centre_bits + 0x10000; ++pattern) {
            check_float_input(std::bit_cast<float>(pattern), log);
            check_float_input(-std::bit_cast<float>(pattern), log);
        }
    }
    INFO(log.first);
    CHECK(log.count == 0);
}

TEST_CASE("float16: double sweep matches the reference rounding") {
    // Deterministic pseudo-random doubles spread over the half range, plus doubles a few ulps from each
    // midpoint, where rounding through float would go wrong.
    mismatch_log log;
    std::uint64_t state = 0x9E3779B97F4A7C15u;
    const auto next_random = [&state] {  // splitmix64
        std::uint64_t z = (state += 0x9E3779B97F4A7C15u);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
        return z ^ (z >> 31);
    };
    for (int i = 0; i < 200000; ++i) {
        const std::uint64_t random = next_random();
        const int exponent = static_cast<int>(random % 48) - 30;  // 2^-30 … 2^17
        const double fraction = static_cast<double>(random >> 11) * 0x1p-53;
        const double x = std::ldexp(1.0 + fraction, exponent);
        check_double_input((random & 1) != 0 ? -x : x, log);
    }
    const auto& grid = half_grid();
    for (std::uint16_t bits = 0; bits < 0x7C00; bits += 3) {
        const double midpoint = (grid[bits] + grid[bits + 1]) / 2;
        for (int ulps = 1; ulps <= 3; ++ulps) {
            const auto midpoint_bits = std::bit_cast<std::uint64_t>(midpoint);
            check_double_input(std::bit_cast<double>(midpoint_bits + static_cast<std::uint64_t>(ulps)), log);
            check_double_input(std::bit_cast<double>(midpoint_bits - static_cast<std::uint64_t>(ulps)), log);
        }
    }
    INFO(log.first);
    CHECK(log.count == 0);
}

TEST_CASE("float16: double is rounded directly, never through float") {
    // Each input lies just off a midpoint between two halves and rounds to that midpoint as a float, where
    // ties-to-even would pick the wrong neighbour.
    const double above_even_tie = 1.0 + 0x1p-11 + 0x1p-40;  // between 0x3C00 and 0x3C01
    REQUIRE(bits_of(float16(static_cast<float>(above_even_tie))) == 0x3C00);
    CHECK(bits_of(float16(above_even_tie)) == 0x3C01);
    CHECK(bits_of(float16(-above_even_tie)) == 0xBC01);

    const double below_odd_tie = 1.0 + 3 * 0x1p-11 - 0x1p-40;  // between 0x3C01 and 0x3C02
    REQUIRE(bits_of(float16(static_cast<float>(below_odd_tie))) == 0x3C02);
    CHECK(bits_of(float16(below_odd_tie)) == 0x3C01);

    const double above_subnormal_tie = 0x1p-25 + 0x1p-60;  // between 0 and the smallest subnormal
    REQUIRE(bits_of(float16(static_cast<float>(above_subnormal_tie))) == 0x0000);
    CHECK(bits_of(float16(above_subnormal_tie)) == 0x0001);

    const double below_overflow = 65520.0 - 0x1p-30;  // just below the overflow threshold
    REQUIRE(bits_of(float16(static_cast<float>(below_overflow))) == 0x7C00);
    CHECK(bits_of(float16(below_overflow)) == 0x7BFF);
}

TEST_CASE("float16: infinities, NaNs, zeros, subnormals and overflow") {
    constexpr float inf = std::numeric_limits<float>::infinity();
    SECTION("infinities") {
        CHECK(bits_of(float16(inf)) == 0x7C00);
        CHECK(bits_of(float16(-inf)) == 0xFC00);
        CHECK(bits_of(float16(std::numeric_limits<double>::infinity())) == 0x7C00);
        CHECK(float(half(0x7C00)) == inf);
        CHECK(float(half(0xFC00)) == -inf);
    }
    SECTION("NaNs keep their sign and payload top bits, and never become infinity") {
        CHECK(bits_of(float16(std::numeric_limits<float>::quiet_NaN())) == 0x7E00);
        CHECK(bits_of(float16(-std::numeric_limits<float>::quiet_NaN())) == 0xFE00);
        CHECK(bits_of(float16(std::bit_cast<float>(0x7F800001u))) == 0x7E00);  // signalling, low payload
        CHECK(bits_of(float16(std::bit_cast<float>(0xFF800001u))) == 0xFE00);
        CHECK(bits_of(float16(std::bit_cast<float>(0x7FA00000u))) == 0x7F00);  // signalling, high payload
        CHECK(bits_of(float16(std::bit_cast<float>(0x7F802000u))) == 0x7E01);
        CHECK(bits_of(float16(std::numeric_limits<double>::quiet_NaN())) == 0x7E00);
        CHECK(bits_of(float16(std::bit_cast<double>(0x7FF0000000000001u))) == 0x7E00);
        CHECK(bits_of(float16(std::bit_cast<double>(0xFFF4000000000000u))) == 0xFF00);
        CHECK(std::isnan(float(half(0x7D00))));  // signalling half widens to a (quiet) NaN
        CHECK(std::bit_cast<std::uint32_t>(float(half(0x7D00))) == 0x7FE00000u);
        CHECK(std::signbit(float(half(0xFE00))));
    }
    SECTION("signed zeros") {
        CHECK(bits_of(float16(0.0f)) == 0x0000);
        CHECK(bits_of(float16(-0.0f)) == 0x8000);
        CHECK(bits_of(float16(-0.0)) == 0x8000);
        CHECK(std::signbit(float(half(0x8000))));
        CHECK(bits_of(float16(-std::numeric_limits<float>::denorm_min())) == 0x8000);
        CHECK(bits_of(float16(std::numeric_limits<double>::denorm_min())) == 0x0000);
        CHECK(bits_of(float16(-1e-30)) == 0x8000);
    }
    SECTION("subnormals") {
        CHECK(float(half(0x0001)) == 5.9604644775390625e-08f);  // 2^-24
        CHECK(float(half(0x03FF)) == 6.09755516052246094e-05f);  // 1023 · 2^-24
        CHECK(bits_of(float16(0x1p-24f)) == 0x0001);
        CHECK(bits_of(float16(0x1p-25f)) == 0x0000);             // tie to even: zero
        CHECK(bits_of(float16(0x1p-25f * 3)) == 0x0002);         // 1.5 · 2^-24: tie to even
        CHECK(bits_of(float16(next_float_up(0x1p-25f))) == 0x0001);
        CHECK(bits_of(float16(1023.5f * 0x1p-24f)) == 0x0400);   // largest subnormal + ½ ulp: tie up to min normal
        CHECK(bits_of(float16(next_float_down(1023.5f * 0x1p-24f))) == 0x03FF);
        CHECK(bits_of(float16(next_float_down(0x1p-14f))) == 0x0400);  // just below min normal
        CHECK(bits_of(float16(std::nextafter(0x1p-14, 0.0))) == 0x0400);
    }
    SECTION("overflow") {
        CHECK(bits_of(float16(65504.0f)) == 0x7BFF);
        CHECK(bits_of(float16(65519.0f)) == 0x7BFF);
        CHECK(bits_of(float16(next_float_down(65520.0f))) == 0x7BFF);
        CHECK(bits_of(float16(65520.0f)) == 0x7C00);
        CHECK(bits_of(float16(-65520.0f)) == 0xFC00);
        CHECK(bits_of(float16(65520.0)) == 0x7C00);
        CHECK(bits_of(float16(std::nextafter(65520.0, 0.0))) == 0x7BFF);
        CHECK(bits_of(float16(std::numeric_limits<float>::max())) == 0x7C00);
        CHECK(bits_of(float16(std::numeric_limits<double>::max())) == 0x7C00);
        CHECK(bits_of(float16(-std::numeric_limits<double>::max())) == 0xFC00);
    }
}

TEST_CASE("float16: integer construction rounds to nearest even") {
    CHECK(bits_of(float16(0)) == 0x0000);
    CHECK(bits_of(float16(1)) == 0x3C00);
    CHECK(bits_of(float16(-1)) == 0xBC00);
    CHECK(bits_of(float16(true)) == 0x3C00);
    CHECK(double(float16(std::int8_t{-128})) == -128.0);
    CHECK(double(float16(std::uint16_t{2048})) == 2048.0);
    CHECK(double(float16(2049)) == 2048.0);  // tie to even
    CHECK(double(float16(2051)) == 2052.0);  // tie to even
    CHECK(double(float16(2050u)) == 2050.0);
    CHECK(double(float16(65504)) == 65504.0);
    CHECK(double(float16(65519L)) == 65504.0);
    CHECK(bits_of(float16(65520)) == 0x7C00);
    CHECK(bits_of(float16(-65520LL)) == 0xFC00);
    CHECK(bits_of(float16(std::numeric_limits<std::int64_t>::max())) == 0x7C00);
    CHECK(bits_of(float16(std::numeric_limits<std::int64_t>::min())) == 0xFC00);
    CHECK(bits_of(float16(std::numeric_limits<std::uint64_t>::max())) == 0x7C00);
}

TEST_CASE("float16: run-time conversions agree with constant-evaluated ones") {
    // The tables were computed by the portable routines during compilation; the run-time path (F16C
    // when enabled) must give the same bits. Inputs are copied into run-time storage first.
    const std::vector<std::uint32_t> widened(compile_time_widened.begin(), compile_time_widened.end());
    for (int i = 0; i < compile_time_half_count; ++i) {
        const auto pattern = static_cast<std::uint16_t>(i * compile_time_half_stride);
        const auto runtime = std::bit_cast<std::uint32_t>(static_cast<float>(half(pattern)));
        if (runtime != widened[i]) FAIL_CHECK("widening " << hex(pattern) << ": " << hex(runtime) << " vs " << hex(widened[i]));
    }
    const std::vector<narrowing_case> narrowed(compile_time_narrowed.begin(), compile_time_narrowed.end());
    for (const auto& [input, expected] : narrowed) {
        const std::uint16_t runtime = bits_of(float16(input));
        if (runtime != expected) FAIL_CHECK("narrowing " << input << ": " << hex(runtime) << " vs " << hex(expected));
        if (runtime != reference_from_float(input)) FAIL_CHECK("narrowing " << input << " disagrees with reference");
    }
    CHECK(narrowed.size() == 5 * compile_time_midpoint_samples);
}

TEST_CASE("float16: arithmetic is computed in float and rounded once") {
    CHECK(float16(1) + float16(2) == float16(3));
    CHECK(bits_of(float16(2048) + float16(1)) == bits_of(float16(2048)));  // 2049: tie to even
    CHECK(bits_of(float16(2048) + float16(3)) == bits_of(float16(2052)));  // 2051: tie to even
    CHECK(bits_of(float16(5) - float16(7)) == bits_of(float16(-2)));
    CHECK(bits_of(float16(3) * float16(5)) == bits_of(float16(15)));
    CHECK(bits_of(float16(1) / float16(3)) == 0x3555);
    CHECK(bits_of(std::numeric_limits<float16>::max() + std::numeric_limits<float16>::max()) == 0x7C00);
    CHECK(isnan(float16(0) / float16(0)));
    CHECK(bits_of(-float16(1)) == 0xBC00);
    CHECK(bits_of(-float16(0)) == 0x8000);
    CHECK(bits_of(-half(0x7E00)) == 0xFE00);
    CHECK(bits_of(-half(0xBC00)) == 0x3C00);
    CHECK(bits_of(+half(0x8001)) == 0x8001);

    float16 x(10);
    x += float16(5);
    CHECK(double(x) == 15.0);
    x -= float16(3);
    CHECK(double(x) == 12.0);
    x *= float16(0.5f);
    CHECK(double(x) == 6.0);
    x /= float16(4);
    CHECK(double(x) == 1.5);

    // Sums and products of two halves are exact in double; a quotient rounded to double is then rounded
    // to half without double-rounding error (53 ≥ 2·11 + 2). So the reference is exact for all four.
    mismatch_log log;
    std::uint32_t state = 12345;
    const auto random_half = [&state] {
        state = state * 1664525u + 1013904223u;  // LCG; the top 16 bits give a pattern
        return half(static_cast<std::uint16_t>(state >> 16));
    };
    for (int i = 0; i < 100000; ++i) {
        const float16 a = random_half();
        const float16 b = random_half();
        const double da = reference_decode(a.to_bits());
        const double db = reference_decode(b.to_bits());
        const auto check = [&](float16 actual, double exact, const char* op) {
            const bool both_nan = std::isnan(exact) && isnan(actual);
            if (!both_nan && actual.to_bits() != reference_from_double(exact)) {
                log.add(hex(a.to_bits()) + " " + op + " " + hex(b.to_bits()) + " gave " + hex(actual.to_bits()));
            }
        };
        check(a + b, da + db, "+");
        check(a - b, da - db, "-");
        check(a * b, da * db, "*");
        check(a / b, da / db, "/");
    }
    INFO(log.first);
    CHECK(log.count == 0);
}

TEST_CASE("float16: comparisons follow IEEE") {
    const float16 nan = std::numeric_limits<float16>::quiet_NaN();
    const float16 one(1);
    CHECK_FALSE(nan == nan);
    CHECK(nan != nan);
    CHECK_FALSE(nan < one);
    CHECK_FALSE(nan >= one);
    CHECK_FALSE(nan <= nan);
    CHECK_FALSE(one > nan);
    CHECK(half(0x0000) == half(0x8000));
    CHECK_FALSE(half(0x0000) < half(0x8000));
    CHECK(one < float16(2));
    CHECK(-std::numeric_limits<float16>::infinity() < std::numeric_limits<float16>::lowest());

    // Every pattern against a set of pivots, versus the same comparison on the decoded doubles.
    mismatch_log log;
    const std::uint16_t pivots[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3BFF, 0x3C00, 0x3C01,
                                    0xBC00, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x7D01, 0xFE00};
    for (std::uint32_t pattern = 0; pattern <= 0xFFFF; ++pattern) {
        const float16 a = half(static_cast<std::uint16_t>(pattern));
        const double da = reference_decode(a.to_bits());
        for (const std::uint16_t pivot : pivots) {
            const float16 b = half(pivot);
            const double db = reference_decode(pivot);
            const bool agree = (a == b) == (da == db) && (a != b) == (da != db) && (a < b) == (da < db) &&
                               (a <= b) == (da <= db) && (a > b) == (da > db) && (a >= b) == (da >= db);
            if (!agree) log.add(hex(pattern) + " vs " + hex(pivot));
        }
    }
    INFO(log.first);
    CHECK(log.count == 0);
}

TEST_CASE("float16: classification and sign operations match the decoded value") {
    mismatch_log log;
    for (std::uint32_t pattern = 0; pattern <= 0xFFFF; ++pattern) {
        const float16 x = half(static_cast<std::uint16_t>(pattern));
        const double value = reference_decode(x.to_bits());
        if (isnan(x) != std::isnan(value) || isinf(x) != std::isinf(value) || isfinite(x) != std::isfinite(value) ||
            signbit(x) != ((pattern & 0x8000) != 0)) {
            log.add(hex(pattern));
        }
        if ((-x).to_bits() != (pattern ^ 0x8000) || (+x).to_bits() != pattern) log.add("sign of " + hex(pattern));
    }
    INFO(log.first);
    CHECK(log.count == 0);
}

TEST_CASE("float16: numeric_limits") {
    using limits = std::numeric_limits<float16>;
    STATIC_REQUIRE(limits::is_specialized);
    STATIC_REQUIRE(limits::is_signed);
    STATIC_REQUIRE(!limits::is_integer);
    STATIC_REQUIRE(!limits::is_exact);
    STATIC_REQUIRE(limits::is_iec559);
    STATIC_REQUIRE(limits::is_bounded);
    STATIC_REQUIRE(limits::has_infinity);
    STATIC_REQUIRE(limits::has_quiet_NaN);
    STATIC_REQUIRE(limits::has_signaling_NaN);
    STATIC_REQUIRE(limits::has_denorm == std::denorm_present);
    STATIC_REQUIRE(limits::round_style == std::round_to_nearest);
    STATIC_REQUIRE(limits::digits == 11);
    STATIC_REQUIRE(limits::digits10 == 3);
    STATIC_REQUIRE(limits::max_digits10 == 5);
    STATIC_REQUIRE(limits::radix == 2);
    STATIC_REQUIRE(limits::min_exponent == -13);
    STATIC_REQUIRE(limits::max_exponent == 16);
    STATIC_REQUIRE(limits::min_exponent10 == -4);
    STATIC_REQUIRE(limits::max_exponent10 == 4);
    STATIC_REQUIRE(limits::min().to_bits() == 0x0400);
    STATIC_REQUIRE(limits::max().to_bits() == 0x7BFF);
    STATIC_REQUIRE(limits::lowest().to_bits() == 0xFBFF);
    STATIC_REQUIRE(limits::epsilon().to_bits() == 0x1400);
    STATIC_REQUIRE(limits::round_error().to_bits() == 0x3800);
    STATIC_REQUIRE(limits::infinity().to_bits() == 0x7C00);
    STATIC_REQUIRE(limits::quiet_NaN().to_bits() == 0x7E00);
    STATIC_REQUIRE(limits::signaling_NaN().to_bits() == 0x7D00);
    STATIC_REQUIRE(limits::denorm_min().to_bits() == 0x0001);
    STATIC_REQUIRE(std::numeric_limits<const float16>::max().to_bits() == 0x7BFF);

    // The values mean what the names say.
    CHECK(double(limits::min()) == std::ldexp(1.0, limits::min_exponent - 1));
    CHECK(double(limits::max()) == 65504.0);
    CHECK(double(limits::lowest()) == -65504.0);
    CHECK(double(limits::epsilon()) == std::ldexp(1.0, 1 - limits::digits));
    CHECK(float16(1) + limits::epsilon() != float16(1));
    CHECK(float16(1) + float16(std::ldexp(1.0, -limits::digits)) == float16(1));
    CHECK(double(limits::round_error()) == 0.5);
    CHECK(double(limits::denorm_min()) == std::ldexp(1.0, -24));
    CHECK(isinf(float16(std::ldexp(1.0, limits::max_exponent))));
    CHECK(isfinite(float16(std::ldexp(1.0, limits::max_exponent - 1))));
    CHECK(isnan(limits::quiet_NaN()));
    CHECK(isnan(limits::signaling_NaN()));
    CHECK(double(limits::infinity()) == std::numeric_limits<double>::infinity());
}
