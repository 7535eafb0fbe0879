// parallel execution of the reductions (reduce, argmax, argmin): results bit-identical to the sequential ones for every
// element type and thread count; the pool, the executors, scans and scatter are in test_parallel.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <span>
#include <string>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "parallel_support.hpp"
#include "support.hpp"

using namespace tensorops;
using namespace tensorops_test::parallel;
using tensorops_test::guarded_buffer;
using tensorops_test::layout_kind;
using tensorops_test::test_rng;

TEST_CASE("executors: small reductions never reach the executor; an executor's own failure propagates from a reduction", "[parallel]") {
    std::vector<float> x(1000, 1.0f), sums(10, 0.0f);
    recording_executor recorder;
    reduce(recorder, tensor_view<const float>(x.data(), {10, 100}), tensor_view<float>(sums.data(), {10, 1}), reduce_function::sum, {1});
    CHECK(recorder.calls == 0);
    CHECK(sums[9] == 100.0f);

    std::vector<float> big(1 << 20, 1.0f), out(1024);
    refusing_executor refusing;
    CHECK_THROWS_MATCHES(reduce(refusing, tensor_view<const float>(big.data(), {1024, 1024}), tensor_view<float>(out.data(), {1024, 1}),
                                reduce_function::sum, {1}),
                         std::runtime_error, Catch::Matchers::Message("the host's pool is shutting down"));
}

// ---------------------------------------------------------------------------------------------
// Bit-identical results.

