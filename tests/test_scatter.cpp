// scatter_nd against SEMANTICS.md §3 and §4: the DirectML page example, the ONNX ScatterND examples (with the
// ScatterND-18 reductions), random cases against the reference for every element type × index type × k ×
// reduction × layout (in place and not, duplicates, negative indices, misaligned, broadcast inputs), slice
// lengths around the vector width, NaN in max/min, integer wrap-around, float16 rounding, user-defined
// element types (the refusals: test_scatter_errors.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "index_helpers.hpp"
#include "reference.hpp"
#include "support.hpp"
#include "user_types.hpp"

using namespace tensorops;
using tensorops_test::guarded_buffer;
using tensorops_test::test_rng;
namespace ref = tensorops_test::reference;
namespace tt = tensorops_test;

namespace {

using mode = ref::scatter_mode;
constexpr mode all_modes[] = {mode::none, mode::add, mode::multiply, mode::max, mode::min};

scatter_reduction reduction_of(mode m) { return static_cast<scatter_reduction>(static_cast<int>(m)); }

std::string_view mode_name(mode m) {
    constexpr std::string_view names[] = {"none", "add", "multiply", "max", "min"};
    return names[static_cast<int>(m)];
}

/// scatter_nd on packed float tensors, returning the output.
template <class I = std::int64_t>
std::vector<float> scatter_float(const std::vector<std::size_t>& input_sizes, std::vector<float> input, const std::vector<std::size_t>& index_sizes,
                                 std::vector<I> indices, const std::vector<std::size_t>& update_sizes, std::vector<float> updates,
                                 scatter_reduction reduction = scatter_reduction::none) {
    std::vector<float> output(input.size(), -1.0f);
    scatter_nd(tensor_view<const float>(input.data(), input_sizes), tensor_view<const I>(indices.data(), index_sizes),
               tensor_view<const float>(updates.data(), update_sizes), tensor_view<float>(output.data(), input_sizes), reduction);
    return output;
}

/// A random element for a reduction: float64 add/multiply use small integers (the long-double reference rounds
/// twice for float64, which can differ from one rounding; float32 and float16 have no such gap); max/min
/// sometimes get NaN.
template <class T>
T random_element(test_rng& rng, mode m) {
    if constexpr (std::is_same_v<T, double>)
        if (m == mode::add || m == mode::multiply) return tt::random_value<T>(rng, true);
    if constexpr (std::is_same_v<T, float16> || std::is_floating_point_v<T>)
        if ((m == mode::max || m == mode::min) && rng.chance(0.05)) return static_cast<T>(std::numeric_limits<float>::quiet_NaN());
    return tt::random_value<T>(rng);
}

/// One random case against the reference: random ranks, k, sizes, tuples (duplicates and negative spellings
/// included), layouts and misalignment for all four views; in place or not. Checks the output (bit for bit for
/// `none`), that nothing outside the output was written, and that the inputs are unchanged.
template <class T>
void check_random_scatter(test_rng& rng, tt::index_kind kind, mode m, bool in_place) {
    const std::size_t r = rng.uniform<std::size_t>(1, 5);
    const auto input_sizes = tt::random_sizes(rng, r, 400);
    const std::size_t k = rng.uniform<std::size_t>(1, r);
    const auto tuple_sizes = tt::random_sizes(rng, rng.uniform<std::size_t>(0, 3), rng.chance(0.2) ? 400 : 30);
    std::vector<std::size_t> index_sizes = tuple_sizes, update_sizes = tuple_sizes;
    index_sizes.push_back(k);
    update_sizes.insert(update_sizes.end(), input_sizes.begin() + static_cast<std::ptrdiff_t>(k), input_sizes.end());
    const std::vector<std::size_t> extents(input_sizes.begin(), input_sizes.begin() + static_cast<std::ptrdiff_t>(k));

    const auto pick = [&](bool output_like) {
        return output_like ? tt::output_layout_kinds[rng.uniform<std::size_t>(0, 4)] : tt::input_layout_kinds[rng.uniform<std::size_t>(0, 5)];
    };
    guarded_buffer<T> input(input_sizes, tt::random_strides(rng, input_sizes, pick(in_place)), rng.uniform<std::size_t>(0, 7));
    std::optional<guarded_buffer<T>> separate;
    if (!in_place) separate.emplace(input_sizes, tt::random_strides(rng, input_sizes, pick(true)), rng.uniform<std::size_t>(0, 7));
    guarded_buffer<T>& output = in_place ? input : *separate;
    auto index_strides = tt::random_strides(rng, index_sizes, pick(false));
    if (index_strides.back() == 0) index_strides.back() = 1;  // broadcast tuples, never coordinates (they would mix)
    guarded_buffer<T> updates(update_sizes, tt::random_strides(rng, update_sizes, pick(false)), rng.uniform<std::size_t>(0, 7));

    std::vector<T> input_values(ref::dense<int>::element_count(input_sizes)), update_values(ref::dense<int>::element_count(update_sizes));
    for (auto& v : input_values) v = random_element<T>(rng, m);
    for (auto& v : update_values) v = random_element<T>(rng, m);
    input.assign(input_values);
    updates.assign(update_values);
    const auto tuples = tt::random_tuples(rng, ref::dense<int>::element_count(tuple_sizes), extents, rng.chance(0.3), tt::is_signed(kind));
    // Broadcast views repeat elements: what they hold is what they read back.
    const auto x = input.values(), u = updates.values();

    INFO("index type " << tt::index_kind_name(kind) << ", reduction " << mode_name(m) << (in_place ? ", in place" : "") << ", k " << k
                       << "; input " << tt::describe_layout(input_sizes, input.strides()) << "; output "
                       << tt::describe_layout(input_sizes, output.strides()) << "; indices " << tt::describe_layout(index_sizes, index_strides)
                       << "; updates " << tt::describe_layout(update_sizes, updates.strides()));
    const auto p = tt::run_with_indices(kind, index_sizes, index_strides, rng.uniform<std::size_t>(0, 3), tuples, [&](auto indices) {
        scatter_nd(input.const_view(), indices, updates.const_view(), output.view(), reduction_of(m));
    });

    const auto expected = ref::scatter_nd(ref::dense<T>(input_sizes, x), ref::dense<std::int64_t>(index_sizes, p), ref::dense<T>(update_sizes, u), m);
    tt::check_elements(output.values(), expected.values, m == mode::none);
    REQUIRE(output.untouched_outside_view());
    REQUIRE(updates.untouched_outside_view());
    tt::check_elements(updates.values(), u, true);
    if (!in_place) {
        REQUIRE(input.untouched_outside_view());
        tt::check_elements(input.values(), x, true);
    }
}

// ONNX ScatterND example 2 and the reduction examples: 4×4×4 data.
const std::vector<float> onnx_data{1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1,
                                   8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8};
const std::vector<float> onnx_updates{5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4};

/// onnx_data with block 0 replaced.
std::vector<float> with_first_block(std::vector<float> block) {
    block.insert(block.end(), onnx_data.begin() + 16, onnx_data.end());
    return block;
}

}  // namespace

