// tests/user_types.hpp — user-defined element types the tests run through the generic paths.
#pragma once

#include <cstdint>

#include <tensorops/core/element.hpp>

namespace tensorops_test {

/// Integers modulo a prime: +, * and <, no conversion from int (so its identities come from the
/// element_identity customisation point).
struct mod_prime {
    static constexpr std::int64_t p = 1000003;
    std::int64_t value = 0;
    friend mod_prime operator+(mod_prime a, mod_prime b) { return {(a.value + b.value) % p}; }
    friend mod_prime operator*(mod_prime a, mod_prime b) { return {(a.value * b.value) % p}; }
    friend bool operator<(mod_prime a, mod_prime b) { return a.value < b.value; }
    friend bool operator==(mod_prime a, mod_prime b) { return a.value == b.value; }
};

}  // namespace tensorops_test

template <>
struct tensorops::element_identity<tensorops_test::mod_prime> {
    static constexpr tensorops_test::mod_prime zero() { return {0}; }
    static constexpr tensorops_test::mod_prime one() { return {1}; }
};
