// tensorops::dml execution: the DirectML page examples (SEMANTICS.md §1–§3) through descriptors, and random
// descriptor round trips against the typed API for every data type, every operator, random layouts.
// This translation unit also defines dml_test::run (dml_helpers.hpp), the test binary's one instantiation of
// tensorops::dml::execute: the round trips instantiate the same typed operators, so they are compiled once.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "dml_helpers.hpp"
#include "support.hpp"

using namespace tensorops::dml;
using dml_test::dml_tensor;
using tensorops::axis_direction;
using tensorops::reduce_function;
using tensorops_test::test_rng;
using type = tensor_data_type;

namespace dml_test {

void run(const cumulative_summation_operator_desc& desc, const void* input, void* output) { execute(desc, input, output); }
void run(const cumulative_product_operator_desc& desc, const void* input, void* output) { execute(desc, input, output); }
void run(const reduce_operator_desc& desc, const void* input, void* output) { execute(desc, input, output); }
void run(const argmax_operator_desc& desc, const void* input, void* output) { execute(desc, input, output); }
void run(const argmin_operator_desc& desc, const void* input, void* output) { execute(desc, input, output); }
void run(const scatter_nd_operator_desc& desc, const void* input, const void* indices, const void* updates, void* output) {
    execute(desc, input, indices, updates, output);
}

}  // namespace dml_test

// ---------------------------------------------------------------------------------------------
// The page examples

TEST_CASE("dml pages: cumulative summation and product, the four examples of each") {
    const std::vector<float> input{2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4};
    struct row {
        std::uint32_t axis;
        axis_direction direction;
        bool exclusive;
        std::vector<float> sum, product;
    };
    const row rows[] = {
        {3, axis_direction::increasing, false, {2, 3, 6, 11, 3, 11, 18, 21, 9, 15, 17, 21}, {2, 2, 6, 30, 3, 24, 168, 504, 9, 54, 108, 432}},
        {3, axis_direction::increasing, true, {0, 2, 3, 6, 0, 3, 11, 18, 0, 9, 15, 17}, {1, 2, 2, 6, 1, 3, 24, 168, 1, 9, 54, 108}},
        {3, axis_direction::decreasing, false, {11, 9, 8, 5, 21, 18, 10, 3, 21, 12, 6, 4}, {30, 15, 15, 5, 504, 168, 21, 3, 432, 48, 8, 4}},
        {2, axis_direction::increasing, false, {2, 1, 3, 5, 5, 9, 10, 8, 14, 15, 12, 12}, {2, 1, 3, 5, 6, 8, 21, 15, 54, 48, 42, 60}},
    };
    dml_tensor x(type::float32, {1, 1, 3, 4}), y(type::float32, {1, 1, 3, 4});
    x.assign(input);
    for (const auto& r : rows) {
        INFO("axis " << r.axis << (r.direction == axis_direction::decreasing ? " decreasing" : " increasing") << (r.exclusive ? " exclusive" : ""));
        dml_test::run(cumulative_summation_operator_desc{x.desc(), y.desc(), r.axis, r.direction, r.exclusive}, x.data(), y.data());
        CHECK(y.values<float>() == r.sum);
        dml_test::run(cumulative_product_operator_desc{x.desc(), y.desc(), r.axis, r.direction, r.exclusive}, x.data(), y.data());
        CHECK(y.values<float>() == r.product);
    }
}

TEST_CASE("dml pages: reduce SUM over columns, rows and the whole tensor") {
    dml_tensor x(type::float32, {3, 3});
    x.assign<float>({1, 2, 3, 3, 0, 4, 2, 4, 2});
    struct row {
        std::vector<std::uint32_t> axes, out_sizes;
        std::vector<float> expected;
    };
    const row rows[] = {{{0}, {1, 3}, {6, 6, 9}}, {{1}, {3, 1}, {6, 7, 8}}, {{0, 1}, {1, 1}, {21}}, {{1, 0}, {1, 1}, {21}}};
    for (const auto& r : rows) {
        dml_tensor y(type::float32, r.out_sizes);
        dml_test::run(reduce_operator_desc{reduce_function::sum, x.desc(), y.desc(), static_cast<std::uint32_t>(r.axes.size()), r.axes.data()}, x.data(),
                y.data());
        CHECK(y.values<float>() == r.expected);
    }
}