TEST_CASE("scatter_nd: the DirectML page example, with every index type", "[scatter]") {
    const std::vector<float> input{1, 2, 3, 4, 5, 6, 7, 8}, updates{9, 10, 11, 12};
    const std::vector<float> expected{1, 11, 3, 10, 9, 6, 7, 12};
    CHECK(scatter_float<std::int64_t>({8}, input, {4, 1}, {4, 3, 1, 7}, {4}, updates) == expected);
    CHECK(scatter_float<std::int32_t>({8}, input, {4, 1}, {4, 3, 1, 7}, {4}, updates) == expected);
    CHECK(scatter_float<std::uint32_t>({8}, input, {4, 1}, {4, 3, 1, 7}, {4}, updates) == expected);
    CHECK(scatter_float<std::uint64_t>({8}, input, {4, 1}, {4, 3, 1, 7}, {4}, updates) == expected);
    // Negative spellings of the same indices (−1 is the last element).
    CHECK(scatter_float<std::int32_t>({8}, input, {4, 1}, {-4, -5, -7, -1}, {4}, updates) == expected);
    CHECK(scatter_float<std::int64_t>({8}, input, {4, 1}, {4, -5, 1, -1}, {4}, updates) == expected);
    // In place, with mutable views passed as inputs, and the DirectML form's leading 1s kept in a [1, 4, 1] index array.
    std::vector<float> buffer = input;
    std::vector<std::uint32_t> indices{4, 3, 1, 7};
    scatter_nd(tensor_view<float>(buffer.data(), {8}), tensor_view<std::uint32_t>(indices.data(), {1, 4, 1}),
               tensor_view<const float>(updates.data(), {1, 4}), tensor_view<float>(buffer.data(), {8}));
    CHECK(buffer == expected);
}