TEMPLATE_LIST_TEST_CASE("parallel reduce: bit-identical to sequential for every thread count", "[parallel]", parallel_types_with_bfloat16) {
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
            const std::vector<std::size_t> axes = random_axes(rng, rank);
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

// A reduction of a range of an outer kept axis — every axis before it kept, a reduced axis after it — is a piece of
// the whole nest: its outputs must come out as the whole tensor's, bit for bit, whether the range is a view into the
// same memory or a packed copy of it (the outer axes' strides then shorter: what an MPI rank holds of a row-sharded
// tensor; tensorops::mpi reduces such shards locally on this promise). Single rows included (the one-line kernels take
// only lines longer than a short row).
TEMPLATE_LIST_TEST_CASE("reduce of a range of an outer kept axis: every output as the whole tensor's", "[parallel]", parallel_types_with_bfloat16) {
    using T = TestType;
    test_rng rng(std::string("range of a kept axis ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    std::vector<reduce_function> functions = {reduce_function::sum, reduce_function::max, reduce_function::min, reduce_function::multiply,
                                              reduce_function::l1, reduce_function::sum_square};
    if constexpr (!std::is_integral_v<T>)
        functions.insert(functions.end(), {reduce_function::l2, reduce_function::average, reduce_function::log_sum, reduce_function::log_sum_exp});
    const int trials = tensorops_test::sanitized_build ? 30 : 150;  // the sanitisers watch memory: a share of the shapes
    for (int trial = 0; trial < trials; ++trial) {
        const std::size_t rank = rng.uniform<std::size_t>(2, 4);
        std::vector<std::size_t> sizes(rank);
        for (auto& size : sizes) size = rng.uniform<std::size_t>(1, 9);
        if (rng.chance(0.4)) sizes[rng.uniform<std::size_t>(0, rank - 1)] = rng.uniform<std::size_t>(60, 2500);
        const std::size_t axis = rng.uniform<std::size_t>(0, rank - 2);
        sizes[axis] = std::max<std::size_t>(sizes[axis], 2);
        std::vector<std::size_t> axes;
        for (std::size_t d = axis + 1; d < rank; ++d)
            if (d + 1 == rank || rng.chance(0.5)) axes.push_back(d);
        if (sizes[axes.back()] == 1) sizes[axes.back()] = 2;
        const reduce_function function = functions[rng.uniform<std::size_t>(0, functions.size() - 1)];
        std::size_t count = 1, inner = 1, outer = 1;
        for (std::size_t size : sizes) count *= size;
        for (std::size_t d = axis + 1; d < rank; ++d) inner *= sizes[d];
        for (std::size_t d = 0; d < axis; ++d) outer *= sizes[d];
        std::vector<T> x(count);
        for (auto& v : x) v = function == reduce_function::multiply ? static_cast<T>(rng.uniform_real(0.9, 1.1)) : tensorops_test::random_value<T>(rng);
        if (function == reduce_function::log_sum)
            for (auto& v : x) v = static_cast<T>(std::fabs(static_cast<double>(v)));
        std::vector<std::size_t> out_sizes = sizes;
        for (std::size_t d : axes) out_sizes[d] = 1;
        std::size_t group = 1;
        for (std::size_t d : axes) group *= sizes[d];
        const std::size_t out_inner = inner / group;
        std::vector<T> whole(count / group);
        reduce(tensor_view<const T>(x.data(), sizes), tensor_view<T>(whole.data(), out_sizes), function, axes);
        const std::size_t begin = rng.uniform<std::size_t>(0, sizes[axis] - 1);
        const std::size_t length = rng.chance(0.4) ? 1 : rng.uniform<std::size_t>(1, sizes[axis] - begin);
        std::vector<std::size_t> part_sizes = sizes, part_out_sizes = out_sizes;
        part_sizes[axis] = part_out_sizes[axis] = length;
        std::vector<T> packed(outer * length * inner);
        for (std::size_t o = 0; o < outer; ++o)
            std::copy_n(x.data() + (o * sizes[axis] + begin) * inner, length * inner, packed.data() + o * length * inner);
        std::vector<std::ptrdiff_t> strides(rank);  // the whole tensor's, for the range as a view into its memory
        for (std::size_t d = rank, step = 1; d-- > 0; step *= sizes[d]) strides[d] = static_cast<std::ptrdiff_t>(step);
        std::vector<T> from_packed(outer * length * out_inner), from_view(from_packed.size());
        reduce(tensor_view<const T>(packed.data(), part_sizes), tensor_view<T>(from_packed.data(), part_out_sizes), function, axes);
        reduce(tensor_view<const T>(x.data() + begin * inner, part_sizes, strides), tensor_view<T>(from_view.data(), part_out_sizes), function, axes);
        std::size_t wrong = 0;
        for (std::size_t o = 0; o < outer; ++o)
            for (std::size_t i = 0; i < length * out_inner; ++i) {
                const T& expected = whole[(o * sizes[axis] + begin) * out_inner + i];
                if (!tensorops_test::same_bits(from_packed[o * length * out_inner + i], expected)) ++wrong;
                if (!tensorops_test::same_bits(from_view[o * length * out_inner + i], expected)) ++wrong;
            }
        INFO("function " << static_cast<int>(function) << ", " << rank << " axes, range [" << begin << ", " << begin + length << ") of axis " << axis
                         << " of " << sizes[axis]);
        CHECK(wrong == 0);
    }
}

TEMPLATE_LIST_TEST_CASE("parallel argmax/argmin: bit-identical to sequential for every thread count", "[parallel]", parallel_types_with_bfloat16) {
    using T = TestType;
    test_rng rng(std::string("parallel argmax ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    std::size_t split = 0, cases = 0;
    for (int trial = 0; trial < 8; ++trial) {
        const std::size_t rank = rng.uniform<std::size_t>(1, 4);
        const auto sizes = large_sizes<T>(rng, rank, 40, 80);
        const std::vector<std::size_t> axes = random_axes(rng, rank);
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

TEMPLATE_LIST_TEST_CASE("parallel reductions over rows: bands of rows give the sequential result, cascade edges included", "[parallel]",
                        parallel_types) {
    using T = TestType;
    test_rng rng(std::string("parallel bands ") + std::string(tensorops_test::type_name<T>()));
    INFO(rng.describe());
    struct shape {
        std::size_t rows, columns, row_stride;
    };
    // Whole and partial cascade blocks (128 rows), past 128 blocks (the total row), rows wider than a panel, rows
    // that are narrow but not back to back (so not fused), narrow back-to-back rows fused into wide ones with rows
    // left over (the last unit's: 16685 rows of 24 are 388 rows of 43 and one, of 22 doubles 758 and 9), a band count
    // that does not divide the rows; log-sum-exp is cut into bands from two of its blocks (lse_block_rows) on.
    constexpr std::size_t lse_rows = 2 * tensorops::detail::lse_block_rows + 44;
    const shape shapes[] = {{16384 + 300, 16, 20}, {257, 2500, 2500}, {lse_rows, 1024, 1031}, {131, 2200, 2200}, {16685, 24, 24}};
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
        // The ties are for argmax/argmin; sums of small integers come out exact in any order, so the reductions
        // take real values (and the NaNs), on which a band combined in another order than the sequential walk's
        // shows in f32 and f64 (checked by reversing the combination: float16's final rounding hides it).
        guarded_buffer<T> reduce_input({s.rows, s.columns}, {static_cast<std::ptrdiff_t>(s.row_stride), 1});
        if constexpr (!std::is_integral_v<T>) {
            for (auto& v : values)
                if (!std::isnan(static_cast<float>(v))) v = static_cast<T>(rng.uniform_real(-1.0, 1.0));
        }
        reduce_input.assign(values);
        const std::vector<std::size_t> out_sizes{1, s.columns};
        const std::vector<std::ptrdiff_t> out_strides{static_cast<std::ptrdiff_t>(s.columns), 1};
        std::vector<reduce_function> functions{reduce_function::sum, reduce_function::max, reduce_function::min, reduce_function::multiply};
        if constexpr (!std::is_integral_v<T>) functions.push_back(reduce_function::log_sum_exp);
        for (std::size_t function_index = 0; function_index < functions.size(); ++function_index) {
            if (!tensorops_test::runs_in_this_build(shape_index + function_index)) continue;
            const reduce_function function = functions[function_index];
            INFO("function " << static_cast<int>(function));
            const std::size_t pieces = check_same_for_every_executor<T>(out_sizes, out_strides, [&](auto& exec, auto y) {
                reduce(exec, reduce_input.const_view(), y, function, {0});
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

// Float16 rows over the rows are folded in far-apart pairs (ops/detail/reduce/outer.hpp, row_units) whose units the bands share
// out, fused rows (with one left over) included: random values and a NaN, so that a unit left out, taken twice or
// paired with the wrong rows would show (a mere change of order mostly would not, under the rounding to float16).
TEST_CASE("parallel reductions over rows: float16 rows folded in far-apart pairs give the sequential result", "[parallel]") {
    using T = float16;
    test_rng rng("parallel far row pairs");
    INFO(rng.describe());
    struct shape {
        std::size_t rows, columns;
    };
    const shape shapes[] = {{4099, 1024}, {1029, 2056}};
    const reduce_function functions[] = {reduce_function::sum, reduce_function::max, reduce_function::l1, reduce_function::sum_square,
                                         reduce_function::average};
    for (std::size_t shape_index = 0; shape_index < std::size(shapes); ++shape_index) {
        const shape& s = shapes[shape_index];
        INFO("rows " << s.rows << ", columns " << s.columns);
        guarded_buffer<T> input({s.rows, s.columns}, {static_cast<std::ptrdiff_t>(s.columns), 1});
        std::vector<T> values(s.rows * s.columns);
        for (auto& v : values) v = static_cast<T>(rng.uniform_real(-1.0, 1.0));
        values[rng.uniform<std::size_t>(0, values.size() - 1)] = std::numeric_limits<T>::quiet_NaN();
        input.assign(values);
        const std::vector<std::size_t> out_sizes{1, s.columns};
        const std::vector<std::ptrdiff_t> out_strides{static_cast<std::ptrdiff_t>(s.columns), 1};
        for (std::size_t function_index = 0; function_index < std::size(functions); ++function_index) {
            if (!tensorops_test::runs_in_this_build(shape_index + function_index)) continue;
            INFO("function " << static_cast<int>(functions[function_index]));
            CHECK(was_cut(check_same_for_every_executor<T>(out_sizes, out_strides, [&](auto& exec, auto y) {
                reduce(exec, input.const_view(), y, functions[function_index], {0});
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

// ---------------------------------------------------------------------------------------------
// Line hints (simd::line_hints_pay): a speed setting chosen by the CPU, which must never change a result.

TEST_CASE("line hints: the streaming kernels give the same bits with their line hints on and off", "[parallel]") {
    struct restore_automatic {
        ~restore_automatic() { simd::set_line_hints(simd::line_hints::automatic); }
    } restore;
    test_rng rng("line hints");
    INFO(rng.describe());
    // Inputs of 1 MiB or more (line_hints_min_bytes), each through a kernel that hints its lines: the inner kernel
    // (SUM, MAX, log-sum-exp's one pass) over rows of 1024 and over one line, the short-row log-sum-exp kernel (rows
    // of 100), argmax's stretches; and the short-row reductions' rows read one by one (combine_rows_hinting_lines:
    // rows of 256 bytes or more, inputs of 16 MiB or more — 32 MiB here, so that each of two threads' halves is hinted
    // too); sequentially and on two threads.
    const std::size_t rows = 512, columns = 1024, short_rows = 4096, short_length = 100;
    const std::size_t hinted_rows = 65536, hinted_length = 128;  // rows of 512 bytes, 32 MiB
    std::vector<float> x(rows * columns), hinted(hinted_rows * hinted_length);
    for (float& v : x) v = static_cast<float>(rng.uniform_real(-4.0, 4.0));
    for (std::size_t i = 0; i < hinted.size(); ++i) hinted[i] = x[(i * 7919) % x.size()] + static_cast<float>(i % 13);
    const auto run_all = [&](simd::line_hints setting) {
        simd::set_line_hints(setting);
        CHECK(simd::line_hints_pay() == (setting == simd::line_hints::on));
        std::vector<float> values;
        std::vector<std::int64_t> indices;
        thread_pool pool(2);
        const auto on_both = [&](auto&& body) {
            body(sequential);
            body(pool);
        };
        const tensor_view<const float> matrix(x.data(), {rows, columns}), line(x.data(), {rows * columns}),
            short_matrix(x.data(), {short_rows, short_length}), hinted_matrix(hinted.data(), {hinted_rows, hinted_length});
        for (reduce_function function : {reduce_function::sum, reduce_function::max, reduce_function::log_sum_exp}) {
            on_both([&](auto& exec) {
                std::vector<float> per_row(rows), whole(1), per_short_row(short_rows), per_hinted_row(hinted_rows);
                reduce(exec, matrix, tensor_view<float>(per_row.data(), {rows, 1}), function, {1});
                reduce(exec, line, tensor_view<float>(whole.data(), {1}), function, {0});
                reduce(exec, short_matrix, tensor_view<float>(per_short_row.data(), {short_rows, 1}), function, {1});
                reduce(exec, hinted_matrix, tensor_view<float>(per_hinted_row.data(), {hinted_rows, 1}), function, {1});
                for (const auto* part : {&per_row, &whole, &per_short_row, &per_hinted_row})
                    values.insert(values.end(), part->begin(), part->end());
            });
        }
        on_both([&](auto& exec) {
            std::vector<std::int64_t> per_row(rows), whole(1);
            argmax(exec, matrix, tensor_view<std::int64_t>(per_row.data(), {rows, 1}), {1});
            argmax(exec, line, tensor_view<std::int64_t>(whole.data(), {1}), {0});
            indices.insert(indices.end(), per_row.begin(), per_row.end());
            indices.push_back(whole[0]);
        });
        return std::pair(values, indices);
    };
    const auto [values_on, indices_on] = run_all(simd::line_hints::on);
    const auto [values_off, indices_off] = run_all(simd::line_hints::off);
    REQUIRE(values_on.size() == values_off.size());
    CHECK(std::memcmp(values_on.data(), values_off.data(), values_on.size() * sizeof(float)) == 0);
    CHECK(indices_on == indices_off);
    // The values are the operators' own (not, say, all zero): the per-row sums of the sequential run against a
    // plain double sum.
    for (std::size_t row = 0; row < rows; row += 97) {
        double sum = 0;
        for (std::size_t j = 0; j < columns; ++j) sum += x[row * columns + j];
        CHECK(values_on[row] == Approx(sum).margin(1e-3));
    }
    // …and the hinted short rows' sums and maxima (the sequential run's SUM, then MAX, of each row of 128).
    const std::size_t sums_at = rows + 1 + short_rows, per_function = 2 * (rows + 1 + short_rows + hinted_rows);
    for (std::size_t row = 0; row < hinted_rows; row += 4099) {
        double sum = 0;
        float top = hinted[row * hinted_length];
        for (std::size_t j = 0; j < hinted_length; ++j) {
            sum += hinted[row * hinted_length + j];
            top = std::max(top, hinted[row * hinted_length + j]);
        }
        CHECK(values_on[sums_at + row] == Approx(sum).margin(1e-3));
        CHECK(values_on[per_function + sums_at + row] == top);
    }
}

TEST_CASE("line hints: the CPU family test matches one family at most, never family 0", "[parallel]") {
    CHECK_FALSE(simd::amd_family_is(0));
    int matches = 0;
    for (unsigned family = 0; family < 0x40; ++family) matches += simd::amd_family_is(family) ? 1 : 0;
    CHECK(matches <= 1);
    simd::set_line_hints(simd::line_hints::automatic);
    CHECK(simd::line_hints_pay() == simd::amd_family_is(0x1A));
}

TEST_CASE("AVX-512 kernels: log-sum-exp gives the same bits with its 512-bit loops as without, over random shapes and values",
          "[parallel]") {
    struct restore_automatic {
        ~restore_automatic() { simd::set_avx512_kernels(simd::avx512_kernels::automatic); }
    } restore;
    test_rng rng("avx512 log-sum-exp");
    INFO(rng.describe());
    INFO("CPU runs AVX-512F: " << simd::cpu_runs_avx512f() << "; this build has the 512-bit loops: "
                               << tensorops::detail::has_avx512_log_sum_exp<float>);
    simd::set_avx512_kernels(simd::avx512_kernels::off);
    CHECK_FALSE(simd::avx512_kernels_run());
    simd::set_avx512_kernels(simd::avx512_kernels::automatic);
    CHECK(simd::avx512_kernels_run() == simd::cpu_runs_avx512f());

    thread_pool pool(2);
    const int trials = tensorops_test::sanitized_build ? 12 : 40;  // the sanitisers watch a share of the shapes, the optimised builds all
    for (int trial = 0; trial < trials; ++trial) {
        // Row counts around the loop's groups of 8 and blocks of 256, widths around 8 and 16 lanes (the outer loop's
        // masked last step) and lengths around the one pass's 32-float steps, its vectors left over and its tail.
        const std::size_t rows = rng.chance(0.3) ? rng.uniform<std::size_t>(1, 20) : rng.uniform<std::size_t>(20, 700);
        const std::size_t columns = rng.chance(0.5) ? rng.uniform<std::size_t>(1, 40) : rng.uniform<std::size_t>(129, 3000);
        std::vector<float> x(rows * columns);
        const double spread = rng.chance(0.2) ? 200.0 : 4.0;  // wide values: references out of reach, redone from cache
        for (float& v : x) v = static_cast<float>(rng.uniform_real(-spread, spread));
        if (rng.chance(0.3)) {  // a few specials: NaN, ±inf (lanes and runs redone in two passes)
            const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                      -std::numeric_limits<float>::infinity()};
            for (int k = rng.uniform<int>(1, 3); k > 0; --k) x[rng.uniform<std::size_t>(0, x.size() - 1)] = specials[rng.uniform<int>(0, 2)];
        }
        if (rng.chance(0.2)) std::fill(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(x.size(), 4 * columns)), -1e4f);
        INFO("trial " << trial << ": [" << rows << ", " << columns << "]");
        const tensor_view<const float> matrix(x.data(), {rows, columns}), line(x.data(), {rows * columns});
        const auto run_all = [&](simd::avx512_kernels setting) {
            simd::set_avx512_kernels(setting);
            std::vector<float> values;
            for (int on_pool = 0; on_pool < 2; ++on_pool) {
                std::vector<float> per_column(columns), per_row(rows), whole(1);
                const auto go = [&](auto& exec) {
                    reduce(exec, matrix, tensor_view<float>(per_column.data(), {1, columns}), reduce_function::log_sum_exp, {0});
                    reduce(exec, matrix, tensor_view<float>(per_row.data(), {rows, 1}), reduce_function::log_sum_exp, {1});
                    reduce(exec, line, tensor_view<float>(whole.data(), {1}), reduce_function::log_sum_exp, {0});
                };
                if (on_pool != 0) go(pool);
                else go(sequential);
                for (const auto* part : {&per_column, &per_row, &whole}) values.insert(values.end(), part->begin(), part->end());
            }
            return values;
        };
        const std::vector<float> with = run_all(simd::avx512_kernels::automatic), without = run_all(simd::avx512_kernels::off);
        REQUIRE(with.size() == without.size());
        CHECK(std::memcmp(with.data(), without.data(), with.size() * sizeof(float)) == 0);
        // The values are log-sum-exps (not, say, all zero): the first column's against a plain double one — NaN where
        // the column holds one, else its maximum where that is ±inf, else m + log Σ e^(x − m).
        bool has_nan = false;
        double maximum = -std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < rows; ++i) {
            const double v = x[i * columns];
            has_nan = has_nan || std::isnan(v);
            maximum = std::max(maximum, v);
        }
        if (has_nan) {
            CHECK(std::isnan(with[0]));
        } else if (!std::isfinite(maximum)) {
            CHECK(with[0] == static_cast<float>(maximum));
        } else {
            double sum = 0;
            for (std::size_t i = 0; i < rows; ++i) sum += std::exp(static_cast<double>(x[i * columns]) - maximum);
            CHECK(with[0] == Approx(maximum + std::log(sum)).epsilon(1e-5).margin(1e-5));
        }
    }
}
