// What a failure leaves behind: an element type whose +, < or copy throws after a number of operations, through every
// operator, sequentially and on pools of 2 and 3 threads; and executors of the user's that throw before, during or
// after running the pieces. The contract (each operator's comment): the exception arrives unchanged, nothing outside
// the output is written, the output's contents are unspecified, and the executor stays usable.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "parallel_support.hpp"
#include "support.hpp"
#include "user_types.hpp"

namespace throwing_tests {

using tensorops::tensor_view;
using tensorops::thread_pool;
using tensorops_test::fragile;
using tensorops_test::fragile_error;
using tensorops_test::fragile_operation;
using tensorops_test::guarded_buffer;
using tensorops_test::parallel::deadline;
using tensorops_test::parallel::test_piece_bytes;

/// Operations allowed before the counted one throws: at the first, and part way (every operator below makes more
/// than 4,000 of them).
constexpr long long budgets[] = {0, 1000, 3000};

inline std::vector<fragile> fragile_values(std::size_t count) {
    std::vector<fragile> values;
    values.reserve(count);
    for (std::size_t i = 0; i < count; ++i) values.emplace_back(static_cast<std::int64_t>(i * 7919 % 1009) - 504);
    return values;
}

/// A guarded output of `sizes` with gaps between its rows (so writes into them show too).
template <class U>
guarded_buffer<U> padded_output(const std::vector<std::size_t>& sizes) {
    std::vector<std::ptrdiff_t> strides(sizes.size(), 1);
    for (std::size_t d = sizes.size() - 1; d-- > 0;) strides[d] = strides[d + 1] * static_cast<std::ptrdiff_t>(sizes[d + 1] + (d + 2 == sizes.size() ? 3 : 0));
    return guarded_buffer<U>(sizes, strides);
}

/// Runs `operation(executor, output)` (`what`) with the `counted` operation of fragile throwing after each of `budgets`,
/// sequentially and on pools of 2 and 3 threads: the fragile_error arrives with its message, nothing outside the
/// output is written, and the same executor then computes the sequential result.
template <class U, class Operation>
void check_failures(const char* what, fragile_operation counted, const std::vector<std::size_t>& output_sizes, const Operation& operation) {
    auto expected = padded_output<U>(output_sizes);
    operation(tensorops::sequential, expected.view());
    const auto expected_values = expected.values();
    thread_pool two(2, test_piece_bytes), three(3, test_piece_bytes);
    const auto run_on = [&](auto& exec, const char* name) {
        for (const long long budget : budgets) {
            INFO(what << " on " << name << ", the counted operation throwing after " << budget);
            auto output = padded_output<U>(output_sizes);
            {
                const deadline guard(std::string("a throwing element type on ") + name);
                const fragile::budget spend(counted, budget);
                CHECK_THROWS_MATCHES(operation(exec, output.view()), fragile_error, Catch::Matchers::Message(fragile::message));
            }
            CHECK(output.untouched_outside_view());
            auto again = padded_output<U>(output_sizes);
            operation(exec, again.view());
            CHECK(again.values() == expected_values);
        }
    };
    run_on(tensorops::sequential, "sequential");
    run_on(two, "a pool of 2 threads");
    run_on(three, "a pool of 3 threads");
    std::atomic<int> ran{0};
    three.parallel_for(64, [&](std::size_t) { ran.fetch_add(1); });
    CHECK(ran.load() == 64);
}

/// An executor of the user's that throws before running any piece, after running the first half (in order), or after
/// running them all.
struct failing_executor {
    enum when_t { before, halfway, after } when;
    bool in_order;
    std::size_t* calls;  // parallel_for's calls, counted
    [[nodiscard]] static std::size_t concurrency() { return 4; }
    [[nodiscard]] static std::size_t min_piece_bytes() { return test_piece_bytes; }
    [[nodiscard]] bool claims_in_order() const { return in_order; }
    template <class Task>
    void parallel_for(std::size_t count, const Task& task) {
        ++*calls;
        const std::size_t run = when == before ? 0 : when == halfway ? count / 2 : count;
        for (std::size_t i = 0; i < run; ++i) task(i);
        throw std::runtime_error("the host's pool failed");
    }
};

}  // namespace throwing_tests

using namespace throwing_tests;

TEST_CASE("a throwing element type: cumulative_sum and cumulative_scan", "[parallel][throwing]") {
    const auto x = fragile_values(64 * 256);  // 256 columns: scans across rows and reductions over them are cut too
    const tensor_view<const fragile> in(x.data(), {64, 256});
    for (const std::size_t axis : {0u, 1u}) {
        INFO("axis " << axis);
        check_failures<fragile>("cumulative_sum", fragile_operation::plus, {64, 256},
                                [&](auto& exec, tensor_view<fragile> out) { tensorops::cumulative_sum(exec, in, out, {.axis = axis}); });
        check_failures<fragile>("cumulative_scan", fragile_operation::plus, {64, 256}, [&](auto& exec, tensor_view<fragile> out) {
            tensorops::cumulative_scan<fragile>(exec, in, out, {.axis = axis}, [](const fragile& a, const fragile& b) { return a + b; },
                                                fragile(0));
        });
    }
}