TEST_CASE("scatter_nd: the ONNX ScatterND examples", "[scatter]") {
    using v = std::vector<float>;
    // Example 1 (as the DirectML page) and example 2: whole 4×4 blocks.
    CHECK(scatter_float({8}, {1, 2, 3, 4, 5, 6, 7, 8}, {4, 1}, {4, 3, 1, 7}, {4}, {9, 10, 11, 12}) == v{1, 11, 3, 10, 9, 6, 7, 12});
    v expected = onnx_data;
    std::copy(onnx_updates.begin(), onnx_updates.begin() + 16, expected.begin());
    std::copy(onnx_updates.begin() + 16, onnx_updates.end(), expected.begin() + 32);
    CHECK(scatter_float({4, 4, 4}, onnx_data, {2, 1}, {0, 2}, {2, 4, 4}, onnx_updates) == expected);
    // Reductions with the duplicate indices [[0], [0]]: both update blocks land on block 0, in order.
    CHECK(scatter_float({4, 4, 4}, onnx_data, {2, 1}, {0, 0}, {2, 4, 4}, onnx_updates, scatter_reduction::add) ==
          with_first_block({7, 8, 9, 10, 13, 14, 15, 16, 18, 17, 16, 15, 16, 15, 14, 13}));
    CHECK(scatter_float({4, 4, 4}, onnx_data, {2, 1}, {0, 0}, {2, 4, 4}, onnx_updates, scatter_reduction::multiply) ==
          with_first_block({5, 10, 15, 20, 60, 72, 84, 96, 168, 147, 126, 105, 128, 96, 64, 32}));
    CHECK(scatter_float({4, 4, 4}, onnx_data, {2, 1}, {0, 0}, {2, 4, 4}, onnx_updates, scatter_reduction::max) ==
          with_first_block({5, 5, 5, 5, 6, 6, 7, 8, 8, 7, 7, 7, 8, 8, 8, 8}));
    CHECK(scatter_float({4, 4, 4}, onnx_data, {2, 1}, {0, 0}, {2, 4, 4}, onnx_updates, scatter_reduction::min) ==
          with_first_block({1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 3, 2, 1}));
    // Without a reduction the last duplicate wins.
    CHECK(scatter_float({4, 4, 4}, onnx_data, {2, 1}, {0, 0}, {2, 4, 4}, onnx_updates) ==
          with_first_block(v(onnx_updates.begin() + 16, onnx_updates.end())));
    // max / min with element indices [[0, 0], [1, 1]].
    CHECK(scatter_float({2, 2}, {1, 2, 3, 4}, {2, 2}, {0, 0, 1, 1}, {2}, {5, 1}, scatter_reduction::max) == v{5, 2, 3, 4});
    CHECK(scatter_float({2, 2}, {1, 2, 3, 4}, {2, 2}, {0, 0, 1, 1}, {2}, {5, 1}, scatter_reduction::min) == v{1, 2, 3, 1});
}

TEMPLATE_LIST_TEST_CASE("scatter_nd: random shapes, layouts, index types and reductions against the reference", "[scatter]",
                        tensorops_test::random_test_types) {
    using T = TestType;
    test_rng rng("scatter random " + std::string(tt::type_name<T>()));
    INFO(rng.describe());
    for (tt::index_kind kind : tt::all_index_kinds)
        for (mode m : all_modes)
            for (int trial = 0; trial < 8; ++trial) check_random_scatter<T>(rng, kind, m, trial % 3 == 0);
}

TEMPLATE_LIST_TEST_CASE("scatter_nd: slices of every length around the vector width, misaligned, every reduction", "[scatter]",
                        tensorops_test::builtin_types) {
    using T = TestType;
    test_rng rng(std::string("scatter slice lengths ") + std::string(tt::type_name<T>()));
    INFO(rng.describe());
    const std::size_t width = simd::lanes<T>;
    for (std::size_t n = 1; n <= 4 * width + 3; ++n)
        for (mode m : all_modes) {
            // Six rows of n; five tuples, duplicates likely; contiguous rows, so the block kernels run.
            const std::vector<std::size_t> input_sizes{6, n}, index_sizes{5, 1}, update_sizes{5, n};
            guarded_buffer<T> input(input_sizes, tt::random_strides(rng, input_sizes, tt::layout_kind::packed), n % 4);
            guarded_buffer<T> output(input_sizes, tt::random_strides(rng, input_sizes, tt::layout_kind::packed), (n + 1) % 4);
            guarded_buffer<std::int64_t> indices(index_sizes, {1, 1});
            guarded_buffer<T> updates(update_sizes, tt::random_strides(rng, update_sizes, tt::layout_kind::packed), (n + 2) % 4);
            std::vector<T> x(6 * n), u(5 * n);
            for (auto& value : x) value = random_element<T>(rng, m);
            for (auto& value : u) value = random_element<T>(rng, m);
            input.assign(x);
            updates.assign(u);
            const auto p = tt::random_tuples(rng, 5, {6}, true, true);
            indices.assign(p);
            scatter_nd(input.const_view(), indices.const_view(), updates.const_view(), output.view(), reduction_of(m));
            const auto expected = ref::scatter_nd(ref::dense<T>(input_sizes, x), ref::dense<std::int64_t>(index_sizes, p), ref::dense<T>(update_sizes, u), m);
            INFO("n " << n << ", reduction " << mode_name(m));
            tt::check_elements(output.values(), expected.values, m == mode::none);
            REQUIRE(output.untouched_outside_view());
        }
}