TEST_CASE("dml pages: argmax and argmin, through their own descriptors and through reduce") {
    dml_tensor x(type::float32, {3, 3});
    x.assign<float>({1, 2, 3, 3, 0, 4, 2, 5, 2});
    struct row {
        std::vector<std::uint32_t> axes, out_sizes;
        std::vector<std::int64_t> argmax, argmin;
    };
    const row rows[] = {{{0, 1}, {1, 1}, {7}, {4}}, {{0}, {1, 3}, {1, 2, 1}, {0, 1, 2}}, {{1}, {3, 1}, {2, 2, 1}, {0, 1, 0}}};
    for (const auto& r : rows) {
        dml_tensor y(type::int64, r.out_sizes), y32(type::uint32, r.out_sizes);
        const auto count = static_cast<std::uint32_t>(r.axes.size());
        dml_test::run(argmax_operator_desc{x.desc(), y.desc(), count, r.axes.data()}, x.data(), y.data());
        CHECK(y.values<std::int64_t>() == r.argmax);
        dml_test::run(argmin_operator_desc{x.desc(), y.desc(), count, r.axes.data()}, x.data(), y.data());
        CHECK(y.values<std::int64_t>() == r.argmin);
        dml_test::run(reduce_operator_desc{reduce_function::argmax, x.desc(), y32.desc(), count, r.axes.data()}, x.data(), y32.data());
        CHECK(y32.values<std::uint32_t>() == std::vector<std::uint32_t>(r.argmax.begin(), r.argmax.end()));
        dml_test::run(reduce_operator_desc{reduce_function::argmin, x.desc(), y32.desc(), count, r.axes.data()}, x.data(), y32.data());
        CHECK(y32.values<std::uint32_t>() == std::vector<std::uint32_t>(r.argmin.begin(), r.argmin.end()));
    }
    // DECREASING: the last extreme. Column 1 of [[1,2,3],[3,0,4],[2,5,2]] has one maximum; make a tie.
    x.assign<float>({5, 2, 3, 3, 0, 4, 5, 5, 2});
    dml_tensor y(type::int32, {1, 1});
    const std::uint32_t all[] = {0, 1};
    dml_test::run(argmax_operator_desc{x.desc(), y.desc(), 2, all, axis_direction::increasing}, x.data(), y.data());
    CHECK(y.values<std::int32_t>() == std::vector<std::int32_t>{0});
    dml_test::run(argmax_operator_desc{x.desc(), y.desc(), 2, all, axis_direction::decreasing}, x.data(), y.data());
    CHECK(y.values<std::int32_t>() == std::vector<std::int32_t>{7});
}

TEST_CASE("dml pages: scatter-ND in its legal padded form (Input {1,8}, Indices {4,1}, Updates {1,4}, m = 1, q = 2)") {
    dml_tensor input(type::float32, {1, 8}), indices(type::uint32, {4, 1}), updates(type::float32, {1, 4}), output(type::float32, {1, 8});
    input.assign<float>({1, 2, 3, 4, 5, 6, 7, 8});
    indices.assign<std::uint32_t>({4, 3, 1, 7});
    updates.assign<float>({9, 10, 11, 12});
    dml_test::run(scatter_nd_operator_desc{input.desc(), indices.desc(), updates.desc(), output.desc(), 1, 2}, input.data(), indices.data(),
            updates.data(), output.data());
    CHECK(output.values<float>() == std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12});
}

TEST_CASE("dml: scatter-ND with one element per tuple and a single tuple (updates of meaningful rank 0)") {
    // Input {1,2,3} (m = 2), Indices {1,1,2} (q = 1, k = 2): one tuple, one element.
    dml_tensor input(type::int16, {1, 2, 3}), indices(type::int32, {1, 1, 2}), updates(type::int16, {1, 1, 1}), output(type::int16, {1, 2, 3});
    input.assign<std::int16_t>({1, 2, 3, 4, 5, 6});
    indices.assign<std::int32_t>({1, -2});
    updates.assign<std::int16_t>({-7});
    dml_test::run(scatter_nd_operator_desc{input.desc(), indices.desc(), updates.desc(), output.desc(), 2, 1}, input.data(), indices.data(),
            updates.data(), output.data());
    CHECK(output.values<std::int16_t>() == std::vector<std::int16_t>{1, 2, 3, 4, -7, 6});
}

