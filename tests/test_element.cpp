#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

#include <tensorops/core/element.hpp>

#include "support.hpp"

using namespace tensorops;

namespace {
// A user-defined element type: integers modulo 7, with + and * but no conversion from int.
struct mod7 {
    int value = 0;
    friend mod7 operator+(mod7 a, mod7 b) { return {(a.value + b.value) % 7}; }
    friend mod7 operator*(mod7 a, mod7 b) { return {(a.value * b.value) % 7}; }
    friend bool operator<(mod7 a, mod7 b) { return a.value < b.value; }
};
struct not_an_element {
    not_an_element(int) {}  // no default constructor
};
}  // namespace

template <>
struct tensorops::element_identity<mod7> {
    static constexpr mod7 zero() { return {0}; }
    static constexpr mod7 one() { return {1}; }
};

TEST_CASE("element: classification of built-in types") {
    STATIC_REQUIRE(builtin_element<float16>);
    STATIC_REQUIRE(builtin_element<double>);
    STATIC_REQUIRE(builtin_element<std::int8_t>);
    STATIC_REQUIRE(builtin_element<std::uint64_t>);
    STATIC_REQUIRE_FALSE(builtin_element<bool>);
    STATIC_REQUIRE_FALSE(builtin_element<long double>);
    STATIC_REQUIRE_FALSE(builtin_element<char>);
    STATIC_REQUIRE_FALSE(builtin_element<mod7>);
    STATIC_REQUIRE(builtin_floating<float16>);
    STATIC_REQUIRE_FALSE(builtin_floating<std::int32_t>);
    STATIC_REQUIRE(builtin_element<bfloat16>);
    STATIC_REQUIRE(builtin_floating<bfloat16>);
    STATIC_REQUIRE(narrow_float<bfloat16>);
    STATIC_REQUIRE(narrow_float<float16>);
    STATIC_REQUIRE_FALSE(narrow_float<float>);
    STATIC_REQUIRE_FALSE(narrow_float<std::uint16_t>);
    STATIC_REQUIRE_FALSE(narrow_float<mod7>);
}

TEST_CASE("element: accumulator types follow the numeric policy") {
    STATIC_REQUIRE(std::is_same_v<accumulator_t<float16>, float>);
    STATIC_REQUIRE(std::is_same_v<accumulator_t<float16, accumulation::ordering>, float>);
    STATIC_REQUIRE(std::is_same_v<accumulator_t<bfloat16>, float>);
    STATIC_REQUIRE(std::is_same_v<accumulator_t<bfloat16, accumulation::ordering>, float>);
    STATIC_REQUIRE(std::is_same_v<simd::compute_t<bfloat16>, float>);
    STATIC_REQUIRE(std::is_same_v<accumulator_t<float>, float>);
    STATIC_REQUIRE(std::is_same_v<accumulator_t<double>, double>);
    STATIC_REQUIRE(std::is_same_v<accumulator_t<std::int32_t>, std::uint32_t>);
    STATIC_REQUIRE(std::is_same_v<accumulator_t<std::int64_t>, std::uint64_t>);
    STATIC_REQUIRE(std::is_same_v<accumulator_t<std::uint64_t>, std::uint64_t>);
    // Narrower than int: unsigned int, so that * cannot overflow a promoted signed int.
    STATIC_REQUIRE(std::is_same_v<accumulator_t<std::int8_t>, unsigned>);
    STATIC_REQUIRE(std::is_same_v<accumulator_t<std::uint16_t>, unsigned>);
    STATIC_REQUIRE(std::is_same_v<accumulator_t<std::int16_t, accumulation::ordering>, std::int16_t>);
    STATIC_REQUIRE(std::is_same_v<accumulator_t<mod7>, mod7>);
}

TEMPLATE_LIST_TEST_CASE("element: integer accumulators wrap like two's complement", "", tensorops_test::integer_types) {
    using T = TestType;
    constexpr T max = std::numeric_limits<T>::max();
    constexpr T min = std::numeric_limits<T>::lowest();
    CHECK(from_accumulator<T>(to_accumulator(max) + to_accumulator(T(1))) == min);
    CHECK(from_accumulator<T>(to_accumulator(min) - to_accumulator(T(1))) == max);
    // max * max ≡ 1 (mod 2^N) for signed max = 2^(N-1) - 1 and unsigned max = 2^N - 1.
    CHECK(from_accumulator<T>(to_accumulator(max) * to_accumulator(max)) == T(1));
    STATIC_REQUIRE(from_accumulator<T>(to_accumulator(max) * to_accumulator(max)) == T(1));  // no UB: constant evaluation
}

TEST_CASE("element: float16 accumulates in float and rounds once on the way back") {
    float acc = to_accumulator(float16(2048.0f));
    for (int i = 0; i < 10; ++i) acc += to_accumulator(float16(1.0f));
    CHECK(static_cast<float>(from_accumulator<float16>(acc)) == 2058.0f);  // float16 steps would stall at 2048
}

TEST_CASE("element: identities") {
    STATIC_REQUIRE(element_identity<int>::zero() == 0);
    STATIC_REQUIRE(element_identity<double>::one() == 1.0);
    STATIC_REQUIRE(element_identity<float>::max_identity() == -std::numeric_limits<float>::infinity());
    STATIC_REQUIRE(element_identity<float>::min_identity() == std::numeric_limits<float>::infinity());
    STATIC_REQUIRE(element_identity<std::int16_t>::max_identity() == std::numeric_limits<std::int16_t>::lowest());
    STATIC_REQUIRE(element_identity<std::uint8_t>::min_identity() == 255);
    CHECK(isinf(element_identity<float16>::max_identity()));
    CHECK(signbit(element_identity<float16>::max_identity()));
    STATIC_REQUIRE(element_identity<mod7>::one().value == 1);
}

TEST_CASE("element: concepts for user-defined types") {
    CHECK((mod7{3} + mod7{5}).value == 1);
    CHECK((mod7{3} * mod7{5}).value == 1);
    CHECK(mod7{1} < mod7{2});
    STATIC_REQUIRE(additive<mod7>);
    STATIC_REQUIRE(multiplicative<mod7>);
    STATIC_REQUIRE(totally_ordered_element<mod7>);
    STATIC_REQUIRE(additive<long double>);
    STATIC_REQUIRE(additive<float16>);
    STATIC_REQUIRE_FALSE(element<not_an_element>);
    STATIC_REQUIRE_FALSE(additive<not_an_element>);
}