TEST_CASE("scatter_nd: many tuples (several chunks), strided and reversed indices, in place", "[scatter]") {
    test_rng rng("scatter many tuples");
    INFO(rng.describe());
    for (int trial = 0; trial < 12; ++trial) {
        const std::vector<std::size_t> input_sizes{37, 29};
        const std::vector<std::size_t> tuple_sizes = trial % 2 ? std::vector<std::size_t>{3, 211} : std::vector<std::size_t>{1000};
        std::vector<std::size_t> index_sizes = tuple_sizes, update_sizes = tuple_sizes;
        index_sizes.push_back(2);
        const auto index_kind = trial % 3 == 0 ? tt::layout_kind::packed : trial % 3 == 1 ? tt::layout_kind::mixed : tt::layout_kind::reversed;
        guarded_buffer<float> buffer(input_sizes, tt::random_strides(rng, input_sizes, tt::layout_kind::padded));
        guarded_buffer<std::int32_t> indices(index_sizes, tt::random_strides(rng, index_sizes, index_kind));
        guarded_buffer<float> updates(update_sizes, tt::random_strides(rng, update_sizes, tt::layout_kind::reversed));
        std::vector<float> x(37 * 29), u(ref::dense<int>::element_count(update_sizes));
        for (auto& value : x) value = tt::random_value<float>(rng);
        for (auto& value : u) value = tt::random_value<float>(rng);
        buffer.assign(x);
        updates.assign(u);
        const auto tuples = tt::random_tuples(rng, u.size(), {37, 29}, false, true);
        indices.assign(std::vector<std::int32_t>(tuples.begin(), tuples.end()));
        const auto p = indices.values();
        const mode m = all_modes[trial % 5];
        scatter_nd(buffer.const_view(), indices.const_view(), updates.const_view(), buffer.view(), reduction_of(m));
        const auto expected = ref::scatter_nd(ref::dense<float>(input_sizes, x), ref::dense<std::int32_t>(index_sizes, p), ref::dense<float>(update_sizes, u), m);
        INFO("trial " << trial << ", reduction " << mode_name(m));
        tt::check_elements(buffer.values(), expected.values, m == mode::none);
        REQUIRE(buffer.untouched_outside_view());
    }
}

TEST_CASE("scatter_nd: duplicates resolve in row-major order of the index array, whatever the strides", "[scatter]") {
    // Four tuples all naming element 2. The updates view walks memory backwards: row-major order of the tuples
    // meets 10, 30, 20, 40 (40 last), memory order meets 40 first.
    const std::vector<float> input{0, 0, 0, 0};
    const std::vector<std::int64_t> twos{2, 2, 2, 2};
    const std::vector<float> backwards{40, 30, 20, 10};  // [2, 2] from the last element, strides {-1, -2}
    std::vector<float> output(4);
    scatter_nd(tensor_view<const float>(input.data(), {4}), tensor_view<const std::int64_t>(twos.data(), {2, 2, 1}, {1, 2, 1}),
               tensor_view<const float>(backwards.data() + 3, {2, 2}, {-1, -2}), tensor_view<float>(output.data(), {4}));
    CHECK(output == std::vector<float>{0, 0, 40, 0});
    // add combines in that order too: row-major updates 1e8, 1, −1e8, 1 give 1 in float (1e8 + 1 rounds to 1e8);
    // stored transposed, memory order would be 1e8, −1e8, 1, 1 and give 2.
    const std::vector<float> transposed{1e8f, -1e8f, 1.0f, 1.0f};  // [2, 2] with strides {1, 2}
    std::vector<float> sum(1, 0.0f);
    const std::vector<std::uint32_t> zeros{0, 0, 0, 0};
    scatter_nd(tensor_view<const float>(sum.data(), {1}), tensor_view<const std::uint32_t>(zeros.data(), {2, 2, 1}),
               tensor_view<const float>(transposed.data(), {2, 2}, {1, 2}), tensor_view<float>(sum.data(), {1}), scatter_reduction::add);
    CHECK(sum[0] == 1.0f);
}

