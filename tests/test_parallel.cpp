// parallel execution: the thread pool, executors of the user's own, and results bit-identical to the sequential
// ones for scans and scatter/gather, for every element type and thread count (1, 2, 3, 4, 7, 8 — more threads than
// cores included); the reductions are in test_parallel_reduce.cpp, the pool under nesting and concurrent callers in
// test_thread_pool.cpp, what a throwing element type or executor leaves behind in test_throwing.cpp.
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

#include "parallel_support.hpp"
#include "support.hpp"

using namespace tensorops;
using namespace tensorops_test::parallel;
using tensorops_test::guarded_buffer;
using tensorops_test::layout_kind;
using tensorops_test::test_rng;

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

TEST_CASE("thread_pool: a call from inside a piece runs inline; calls from several threads share the pool", "[parallel]") {
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

TEST_CASE("piece_begin: pieces cover the units in order, shrinking round by round when there are enough", "[parallel]") {
    using tensorops::detail::piece_begin;
    constexpr std::size_t k = tensorops::detail::pieces_per_thread;
    for (std::size_t threads : {1u, 2u, 3u, 7u, 8u}) {
        for (std::size_t pieces : {std::size_t{2}, std::size_t{5}, k * threads}) {
            for (std::size_t units : {2u, 15u, 16u, 100u, 16384u, 1000003u}) {
                if (units < pieces) continue;
                INFO("threads " << threads << ", pieces " << pieces << ", units " << units);
                CHECK(piece_begin(0, pieces, units, threads) == 0);
                CHECK(piece_begin(pieces, pieces, units, threads) == units);
                for (std::size_t p = 0; p < pieces; ++p) CHECK(piece_begin(p, pieces, units, threads) < piece_begin(p + 1, pieces, units, threads));
            }
        }
    }
    // Two threads, k pieces each: rounds of 1/4, 1/8, … of the units a piece, the last round as the one before.
    std::vector<std::size_t> sizes;
    const std::size_t units = 2 << (k - 1) << 4;  // 16 units in each of the smallest pieces
    for (std::size_t p = 0; p < 2 * k; ++p) sizes.push_back(piece_begin(p + 1, 2 * k, units, 2) - piece_begin(p, 2 * k, units, 2));
    for (std::size_t round = 0; round < k; ++round) {
        const std::size_t expected = units >> (round + 1 < k ? round + 2 : k);
        CHECK(sizes[2 * round] == expected);
        CHECK(sizes[2 * round + 1] == expected);
    }
    // Fewer units than the smallest pieces need, or pieces not k a thread: even.
    CHECK(piece_begin(1, 2 * k, 2 * k, 2) == 1);
    CHECK(piece_begin(3, 5, 100, 2) == 60);
}

TEST_CASE("thread_pool: jobs back to back and after idle pauses, with the caller or a worker finishing last", "[parallel]") {
    // Workers spin for the next job before they sleep, and the caller spins for the workers' last pieces before it
    // sleeps (thread_pool.hpp): jobs given within the spin and after it, with the slow piece on either side, must all
    // run every piece once and return only when they have.
    thread_pool pool(3);
    for (int round = 0; round < 300; ++round) {
        INFO("round " << round);
        if (round % 50 == 49) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // past the spin: workers sleep
        const std::size_t count = 2 + static_cast<std::size_t>(round % 5);
        const std::size_t slow = static_cast<std::size_t>(round) % count;  // the piece that ends last, on any thread
        std::vector<std::atomic<int>> runs(count);
        std::atomic<std::size_t> ended{0};
        pool.parallel_for(count, [&](std::size_t i) {
            if (i == slow && round % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
            runs[i].fetch_add(1);
            ended.fetch_add(1);
        });
        CHECK(ended.load() == count);
        for (std::size_t i = 0; i < count; ++i) CHECK(runs[i].load() == 1);
    }
}

TEST_CASE("executors: the concept accepts pools, sequential and the user's own types", "[parallel]") {
    STATIC_REQUIRE(executor<thread_pool>);
    STATIC_REQUIRE(executor<const sequential_executor>);
    STATIC_REQUIRE(executor<recording_executor>);
    STATIC_REQUIRE(!executor<int>);
    STATIC_REQUIRE(!executor<tensor_view<float>>);
}

TEST_CASE("executors: small scans never reach the executor; an executor's own failure propagates", "[parallel]") {
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

TEMPLATE_LIST_TEST_CASE("parallel cumulative sum/product: bit-identical to sequential for every thread count", "[parallel]", parallel_types_with_bfloat16) {
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
// the band is published, prefixed from then on, and offsets the plain ones (ops/detail/scan/blocked.hpp). Which row the switch
// falls on depends on the threads' timing; here it is forced at every row of every column block of a band: two blocks,
// and three where the output's first columns come before a vector boundary (carry_blocks' head: 0 and a few columns).
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
    const auto check = [&]<bool Exclusive>(std::size_t head) {
        INFO("exclusive " << Exclusive << ", head " << head);
        const detail::carry_blocks<T> blocks{m, head};
        const std::size_t count = blocks.count();
        REQUIRE(count == (head == 0 ? 2 : 3));
        std::vector<T> expected(n * m), expected_total(m);
        detail::scan_band<detail::block_output::prefixed, Exclusive>(x.data(), expected.data(), n, step, step, m, scan, prefix.data(),
                                                                     expected_total.data(), false);
        for (std::size_t k = 0; k <= count * n + 1; ++k) {  // the prefix is there from the k-th question on
            INFO("the prefix arrives at question " << k);
            std::size_t questions = 0;
            const auto arrived = [&]() -> const T* { return questions++ < k ? nullptr : prefix.data(); };
            std::vector<T> got(n * m), total(m);
            std::size_t plain_rows[3] = {};
            detail::scan_band_as_prefix_arrives<Exclusive>(x.data(), got.data(), n, step, step, blocks, scan,
                                                           total.data(), arrived, plain_rows);
            for (std::size_t b = 0; b < count; ++b) {  // block b asks its n questions after the blocks before it
                CHECK(plain_rows[b] == std::min(k > b * n ? k - b * n : 0, n));
                const std::size_t first = blocks.first(b);
                detail::offset_rows(got.data() + first, plain_rows[b], step, blocks.width(b), prefix.data() + first,
                                    scan);
            }
            CHECK(std::memcmp(got.data(), expected.data(), got.size() * sizeof(T)) == 0);
            CHECK(std::memcmp(total.data(), expected_total.data(), total.size() * sizeof(T)) == 0);
        }
    };
    for (const std::size_t head : {std::size_t{0}, simd::lanes<T> - 1, std::size_t{3}}) {
        check.template operator()<false>(head);
        check.template operator()<true>(head);
    }
}

// The same for a block of a long line: written in parts, plain until the prefix entering the block is published,
// prefixed from then on, and the plain part offset by the prefix. The switch is forced before the first, second and
// middle parts, before the last, and never, in a whole block and in a line's last block (not a whole number of parts,
// with a tail shorter than a vector step), forward and backward, inclusive and exclusive.
template <class T>
void check_line_block_switch() {
    namespace detail = tensorops::detail;
    test_rng rng(std::string("parallel line switch ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    constexpr std::size_t K = detail::line_scan_block<T>, part = detail::line_part_bytes / sizeof(T);
    const std::size_t n = 2 * K + 3 * part + 2 * simd::lanes<T> + 3;  // block 2: three parts and a ragged rest
    std::vector<T> x(n);
    for (auto& v : x) v = tensorops_test::random_value<T>(rng);
    const detail::sum_scan<T> scan{};
    const auto prefix = static_cast<typename detail::sum_scan<T>::accumulator>(tensorops_test::random_value<T>(rng));
    const auto check = [&]<bool Exclusive, bool Backward>() {
        INFO("exclusive " << Exclusive << ", backward " << Backward);
        const std::ptrdiff_t start = Backward ? static_cast<std::ptrdiff_t>(n) - 1 : 0;  // the first traversal position
        for (const std::size_t b : {std::size_t{1}, std::size_t{2}}) {
            const std::size_t length = detail::line_block_length<T>(n, b), block_parts = (length + part - 1) / part;
            std::vector<T> expected(n);
            const auto expected_total =
                detail::scan_contiguous_line_block<detail::block_output::prefixed, Exclusive, Backward>(x.data() + start, expected.data() + start, n, b, scan,
                                                                                                      prefix);
            for (const std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{2}, block_parts / 2, block_parts - 1, block_parts, block_parts + 1}) {
                INFO("block " << b << ", the prefix arrives at question " << k);
                std::size_t questions = 0;
                const auto arrived = [&]() -> const typename detail::sum_scan<T>::accumulator* { return questions++ < k ? nullptr : &prefix; };
                std::vector<T> got(n);
                std::size_t plain = 0;
                const auto total = detail::scan_line_block_as_prefix_arrives<Exclusive, Backward>(x.data() + start, got.data() + start, n, b, scan, arrived, plain);
                CHECK(plain == std::min(k * part, length));
                detail::offset_line_block_start<Backward>(got.data() + start, b, plain, prefix, scan);
                CHECK(std::memcmp(got.data(), expected.data(), n * sizeof(T)) == 0);
                CHECK(std::memcmp(&total, &expected_total, sizeof(total)) == 0);
            }
        }
    };
    check.template operator()<false, false>();
    check.template operator()<true, false>();
    check.template operator()<false, true>();
    check.template operator()<true, true>();
}

TEMPLATE_TEST_CASE("parallel line scan: a block that switches from plain to prefixed parts at any part is the prefixed block", "[parallel]",
                   double, float, std::int32_t) {
    if constexpr (!simd::vectorized) {
        SUCCEED("scalar builds scan lines one element at a time (scan_layout::strided): no blocks to switch");
    } else {
        check_line_block_switch<TestType>();
    }
}

TEMPLATE_LIST_TEST_CASE("parallel cumulative over few long scans: the fixed blocks give the sequential result", "[parallel]", parallel_types) {
    using T = TestType;
    test_rng rng(std::string("parallel cumulative blocks ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    // Too few lines for the threads, so each long scan is cut into its blocks (ops/detail/scan/blocked.hpp): on the
    // pools (pieces started in order: one pass, each block waiting for the prefix before it) and on the recording
    // executor (pieces in reverse: totals, then the blocks). One line of 2½ blocks; two lines; rows in bands with
    // a ragged vector tail; rows in bands of two, wide enough (half a band) for two threads to cut them by
    // columns instead, every piece keeping the bands of the whole (a piece's own rows would make one band).
    const std::size_t K = tensorops::detail::line_scan_block<T>, m = 3 * tensorops::simd::lanes<T> + 5;
    const std::size_t band = tensorops::detail::band_rows(m, sizeof(T)), wide = tensorops::detail::scan_band_bytes / 2 / sizeof(T);
    REQUIRE(tensorops::detail::band_rows(wide, sizeof(T)) == 2);
    struct shape_case {
        std::vector<std::size_t> sizes;
        std::size_t axis;
        std::vector<std::ptrdiff_t> strides;  // of the input; empty: packed (outputs are packed)
    };
    const auto row = static_cast<std::ptrdiff_t>(m + 3);
    const shape_case shapes[] = {{{2 * K + K / 2 + 7}, 0, {}},
                                 {{2, K + 100}, 1, {static_cast<std::ptrdiff_t>(K + 164), 1}},
                                 {{2 * band + 1, m}, 0, {}},
                                 {{band + 2, 2, m}, 0, {2 * row, row, 1}},
                                 {{3, wide}, 0, {}}};
    std::size_t shape_number = 0;
    for (const auto& [sizes, axis, strides] : shapes) {
        for (int variant = 0; variant < 4; ++variant) {
            // Two variants per shape, a different pair for each: every variant meets at least two shapes. The shapes are
            // megabytes each (the blocks' real sizes): the sanitised builds run one variant per shape, and each type one
            // shape in four (every shape still meets a type).
            const std::size_t combination = shape_number + static_cast<std::size_t>(variant);
            if (combination % 2 != 0 || !tensorops_test::runs_in_this_build(combination, 4) ||
                !tensorops_test::runs_in_this_build(shape_number + tensorops_test::type_position<T, parallel_types>, 4))
                continue;
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
        ++shape_number;
    }
}

TEMPLATE_LIST_TEST_CASE("parallel scatter_nd / gather_nd: bit-identical to sequential for every thread count", "[parallel]", parallel_types_with_bfloat16) {
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
