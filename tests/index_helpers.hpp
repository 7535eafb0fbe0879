// tests/index_helpers.hpp — what the scatter_nd and gather_nd tests share: the index types chosen at run time (so
// the element type × index type grid is one test body per element type, not one per combination), random index
// tuples, and comparisons that treat NaN as equal to NaN.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <catch2/catch.hpp>

#include "reference.hpp"
#include "support.hpp"

namespace tensorops_test {

/// The four index types, chosen at run time: one test body per element type then covers them all (each
/// instantiates only the operator call per index type), which keeps the grid's compile time in check.
enum class index_kind { int32, int64, uint32, uint64 };
inline constexpr index_kind all_index_kinds[] = {index_kind::int32, index_kind::int64, index_kind::uint32, index_kind::uint64};

inline std::string_view index_kind_name(index_kind kind) {
    constexpr std::string_view names[] = {"int32", "int64", "uint32", "uint64"};
    return names[static_cast<int>(kind)];
}
inline bool is_signed(index_kind kind) { return kind == index_kind::int32 || kind == index_kind::int64; }

/// Calls f.template operator()<I>() with I the C++ type of `kind`.
template <class F>
void with_index_type(index_kind kind, F&& f) {
    switch (kind) {
        case index_kind::int32: f.template operator()<std::int32_t>(); break;
        case index_kind::int64: f.template operator()<std::int64_t>(); break;
        case index_kind::uint32: f.template operator()<std::uint32_t>(); break;
        case index_kind::uint64: f.template operator()<std::uint64_t>(); break;
    }
}

/// Row-major values for an indices tensor of shape tuple_sizes ++ [k] whose coordinate c indexes a dimension of
/// size extents[c]. With `negative_spellings`, an index is sometimes written from the end (−1 = last). With
/// `duplicates`, tuples are drawn from a pool of at most three, so several tuples name the same slice.
inline std::vector<std::int64_t> random_tuples(test_rng& rng, std::size_t tuple_count, const std::vector<std::size_t>& extents,
                                               bool duplicates, bool negative_spellings) {
    const std::size_t k = extents.size();
    std::vector<std::vector<std::size_t>> pool(duplicates ? rng.uniform<std::size_t>(1, 3) : 0);
    for (auto& tuple : pool)
        for (std::size_t c = 0; c < k; ++c) tuple.push_back(rng.uniform<std::size_t>(0, extents[c] - 1));
    std::vector<std::int64_t> values;
    values.reserve(tuple_count * k);
    for (std::size_t t = 0; t < tuple_count; ++t) {
        const std::size_t pick = pool.empty() ? 0 : rng.uniform<std::size_t>(0, pool.size() - 1);
        for (std::size_t c = 0; c < k; ++c) {
            const auto index = static_cast<std::int64_t>(pool.empty() ? rng.uniform<std::size_t>(0, extents[c] - 1) : pool[pick][c]);
            values.push_back(negative_spellings && rng.chance(0.3) ? index - static_cast<std::int64_t>(extents[c]) : index);
        }
    }
    return values;
}

/// The indices of one case in a guarded buffer of the run-time index type. Everything but the operator call is
/// compiled once per index type (not once per test and element type): `call(f)` runs f(tensor_view<const I>).
class index_buffer {
public:
    index_buffer(index_kind kind, const std::vector<std::size_t>& sizes, const std::vector<std::ptrdiff_t>& strides, std::size_t misalignment,
                 const std::vector<std::int64_t>& values) {
        with_index_type(kind, [&]<class I>() {
            auto& buffer = buffers_.template emplace<guarded_buffer<I>>(sizes, strides, misalignment);
            buffer.assign(std::vector<I>(values.begin(), values.end()));
        });
    }
    template <class F>
    void call(F&& f) const {
        std::visit([&](const auto& buffer) { f(buffer.const_view()); }, buffers_);
    }
    /// The values the view holds (what it reads back: broadcast views repeat elements), as int64.
    [[nodiscard]] std::vector<std::int64_t> values() const {
        return std::visit([](const auto& buffer) {
            const auto held = buffer.values();
            return std::vector<std::int64_t>(held.begin(), held.end());
        }, buffers_);
    }
    [[nodiscard]] bool untouched_outside_view() const {
        return std::visit([](const auto& buffer) { return buffer.untouched_outside_view(); }, buffers_);
    }

private:
    std::variant<guarded_buffer<std::int32_t>, guarded_buffer<std::int64_t>, guarded_buffer<std::uint32_t>, guarded_buffer<std::uint64_t>> buffers_{
        std::in_place_index<0>, std::vector<std::size_t>{}, std::vector<std::ptrdiff_t>{}};
};

/// Runs `call(view)` on the indices of one case (see index_buffer), checks that they were neither written nor
/// written around, and returns the values they held, as int64 for the reference.
template <class Call>
std::vector<std::int64_t> run_with_indices(index_kind kind, const std::vector<std::size_t>& sizes, const std::vector<std::ptrdiff_t>& strides,
                                           std::size_t misalignment, const std::vector<std::int64_t>& values, Call&& call) {
    const index_buffer indices(kind, sizes, strides, misalignment, values);
    const auto held = indices.values();
    indices.call(call);
    REQUIRE(indices.untouched_outside_view());
    REQUIRE(indices.values() == held);
    return held;
}

/// Equal values, or both NaN (reductions: which NaN, and which of ±0, is unspecified).
template <class T>
bool same_value(const T& a, const T& b) {
    if constexpr (is_16_bit_float<T> || std::is_floating_point_v<T>) {
        const auto x = static_cast<double>(a), y = static_cast<double>(b);
        return x == y || (std::isnan(x) && std::isnan(y));
    } else {
        return a == b;
    }
}

/// Checks two element sequences: bit for bit (`exact`), or with same_value. Reports the first few mismatches.
template <class T>
void check_elements(const std::vector<T>& actual, const std::vector<T>& expected, bool exact) {
    REQUIRE(actual.size() == expected.size());
    std::size_t failures = 0;
    for (std::size_t i = 0; i < actual.size() && failures < 5; ++i) {
        const bool ok = exact ? same_bits(actual[i], expected[i]) : same_value(actual[i], expected[i]);
        if (!ok) {
            ++failures;
            if constexpr (std::is_arithmetic_v<T> || is_16_bit_float<T>)
                FAIL_CHECK("element " << i << ": got " << static_cast<double>(actual[i]) << ", expected " << static_cast<double>(expected[i]));
            else
                FAIL_CHECK("element " << i << " differs");
        }
    }
    if (failures == 0) SUCCEED();
}

/// Runs `call`, which must throw tensorops::error from `operation` naming `argument`; returns its rule.
template <class Call>
std::string expect_error(Call&& call, const std::string& operation, const std::string& argument) {
    try {
        call();
    } catch (const tensorops::error& e) {
        CHECK(e.operator_name() == operation);
        CHECK(e.argument() == argument);
        CHECK_FALSE(e.rule().empty());
        CHECK(std::string(e.what()).find("'" + argument + "'") != std::string::npos);
        return e.rule();
    }
    FAIL("expected tensorops::error from " << operation << " for argument '" << argument << "'");
    return {};
}

}  // namespace tensorops_test