TEMPLATE_LIST_TEST_CASE("scatter_nd: max and min propagate NaN from the element or any update", "[scatter]", tensorops_test::floating_types_with_bfloat16) {
    using T = TestType;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (scatter_reduction reduction : {scatter_reduction::max, scatter_reduction::min}) {
        // Element path: a NaN element meets a number; a number meets NaN, then another number.
        std::vector<T> x{T(1.0f), T(nan), T(3.0f), T(4.0f)}, out(4);
        const std::vector<std::int32_t> indices{0, 1, 2, 2, 3};
        const std::vector<T> updates{T(nan), T(5.0f), T(nan), T(-7.0f), T(0.5f)};
        scatter_nd(tensor_view<const T>(x.data(), {4}), tensor_view<const std::int32_t>(indices.data(), {5, 1}),
                   tensor_view<const T>(updates.data(), {5}), tensor_view<T>(out.data(), {4}), reduction);
        CHECK(std::isnan(static_cast<float>(out[0])));
        CHECK(std::isnan(static_cast<float>(out[1])));
        CHECK(std::isnan(static_cast<float>(out[2])));  // NaN first, then −7: stays NaN
        CHECK(static_cast<float>(out[3]) == (reduction == scatter_reduction::max ? 4.0f : 0.5f));
        // Vector path: rows of 37 with NaN in a few lanes, in the element or in one of two duplicate updates.
        const std::size_t n = 37;
        std::vector<T> rows(2 * n, T(1.0f)), row_updates(2 * n, T(2.0f)), row_out(2 * n);
        rows[3] = T(nan);
        row_updates[17] = T(nan);      // first update of row 0
        row_updates[n + 30] = T(nan);  // second update of row 0
        const std::vector<std::int64_t> row_indices{0, 0};
        scatter_nd(tensor_view<const T>(rows.data(), {2, n}), tensor_view<const std::int64_t>(row_indices.data(), {2, 1}),
                   tensor_view<const T>(row_updates.data(), {2, n}), tensor_view<T>(row_out.data(), {2, n}), reduction);
        for (std::size_t j = 0; j < n; ++j) {
            INFO("lane " << j);
            if (j == 3 || j == 17 || j == 30) CHECK(std::isnan(static_cast<float>(row_out[j])));
            else CHECK(static_cast<float>(row_out[j]) == (reduction == scatter_reduction::max ? 2.0f : 1.0f));
            CHECK(static_cast<float>(row_out[n + j]) == 1.0f);
        }
    }
}