// ---------------------------------------------------------------------------------------------
// Random round trips against the typed API

namespace {

/// Random unsigned strides for `sizes`: none (packed), explicit packed, transposed, padded, or (inputs only)
/// broadcast.
std::vector<std::uint32_t> random_dml_strides(test_rng& rng, const std::vector<std::uint32_t>& sizes, bool input) {
    using tensorops_test::layout_kind;
    const layout_kind kinds[] = {layout_kind::packed, layout_kind::transposed, layout_kind::padded, layout_kind::broadcast};
    const std::size_t pick = rng.uniform<std::size_t>(0, input ? 4 : 3);
    if (pick == 0) return {};
    const std::vector<std::size_t> wide(sizes.begin(), sizes.end());
    const auto strides = tensorops_test::random_strides(rng, wide, kinds[pick - 1]);
    return std::vector<std::uint32_t>(strides.begin(), strides.end());
}

std::vector<std::uint32_t> random_dml_sizes(test_rng& rng, std::size_t rank, std::size_t max_elements) {
    const auto sizes = tensorops_test::random_sizes(rng, rank, max_elements);
    return std::vector<std::uint32_t>(sizes.begin(), sizes.end());
}

template <class T>
void fill_random(test_rng& rng, dml_tensor& tensor, bool small = false) {
    std::size_t count = 1;
    for (auto s : tensor.sizes()) count *= s;
    std::vector<T> values(count);
    for (auto& v : values) v = tensorops_test::random_value<T>(rng, small);
    tensor.assign(values);
}

/// Calls f(std::type_identity<I>{}) for the index type `which` (0..3).
template <class F>
void with_index_type(std::size_t which, F&& f) {
    switch (which) {
        case 0: f(std::type_identity<std::int64_t>{}); break;
        case 1: f(std::type_identity<std::int32_t>{}); break;
        case 2: f(std::type_identity<std::uint64_t>{}); break;
        default: f(std::type_identity<std::uint32_t>{}); break;
    }
}

template <class T>
void cumulative_round_trip(test_rng& rng, bool product) {
    const std::size_t rank = rng.uniform<std::size_t>(1, 5);
    const auto sizes = random_dml_sizes(rng, rank, 400);
    const bool in_place = rng.chance(0.25);
    const auto input_strides = random_dml_strides(rng, sizes, !in_place);
    const auto output_strides = in_place ? input_strides : random_dml_strides(rng, sizes, false);
    dml_tensor x(data_type_of<T>, sizes, input_strides), y(data_type_of<T>, sizes, output_strides), expected(data_type_of<T>, sizes, output_strides);
    fill_random<T>(rng, x, product);
    const auto axis = rng.uniform<std::uint32_t>(0, static_cast<std::uint32_t>(rank - 1));
    const auto direction = rng.chance(0.5) ? axis_direction::decreasing : axis_direction::increasing;
    const bool exclusive = rng.chance(0.5);
    INFO((product ? "product" : "sum") << " rank " << rank << " axis " << axis << (in_place ? " in place" : ""));
    const tensorops::scan_options options{axis, direction, exclusive};
    if (in_place) {
        expected.restore(x.snapshot());
        if (product) tensorops::cumulative_product<T>(expected.view<T>(), expected.view<T>(), options);
        else tensorops::cumulative_sum<T>(expected.view<T>(), expected.view<T>(), options);
        if (product) dml_test::run(cumulative_product_operator_desc{x.desc(), x.desc(), axis, direction, exclusive}, x.data(), x.data());
        else dml_test::run(cumulative_summation_operator_desc{x.desc(), x.desc(), axis, direction, exclusive}, x.data(), x.data());
        CHECK(x.snapshot() == expected.snapshot());
        return;
    }
    if (product) tensorops::cumulative_product<T>(x.view<const T>(), expected.view<T>(), options);
    else tensorops::cumulative_sum<T>(x.view<const T>(), expected.view<T>(), options);
    if (product) dml_test::run(cumulative_product_operator_desc{x.desc(), y.desc(), axis, direction, exclusive}, x.data(), y.data());
    else dml_test::run(cumulative_summation_operator_desc{x.desc(), y.desc(), axis, direction, exclusive}, x.data(), y.data());
    CHECK(y.snapshot() == expected.snapshot());
}

/// Reduce (a random function the table allows), argmax or argmin (kind 0, 1, 2).
template <class T>
void reduce_round_trip(test_rng& rng, int kind) {
    const std::size_t rank = rng.uniform<std::size_t>(1, 5);
    const auto sizes = random_dml_sizes(rng, rank, 400);
    std::vector<std::uint32_t> axes;
    for (std::uint32_t d = 0; d < rank; ++d)
        if (rng.chance(0.5)) axes.push_back(d);
    if (axes.empty()) axes.push_back(rng.uniform<std::uint32_t>(0, static_cast<std::uint32_t>(rank - 1)));
    std::shuffle(axes.begin(), axes.end(), rng.engine());  // a set: order is irrelevant
    std::vector<std::uint32_t> out_sizes = sizes;
    std::vector<std::size_t> typed_axes;
    for (auto a : axes) {
        out_sizes[a] = 1;
        typed_axes.push_back(a);
    }
    dml_tensor x(data_type_of<T>, sizes, random_dml_strides(rng, sizes, true));
    fill_random<T>(rng, x, false);
    const auto out_strides = random_dml_strides(rng, out_sizes, false);
    const auto count = static_cast<std::uint32_t>(axes.size());
    if (kind == 0) {
        reduce_function function;
        do function = static_cast<reduce_function>(rng.uniform<int>(2, 11));
        while (!dml_test::reduce_accepts(function, data_type_of<T>));
        INFO("reduce function " << static_cast<int>(function) << " rank " << rank);
        dml_tensor y(data_type_of<T>, out_sizes, out_strides), expected(data_type_of<T>, out_sizes, out_strides);
        tensorops::reduce(x.view<const T>(), expected.view<T>(), function, std::span<const std::size_t>(typed_axes));
        dml_test::run(reduce_operator_desc{function, x.desc(), y.desc(), count, axes.data()}, x.data(), y.data());
        CHECK(y.snapshot() == expected.snapshot());
        return;
    }
    with_index_type(rng.uniform<std::size_t>(0, 3), [&]<class I>(std::type_identity<I>) {
        const bool maximum = kind == 1;
        const auto direction = rng.chance(0.5) ? axis_direction::decreasing : axis_direction::increasing;
        INFO((maximum ? "argmax" : "argmin") << " rank " << rank << " index type " << data_type_name(data_type_of<I>));
        dml_tensor y(data_type_of<I>, out_sizes, out_strides), expected(data_type_of<I>, out_sizes, out_strides);
        if (maximum) {
            tensorops::argmax(x.view<const T>(), expected.view<I>(), std::span<const std::size_t>(typed_axes), direction);
            dml_test::run(argmax_operator_desc{x.desc(), y.desc(), count, axes.data(), direction}, x.data(), y.data());
        } else {
            tensorops::argmin(x.view<const T>(), expected.view<I>(), std::span<const std::size_t>(typed_axes), direction);
            dml_test::run(argmin_operator_desc{x.desc(), y.desc(), count, axes.data(), direction}, x.data(), y.data());
        }
        CHECK(y.snapshot() == expected.snapshot());
    });
}

template <class T>
void scatter_round_trip(test_rng& rng) {
    const std::size_t rank = rng.uniform<std::size_t>(1, 5);
    const std::size_t m = rng.uniform<std::size_t>(1, rank), k = rng.uniform<std::size_t>(1, m);
    std::size_t q = rng.uniform<std::size_t>(1, rank);
    while ((q - 1) + (m - k) > rank) --q;
    const std::size_t u = (q - 1) + (m - k);
    std::vector<std::uint32_t> input_sizes(rank, 1), index_sizes(rank, 1), update_sizes(rank, 1);
    for (std::size_t d = rank - m; d < rank; ++d) input_sizes[d] = rng.uniform<std::uint32_t>(1, 5);
    for (std::size_t d = rank - q; d + 1 < rank; ++d) index_sizes[d] = rng.uniform<std::uint32_t>(1, 4);
    index_sizes[rank - 1] = static_cast<std::uint32_t>(k);
    std::size_t position = rank - u;
    for (std::size_t d = rank - q; d + 1 < rank; ++d) update_sizes[position++] = index_sizes[d];
    for (std::size_t d = rank - m + k; d < rank; ++d) update_sizes[position++] = input_sizes[d];
    with_index_type(rng.uniform<std::size_t>(0, 3), [&]<class I>(std::type_identity<I>) {
        const bool in_place = rng.chance(0.25);
        const auto input_strides = random_dml_strides(rng, input_sizes, !in_place);
        const auto output_strides = in_place ? input_strides : random_dml_strides(rng, input_sizes, false);
        dml_tensor input(data_type_of<T>, input_sizes, input_strides), indices(data_type_of<I>, index_sizes, random_dml_strides(rng, index_sizes, false)),
            updates(data_type_of<T>, update_sizes, random_dml_strides(rng, update_sizes, true)), output(data_type_of<T>, input_sizes, output_strides),
            expected(data_type_of<T>, input_sizes, output_strides);
        fill_random<T>(rng, input);
        fill_random<T>(rng, updates);
        std::size_t tuples = 1;
        for (auto s : index_sizes) tuples *= s;
        tuples /= k;
        std::vector<I> coordinates;
        for (std::size_t t = 0; t < tuples; ++t)
            for (std::size_t c = 0; c < k; ++c) {
                const auto extent = static_cast<std::int64_t>(input_sizes[rank - m + c]);
                const std::int64_t low = std::is_signed_v<I> ? -extent : 0;
                coordinates.push_back(static_cast<I>(rng.uniform<std::int64_t>(low, extent - 1)));
            }
        indices.assign(coordinates);
        INFO("scatter rank " << rank << " m " << m << " q " << q << " k " << k << " index type " << data_type_name(data_type_of<I>)
                             << (in_place ? " in place" : ""));
        const scatter_nd_operator_desc desc{input.desc(),
                                            indices.desc(),
                                            updates.desc(),
                                            in_place ? input.desc() : output.desc(),
                                            static_cast<std::uint32_t>(m),
                                            static_cast<std::uint32_t>(q)};
        if (in_place) {
            expected.restore(input.snapshot());
            tensorops::scatter_nd<T, I>(expected.view<const T>(rank - m), indices.view<const I>(rank - q), updates.view<const T>(rank - u),
                                        expected.view<T>(rank - m));
            dml_test::run(desc, input.data(), indices.data(), updates.data(), input.data());
            CHECK(input.snapshot() == expected.snapshot());
        } else {
            tensorops::scatter_nd<T, I>(input.view<const T>(rank - m), indices.view<const I>(rank - q), updates.view<const T>(rank - u),
                                        expected.view<T>(rank - m));
            dml_test::run(desc, input.data(), indices.data(), updates.data(), output.data());
            CHECK(output.snapshot() == expected.snapshot());
        }
    });
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("dml: random descriptors give exactly what the typed API gives", "", tensorops_test::random_test_types) {
    using T = TestType;
    test_rng rng(std::string("dml round trip ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    for (int trial = 0; trial < 120; ++trial) {
        switch (trial % 6) {
            case 0: cumulative_round_trip<T>(rng, false); break;
            case 1: cumulative_round_trip<T>(rng, true); break;
            case 2: reduce_round_trip<T>(rng, 0); break;
            case 3: reduce_round_trip<T>(rng, 1); break;
            case 4: reduce_round_trip<T>(rng, 2); break;
            default: scatter_round_trip<T>(rng); break;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Executors

namespace {

/// Pieces from 4 KiB of traffic on (the default is 256 KiB): small tensors exercise the cutting, fast.
constexpr std::size_t dml_piece_bytes = 4 << 10;

/// Counts the pieces it is given and runs them in reverse order on the calling thread.
struct counting_executor {
    std::size_t pieces = 0;
    [[nodiscard]] std::size_t concurrency() const { return 3; }
    [[nodiscard]] std::size_t min_piece_bytes() const { return dml_piece_bytes; }
    template <class Task>
    void parallel_for(std::size_t count, const Task& task) {
        pieces += count;
        for (std::size_t i = count; i-- > 0;) task(i);
    }
};

/// Runs `call(executor, output)` sequentially, on pools of 2, 3 and 8 threads and on a counting executor: every
/// output equals the sequential one byte for byte, and the counting executor saw more than one piece.
template <class Call>
void check_every_executor(dml_tensor& output, const Call& call) {
    call(tensorops::sequential);
    const auto expected = output.snapshot();
    for (std::size_t threads : {2u, 3u, 8u}) {
        INFO("threads: " << threads);
        output.restore(std::vector<unsigned char>(expected.size(), 0));
        tensorops::thread_pool pool(threads, dml_piece_bytes);
        call(pool);
        CHECK(output.snapshot() == expected);
    }
    output.restore(std::vector<unsigned char>(expected.size(), 0));
    counting_executor counter;
    call(counter);
    CHECK(output.snapshot() == expected);
    CHECK(counter.pieces > 1);
}

}  // namespace

TEST_CASE("dml: execute on an executor gives the sequential result byte for byte, for every operator") {
    test_rng rng("dml executors");
    INFO(rng.describe());
    // Enough rows for log-sum-exp along them to be cut into bands (two of its blocks, detail::lse_block_rows).
    constexpr auto rows = static_cast<std::uint32_t>(2 * tensorops::detail::lse_block_rows + 88);
    constexpr std::uint32_t columns = 256;
    dml_tensor x(type::float32, {1, 1, rows, columns});
    std::vector<float> values(std::size_t{rows} * columns);
    for (auto& v : values) v = static_cast<float>(rng.uniform_real(-1.0, 1.0));
    x.assign(values);

    dml_tensor scanned(type::float32, {1, 1, rows, columns});
    for (std::uint32_t axis : {2u, 3u}) {
        INFO("cumulative along axis " << axis);
        check_every_executor(scanned, [&](auto& exec) {
            execute(exec, cumulative_summation_operator_desc{x.desc(), scanned.desc(), axis, axis_direction::decreasing, true}, x.data(),
                    scanned.data());
        });
        check_every_executor(scanned, [&](auto& exec) {
            execute(exec, cumulative_product_operator_desc{x.desc(), scanned.desc(), axis, axis_direction::increasing, false}, x.data(),
                    scanned.data());
        });
    }

    const std::uint32_t outer_axis[] = {2};
    dml_tensor column_sums(type::float32, {1, 1, 1, columns});
    check_every_executor(column_sums, [&](auto& exec) {
        execute(exec, reduce_operator_desc{reduce_function::log_sum_exp, x.desc(), column_sums.desc(), 1, outer_axis}, x.data(), column_sums.data());
    });
    const std::uint32_t inner_axis[] = {3};
    dml_tensor row_maxima(type::uint32, {1, 1, rows, 1});
    check_every_executor(row_maxima, [&](auto& exec) {
        execute(exec, argmax_operator_desc{x.desc(), row_maxima.desc(), 1, inner_axis, axis_direction::decreasing}, x.data(), row_maxima.data());
    });
    dml_tensor column_minima(type::int64, {1, 1, 1, columns});
    check_every_executor(column_minima, [&](auto& exec) {
        execute(exec, argmin_operator_desc{x.desc(), column_minima.desc(), 1, outer_axis, axis_direction::increasing}, x.data(),
                column_minima.data());
    });

    // Scatter-ND: 100 row tuples (duplicates among them) into the rows of x.
    dml_tensor indices(type::int32, {1, 1, 100, 1}), updates(type::float32, {1, 1, 100, columns}), scattered(type::float32, {1, 1, rows, columns});
    std::vector<std::int32_t> tuples(100);
    for (auto& t : tuples) t = rng.uniform<std::int32_t>(0, rows - 1);
    indices.assign(tuples);
    updates.assign(std::vector<float>(std::size_t{100} * columns, 7.0f));
    check_every_executor(scattered, [&](auto& exec) {
        execute(exec, scatter_nd_operator_desc{x.desc(), indices.desc(), updates.desc(), scattered.desc(), 2, 2}, x.data(), indices.data(),
                updates.data(), scattered.data());
    });
}
