// NaN results of the floating reductions (SEMANTICS.md §4, README "Numeric policy"): every NaN a reduction writes is
// the positive quiet NaN of its type, whichever NaN the group held or its arithmetic made (0 · inf, inf − inf, the
// logarithm of a negative number, 0 / 0), so a result has the same bits on every executor and through every kernel.
// Found by the typed fuzzer: where an input NaN met one that 0 · inf made, which survived depended on the order of the
// operands, which an executor's cut of the rows changed (bench/journal/2026-11-28-fuzz.md).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "support.hpp"

using namespace tensorops;
using tensorops_test::same_bits;
using tensorops_test::test_rng;

namespace reduce_nan_tests {

constexpr reduce_function floating_functions[] = {
    reduce_function::average, reduce_function::l1,      reduce_function::l2,  reduce_function::log_sum,
    reduce_function::log_sum_exp, reduce_function::max, reduce_function::min, reduce_function::multiply,
    reduce_function::sum,     reduce_function::sum_square};

/// Runs every piece in order on the calling thread, but lets the operators cut work from 1 byte on into pieces.
struct one_byte_pieces_executor {
    [[nodiscard]] std::size_t concurrency() const { return 3; }
    [[nodiscard]] std::size_t min_piece_bytes() const { return 1; }
    template <class Task>
    void parallel_for(std::size_t count, const Task& task) const {
        for (std::size_t i = 0; i < count; ++i) task(i);
    }
};

/// Values in [-2, 2] with, at a rate that leaves most groups with one or two of them, NaNs of either sign and with
/// payloads, ±inf and ±0 (so that 0 · inf, inf − inf and input NaNs meet in one group).
template <class T>
std::vector<T> values_with_specials(test_rng& rng, std::size_t count) {
    const float inf = std::numeric_limits<float>::infinity();
    std::uint32_t payload_nan_bits = 0xffc01234u;  // a negative quiet NaN with a payload
    float payload_nan;
    std::memcpy(&payload_nan, &payload_nan_bits, sizeof payload_nan);
    const float specials[] = {std::numeric_limits<float>::quiet_NaN(), payload_nan, -std::numeric_limits<float>::quiet_NaN(),
                              inf, -inf, 0.0f, -0.0f};
    std::vector<T> values(count);
    for (auto& v : values) {
        if (rng.chance(0.08)) v = static_cast<T>(specials[rng.uniform<std::size_t>(0, std::size(specials) - 1)]);
        else v = static_cast<T>(rng.uniform_real(-2.0, 2.0));
    }
    return values;
}

template <class T>
bool is_positive_quiet_nan(const T& value) {
    return same_bits(value, static_cast<T>(std::numeric_limits<float>::quiet_NaN()));
}

}  // namespace reduce_nan_tests

TEMPLATE_TEST_CASE("reduce: every NaN result is the positive quiet NaN, the same bits on every executor", "", float, double,
                   float16, bfloat16) {
    using namespace reduce_nan_tests;
    using T = TestType;
    test_rng rng(std::string("reduce NaN results ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    // Row lengths that reach the short-row, narrow-row, contiguous and outer kernels, and counts of rows that make
    // one piece or many.
    const std::size_t row_lengths[] = {1, 2, 3, 5, 8, 13, 31, 64, 100, 1000};
    const std::size_t row_counts[] = {1, 2, 7, 33};
    thread_pool pool(3);
    one_byte_pieces_executor pieces;
    std::size_t nan_results = 0;
    for (std::size_t row_length : row_lengths) {
        for (std::size_t row_count : row_counts) {
            const std::vector<T> x = values_with_specials<T>(rng, row_length * row_count);
            const tensor_view<const T> input(x.data(), {row_count, row_length});
            for (reduce_function f : floating_functions) {
                for (const std::vector<std::size_t>& axes : {std::vector<std::size_t>{1}, std::vector<std::size_t>{0},
                                                             std::vector<std::size_t>{0, 1}}) {
                    INFO("shape [" << row_count << ", " << row_length << "], function " << static_cast<int>(f) << ", axes "
                                   << axes.size() << " from " << axes[0]);
                    const std::size_t outputs = axes.size() == 2 ? 1 : (axes[0] == 1 ? row_count : row_length);
                    const std::vector<std::size_t> output_sizes =
                        axes.size() == 2 ? std::vector<std::size_t>{1, 1}
                                         : (axes[0] == 1 ? std::vector<std::size_t>{row_count, 1} : std::vector<std::size_t>{1, row_length});
                    std::vector<T> sequential_result(outputs), on_pieces(outputs), on_pool(outputs);
                    reduce(input, tensor_view<T>(sequential_result.data(), output_sizes), f, axes);
                    reduce(pieces, input, tensor_view<T>(on_pieces.data(), output_sizes), f, axes);
                    reduce(pool, input, tensor_view<T>(on_pool.data(), output_sizes), f, axes);
                    std::size_t other_nans = 0, executor_differences = 0;
                    for (std::size_t i = 0; i < outputs; ++i) {
                        if (std::isnan(static_cast<double>(sequential_result[i]))) {
                            ++nan_results;
                            if (!is_positive_quiet_nan(sequential_result[i])) ++other_nans;
                        }
                        if (!same_bits(on_pieces[i], sequential_result[i]) || !same_bits(on_pool[i], sequential_result[i])) ++executor_differences;
                    }
                    CHECK(other_nans == 0);
                    CHECK(executor_differences == 0);
                }
            }
        }
    }
    CHECK(nan_results > 100);  // the specials did meet
}

TEST_CASE("reduce: an input NaN against 0 · inf in one group (the fuzzer's case) gives the same NaN on an executor") {
    using namespace reduce_nan_tests;
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> x = {1, 1, 1, 1, 1, 0, nan, inf, 1, 1};
    const tensor_view<const float> input(x.data(), {2, 5});
    float sequential_result[2] = {}, executor_result[2] = {};
    reduce(input, tensor_view<float>(sequential_result, {2, 1}), reduce_function::multiply, {1});
    one_byte_pieces_executor pieces;
    reduce(pieces, input, tensor_view<float>(executor_result, {2, 1}), reduce_function::multiply, {1});
    CHECK(is_positive_quiet_nan(sequential_result[1]));
    CHECK(same_bits(sequential_result[1], executor_result[1]));
}