TEST_CASE("scatter_nd: integer add and multiply wrap around", "[scatter]") {
    std::vector<std::int8_t> x{100, 5}, out(2);
    const std::vector<std::int64_t> indices{0, 0, 0, 1};
    const std::vector<std::int8_t> updates{100, 100, 100, -128};
    scatter_nd(tensor_view<const std::int8_t>(x.data(), {2}), tensor_view<const std::int64_t>(indices.data(), {4, 1}),
               tensor_view<const std::int8_t>(updates.data(), {4}), tensor_view<std::int8_t>(out.data(), {2}), scatter_reduction::add);
    CHECK(out == std::vector<std::int8_t>{static_cast<std::int8_t>(400 - 512), static_cast<std::int8_t>(5 - 128)});  // 400 ≡ −112; −123
    scatter_nd(tensor_view<const std::int8_t>(x.data(), {2}), tensor_view<const std::int64_t>(indices.data(), {4, 1}),
               tensor_view<const std::int8_t>(updates.data(), {4}), tensor_view<std::int8_t>(out.data(), {2}), scatter_reduction::multiply);
    CHECK(out == std::vector<std::int8_t>{0, -128});  // 100·100·100·100 = 10^8 ≡ 0 (mod 256); 5·(−128) = −640 ≡ −128
    std::vector<std::int64_t> big{std::numeric_limits<std::int64_t>::max()}, big_out(1);
    const std::vector<std::int64_t> three{3}, zero{0};
    scatter_nd(tensor_view<const std::int64_t>(big.data(), {1}), tensor_view<const std::int64_t>(zero.data(), {1, 1}),
               tensor_view<const std::int64_t>(three.data(), {1}), tensor_view<std::int64_t>(big_out.data(), {1}), scatter_reduction::multiply);
    CHECK(big_out[0] == std::numeric_limits<std::int64_t>::max() - 2);
    scatter_nd(tensor_view<const std::int64_t>(big.data(), {1}), tensor_view<const std::int64_t>(zero.data(), {1, 1}),
               tensor_view<const std::int64_t>(three.data(), {1}), tensor_view<std::int64_t>(big_out.data(), {1}), scatter_reduction::add);
    CHECK(big_out[0] == std::numeric_limits<std::int64_t>::min() + 2);
    // The vector path (rows of 40 uint16) wraps the same way.
    std::vector<std::uint16_t> rows(40, 65535), row_updates(40, 2), row_out(40);
    const std::vector<std::uint64_t> row_index{0};
    scatter_nd(tensor_view<const std::uint16_t>(rows.data(), {1, 40}), tensor_view<const std::uint64_t>(row_index.data(), {1, 1}),
               tensor_view<const std::uint16_t>(row_updates.data(), {1, 40}), tensor_view<std::uint16_t>(row_out.data(), {1, 40}), scatter_reduction::add);
    CHECK(row_out == std::vector<std::uint16_t>(40, 1));
    scatter_nd(tensor_view<const std::uint16_t>(rows.data(), {1, 40}), tensor_view<const std::uint64_t>(row_index.data(), {1, 1}),
               tensor_view<const std::uint16_t>(row_updates.data(), {1, 40}), tensor_view<std::uint16_t>(row_out.data(), {1, 40}), scatter_reduction::multiply);
    CHECK(row_out == std::vector<std::uint16_t>(40, 65534));
}

TEST_CASE("scatter_nd: float16 adds and multiplies in float and rounds once per update", "[scatter]") {
    // 2048 + 1 is a tie in float16 and rounds to even (2048) at each update; 0.1 + 0.2 rounds once from float.
    for (std::size_t n : {1u, 40u}) {  // the scalar and the vector path
        std::vector<float16> x(2 * n, float16(2048.0f)), out(2 * n);
        std::vector<float16> updates(2 * n, float16(1.0f));
        const std::vector<std::int32_t> indices{0, 0};
        scatter_nd(tensor_view<const float16>(x.data(), {2, n}), tensor_view<const std::int32_t>(indices.data(), {2, 1}),
                   tensor_view<const float16>(updates.data(), {2, n}), tensor_view<float16>(out.data(), {2, n}), scatter_reduction::add);
        for (std::size_t j = 0; j < n; ++j) CHECK(static_cast<float>(out[j]) == 2048.0f);
        const float16 a(0.1f), b(0.2f), c(3.0f);
        std::vector<float16> y(n, a), z(n, b), w(n);
        const std::vector<std::int32_t> first{0};
        scatter_nd(tensor_view<const float16>(y.data(), {1, n}), tensor_view<const std::int32_t>(first.data(), {1, 1}),
                   tensor_view<const float16>(z.data(), {1, n}), tensor_view<float16>(w.data(), {1, n}), scatter_reduction::add);
        for (std::size_t j = 0; j < n; ++j) CHECK(w[j].to_bits() == float16(static_cast<float>(a) + static_cast<float>(b)).to_bits());
        std::fill(z.begin(), z.end(), c);
        scatter_nd(tensor_view<const float16>(y.data(), {1, n}), tensor_view<const std::int32_t>(first.data(), {1, 1}),
                   tensor_view<const float16>(z.data(), {1, n}), tensor_view<float16>(w.data(), {1, n}), scatter_reduction::multiply);
        for (std::size_t j = 0; j < n; ++j) CHECK(w[j].to_bits() == float16(static_cast<float>(a) * static_cast<float>(c)).to_bits());
    }
}

using tensorops_test::mod_prime;

namespace {
/// Trivially copyable, no arithmetic and no order: scatter_nd without a reduction only.
struct opaque {
    std::uint32_t bits = 0;
    friend bool operator==(opaque, opaque) = default;
};
}  // namespace

