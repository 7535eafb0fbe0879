// tests/user_types.hpp — user-defined element types the tests run through the generic paths.
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>

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

/// What a `fragile` throws.
struct fragile_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The operation of `fragile` that is counted (none: it never throws).
enum class fragile_operation { none, plus, less, copy };

/// A signed integer whose +, < or copy (construction and assignment), whichever is counted, throws fragile_error once
/// a budget of such operations shared by all threads is spent — every later one throws too. Everything else about
/// it is an int64.
struct fragile {
    /// Counts `operation` with a budget of `budget` calls from construction until destruction (not nested).
    class budget {
    public:
        budget(fragile_operation operation, long long calls) noexcept {
            left_.store(calls);
            counted_.store(operation);
        }
        budget(const budget&) = delete;
        budget& operator=(const budget&) = delete;
        ~budget() { counted_.store(fragile_operation::none); }
    };
    static constexpr const char* message = "fragile: the budget of operations is spent";

    std::int64_t value = 0;

    fragile() = default;
    explicit fragile(std::int64_t v) : value(v) {}
    fragile(const fragile& other) : value(other.value) { spend(fragile_operation::copy); }
    fragile& operator=(const fragile& other) {
        spend(fragile_operation::copy);
        value = other.value;
        return *this;
    }
    ~fragile() = default;
    friend fragile operator+(const fragile& a, const fragile& b) {
        spend(fragile_operation::plus);
        return fragile(a.value + b.value);
    }
    friend bool operator<(const fragile& a, const fragile& b) {
        spend(fragile_operation::less);
        return a.value < b.value;
    }
    friend bool operator==(const fragile& a, const fragile& b) { return a.value == b.value; }

private:
    static void spend(fragile_operation operation) {
        if (counted_.load(std::memory_order_relaxed) == operation && left_.fetch_sub(1, std::memory_order_relaxed) <= 0)
            throw fragile_error(message);
    }
    static inline std::atomic<fragile_operation> counted_{fragile_operation::none};
    static inline std::atomic<long long> left_{0};
};

}  // namespace tensorops_test

template <>
struct tensorops::element_identity<tensorops_test::mod_prime> {
    static constexpr tensorops_test::mod_prime zero() { return {0}; }
    static constexpr tensorops_test::mod_prime one() { return {1}; }
};