TEST_CASE("a throwing element type: reduce and argmax", "[parallel][throwing]") {
    const auto x = fragile_values(64 * 256);  // 256 columns: scans across rows and reductions over them are cut too
    const tensor_view<const fragile> in(x.data(), {64, 256});
    check_failures<fragile>("reduce SUM", fragile_operation::plus, {64, 1},
                            [&](auto& exec, tensor_view<fragile> out) { tensorops::reduce(exec, in, out, tensorops::reduce_function::sum, {1}); });
    check_failures<fragile>("reduce MAX", fragile_operation::less, {64, 1},
                            [&](auto& exec, tensor_view<fragile> out) { tensorops::reduce(exec, in, out, tensorops::reduce_function::max, {1}); });
    check_failures<std::int32_t>("argmax", fragile_operation::less, {64, 1},
                                 [&](auto& exec, tensor_view<std::int32_t> out) { tensorops::argmax(exec, in, out, {1}); });
    check_failures<std::int32_t>("argmin", fragile_operation::less, {64, 1},
                                 [&](auto& exec, tensor_view<std::int32_t> out) { tensorops::argmin(exec, in, out, {1}); });
}

TEST_CASE("a throwing element type: scatter_nd and gather_nd", "[parallel][throwing]") {
    const auto data = fragile_values(256 * 16), updates = fragile_values(512 * 16);
    std::vector<std::int32_t> rows(512);
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int32_t>(i * 37 % 256);  // each row twice
    const tensor_view<const fragile> in(data.data(), {256, 16}), up(updates.data(), {512, 16});
    const tensor_view<const std::int32_t> indices(rows.data(), {512, 1});
    check_failures<fragile>("scatter_nd ADD", fragile_operation::plus, {256, 16}, [&](auto& exec, tensor_view<fragile> out) {
        tensorops::scatter_nd<fragile>(exec, in, indices, up, out, tensorops::scatter_reduction::add);
    });
    check_failures<fragile>("scatter_nd", fragile_operation::copy, {256, 16},
                            [&](auto& exec, tensor_view<fragile> out) { tensorops::scatter_nd<fragile>(exec, in, indices, up, out); });
    check_failures<fragile>("gather_nd", fragile_operation::copy, {512, 16},
                            [&](auto& exec, tensor_view<fragile> out) { tensorops::gather_nd<fragile>(exec, in, indices, out); });
}

TEST_CASE("a throwing executor: its exception propagates from every operator and nothing hangs", "[parallel][throwing]") {
    std::vector<float> line(1 << 18, 1.0f), grid(256 * 256, 0.5f), updates(512 * 256, 2.0f);
    std::vector<std::int32_t> rows(512);
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int32_t>(i * 37 % 256);
    const tensor_view<const float> x_line(line.data(), {1, line.size()}), x_grid(grid.data(), {256, 256}), up(updates.data(), {512, 256});
    const tensor_view<const std::int32_t> indices(rows.data(), {512, 1});
    // `always_cut`: the operator calls the executor in every build; a single line (the long-scan blocks, reduce's
    // chunks of a line) is cut only by the vector kernels, and without vectors runs on the calling thread.
    const auto check = [](const char* what, std::vector<std::size_t> sizes, bool always_cut, const auto& operation) {
        for (const auto when : {failing_executor::before, failing_executor::halfway, failing_executor::after}) {
            for (const bool in_order : {false, true}) {
                INFO(what << ", the executor throwing " << (when == failing_executor::before ? "before" : when == failing_executor::halfway ? "halfway" : "after")
                          << (in_order ? ", claiming pieces in order" : ""));
                std::size_t calls = 0;
                failing_executor exec{when, in_order, &calls};
                auto output = padded_output<float>(sizes);
                const deadline guard(std::string("a throwing executor, ") + what);
                if (always_cut || tensorops::simd::vectorized) {
                    CHECK_THROWS_MATCHES(operation(exec, output.view()), std::runtime_error, Catch::Matchers::Message("the host's pool failed"));
                    CHECK(calls > 0);
                } else {
                    CHECK_NOTHROW(operation(exec, output.view()));  // ran on the calling thread: the executor was never asked
                    CHECK(calls == 0);
                }
                CHECK(output.untouched_outside_view());
            }
        }
    };
    // A line of 1 MiB: the long-scan blocks, waiting for the blocks before them where pieces are claimed in order.
    check("cumulative_sum", {1, line.size()}, false, [&](auto& exec, tensor_view<float> out) { tensorops::cumulative_sum(exec, x_line, out, {.axis = 1}); });
    check("reduce", {256, 1}, true, [&](auto& exec, tensor_view<float> out) { tensorops::reduce(exec, x_grid, out, tensorops::reduce_function::sum, {1}); });
    check("reduce of one line", {1, 1}, false,
          [&](auto& exec, tensor_view<float> out) { tensorops::reduce(exec, x_line, out, tensorops::reduce_function::sum, {1}); });
    check("scatter_nd", {256, 256}, true, [&](auto& exec, tensor_view<float> out) {
        tensorops::scatter_nd<float>(exec, x_grid, indices, up, out, tensorops::scatter_reduction::add);
    });
    check("gather_nd", {512, 256}, true, [&](auto& exec, tensor_view<float> out) { tensorops::gather_nd<float>(exec, x_grid, indices, out); });
}