namespace {
/// A trivially copyable element of N bytes (N = 3, 12: no fixed-size move; 16: the largest one).
template <std::size_t N>
struct sized_blob {
    std::array<unsigned char, N> bytes{};
    friend bool operator==(const sized_blob&, const sized_blob&) = default;
};

template <std::size_t N>
void check_single_element_scatter_of_size(test_rng& rng) {
    using B = sized_blob<N>;
    const auto blob = [&] {
        B b;
        for (auto& byte : b.bytes) byte = static_cast<unsigned char>(rng.uniform<int>(0, 255));
        return b;
    };
    constexpr std::size_t n = 37, tuples = 50, pad = 2;  // more tuples than elements: duplicates
    std::vector<B> x(n), u(tuples);
    for (auto& v : x) v = blob();
    for (auto& v : u) v = blob();
    std::vector<std::int32_t> index(tuples);
    for (auto& i : index) i = rng.uniform<std::int32_t>(-static_cast<std::int32_t>(n), static_cast<std::int32_t>(n) - 1);
    std::vector<B> expected = x;  // output = input; then every tuple in order: the last duplicate wins
    for (std::size_t p = 0; p < tuples; ++p) expected[static_cast<std::size_t>(index[p] < 0 ? index[p] + std::int32_t{n} : index[p])] = u[p];
    for (const bool in_place : {false, true}) {
        INFO("element of " << N << " bytes, in place " << in_place);
        std::vector<B> buffer(n + 2 * pad);
        const B canary = blob();
        std::fill(buffer.begin(), buffer.end(), canary);
        if (in_place) std::copy(x.begin(), x.end(), buffer.begin() + pad);
        const tensor_view<B> out(buffer.data() + pad, {n});
        scatter_nd(in_place ? tensor_view<const B>(out) : tensor_view<const B>(x.data(), {n}),
                   tensor_view<const std::int32_t>(index.data(), {tuples, 1}), tensor_view<const B>(u.data(), {tuples}), out);
        CHECK(std::vector<B>(buffer.begin() + pad, buffer.begin() + pad + n) == expected);
        for (std::size_t k = 0; k < pad; ++k) CHECK((buffer[k] == canary && buffer[pad + n + k] == canary));
    }
}
}  // namespace

// Single elements without a reduction are moved with a size known at compile time for 1, 2, 4, 8 and 16 bytes
// (ops/detail/tuples/fused_copy.hpp, copy_tuples); every other size takes the run-time size. The builtin types cover 1–8 bytes.
TEST_CASE("scatter_nd: single elements of 3, 12, 16 and 24 bytes, duplicates and negative indices", "[scatter]") {
    test_rng rng("scatter element sizes");
    INFO(rng.describe());
    check_single_element_scatter_of_size<3>(rng);
    check_single_element_scatter_of_size<12>(rng);
    check_single_element_scatter_of_size<16>(rng);
    check_single_element_scatter_of_size<24>(rng);
}

