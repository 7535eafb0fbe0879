// parallel execution: the thread pool, executors of the user's own, and results bit-identical to the sequential
// ones for every operator, element type and thread count (1, 2, 3, 4, 7, 8 — more threads than cores included).
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "support.hpp"

using namespace tensorops;
using tensorops_test::guarded_buffer;
using tensorops_test::layout_kind;
using tensorops_test::test_rng;

namespace {

/// The thread counts every parallel result is compared over: more threads than cores included. The sanitised builds
/// (ten to thirty times slower) take three of them: one thread, an odd count and more threads than cores.
constexpr std::size_t all_thread_counts[] = {1, 2, 3, 4, 7, 8};
constexpr std::size_t sanitized_thread_counts[] = {1, 3, 8};
constexpr std::span<const std::size_t> thread_counts =
    tensorops_test::sanitized_build ? std::span<const std::size_t>(sanitized_thread_counts) : std::span<const std::size_t>(all_thread_counts);

/// The executors of these tests cut work from 4 KiB of traffic on (the library's default is 256 KiB), so tensors
/// of tens of KiB already exercise every way of cutting: the tests stay fast under the sanitizers.
constexpr std::size_t test_piece_bytes = 4 << 10;

/// An executor of the test's own: it records what it is asked and runs the pieces on the calling thread, in reverse
/// order (so any dependence on the order of pieces shows) or, `forward`, in order — then it claims pieces in order,
/// and every piece finds all the pieces before it finished (which the one-pass scans and the argmax bands use).
struct recording_executor {
    bool forward = false;
    std::size_t calls = 0;
    std::size_t pieces = 0;
    [[nodiscard]] std::size_t concurrency() const { return 4; }
    [[nodiscard]] std::size_t min_piece_bytes() const { return test_piece_bytes; }
    [[nodiscard]] bool claims_in_order() const { return forward; }
    template <class Task>
    void parallel_for(std::size_t count, const Task& task) {
        ++calls;
        pieces += count;
        if (forward)
            for (std::size_t i = 0; i < count; ++i) task(i);
        else
            for (std::size_t i = count; i-- > 0;) task(i);
    }
};

/// An executor whose pool refuses work.
struct refusing_executor {
    [[nodiscard]] std::size_t concurrency() const { return 2; }
    template <class Task>
    void parallel_for(std::size_t, const Task&) {
        throw std::runtime_error("the host's pool is shutting down");
    }
};

/// Random sizes of the given rank whose elements of type T take between min_kib and max_kib KiB: large enough for
/// the test executors to cut the work into pieces (from 8 KiB of memory traffic on).
template <class T>
std::vector<std::size_t> large_sizes(test_rng& rng, std::size_t rank, std::size_t min_kib, std::size_t max_kib) {
    const std::size_t min_elements = (min_kib << 10) / sizeof(T), max_elements = (max_kib << 10) / sizeof(T);
    for (;;) {
        std::vector<std::size_t> sizes(rank, 1);
        std::size_t count = 1;
        const double target = rng.uniform_real(static_cast<double>(min_elements), static_cast<double>(max_elements));
        for (std::size_t d = 0; d < rank; ++d) {
            const double remaining = target / static_cast<double>(count);
            const double share = d + 1 == rank ? remaining : std::pow(remaining, rng.uniform_real(0.2, 0.8));
            sizes[d] = std::max<std::size_t>(1, static_cast<std::size_t>(share));
            count *= sizes[d];
        }
        std::shuffle(sizes.begin(), sizes.end(), rng.engine());
        if (count >= min_elements && count <= max_elements) return sizes;
    }
}

constexpr layout_kind layouts[] = {layout_kind::packed, layout_kind::transposed, layout_kind::padded, layout_kind::reversed,
                                   layout_kind::mixed};

template <class T>
guarded_buffer<T> random_tensor(test_rng& rng, const std::vector<std::size_t>& sizes, layout_kind kind, bool near_one = false) {
    guarded_buffer<T> buffer(sizes, tensorops_test::random_strides(rng, sizes, kind));
    std::vector<T> values(buffer.values().size());
    for (auto& v : values) {
        if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, float16>) {
            // Products of values near 1 neither overflow nor vanish; NaN now and then checks its propagation.
            v = near_one ? static_cast<T>(static_cast<float>(1.0 + rng.uniform_real(-1e-3, 1e-3))) : tensorops_test::random_value<T>(rng);
            if (rng.chance(1e-5)) v = std::numeric_limits<T>::quiet_NaN();
        } else {
            v = tensorops_test::random_value<T>(rng);
        }
    }
    buffer.assign(values);
    return buffer;
}