TEST_CASE("scatter_nd: user-defined element types", "[scatter]") {
    test_rng rng("scatter user types");
    INFO(rng.describe());
    // mod_prime has +, * and <: every reduction, against the reference (which uses the same operators).
    for (int trial = 0; trial < 40; ++trial) {
        const mode m = all_modes[trial % 5];
        const std::vector<std::size_t> input_sizes{7, 5}, index_sizes{9, 1}, update_sizes{9, 5};
        guarded_buffer<mod_prime> buffer(input_sizes, tt::random_strides(rng, input_sizes, tt::layout_kind::mixed));
        guarded_buffer<mod_prime> output(input_sizes, tt::random_strides(rng, input_sizes, tt::layout_kind::transposed));
        std::vector<mod_prime> x(35), u(45);
        for (auto& v : x) v.value = rng.uniform<std::int64_t>(0, mod_prime::p - 1);
        for (auto& v : u) v.value = rng.uniform<std::int64_t>(0, mod_prime::p - 1);
        buffer.assign(x);
        const auto p = tt::random_tuples(rng, 9, {7}, trial % 2 == 0, true);
        const bool in_place = trial % 3 == 0;
        auto& out = in_place ? buffer : output;
        scatter_nd(buffer.const_view(), tensor_view<const std::int64_t>(p.data(), index_sizes), tensor_view<const mod_prime>(u.data(), update_sizes),
                   out.view(), reduction_of(m));
        const auto expected = ref::scatter_nd(ref::dense<mod_prime>(input_sizes, x), ref::dense<std::int64_t>(index_sizes, p),
                                              ref::dense<mod_prime>(update_sizes, u), m);
        INFO("trial " << trial << ", reduction " << mode_name(m));
        CHECK(out.values() == expected.values);
        CHECK(out.untouched_outside_view());
    }
    // A type with no operators: no reduction works, `none` does (block copies of a trivially copyable type).
    std::vector<opaque> x{{1}, {2}, {3}}, out(3);
    const std::vector<opaque> updates{{7}};
    const std::vector<std::uint32_t> index{1};
    scatter_nd(tensor_view<const opaque>(x.data(), {3}), tensor_view<const std::uint32_t>(index.data(), {1, 1}),
               tensor_view<const opaque>(updates.data(), {1}), tensor_view<opaque>(out.data(), {3}));
    CHECK(out == std::vector<opaque>{{1}, {7}, {3}});
    for (scatter_reduction reduction : {scatter_reduction::add, scatter_reduction::multiply, scatter_reduction::max, scatter_reduction::min}) {
        const std::vector<opaque> before = out;
        tt::expect_error([&] {
            scatter_nd(tensor_view<const opaque>(x.data(), {3}), tensor_view<const std::uint32_t>(index.data(), {1, 1}),
                       tensor_view<const opaque>(updates.data(), {1}), tensor_view<opaque>(out.data(), {3}), reduction);
        }, "scatter_nd", "reduction");
        CHECK(out == before);
    }
    // Not trivially copyable: element-wise assignment, slices included.
    std::vector<std::string> words{"a", "b", "c", "d"}, replaced(4);
    const std::vector<std::string> new_words{"x", "y"};
    const std::vector<std::int32_t> rows{-1};
    scatter_nd(tensor_view<const std::string>(words.data(), {2, 2}), tensor_view<const std::int32_t>(rows.data(), {1, 1}),
               tensor_view<const std::string>(new_words.data(), {1, 2}), tensor_view<std::string>(replaced.data(), {2, 2}));
    CHECK(replaced == std::vector<std::string>{"a", "b", "x", "y"});
}

TEST_CASE("scatter_nd: empty tensors", "[scatter]") {
    // No tuples: output = input.
    std::vector<float> x{1, 2, 3}, out(3, -1.0f);
    scatter_nd(tensor_view<const float>(x.data(), {3}), tensor_view<const std::int64_t>(nullptr, {0, 1}),
               tensor_view<const float>(nullptr, {0}), tensor_view<float>(out.data(), {3}));
    CHECK(out == x);
    // Tuples whose slices are empty: validated, nothing written.
    std::vector<float> empty_out(1, -1.0f);
    const std::vector<std::int64_t> index{1};
    scatter_nd(tensor_view<const float>(nullptr, {2, 0}), tensor_view<const std::int64_t>(index.data(), {1, 1}),
               tensor_view<const float>(nullptr, {1, 0}), tensor_view<float>(empty_out.data(), {2, 0}));
    CHECK(empty_out[0] == -1.0f);
    const std::vector<std::int64_t> bad{2};
    tt::expect_error([&] {
        scatter_nd(tensor_view<const float>(nullptr, {2, 0}), tensor_view<const std::int64_t>(bad.data(), {1, 1}),
                   tensor_view<const float>(nullptr, {1, 0}), tensor_view<float>(empty_out.data(), {2, 0}));
    }, "scatter_nd", "indices");
    // A tuple into a dimension of size 0 has no valid value.
    const std::vector<std::int64_t> zero{0};
    const std::vector<float> pair{5, 6};
    const auto rule = tt::expect_error([&] {
        scatter_nd(tensor_view<const float>(nullptr, {0, 2}), tensor_view<const std::int64_t>(zero.data(), {1, 1}),
                   tensor_view<const float>(pair.data(), {1, 2}), tensor_view<float>(empty_out.data(), {0, 2}));
    }, "scatter_nd", "indices");
    CHECK(rule.find("size 0") != std::string::npos);
}

TEST_CASE("scatter_nd: updates may share memory with the input (both are only read)", "[scatter]") {
    std::vector<float> x{1, 2, 3, 4, 5, 6}, out(6);
    const std::vector<std::int64_t> rows{0};
    // updates = row 1 of the input itself.
    scatter_nd(tensor_view<const float>(x.data(), {2, 3}), tensor_view<const std::int64_t>(rows.data(), {1, 1}),
               tensor_view<const float>(x.data() + 3, {1, 3}), tensor_view<float>(out.data(), {2, 3}));
    CHECK(out == std::vector<float>{4, 5, 6, 4, 5, 6});
}