/// Bytes of the view's elements, row-major: equal bytes = bit-identical results.
template <class T>
std::vector<unsigned char> bytes_of(const guarded_buffer<T>& buffer) {
    const auto values = buffer.values();
    std::vector<unsigned char> out(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
    return out;
}

/// The first element (row-major) whose bytes differ, or the element count if none does: a short report where
/// comparing the byte vectors themselves would print all of them.
template <class T>
std::size_t first_different_element(const std::vector<unsigned char>& actual, const std::vector<unsigned char>& expected) {
    if (actual.size() != expected.size()) return 0;
    const auto mismatch = std::mismatch(actual.begin(), actual.end(), expected.begin());
    return static_cast<std::size_t>(mismatch.first - actual.begin()) / sizeof(T);
}

/// Runs `operation(executor, output_view)` sequentially into one fresh output and on pools of every thread count
/// and the recording executor (pieces in reverse, then in order) into others; every result must equal the sequential
/// one bit for bit, and nothing outside the outputs may change. Returns how many pieces the recording executor was
/// given (in reverse).
template <class U, class Operation>
std::size_t check_same_for_every_executor(const std::vector<std::size_t>& sizes, const std::vector<std::ptrdiff_t>& strides,
                                          const Operation& operation) {
    guarded_buffer<U> expected(sizes, strides);
    operation(sequential, expected.view());
    const auto expected_bytes = bytes_of(expected);
    const std::size_t count = expected_bytes.size() / sizeof(U);
    for (std::size_t threads : thread_counts) {
        INFO("threads: " << threads << " (of " << count << " elements, the first that differs is shown)");
        thread_pool pool(threads, test_piece_bytes);
        guarded_buffer<U> actual(sizes, strides);
        operation(pool, actual.view());
        CHECK(first_different_element<U>(bytes_of(actual), expected_bytes) == count);
        CHECK(actual.untouched_outside_view());
    }
    std::size_t reversed_pieces = 0;
    for (const bool forward : {false, true}) {
        INFO("the recording executor (pieces " << (forward ? "in order" : "in reverse") << "), " << count << " elements");
        recording_executor recorder{.forward = forward};
        guarded_buffer<U> actual(sizes, strides);
        operation(recorder, actual.view());
        CHECK(first_different_element<U>(bytes_of(actual), expected_bytes) == count);
        if (!forward) reversed_pieces = recorder.pieces;
    }
    return reversed_pieces;
}

using parallel_types = std::tuple<double, float, float16, std::int32_t>;

/// Whether the build has the vector kernels: the bands of rows and the chunks of one line belong to them, so a
/// scalar build (TENSOROPS_NO_XSIMD) cuts fewer cases into pieces — with the same results.
constexpr bool vector_kernels = tensorops::simd::vectorized;

/// The recording executor was given more than one piece (expected where the build has the vector kernels).
bool was_cut(std::size_t pieces) { return pieces > 1 || !vector_kernels; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// The thread pool.

TEST_CASE("thread_pool: every piece runs exactly once, for any number of threads and pieces", "[parallel]") {
    for (std::size_t threads : {0u, 1u, 2u, 3u, 8u}) {
        thread_pool pool(threads);
        CHECK(pool.concurrency() == (threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : threads));
        for (std::size_t count : {0u, 1u, 2u, 7u, 1000u}) {
            INFO("threads " << threads << ", pieces " << count);
            std::vector<std::atomic<int>> runs(count);
            pool.parallel_for(count, [&](std::size_t i) { runs[i].fetch_add(1); });
            for (std::size_t i = 0; i < count; ++i) CHECK(runs[i].load() == 1);
        }
    }
}

TEST_CASE("thread_pool: the first exception propagates, the rest is skipped, the pool stays usable", "[parallel]") {
    thread_pool pool(4);
    std::atomic<int> ran{0};
    CHECK_THROWS_MATCHES(pool.parallel_for(2000,
                                           [&](std::size_t i) {
                                               ran.fetch_add(1);
                                               if (i == 3) throw std::invalid_argument("piece 3 failed");
                                               std::this_thread::sleep_for(std::chrono::microseconds(200));
                                           }),
                         std::invalid_argument, Catch::Matchers::Message("piece 3 failed"));
    CHECK(ran.load() < 1000);  // pieces not started when piece 3 threw were skipped (running them all takes 0.1 s)
    std::atomic<int> after{0};
    pool.parallel_for(100, [&](std::size_t) { after.fetch_add(1); });
    CHECK(after.load() == 100);
}

TEST_CASE("thread_pool: a call from inside a piece runs inline; calls from several threads take turns", "[parallel]") {
    thread_pool pool(3);
    std::atomic<int> inner{0};
    pool.parallel_for(8, [&](std::size_t) { pool.parallel_for(5, [&](std::size_t) { inner.fetch_add(1); }); });
    CHECK(inner.load() == 40);

    std::atomic<int> total{0};
    std::vector<std::thread> callers;
    for (int c = 0; c < 4; ++c)
        callers.emplace_back([&] {
            for (int round = 0; round < 50; ++round) pool.parallel_for(16, [&](std::size_t) { total.fetch_add(1); });
        });
    for (auto& caller : callers) caller.join();
    CHECK(total.load() == 4 * 50 * 16);
}

TEST_CASE("executors: the concept accepts pools, sequential and the user's own types", "[parallel]") {
    STATIC_REQUIRE(executor<thread_pool>);
    STATIC_REQUIRE(executor<const sequential_executor>);
    STATIC_REQUIRE(executor<recording_executor>);
    STATIC_REQUIRE(!executor<int>);
    STATIC_REQUIRE(!executor<tensor_view<float>>);
}

TEST_CASE("executors: small tensors never reach the executor; an executor's own failure propagates", "[parallel]") {
    std::vector<float> x(1000, 1.0f), y(1000, 0.0f);
    recording_executor recorder;
    cumulative_sum(recorder, tensor_view<const float>(x.data(), {10, 100}), tensor_view<float>(y.data(), {10, 100}), {1});
    CHECK(recorder.calls == 0);
    CHECK(y[99] == 100.0f);

    std::vector<float> big(1 << 20, 1.0f), out(1 << 20, 0.0f);
    refusing_executor refusing;
    CHECK_THROWS_MATCHES(cumulative_sum(refusing, tensor_view<const float>(big.data(), {1024, 1024}), tensor_view<float>(out.data(), {1024, 1024}),
                                        {1}),
                         std::runtime_error, Catch::Matchers::Message("the host's pool is shutting down"));
    std::vector<float> sums(1024);
    CHECK_THROWS_AS(reduce(refusing, tensor_view<const float>(big.data(), {1024, 1024}), tensor_view<float>(sums.data(), {1024, 1}),
                           reduce_function::sum, {1}),
                    std::runtime_error);
}

TEST_CASE("executors: an exception thrown by a user's scan operation propagates from the pool's threads", "[parallel]") {
    std::vector<std::int64_t> x(1 << 18, 1), y(1 << 18, 0);
    thread_pool pool(3);
    const auto failing = [](std::int64_t a, std::int64_t b) -> std::int64_t {
        if (b == 7) throw std::domain_error("seven");
        return a + b;
    };
    x[200000] = 7;
    CHECK_THROWS_MATCHES(cumulative_scan<std::int64_t>(pool, tensor_view<const std::int64_t>(x.data(), {512, 512}),
                                                       tensor_view<std::int64_t>(y.data(), {512, 512}), {1}, failing, 0),
                         std::domain_error, Catch::Matchers::Message("seven"));
}

// ---------------------------------------------------------------------------------------------
// Bit-identical results.

TEMPLATE_LIST_TEST_CASE("parallel reduce: bit-identical to sequential for every thread count", "[parallel]", parallel_types) {
    using T = TestType;
    test_rng rng(std::string("parallel reduce ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    std::vector<reduce_function> functions = {reduce_function::sum, reduce_function::max, reduce_function::min, reduce_function::multiply,
                                              reduce_function::l1, reduce_function::sum_square};
    if constexpr (!std::is_integral_v<T>)
        functions.insert(functions.end(), {reduce_function::average, reduce_function::l2, reduce_function::log_sum, reduce_function::log_sum_exp});
    std::size_t split = 0, cases = 0;
    for (reduce_function function : functions) {
        for (int trial = 0; trial < 2; ++trial) {
            const std::size_t rank = rng.uniform<std::size_t>(2, 4);
            const auto sizes = large_sizes<T>(rng, rank, 40, 80);
            std::vector<std::size_t> axes;
            for (std::size_t d = 0; d < rank; ++d)
                if (rng.chance(0.5)) axes.push_back(d);
            if (axes.empty() || axes.size() == rank) axes = {rng.uniform<std::size_t>(0, rank - 1)};
            const auto in_kind = layouts[rng.uniform<std::size_t>(0, 4)], out_kind = layouts[rng.uniform<std::size_t>(0, 4)];
            const auto input = random_tensor<T>(rng, sizes, in_kind, function == reduce_function::multiply);
            auto out_sizes = sizes;
            for (std::size_t a : axes) out_sizes[a] = 1;
            INFO("function " << static_cast<int>(function) << ", input " << tensorops_test::describe_layout(sizes, input.strides()));
            const auto out_strides = tensorops_test::random_strides(rng, out_sizes, out_kind);
            const std::size_t pieces = check_same_for_every_executor<T>(out_sizes, out_strides, [&](auto& exec, auto y) {
                reduce(exec, input.const_view(), y, function, std::span<const std::size_t>(axes));
            });
            split += pieces > 1;
            ++cases;
        }
    }
    if (vector_kernels) CHECK(split * 3 >= cases);  // many cases were really cut (narrow outputs of long groups may not be)
}

// Short contiguous rows are reduced eight at a time (the short-row kernel); a piece of the outputs starts its groups
// wherever it starts, and each row must still come out as in the whole. Row counts not a multiple of eight, rows
// shorter than a vector, a padded row stride, and a single short row (the one-line paths must leave it to the kernel).
TEMPLATE_LIST_TEST_CASE("parallel reduce of short rows: every row as the whole computes it, wherever its group starts", "[parallel]",
                        parallel_types) {
    using T = TestType;
    test_rng rng(std::string("parallel short rows ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    std::vector<reduce_function> functions = {reduce_function::sum, reduce_function::max, reduce_function::multiply};
    if constexpr (!std::is_integral_v<T>) functions.insert(functions.end(), {reduce_function::l2, reduce_function::log_sum_exp});
    for (std::size_t length : {std::size_t{3}, std::size_t{8}, std::size_t{37}, std::size_t{200}}) {
        for (reduce_function function : functions) {
            for (const std::size_t rows : {std::size_t{1}, 60 * 1024 / (length * sizeof(T)) + rng.uniform<std::size_t>(0, 7)}) {
            const std::size_t row_stride = length + (rng.chance(0.5) ? 0 : 2);
            const std::vector<std::size_t> sizes{rows, length};
            guarded_buffer<T> input(sizes, {static_cast<std::ptrdiff_t>(row_stride), 1});
            std::vector<T> values(rows * length);
            for (auto& v : values) v = function == reduce_function::multiply ? static_cast<T>(rng.uniform_real(0.9, 1.1)) : tensorops_test::random_value<T>(rng);
            input.assign(values);
            INFO("function " << static_cast<int>(function) << ", " << rows << " rows of " << length << ", row stride " << row_stride);
            const std::vector<std::size_t> out_sizes{rows, 1};
            const auto pieces = check_same_for_every_executor<T>(out_sizes, tensorops_test::random_strides(rng, out_sizes, layout_kind::packed),
                                                                 [&](auto& exec, auto y) { reduce(exec, input.const_view(), y, function, {1}); });
            if (rows > 1) CHECK(was_cut(pieces));
            }
        }
    }
}

TEMPLATE_LIST_TEST_CASE("parallel argmax/argmin: bit-identical to sequential for every thread count", "[parallel]", parallel_types) {
    using T = TestType;
    test_rng rng(std::string("parallel argmax ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    std::size_t split = 0, cases = 0;
    for (int trial = 0; trial < 8; ++trial) {
        const std::size_t rank = rng.uniform<std::size_t>(1, 4);
        const auto sizes = large_sizes<T>(rng, rank, 40, 80);
        std::vector<std::size_t> axes;
        for (std::size_t d = 0; d < rank; ++d)
            if (rng.chance(0.5)) axes.push_back(d);
        if (axes.empty() || axes.size() == rank) axes = {rng.uniform<std::size_t>(0, rank - 1)};
        const auto input = random_tensor<T>(rng, sizes, layouts[rng.uniform<std::size_t>(0, 4)]);
        auto out_sizes = sizes;
        for (std::size_t a : axes) out_sizes[a] = 1;
        const bool maximum = trial % 2 == 0;
        const auto direction = trial % 4 < 2 ? axis_direction::increasing : axis_direction::decreasing;
        INFO("argmax " << maximum << ", input " << tensorops_test::describe_layout(sizes, input.strides()));
        split += check_same_for_every_executor<std::int64_t>(
                     out_sizes, tensorops_test::random_strides(rng, out_sizes, layouts[rng.uniform<std::size_t>(0, 4)]), [&](auto& exec, auto y) {
                         if (maximum) argmax(exec, input.const_view(), y, std::span<const std::size_t>(axes), direction);
                         else argmin(exec, input.const_view(), y, std::span<const std::size_t>(axes), direction);
                     }) > 1;
        ++cases;
    }
    if (vector_kernels) CHECK(split * 2 >= cases);
}

TEMPLATE_LIST_TEST_CASE("parallel cumulative sum/product: bit-identical to sequential for every thread count", "[parallel]", parallel_types) {
    using T = TestType;
    test_rng rng(std::string("parallel cumulative ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    std::size_t split = 0, cases = 0;
    for (int trial = 0; trial < 12; ++trial) {
        const std::size_t rank = rng.uniform<std::size_t>(2, 4);
        const auto sizes = large_sizes<T>(rng, rank, 20, 40);
        const bool product = trial % 3 == 2;
        const scan_options options{rng.uniform<std::size_t>(0, rank - 1), rng.chance(0.5) ? axis_direction::increasing : axis_direction::decreasing,
                                   rng.chance(0.5)};
        const auto input = random_tensor<T>(rng, sizes, layouts[rng.uniform<std::size_t>(0, 4)], product);
        INFO("product " << product << ", axis " << options.axis << ", input " << tensorops_test::describe_layout(sizes, input.strides()));
        split += check_same_for_every_executor<T>(sizes, tensorops_test::random_strides(rng, sizes, layouts[rng.uniform<std::size_t>(0, 4)]),
                                                  [&](auto& exec, auto y) {
                                                      if (product) cumulative_product<T>(exec, input.const_view(), y, options);
                                                      else cumulative_sum<T>(exec, input.const_view(), y, options);
                                                  }) > 1;
        ++cases;
    }
    if (vector_kernels) CHECK(split * 2 >= cases);
}

// On an executor that claims pieces in order, an across-rows scan writes a band's rows plain until the prefix entering
// the band is published, prefixed from then on, and offsets the plain ones (blocked_scan.hpp). Which row the switch
// falls on depends on the threads' timing; here it is forced at every row of both column blocks of a band.
TEMPLATE_TEST_CASE("parallel across-rows scan: a band that switches from plain to prefixed rows at any row is the prefixed band", "[parallel]",
                   double, float, std::int32_t) {
    using T = TestType;
    namespace detail = tensorops::detail;
    test_rng rng(std::string("parallel band switch ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    constexpr std::size_t block = detail::carry_block_width<T>;
    const std::size_t m = block + 2 * simd::lanes<T> + 3, n = 9;  // two column blocks, the second with a ragged vector tail
    const auto random_values = [&](std::size_t count) {
        std::vector<T> values(count);
        for (auto& v : values) v = tensorops_test::random_value<T>(rng);
        return values;
    };
    const std::vector<T> x = random_values(n * m), prefix = random_values(m);
    const detail::sum_scan<T> scan{};
    const auto step = static_cast<std::ptrdiff_t>(m);
    const auto check = [&]<bool Exclusive>() {
        INFO("exclusive " << Exclusive);
        std::vector<T> expected(n * m), expected_total(m);
        detail::scan_band<detail::block_output::prefixed, Exclusive>(x.data(), expected.data(), n, step, step, m, scan, prefix.data(),
                                                                     expected_total.data(), false);
        for (std::size_t k = 0; k <= 2 * n + 1; ++k) {  // the prefix is there from the k-th question on
            INFO("the prefix arrives at question " << k);
            std::size_t questions = 0;
            const auto arrived = [&]() -> const T* { return questions++ < k ? nullptr : prefix.data(); };
            std::vector<T> got(n * m), total(m);
            std::size_t plain_rows[2] = {};
            detail::scan_band_as_prefix_arrives<Exclusive>(x.data(), got.data(), n, step, step, m, scan, total.data(), arrived, plain_rows);
            CHECK(plain_rows[0] == std::min(k, n));
            CHECK(plain_rows[1] == (k > n ? std::min(k - n, n) : 0));
            detail::offset_rows(got.data(), plain_rows[0], step, block, prefix.data(), scan);
            detail::offset_rows(got.data() + block, plain_rows[1], step, m - block, prefix.data() + block, scan);
            CHECK(std::memcmp(got.data(), expected.data(), got.size() * sizeof(T)) == 0);
            CHECK(std::memcmp(total.data(), expected_total.data(), total.size() * sizeof(T)) == 0);
        }
    };
    check.template operator()<false>();
    check.template operator()<true>();
}

TEMPLATE_LIST_TEST_CASE("parallel cumulative over few long scans: the fixed blocks give the sequential result", "[parallel]", parallel_types) {
    using T = TestType;
    test_rng rng(std::string("parallel cumulative blocks ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    // Too few lines for the threads, so each long scan is cut into its blocks (ops/detail/blocked_scan.hpp): on the
    // pools (pieces started in order: one pass, each block waiting for the prefix before it) and on the recording
    // executor (pieces in reverse: totals, then the blocks). One line of 2½ blocks; two lines; rows in bands with
    // a ragged vector tail; rows in bands of two, wide enough (128 KiB) for two threads to cut them by columns
    // instead, every piece keeping the bands of the whole (a piece's own rows would make one band).
    const std::size_t K = tensorops::detail::line_scan_block<T>, m = 3 * tensorops::simd::lanes<T> + 5;
    const std::size_t band = tensorops::detail::band_rows(m, sizeof(T)), wide = (128 << 10) / sizeof(T);
    struct shape_case {
        std::vector<std::size_t> sizes;
        std::size_t axis;
        std::vector<std::ptrdiff_t> strides;  // of the input; empty: packed (outputs are packed)
    };
    const auto row = static_cast<std::ptrdiff_t>(m + 3);
    const shape_case shapes[] = {{{2 * K + K / 2 + 7}, 0, {}},
                                 {{2, K + 100}, 1, {static_cast<std::ptrdiff_t>(K + 164), 1}},
                                 {{3 * band + 1, m}, 0, {}},
                                 {{band + 2, 2, m}, 0, {2 * row, row, 1}},
                                 {{7, wide}, 0, {}}};
    std::size_t combination = 0;
    for (const auto& [sizes, axis, strides] : shapes) {
        for (int variant = 0; variant < 4; ++variant) {
            if (!tensorops_test::runs_in_this_build(combination++)) continue;
            const bool product = variant % 2 == 1;
            const scan_options options{axis, variant < 2 ? axis_direction::increasing : axis_direction::decreasing, variant == 1 || variant == 2};
            guarded_buffer<T> input(sizes, strides.empty() ? tensorops_test::random_strides(rng, sizes, layout_kind::packed) : strides);
            input.assign(random_tensor<T>(rng, sizes, layout_kind::packed, product).values());
            // Packed outputs: a strided one (a padded layout may step by 2) would take the scalar kernel, which has
            // no blocks.
            const auto output_strides = tensorops_test::random_strides(rng, sizes, layout_kind::packed);
            INFO("product " << product << ", axis " << axis << ", exclusive " << options.exclusive << ", input "
                            << tensorops_test::describe_layout(sizes, input.strides()) << ", output strides "
                            << tensorops_test::describe_layout(sizes, output_strides));
            CHECK(was_cut(check_same_for_every_executor<T>(sizes, output_strides, [&](auto& exec, auto y) {
                if (product) cumulative_product<T>(exec, input.const_view(), y, options);
                else cumulative_sum<T>(exec, input.const_view(), y, options);
            })));
        }
    }
}

TEMPLATE_LIST_TEST_CASE("parallel scatter_nd / gather_nd: bit-identical to sequential for every thread count", "[parallel]", parallel_types) {
    using T = TestType;
    test_rng rng(std::string("parallel scatter ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    constexpr std::size_t rows = 512, columns = 48, tuples = 800;
    const auto data = random_tensor<T>(rng, {rows, columns}, layout_kind::padded);
    // Row tuples with duplicates, some counting from the end.
    std::vector<std::int64_t> index_values(tuples);
    for (auto& v : index_values) v = rng.uniform<std::int64_t>(-static_cast<std::int64_t>(rows), static_cast<std::int64_t>(rows) - 1);
    const tensor_view<const std::int64_t> indices(index_values.data(), {tuples, 1});
    const auto updates = random_tensor<T>(rng, {tuples, columns}, layout_kind::packed);
    for (auto reduction : {scatter_reduction::none, scatter_reduction::add, scatter_reduction::max}) {
        INFO("reduction " << static_cast<int>(reduction));
        CHECK(check_same_for_every_executor<T>({rows, columns}, tensorops_test::random_strides(rng, {rows, columns}, layout_kind::transposed),
                                               [&](auto& exec, auto y) {
                                                   scatter_nd<T>(exec, data.const_view(), indices, updates.const_view(), y, reduction);
                                               }) > 1);
    }
    CHECK(check_same_for_every_executor<T>({tuples, columns}, tensorops_test::random_strides(rng, {tuples, columns}, layout_kind::mixed),
                                           [&](auto& exec, auto y) { gather_nd<T>(exec, data.const_view(), indices, y); }) > 1);

    // A bad tuple: the same error (the first bad tuple, row-major) on every executor, and the output untouched.
    index_values[500] = static_cast<std::int64_t>(rows);
    index_values[700] = -static_cast<std::int64_t>(rows) - 1;
    std::string sequential_message;
    try {
        std::vector<T> out(rows * columns);
        scatter_nd<T>(data.const_view(), indices, updates.const_view(), tensor_view<T>(out.data(), {rows, columns}));
    } catch (const error& e) {
        sequential_message = e.what();
    }
    REQUIRE(sequential_message.find("indices[500") != std::string::npos);
    for (std::size_t threads : thread_counts) {
        thread_pool pool(threads, test_piece_bytes);
        std::vector<T> out(rows * columns, T(1));
        const auto before = out;
        CHECK_THROWS_WITH(scatter_nd<T>(pool, data.const_view(), indices, updates.const_view(), tensor_view<T>(out.data(), {rows, columns})),
                          sequential_message);
        CHECK(std::memcmp(out.data(), before.data(), out.size() * sizeof(T)) == 0);
    }
}

/// Writes `values` (row-major order of the indices) into the elements of `view`.
template <class T>
void assign_view(const tensor_view<T>& view, const std::vector<T>& values) {
    std::vector<std::size_t> index(view.rank(), 0);
    for (const T& value : values) {
        std::ptrdiff_t offset = 0;
        for (std::size_t d = 0; d < view.rank(); ++d) offset += static_cast<std::ptrdiff_t>(index[d]) * view.stride(d);
        view.data()[offset] = value;
        for (std::size_t d = view.rank(); d-- > 0;) {
            if (++index[d] < view.size(d)) break;
            index[d] = 0;
        }
    }
}

TEMPLATE_LIST_TEST_CASE("parallel scatter_nd in place: pieces owning ranges of a coordinate apply the updates as sequentially",
                        "[parallel]", parallel_types) {
    using T = TestType;
    test_rng rng(std::string("parallel scatter updates ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    struct scatter_case {
        std::vector<std::size_t> sizes;
        std::size_t k, tuples;
    };
    // Single elements where the second coordinate indexes the larger dimension (the pieces are cut by it); rows;
    // slices of a rank-3 tensor chosen by two coordinates. Every case has many duplicate tuples.
    const std::vector<scatter_case> cases{{{7, 3000}, 2, 6000}, {{2000, 24}, 1, 1500}, {{40, 50, 6}, 2, 2500}};
    const scatter_reduction reductions[] = {scatter_reduction::none, scatter_reduction::add, scatter_reduction::multiply,
                                            scatter_reduction::max, scatter_reduction::min};
    std::size_t combination = 0;
    for (const scatter_case& c : cases) {
        const auto run = [&](auto index_type) {
            using I = typename decltype(index_type)::type;
            INFO("case " << &c - cases.data() << ", k " << c.k << ", index type " << tensorops_test::type_name<I>());
            std::vector<I> index_values(c.tuples * c.k);
            for (std::size_t t = 0; t < c.tuples; ++t) {
                for (std::size_t d = 0; d < c.k; ++d) {
                    const auto extent = static_cast<std::int64_t>(c.sizes[d]);
                    const std::int64_t low = std::is_signed_v<I> ? -extent : 0;  // negative coordinates count from the end
                    index_values[t * c.k + d] = static_cast<I>(rng.uniform<std::int64_t>(low, extent - 1));
                }
                if (t > 0 && rng.chance(0.2)) {  // a duplicate of an earlier tuple
                    const std::size_t earlier = rng.uniform<std::size_t>(0, t - 1);
                    std::copy_n(index_values.begin() + static_cast<std::ptrdiff_t>(earlier * c.k), c.k,
                                index_values.begin() + static_cast<std::ptrdiff_t>(t * c.k));
                }
            }
            const tensor_view<const I> indices(index_values.data(), {c.tuples, c.k});
            std::vector<std::size_t> update_sizes{c.tuples};
            update_sizes.insert(update_sizes.end(), c.sizes.begin() + static_cast<std::ptrdiff_t>(c.k), c.sizes.end());
            for (const scatter_reduction reduction : reductions) {
                if (!tensorops_test::runs_in_this_build(combination++)) continue;
                INFO("reduction " << static_cast<int>(reduction));
                const bool near_one = reduction == scatter_reduction::multiply;
                const auto updates = random_tensor<T>(rng, update_sizes, layout_kind::mixed, near_one);
                const auto initial = random_tensor<T>(rng, c.sizes, layout_kind::packed, near_one).values();
                const layout_kind kind = layouts[rng.uniform<std::size_t>(0, std::size(layouts) - 1)];
                const std::size_t pieces =
                    check_same_for_every_executor<T>(c.sizes, tensorops_test::random_strides(rng, c.sizes, kind), [&](auto& exec, auto y) {
                        assign_view(y, initial);
                        scatter_nd<T>(exec, tensor_view<const T>(y), indices, updates.const_view(), y, reduction);
                    });
                CHECK(pieces > 1);  // in place there is no copy: the updates themselves were cut
            }
        };
        run(std::type_identity<std::int32_t>{});
        run(std::type_identity<std::uint64_t>{});
    }
}

TEMPLATE_LIST_TEST_CASE("parallel reductions over rows: bands of rows give the sequential result, cascade edges included", "[parallel]",
                        parallel_types) {
    using T = TestType;
    test_rng rng(std::string("parallel bands ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    struct shape {
        std::size_t rows, columns, row_stride;
    };
    // Whole and partial cascade blocks (128 rows), past 128 blocks (the total row), rows wider than a panel, rows
    // that are narrow but not back to back (so not fused), a band count that does not divide the rows.
    const shape shapes[] = {{16384 + 300, 16, 20}, {257, 2500, 2500}, {300, 1024, 1031}, {131, 2200, 2200}};
    for (std::size_t shape_index = 0; shape_index < std::size(shapes); ++shape_index) {
        const shape& s = shapes[shape_index];
        INFO("rows " << s.rows << ", columns " << s.columns << ", row stride " << s.row_stride);
        guarded_buffer<T> input({s.rows, s.columns}, {static_cast<std::ptrdiff_t>(s.row_stride), 1});
        std::vector<T> values(s.rows * s.columns);
        for (auto& v : values) {
            if constexpr (std::is_integral_v<T>) v = tensorops_test::random_value<T>(rng);
            else v = static_cast<T>(static_cast<float>(rng.uniform<int>(0, 3)));  // many ties
        }
        if constexpr (!std::is_integral_v<T>) {
            values[rng.uniform<std::size_t>(0, values.size() - 1)] = std::numeric_limits<T>::quiet_NaN();
            values[rng.uniform<std::size_t>(0, values.size() - 1)] = std::numeric_limits<T>::quiet_NaN();
        }
        input.assign(values);
        const std::vector<std::size_t> out_sizes{1, s.columns};
        const std::vector<std::ptrdiff_t> out_strides{static_cast<std::ptrdiff_t>(s.columns), 1};
        std::vector<reduce_function> functions{reduce_function::sum, reduce_function::max, reduce_function::min, reduce_function::multiply};
        if constexpr (!std::is_integral_v<T>) functions.push_back(reduce_function::log_sum_exp);
        for (std::size_t function_index = 0; function_index < functions.size(); ++function_index) {
            if (!tensorops_test::runs_in_this_build(shape_index + function_index)) continue;
            const reduce_function function = functions[function_index];
            INFO("function " << static_cast<int>(function));
            const std::size_t pieces = check_same_for_every_executor<T>(out_sizes, out_strides, [&](auto& exec, auto y) {
                reduce(exec, input.const_view(), y, function, {0});
            });
            // Floating products keep one running row (no row blocks): they are cut by columns only, where rows are
            // wide enough (not the 16 columns here, nor float16 rows under 4 KiB).
            const bool columns_only = function == reduce_function::multiply && !std::is_integral_v<T>;
            CHECK((was_cut(pieces) || columns_only));
        }
        for (auto direction : {axis_direction::increasing, axis_direction::decreasing}) {
            if (!tensorops_test::runs_in_this_build(shape_index + static_cast<std::size_t>(direction))) continue;
            CHECK(was_cut(check_same_for_every_executor<std::uint32_t>(out_sizes, out_strides, [&](auto& exec, auto y) {
                      argmax(exec, input.const_view(), y, {0}, direction);
                  })));
            CHECK(was_cut(check_same_for_every_executor<std::int64_t>(out_sizes, out_strides, [&](auto& exec, auto y) {
                      argmin(exec, input.const_view(), y, {0}, direction);
                  })));
        }
    }
}

TEMPLATE_TEST_CASE("parallel log-sum-exp of several runs into one output: the runs' states merged in order", "[parallel]", double, float,
                   float16) {
    using T = TestType;
    test_rng rng(std::string("parallel lse runs ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    struct shape {
        std::size_t rows, columns, row_stride;
    };
    // Padded rows (not one line): many short runs, and a few runs longer than a fixed block (64 Ki elements).
    const shape shapes[] = {{300, 100, 104}, {3, 70000, 70016}};
    for (const shape& s : shapes) {
        INFO("rows " << s.rows << ", columns " << s.columns << ", row stride " << s.row_stride);
        guarded_buffer<T> input({s.rows, s.columns}, {static_cast<std::ptrdiff_t>(s.row_stride), 1});
        std::vector<T> values(s.rows * s.columns);
        // Around −1 − ln(count) with one 0: the result, ln of a sum near 1.4, keeps the sum's last bits.
        const double centre = -1.0 - std::log(static_cast<double>(values.size()));
        for (auto& v : values) v = static_cast<T>(centre + rng.uniform_real(-1.0, 1.0));
        values[values.size() / 3] = T(0);
        input.assign(values);
        CHECK(was_cut(check_same_for_every_executor<T>({1, 1}, {1, 1}, [&](auto& exec, auto y) {
            reduce(exec, input.const_view(), y, reduce_function::log_sum_exp, {0, 1});
        })));
    }
}

TEMPLATE_LIST_TEST_CASE("parallel reductions of several runs into one output: chunks of whole runs, combined in order", "[parallel]",
                        parallel_types) {
    using T = TestType;
    test_rng rng(std::string("parallel run chunks ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    struct shape {
        std::vector<std::size_t> sizes;
        std::vector<std::ptrdiff_t> strides;
    };
    // Padded rows and a padded 3-d block: groups past one chunk (65536 elements of whole runs), with chunks of many
    // runs, of one run each, and a last chunk shorter than the others.
    const shape shapes[] = {{{300, 1000}, {1004, 1}}, {{3, 70000}, {70016, 1}}, {{2000, 37}, {40, 1}}, {{4, 50, 600}, {32000, 640, 1}}};
    std::vector<reduce_function> functions{reduce_function::sum, reduce_function::max, reduce_function::min, reduce_function::multiply,
                                           reduce_function::l1, reduce_function::sum_square};
    if constexpr (!std::is_integral_v<T>) functions.insert(functions.end(), {reduce_function::average, reduce_function::l2, reduce_function::log_sum});
    for (const shape& s : shapes) {
        guarded_buffer<T> input(s.sizes, s.strides);
        std::size_t elements = 1;
        for (std::size_t size : s.sizes) elements *= size;
        std::vector<T> values(elements);
        for (auto& v : values) v = static_cast<T>(std::is_integral_v<T> ? rng.uniform_real(-100.0, 100.0) : rng.uniform_real(0.5, 1.5));
        input.assign(values);
        std::vector<std::size_t> axes(s.sizes.size());
        for (std::size_t a = 0; a < axes.size(); ++a) axes[a] = a;
        const std::vector<std::size_t> out_sizes(s.sizes.size(), 1);
        const std::vector<std::ptrdiff_t> out_strides(s.sizes.size(), 1);
        for (const reduce_function function : functions) {
            INFO("sizes " << s.sizes[0] << "×" << s.sizes[1] << (s.sizes.size() > 2 ? "×…" : "") << ", function " << static_cast<int>(function));
            CHECK(was_cut(check_same_for_every_executor<T>(out_sizes, out_strides, [&](auto& exec, auto y) {
                reduce(exec, input.const_view(), y, function, axes);
            })));
        }
        // The chunks' combination keeps the sum's accuracy: against the long-double reference (float16 sums overflow).
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
            T got{};
            reduce(input.const_view(), tensor_view<T>(&got, out_sizes, out_strides), reduce_function::sum, axes);
            long double exact = 0;
            for (const T& v : values) exact += static_cast<long double>(v);
            const long double eps = std::numeric_limits<simd::compute_t<T>>::epsilon();
            CHECK(std::fabs(static_cast<long double>(got) - exact) <= (64 * eps + static_cast<long double>(std::numeric_limits<T>::epsilon())) * exact);
        }
    }
}

TEMPLATE_LIST_TEST_CASE("parallel reductions of one long line: chunks of the cascade give the sequential result", "[parallel]",
                        parallel_types) {
    using T = TestType;
    test_rng rng(std::string("parallel line ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    // Lengths of at least two cascade blocks (up to 16384 elements at 512-bit vectors): a multiple of every block
    // size (nothing left for the calling thread), two with a tail of whole vectors and single elements, and one
    // long enough for chunks of several blocks (nodes above the cascade's first level).
    const std::size_t lengths[] = {std::size_t{1} << 16, std::size_t{40001}, std::size_t{100003}, (std::size_t{1} << 18) + 5};
    for (std::size_t length_index = 0; length_index < std::size(lengths); ++length_index) {
        if (!tensorops_test::runs_in_this_build(length_index)) continue;
        const std::size_t length = lengths[length_index];
        INFO("length " << length);
        guarded_buffer<T> input({length}, {1});
        std::vector<T> values(length);
        for (auto& v : values) {
            if constexpr (std::is_integral_v<T>) v = tensorops_test::random_value<T>(rng);
            else v = static_cast<T>(static_cast<float>(rng.uniform<int>(0, 1000)) / 64.0f);  // ties for argmax
        }
        if constexpr (!std::is_integral_v<T>) {
            // Two NaNs that differ (in the sign bit) far apart: which one a max, min or sum returns depends on the
            // order its blocks are combined in, so the chunks must be combined in the sequential order.
            values[length / 5] = static_cast<T>(std::numeric_limits<float>::quiet_NaN());
            values[3 * length / 4] = static_cast<T>(-std::numeric_limits<float>::quiet_NaN());
        }
        input.assign(values);
        const std::vector<std::size_t> one{1};
        const std::vector<std::ptrdiff_t> unit{1};
        std::vector<reduce_function> functions{reduce_function::sum, reduce_function::sum_square, reduce_function::l1, reduce_function::max,
                                               reduce_function::min, reduce_function::multiply};
        if constexpr (!std::is_integral_v<T>)
            functions.insert(functions.end(),
                             {reduce_function::average, reduce_function::l2, reduce_function::log_sum, reduce_function::log_sum_exp});
        for (auto function : functions) {
            INFO("function " << static_cast<int>(function));
            const std::size_t pieces =
                check_same_for_every_executor<T>(one, unit, [&](auto& exec, auto y) { reduce(exec, input.const_view(), y, function, {0}); });
            // Functions with line blocks (reductions.hpp) are cut into chunks of their cascade; log-sum-exp and
            // floating products into their fixed blocks of 64 Ki elements, so only lines of more than one.
            const bool fixed_blocks = function == reduce_function::log_sum_exp || (function == reduce_function::multiply && !std::is_integral_v<T>);
            if (!fixed_blocks || length > 65536) CHECK(was_cut(pieces));
        }
        for (auto direction : {axis_direction::increasing, axis_direction::decreasing}) {
            CHECK(was_cut(check_same_for_every_executor<std::int64_t>(one, unit, [&](auto& exec, auto y) {
                      argmax(exec, input.const_view(), y, {0}, direction);
                  })));
            CHECK(was_cut(check_same_for_every_executor<std::uint32_t>(one, unit, [&](auto& exec, auto y) {
                      argmin(exec, input.const_view(), y, {0}, direction);
                  })));
        }
        if constexpr (!std::is_integral_v<T>) {
            // Without NaNs (which any order of operations turns into a NaN): the sums, log-sum-exp and products must
            // round exactly as sequentially. Values near 1; for log-sum-exp a maximum of 0 and the rest around
            // −1 − ln(length), so that its result (ln of a sum near 1.4) keeps the sum's last bits.
            for (auto function : {reduce_function::sum, reduce_function::log_sum_exp, reduce_function::multiply}) {
                INFO("without NaN, function " << static_cast<int>(function));
                const bool lse = function == reduce_function::log_sum_exp;
                for (auto& v : values)
                    v = static_cast<T>(lse ? -1.0 - std::log(static_cast<double>(length)) + rng.uniform_real(-1.0, 1.0)
                                           : 1.0 + rng.uniform_real(-1e-3, 1e-3));
                if (lse) values[3 * length / 4] = T(0);
                guarded_buffer<T> clean({length}, {1});
                clean.assign(values);
                const std::size_t pieces =
                    check_same_for_every_executor<T>(one, unit, [&](auto& exec, auto y) { reduce(exec, clean.const_view(), y, function, {0}); });
                if (function == reduce_function::sum || length > 65536) CHECK(was_cut(pieces));
            }
        }
    }
}
