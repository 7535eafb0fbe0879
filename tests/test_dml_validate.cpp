// tensorops::dml validation: calc_buffer_tensor_size, then one test per rule of SEMANTICS.md §0–§3, each naming
// the descriptor field it expects in the error — and proving that a rejected execute leaves the output as it was.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <tensorops/tensorops.hpp>

#include "dml_helpers.hpp"

using namespace tensorops::dml;
using dml_test::dml_tensor;
using dml_test::expect_error;
using tensorops::axis_direction;
using tensorops::reduce_function;
using type = tensor_data_type;

namespace {

constexpr std::uint32_t u32_max = std::numeric_limits<std::uint32_t>::max();

/// A valid cumulative summation over a float32 {2,3} tensor, for rules to break one field at a time.
struct cumulative_case {
    dml_tensor input{type::float32, {2, 3}}, output{type::float32, {2, 3}};
    cumulative_summation_operator_desc desc{input.desc(), output.desc(), 1, axis_direction::increasing, false};
    void run() { dml_test::run(desc, input.data(), output.data()); }
};

/// A valid reduce (SUM over axis 0) of a float32 {2,3} tensor into {1,3}.
struct reduce_case {
    dml_tensor input{type::float32, {2, 3}}, output{type::float32, {1, 3}};
    std::vector<std::uint32_t> axes{0};
    reduce_operator_desc desc{reduce_function::sum, input.desc(), output.desc(), 1, axes.data()};
    void run() { dml_test::run(desc, input.data(), output.data()); }
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// The vocabulary

TEST_CASE("dml: data types, reduce functions and axis directions have DirectML's numeric values") {
    STATIC_REQUIRE(static_cast<std::uint32_t>(type::unknown) == 0);
    STATIC_REQUIRE(static_cast<std::uint32_t>(type::float32) == 1);
    STATIC_REQUIRE(static_cast<std::uint32_t>(type::float16) == 2);
    STATIC_REQUIRE(static_cast<std::uint32_t>(type::uint32) == 3);
    STATIC_REQUIRE(static_cast<std::uint32_t>(type::uint16) == 4);
    STATIC_REQUIRE(static_cast<std::uint32_t>(type::uint8) == 5);
    STATIC_REQUIRE(static_cast<std::uint32_t>(type::int32) == 6);
    STATIC_REQUIRE(static_cast<std::uint32_t>(type::int16) == 7);
    STATIC_REQUIRE(static_cast<std::uint32_t>(type::int8) == 8);
    STATIC_REQUIRE(static_cast<std::uint32_t>(type::float64) == 9);
    STATIC_REQUIRE(static_cast<std::uint32_t>(type::uint64) == 10);
    STATIC_REQUIRE(static_cast<std::uint32_t>(type::int64) == 11);
    STATIC_REQUIRE(static_cast<int>(reduce_function::argmax) == 0);
    STATIC_REQUIRE(static_cast<int>(reduce_function::sum_square) == 11);
    STATIC_REQUIRE(static_cast<int>(axis_direction::decreasing) == 1);
    STATIC_REQUIRE(sizeof(tensor_data_type) == 4);
    const std::uint32_t sizes[] = {0, 4, 2, 4, 2, 1, 4, 2, 1, 8, 8, 8};
    for (std::uint32_t t = 0; t < 12; ++t) CHECK(element_size(static_cast<type>(t)) == sizes[t]);
    CHECK(element_size(static_cast<type>(12)) == 0);
    CHECK(data_type_name(type::float16) == "FLOAT16");
    CHECK(data_type_name(static_cast<type>(99)) == "INVALID");
    STATIC_REQUIRE(data_type_of<tensorops::float16> == type::float16);
    STATIC_REQUIRE(data_type_of<std::uint64_t> == type::uint64);
    STATIC_REQUIRE(data_type_of<char> == type::unknown);
    // One switch maps each data type to its C++ type.
    for (std::uint32_t t = 1; t < 12; ++t)
        CHECK(visit_data_type(static_cast<type>(t), []<class T>(std::type_identity<T>) { return data_type_of<T>; }) == static_cast<type>(t));
    expect_error([] { visit_data_type(type::unknown, []<class T>(std::type_identity<T>) {}); }, "dml", "data_type");
    expect_error([] { visit_index_type(type::int16, []<class T>(std::type_identity<T>) {}); }, "dml", "data_type");
}

TEST_CASE("dml: BFLOAT16 is an extension data type outside DirectML's values, accepted wherever FLOAT16 is") {
    STATIC_REQUIRE(static_cast<std::uint32_t>(type::bfloat16) >= 0x8000'0000u);  // DirectML's values count up from 0
    STATIC_REQUIRE(data_type_of<tensorops::bfloat16> == type::bfloat16);
    CHECK((is_known(type::bfloat16) && element_size(type::bfloat16) == 2 && data_type_name(type::bfloat16) == "BFLOAT16"));
    for (const std::uint32_t near : {0x8000'0000u, 0x8000'0002u, 0x0000'0001u | 0x4000'0000u, 13u, u32_max}) {
        CHECK_FALSE(is_known(static_cast<type>(near)));
        CHECK(element_size(static_cast<type>(near)) == 0);
        CHECK(data_type_name(static_cast<type>(near)) == "INVALID");
    }
    CHECK(visit_data_type(type::bfloat16, []<class T>(std::type_identity<T>) { return data_type_of<T>; }) == type::bfloat16);
    CHECK(types::all.contains(type::bfloat16));
    CHECK_FALSE(types::index.contains(type::bfloat16));
    CHECK(data_type_set{type::float16, type::bfloat16}.describe() == "FLOAT16, BFLOAT16");
    CHECK(calc_buffer_tensor_size({type::bfloat16, 0, nullptr, nullptr, 0, 0}) == 4);
    // A mismatch names both types; a value type as an argmax output or a scatter index is rejected.
    dml_tensor x(type::bfloat16, {2, 3}), y(type::float16, {2, 3}), indices(type::bfloat16, {1, 1}), updates(type::bfloat16, {1, 3});
    const std::string rule = expect_error([&] { validate(cumulative_summation_operator_desc{x.desc(), y.desc(), 1}); }, "dml::cumulative_summation",
                                          "output_tensor.data_type");
    CHECK(rule.find("is FLOAT16 but input_tensor.data_type is BFLOAT16") != std::string::npos);
    const std::uint32_t axes[] = {1};
    dml_tensor reduced(type::bfloat16, {2, 1});
    expect_error([&] { validate(argmax_operator_desc{x.desc(), reduced.desc(), 1, axes}); }, "dml::argmax", "output_tensor.data_type");
    expect_error([&] { validate(scatter_nd_operator_desc{x.desc(), indices.desc(), updates.desc(), x.desc(), 2, 2}); }, "dml::scatter_nd",
                 "indices_tensor.data_type");
    // Executed: the typed operator's bits (the random descriptors of test_dml_execute.cpp cover every operator).
    dml_tensor out(type::bfloat16, {2, 3});
    x.assign(std::vector<tensorops::bfloat16>{tensorops::bfloat16(1.0f), tensorops::bfloat16(256.0f), tensorops::bfloat16(1.0f),
                                              tensorops::bfloat16(0.5f), tensorops::bfloat16(-2.0f), tensorops::bfloat16(3.0f)});
    dml_test::run(cumulative_summation_operator_desc{x.desc(), out.desc(), 1}, x.data(), out.data());
    const auto sums = out.values<tensorops::bfloat16>();
    // 1 + 256 = 257 is output as 256 (a tie, to even); the float carry then gives 258, where a bfloat16 one gives 256.
    CHECK((float(sums[1]) == 256.0f && float(sums[2]) == 258.0f && float(sums[5]) == 1.5f));
}

// ---------------------------------------------------------------------------------------------
// calc_buffer_tensor_size

TEST_CASE("dml: calc_buffer_tensor_size is DMLCalcBufferTensorSize: packed, strided, rounded up to 4 bytes") {
    const std::uint32_t sizes[] = {2, 3, 5};
    buffer_tensor_desc desc{type::float32, 3, sizes, nullptr, 0, 0};
    CHECK(calc_buffer_tensor_size(desc) == 2 * 3 * 5 * 4);
    desc.data_type = type::float64;
    CHECK(calc_buffer_tensor_size(desc) == 2 * 3 * 5 * 8);
    desc.data_type = type::int8;
    CHECK(calc_buffer_tensor_size(desc) == 32);  // 30 bytes rounded up to 32
    desc.data_type = type::float16;
    const std::uint32_t strides[] = {40, 10, 1};  // padded rows: last element at 1·40 + 2·10 + 4·1 = 64
    desc.strides = strides;
    CHECK(calc_buffer_tensor_size(desc) == 132);  // 65 halves = 130 bytes → 132
    const std::uint32_t broadcast[] = {0, 0, 0};
    desc.strides = broadcast;
    CHECK(calc_buffer_tensor_size(desc) == 4);  // one element, 2 bytes → 4
    const std::uint32_t with_zero[] = {2, 0, 5};
    desc.sizes = with_zero;
    CHECK(calc_buffer_tensor_size(desc) == 0);
}

TEST_CASE("dml: calc_buffer_tensor_size never overflows: 64-bit arithmetic, saturated beyond it") {
    const std::uint32_t big[] = {u32_max, u32_max, u32_max, u32_max, u32_max, u32_max, u32_max, u32_max};
    buffer_tensor_desc desc{type::float64, 8, big, nullptr, 0, 0};
    CHECK(calc_buffer_tensor_size(desc) == std::numeric_limits<std::uint64_t>::max());  // (2^32−1)^8 · 8 saturates
    desc.strides = big;
    CHECK(calc_buffer_tensor_size(desc) == std::numeric_limits<std::uint64_t>::max());
    const std::uint32_t one_dim[] = {u32_max};
    desc = {type::float64, 1, one_dim, nullptr, 0, 0};
    CHECK(calc_buffer_tensor_size(desc) == std::uint64_t{u32_max} * 8);  // the 32-bit DirectML helper would wrap here
    const std::uint32_t two_dims[] = {65536, 65536}, strides[] = {65536, 1};
    desc = {type::int8, 2, two_dims, strides, 0, 0};
    CHECK(calc_buffer_tensor_size(desc) == std::uint64_t{1} << 32);
}

TEST_CASE("dml: calc_buffer_tensor_size rejects an unknown data type, a rank above 8 and null sizes") {
    const std::uint32_t sizes[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    const std::string operation = "dml::calc_buffer_tensor_size";
    expect_error([&] { (void)calc_buffer_tensor_size({type::unknown, 1, sizes, nullptr, 0, 0}); }, operation, "data_type");
    expect_error([&] { (void)calc_buffer_tensor_size({static_cast<type>(12), 1, sizes, nullptr, 0, 0}); }, operation, "data_type");
    expect_error([&] { (void)calc_buffer_tensor_size({type::float32, 9, sizes, nullptr, 0, 0}); }, operation, "dimension_count");
    expect_error([&] { (void)calc_buffer_tensor_size({type::float32, 2, nullptr, nullptr, 0, 0}); }, operation, "sizes");
}

TEST_CASE("dml: calc_buffer_tensor_size of a rank-0 tensor is one element, rounded up to 4 bytes (sizes may be null)") {
    CHECK(calc_buffer_tensor_size({type::float32, 0, nullptr, nullptr, 0, 0}) == 4);
    CHECK(calc_buffer_tensor_size({type::float64, 0, nullptr, nullptr, 0, 0}) == 8);
    CHECK(calc_buffer_tensor_size({type::int8, 0, nullptr, nullptr, 0, 0}) == 4);
    CHECK(calc_buffer_tensor_size({type::float16, 0, nullptr, nullptr, 0, 0}) == 4);
}

// ---------------------------------------------------------------------------------------------
// §0: buffer tensor descriptors (each rule through an operator, with the output left as it was)

TEST_CASE("dml rule: a tensor descriptor must be present") {
    cumulative_case c;
    c.desc.output_tensor = nullptr;
    expect_error([&] { c.run(); }, "dml::cumulative_summation", "output_tensor");
    reduce_case r;
    r.desc.input_tensor = nullptr;
    expect_error([&] { r.run(); }, "dml::reduce", "input_tensor");
}

TEST_CASE("dml rule: the data type must be known") {
    for (std::uint32_t bad : {0u, 12u, 255u}) {
        cumulative_case c;
        c.input.edit().data_type = static_cast<type>(bad);
        const auto rule = expect_error([&] { c.run(); }, "dml::cumulative_summation", "input_tensor.data_type");
        CHECK(rule.find(std::to_string(bad)) != std::string::npos);
    }
}

TEST_CASE("dml rule: the rank (dimension_count) must be in 1..8 (0..8 for the reductions)") {
    for (std::uint32_t bad : {0u, 9u, 1000u}) {
        cumulative_case c;
        c.output.edit().dimension_count = bad;
        expect_error([&] { c.run(); }, "dml::cumulative_summation", "output_tensor.dimension_count");
    }
    for (std::uint32_t bad : {9u, 1000u}) {
        reduce_case r;
        r.input.edit().dimension_count = bad;
        expect_error([&] { r.run(); }, "dml::reduce", "input_tensor.dimension_count");
    }
    const std::vector<std::uint32_t> eight(8, 1);
    dml_tensor x(type::float32, eight), y(type::float32, eight);
    dml_test::run(cumulative_summation_operator_desc{x.desc(), y.desc(), 7}, x.data(), y.data());  // rank 8 is fine
}

TEST_CASE("dml rule: sizes must be present and none may be 0") {
    cumulative_case c;
    c.input.edit().sizes = nullptr;
    expect_error([&] { c.run(); }, "dml::cumulative_summation", "input_tensor.sizes");
    const std::uint32_t zero[] = {2, 0};
    cumulative_case d;
    d.output.edit().sizes = zero;
    const auto rule = expect_error([&] { d.run(); }, "dml::cumulative_summation", "output_tensor.sizes");
    CHECK(rule.find("size 1 is 0") != std::string::npos);
}

TEST_CASE("dml rule: at most 2^32 - 1 elements") {
    const std::uint32_t sizes[] = {65536, 65536};  // 2^32 elements
    buffer_tensor_desc big{type::int8, 2, sizes, nullptr, std::uint64_t{1} << 32, 0};
    const std::uint32_t axes[] = {0, 1};
    const std::uint32_t one[] = {1, 1};
    buffer_tensor_desc out{type::int8, 2, one, nullptr, 4, 0};
    expect_error([&] { validate(reduce_operator_desc{reduce_function::max, &big, &out, 2, axes}); }, "dml::reduce", "input_tensor.sizes");
    const std::uint32_t huge[] = {u32_max, u32_max, u32_max, u32_max, u32_max, u32_max, u32_max, u32_max};
    buffer_tensor_desc overflow{type::int8, 8, huge, nullptr, std::numeric_limits<std::uint64_t>::max(), 0};
    expect_error([&] { validate(cumulative_summation_operator_desc{&overflow, &overflow, 0}); }, "dml::cumulative_summation",
                 "input_tensor.sizes");
    const std::uint32_t largest[] = {65535, 65537};  // 2^32 − 1 elements: allowed
    buffer_tensor_desc fits{type::int8, 2, largest, nullptr, std::uint64_t{1} << 32, 0};
    validate(reduce_operator_desc{reduce_function::max, &fits, &out, 2, axes});
}

TEST_CASE("dml rule: strides, when present, must keep every offset below 2^32 - 1") {
    cumulative_case c;
    const std::uint32_t strides[] = {u32_max, 1};
    c.input.edit().strides = strides;
    c.input.edit().total_tensor_size_in_bytes = std::numeric_limits<std::uint64_t>::max();
    const auto rule = expect_error([&] { c.run(); }, "dml::cumulative_summation", "input_tensor.strides");
    CHECK(rule.find("4294967297") != std::string::npos);  // the last element's offset, 2^32 − 1 + 2
    const std::uint32_t saturating[] = {u32_max, u32_max};
    const std::uint32_t sizes[] = {u32_max, 1};
    buffer_tensor_desc wide{type::int8, 2, sizes, saturating, std::numeric_limits<std::uint64_t>::max(), 0};
    expect_error([&] { validate(cumulative_summation_operator_desc{&wide, &wide, 0}); }, "dml::cumulative_summation", "input_tensor.strides");
}

TEST_CASE("dml rule: total_tensor_size_in_bytes must be at least the computed minimum") {
    cumulative_case c;
    c.input.edit().total_tensor_size_in_bytes = 23;  // needs 24
    const auto rule = expect_error([&] { c.run(); }, "dml::cumulative_summation", "input_tensor.total_tensor_size_in_bytes");
    CHECK(rule.find("24") != std::string::npos);
    dml_tensor padded(type::float16, {2, 3}, {8, 2});  // last element at 8 + 4 = 12: 13 halves, 26 → 28 bytes
    CHECK(padded.desc()->total_tensor_size_in_bytes == 28);
    dml_tensor out(type::float16, {2, 3});
    padded.edit().total_tensor_size_in_bytes = 27;
    expect_error([&] { dml_test::run(cumulative_summation_operator_desc{padded.desc(), out.desc(), 0}, padded.data(), out.data()); },
                 "dml::cumulative_summation", "input_tensor.total_tensor_size_in_bytes");
}

TEST_CASE("dml rule: guaranteed_base_offset_alignment is 0 or a power of two at least the element size, and the pointer meets it") {
    for (std::uint32_t bad : {1u, 2u, 3u, 12u, 0x80000001u}) {
        cumulative_case c;
        c.input.edit().guaranteed_base_offset_alignment = bad;
        expect_error([&] { c.run(); }, "dml::cumulative_summation", "input_tensor.guaranteed_base_offset_alignment");
    }
    for (std::uint32_t good : {0u, 4u, 8u, 16u, 256u}) {
        cumulative_case c;
        c.output.edit().guaranteed_base_offset_alignment = good;
        validate(c.desc);
        if (good <= 8) c.run();  // the buffer is 8-byte aligned
    }
    cumulative_case c;
    c.input.edit().guaranteed_base_offset_alignment = 8;
    c.input.edit().total_tensor_size_in_bytes += 4;
    const auto* shifted = static_cast<const unsigned char*>(c.input.data()) + 4;  // 4-byte aligned, not 8
    expect_error([&] { dml_test::run(c.desc, shifted, c.output.data()); }, "dml::cumulative_summation", "input");
}

TEST_CASE("dml rule: buffers must be present and aligned to their element type") {
    cumulative_case c;
    const auto before = c.output.snapshot();
    expect_error([&] { dml_test::run(c.desc, nullptr, c.output.data()); }, "dml::cumulative_summation", "input");
    expect_error([&] { dml_test::run(c.desc, c.input.data(), nullptr); }, "dml::cumulative_summation", "output");
    auto* misaligned = static_cast<unsigned char*>(c.output.data()) + 2;
    expect_error([&] { dml_test::run(c.desc, c.input.data(), misaligned); }, "dml::cumulative_summation", "output");
    CHECK(c.output.snapshot() == before);
}

TEST_CASE("dml rule: an output may not give two coordinates one element") {
    cumulative_case broadcast;
    const std::uint32_t zero_stride[] = {0, 1};
    broadcast.output.edit().strides = zero_stride;
    expect_error([&] { broadcast.run(); }, "dml::cumulative_summation", "output_tensor.strides");
    cumulative_case overlapping;
    const std::uint32_t overlap[] = {2, 1};  // rows of 3 starting 2 apart share an element
    overlapping.output.edit().strides = overlap;
    expect_error([&] { overlapping.run(); }, "dml::cumulative_summation", "output_tensor.strides");
    cumulative_case input_may;  // inputs may broadcast
    input_may.input.edit().strides = zero_stride;
    input_may.run();
    CHECK(input_may.output.values<float>() == std::vector<float>(6, 0.0f));
}

TEST_CASE("dml rule: an output may alias an input only exactly (in place); reduce and scatter outputs may not overlap inputs") {
    cumulative_case c;
    c.input.assign<float>({1, 2, 3, 4, 5, 6});
    dml_test::run(c.desc, c.input.data(), c.input.data());  // in place
    CHECK(c.input.values<float>() == std::vector<float>{1, 3, 6, 4, 9, 15});
    dml_tensor wide(type::float32, {2, 4});
    dml_tensor strided_out(type::float32, {2, 3}, {4, 1});
    const auto* packed_in = c.input.desc();
    expect_error([&] { dml_test::run(cumulative_summation_operator_desc{packed_in, strided_out.desc(), 1}, wide.data(), wide.data()); },
                 "dml::cumulative_summation", "output");
    dml_tensor room(type::float32, {2, 4});
    expect_error([&] { dml_test::run(c.desc, room.data(), static_cast<float*>(room.data()) + 1); }, "dml::cumulative_summation", "output");
    reduce_case r;
    expect_error([&] { dml_test::run(r.desc, r.input.data(), r.input.data()); }, "dml::reduce", "output");
}

// ---------------------------------------------------------------------------------------------
// §1: cumulative operators

TEST_CASE("dml rule: cumulative axis must be below the rank") {
    cumulative_case c;
    c.desc.axis = 2;
    expect_error([&] { c.run(); }, "dml::cumulative_summation", "axis");
    dml_tensor x(type::int32, {4}), y(type::int32, {4});
    expect_error([&] { dml_test::run(cumulative_product_operator_desc{x.desc(), y.desc(), 1}, x.data(), y.data()); }, "dml::cumulative_product",
                 "axis");
}

TEST_CASE("dml rule: direction must be INCREASING or DECREASING") {
    cumulative_case c;
    c.desc.direction = static_cast<axis_direction>(2);
    expect_error([&] { c.run(); }, "dml::cumulative_summation", "direction");
    dml_tensor x(type::float32, {3}), y(type::int64, {1});
    const std::uint32_t axes[] = {0};
    expect_error([&] { validate(argmax_operator_desc{x.desc(), y.desc(), 1, axes, static_cast<axis_direction>(-1)}); }, "dml::argmax",
                 "direction");
}

TEST_CASE("dml rule: cumulative output must have the input's data type and sizes") {
    dml_tensor x(type::float32, {2, 3}), y16(type::float16, {2, 3}), y_rank(type::float32, {6}), y_sizes(type::float32, {3, 2});
    expect_error([&] { validate(cumulative_summation_operator_desc{x.desc(), y16.desc(), 0}); }, "dml::cumulative_summation",
                 "output_tensor.data_type");
    expect_error([&] { validate(cumulative_product_operator_desc{x.desc(), y_rank.desc(), 0}); }, "dml::cumulative_product",
                 "output_tensor.dimension_count");
    expect_error([&] { validate(cumulative_product_operator_desc{x.desc(), y_sizes.desc(), 0}); }, "dml::cumulative_product",
                 "output_tensor.sizes");
}

TEST_CASE("dml: cumulative operators accept every data type (FLOAT64, INT16, INT8, UINT16, UINT8 as extensions)") {
    for (std::uint32_t t = 1; t <= 11; ++t) {
        dml_tensor x(static_cast<type>(t), {2, 3}), y(static_cast<type>(t), {2, 3});
        validate(cumulative_summation_operator_desc{x.desc(), y.desc(), 1});
        dml_test::run(cumulative_product_operator_desc{x.desc(), y.desc(), 0, axis_direction::decreasing, true}, x.data(), y.data());
    }
}

// ---------------------------------------------------------------------------------------------
// §2: reduce, argmax, argmin

TEST_CASE("dml rule: reduce function must be a DML_REDUCE_FUNCTION") {
    reduce_case r;
    r.desc.function = static_cast<reduce_function>(12);
    expect_error([&] { r.run(); }, "dml::reduce", "function");
}

TEST_CASE("dml rule: axis_count in 0..rank and axes present") {
    reduce_case r;
    r.desc.axis_count = 0;  // every element its own group: the output must then have the input's sizes
    expect_error([&] { r.run(); }, "dml::reduce", "output_tensor.sizes");
    r.desc.axis_count = 3;  // rank 2: more axes than distinct ones (and axes holds only one: never read)
    expect_error([&] { r.run(); }, "dml::reduce", "axis_count");
    r.desc.axis_count = 1;
    r.desc.axes = nullptr;
    expect_error([&] { r.run(); }, "dml::reduce", "axes");
}

TEST_CASE("dml rule: every axis below the rank") {
    reduce_case r;
    r.axes = {2};
    r.desc.axes = r.axes.data();
    expect_error([&] { r.run(); }, "dml::reduce", "axes");
    dml_tensor x(type::float32, {3, 3}), y(type::int32, {1, 1});
    const std::uint32_t axes[] = {0, 7};
    expect_error([&] { dml_test::run(argmin_operator_desc{x.desc(), y.desc(), 2, axes}, x.data(), y.data()); }, "dml::argmin", "axes");
}

TEST_CASE("dml rule: no axis twice") {
    dml_tensor x(type::float32, {3, 3}), y(type::float32, {1, 1}), yi(type::uint32, {1, 1});
    const std::uint32_t axes[] = {1, 1};
    const auto rule = expect_error([&] { validate(reduce_operator_desc{reduce_function::sum, x.desc(), y.desc(), 2, axes}); }, "dml::reduce", "axes");
    CHECK(rule.find("twice") != std::string::npos);
    expect_error([&] { validate(argmax_operator_desc{x.desc(), yi.desc(), 2, axes}); }, "dml::argmax", "axes");
}

TEST_CASE("dml rule: reduce output rank equal, size 1 on reduced axes, input sizes elsewhere") {
    reduce_case r;
    dml_tensor flat(type::float32, {3}), wrong(type::float32, {2, 1}), kept(type::float32, {2, 3});
    r.desc.output_tensor = flat.desc();
    expect_error([&] { r.run(); }, "dml::reduce", "output_tensor.dimension_count");
    r.desc.output_tensor = wrong.desc();
    expect_error([&] { r.run(); }, "dml::reduce", "output_tensor.sizes");
    r.desc.output_tensor = kept.desc();
    expect_error([&] { r.run(); }, "dml::reduce", "output_tensor.sizes");
}

TEST_CASE("dml rule: reduce data types follow DirectML's table per function, FLOAT64 added, BFLOAT16 beside FLOAT16") {
    const std::uint32_t axes[] = {1};
    std::vector<type> input_types{type::bfloat16};
    for (std::uint32_t t = 1; t <= 11; ++t) input_types.push_back(static_cast<type>(t));
    for (int f = 0; f < 12; ++f) {
        const auto function = static_cast<reduce_function>(f);
        const bool arg = function == reduce_function::argmax || function == reduce_function::argmin;
        for (const type input_type : input_types) {
            dml_tensor x(input_type, {2, 4}), y(arg ? type::int64 : input_type, {2, 1});
            const reduce_operator_desc desc{function, x.desc(), y.desc(), 1, axes};
            INFO("function " << f << ", input " << data_type_name(input_type));
            if (dml_test::reduce_accepts(function, input_type)) {
                dml_test::run(desc, x.data(), y.data());
            } else {
                expect_error([&] { dml_test::run(desc, x.data(), y.data()); }, "dml::reduce", "input_tensor.data_type");
            }
        }
    }
}

TEST_CASE("dml rule: reduce output type equals the input's; argmax/argmin outputs are INT64, INT32, UINT64 or UINT32") {
    dml_tensor x(type::float32, {2, 4}), y16(type::float16, {2, 1}), yf(type::float32, {2, 1}), y8(type::int8, {2, 1}), yu(type::uint32, {2, 1});
    const std::uint32_t axes[] = {1};
    expect_error([&] { validate(reduce_operator_desc{reduce_function::sum, x.desc(), y16.desc(), 1, axes}); }, "dml::reduce",
                 "output_tensor.data_type");
    expect_error([&] { validate(reduce_operator_desc{reduce_function::argmax, x.desc(), yf.desc(), 1, axes}); }, "dml::reduce",
                 "output_tensor.data_type");
    expect_error([&] { validate(argmin_operator_desc{x.desc(), y8.desc(), 1, axes}); }, "dml::argmin", "output_tensor.data_type");
    validate(argmax_operator_desc{x.desc(), yu.desc(), 1, axes});
}

TEST_CASE("dml rule: argmax/argmin index type must hold N - 1") {
    const std::uint32_t sizes[] = {65536, 32769};  // N = 2^31 + 2^16: N − 1 does not fit int32
    buffer_tensor_desc big{type::int8, 2, sizes, nullptr, std::uint64_t{65536} * 32769, 0};
    const std::uint32_t one[] = {1, 1};
    buffer_tensor_desc i32{type::int32, 2, one, nullptr, 4, 0}, u32{type::uint32, 2, one, nullptr, 4, 0};
    const std::uint32_t axes[] = {0, 1};
    expect_error([&] { validate(argmax_operator_desc{&big, &i32, 2, axes}); }, "dml::argmax", "output_tensor.data_type");
    validate(argmax_operator_desc{&big, &u32, 2, axes});
}

// ---------------------------------------------------------------------------------------------
// §3: scatter-ND in DirectML's padded form

namespace {

/// The page example in its legal padded form: Input {1,8}, Indices {4,1}, Updates {1,4}, m = 1, q = 2.
struct scatter_case {
    dml_tensor input{type::float32, {1, 8}}, indices{type::int64, {4, 1}}, updates{type::float32, {1, 4}}, output{type::float32, {1, 8}};
    scatter_nd_operator_desc desc{input.desc(), indices.desc(), updates.desc(), output.desc(), 1, 2};
    scatter_case() {
        input.assign<float>({1, 2, 3, 4, 5, 6, 7, 8});
        indices.assign<std::int64_t>({4, 3, 1, 7});
        updates.assign<float>({9, 10, 11, 12});
    }
    void run() { dml_test::run(desc, input.data(), indices.data(), updates.data(), output.data()); }
};

}  // namespace

TEST_CASE("dml rule: scatter-ND tensors share one rank") {
    scatter_case s;
    dml_tensor flat_input(type::float32, {8}), flat_updates(type::float32, {4});
    s.desc.updates_tensor = flat_updates.desc();
    expect_error([&] { s.run(); }, "dml::scatter_nd", "updates_tensor.dimension_count");
    scatter_case page_as_printed;  // the page's own ranks: Input {8}, Indices {4,1}
    page_as_printed.desc.input_tensor = flat_input.desc();
    expect_error([&] { page_as_printed.run(); }, "dml::scatter_nd", "indices_tensor.dimension_count");
}

TEST_CASE("dml rule: input_dimension_count and indices_dimension_count in [1, D]") {
    for (auto [m, q, field] : {std::tuple{0u, 2u, "input_dimension_count"}, std::tuple{3u, 2u, "input_dimension_count"},
                               std::tuple{1u, 0u, "indices_dimension_count"}, std::tuple{1u, 3u, "indices_dimension_count"}}) {
        scatter_case s;
        s.desc.input_dimension_count = m;
        s.desc.indices_dimension_count = q;
        expect_error([&] { s.run(); }, "dml::scatter_nd", field);
    }
}

TEST_CASE("dml rule: scatter-ND leading dimensions beyond m and q are 1") {
    dml_tensor input(type::float32, {2, 8}), output(type::float32, {2, 8}), indices(type::int64, {1, 4, 1}), input3(type::float32, {1, 2, 8}),
        updates3(type::float32, {1, 1, 4}), output3(type::float32, {1, 2, 8});
    scatter_case s;
    s.desc.input_tensor = input.desc();
    s.desc.output_tensor = output.desc();
    expect_error([&] { s.run(); }, "dml::scatter_nd", "input_tensor.sizes");
    dml_tensor indices_lead(type::int64, {2, 4, 1});
    scatter_nd_operator_desc desc{input3.desc(), indices_lead.desc(), updates3.desc(), output3.desc(), 2, 2};
    expect_error([&] { validate(desc); }, "dml::scatter_nd", "indices_tensor.sizes");
    (void)indices;
}

TEST_CASE("dml rule: scatter-ND tuple size k in [1, m]") {
    dml_tensor indices(type::int64, {4, 2}), updates(type::float32, {1, 4});
    scatter_case s;
    s.desc.indices_tensor = indices.desc();
    s.desc.updates_tensor = updates.desc();
    const auto rule = expect_error([&] { s.run(); }, "dml::scatter_nd", "indices_tensor.sizes");
    CHECK(rule.find("[1, 1]") != std::string::npos);
}

TEST_CASE("dml rule: scatter-ND output sizes equal the input's") {
    scatter_case s;
    dml_tensor output(type::float32, {1, 9});
    s.desc.output_tensor = output.desc();
    expect_error([&] { s.run(); }, "dml::scatter_nd", "output_tensor.sizes");
}

TEST_CASE("dml rule: scatter-ND updates sizes = indices.sizes[D-q..D-1) ++ input.sizes[D-m+k..D), right-aligned after 1s") {
    scatter_case s;
    dml_tensor wrong(type::float32, {4, 1}), too_few(type::float32, {1, 3});
    s.desc.updates_tensor = wrong.desc();
    expect_error([&] { s.run(); }, "dml::scatter_nd", "updates_tensor.sizes");
    s.desc.updates_tensor = too_few.desc();
    expect_error([&] { s.run(); }, "dml::scatter_nd", "updates_tensor.sizes");
    // The page's big example: Input [3,4,5,6,7] (m=5), Indices [1,1,1,2,3] (q=3, k=3) → Updates [1,1,2,6,7].
    const std::uint32_t in[] = {3, 4, 5, 6, 7}, ix[] = {1, 1, 1, 2, 3}, up[] = {1, 1, 2, 6, 7}, up_wrong[] = {1, 2, 1, 6, 7};
    buffer_tensor_desc input{type::float16, 5, in, nullptr, 3 * 4 * 5 * 6 * 7 * 2, 0}, indices{type::uint32, 5, ix, nullptr, 24, 0},
        updates{type::float16, 5, up, nullptr, 2 * 6 * 7 * 2, 0}, updates_wrong{type::float16, 5, up_wrong, nullptr, 2 * 6 * 7 * 2, 0};
    validate(scatter_nd_operator_desc{&input, &indices, &updates, &input, 5, 3});
    expect_error([&] { validate(scatter_nd_operator_desc{&input, &indices, &updates_wrong, &input, 5, 3}); }, "dml::scatter_nd",
                 "updates_tensor.sizes");
    // More update dimensions than D: Input {1,2,3} (m=3), Indices {2,2,1} (q=3, k=1) → updates need {2,2,2,3}.
    const std::uint32_t in3[] = {1, 2, 3}, ix3[] = {2, 2, 1}, up3[] = {2, 2, 6};
    buffer_tensor_desc input3{type::int8, 3, in3, nullptr, 8, 0}, indices3{type::int32, 3, ix3, nullptr, 16, 0},
        updates3{type::int8, 3, up3, nullptr, 24, 0};
    const auto rule = expect_error([&] { validate(scatter_nd_operator_desc{&input3, &indices3, &updates3, &input3, 3, 3}); }, "dml::scatter_nd",
                                   "updates_tensor.sizes");
    CHECK(rule.find("more than D") != std::string::npos);
}

TEST_CASE("dml rule: scatter-ND data types: one element type for input, updates, output; INT64/INT32/UINT64/UINT32 indices") {
    scatter_case s;
    dml_tensor updates16(type::float16, {1, 4}), output64(type::float64, {1, 8}), float_indices(type::float32, {4, 1}), i16(type::int16, {4, 1});
    s.desc.updates_tensor = updates16.desc();
    expect_error([&] { s.run(); }, "dml::scatter_nd", "updates_tensor.data_type");
    s.desc.updates_tensor = s.updates.desc();
    s.desc.output_tensor = output64.desc();
    expect_error([&] { s.run(); }, "dml::scatter_nd", "output_tensor.data_type");
    s.desc.output_tensor = s.output.desc();
    s.desc.indices_tensor = float_indices.desc();  // the page's example says FLOAT32 indices: not allowed
    expect_error([&] { s.run(); }, "dml::scatter_nd", "indices_tensor.data_type");
    s.desc.indices_tensor = i16.desc();
    expect_error([&] { s.run(); }, "dml::scatter_nd", "indices_tensor.data_type");
}

TEST_CASE("dml rule: scatter-ND output may not overlap indices or updates, and the input only exactly") {
    scatter_case s;
    dml_tensor shared(type::float32, {1, 16});
    expect_error([&] { dml_test::run(s.desc, s.input.data(), s.indices.data(), s.updates.data(), s.updates.data()); }, "dml::scatter_nd", "output");
    expect_error([&] { dml_test::run(s.desc, shared.data(), s.indices.data(), s.updates.data(), static_cast<float*>(shared.data()) + 2); },
                 "dml::scatter_nd", "output");
    dml_test::run(s.desc, s.input.data(), s.indices.data(), s.updates.data(), s.input.data());  // in place
    CHECK(s.input.values<float>() == std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12});
}

TEST_CASE("dml rule: scatter-ND index values out of range are rejected before anything is written, in place too") {
    scatter_case s;
    s.indices.assign<std::int64_t>({4, 3, 8, 7});
    const auto before = s.output.snapshot();
    const auto rule = expect_error([&] { s.run(); }, "dml::scatter_nd", "indices");
    CHECK(s.output.snapshot() == before);
    s.indices.assign<std::int64_t>({4, -9, 1, 7});
    const auto input_before = s.input.snapshot();
    expect_error([&] { dml_test::run(s.desc, s.input.data(), s.indices.data(), s.updates.data(), s.input.data()); }, "dml::scatter_nd", "indices");
    CHECK(s.input.snapshot() == input_before);
    s.indices.assign<std::int64_t>({-4, -5, -7, -1});  // negative indices count from the end: 4, 3, 1, 7
    s.run();
    CHECK(s.output.values<float>() == std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12});
}

TEST_CASE("dml: reduce and argmax over no axes and on rank-0 tensors (extensions for ONNX front-ends)") {
    dml_tensor x(type::float32, {2, 3}), y(type::float32, {2, 3}), index(type::int64, {2, 3});
    const std::vector<float> values = {1.0f, -2.0f, 3.0f, -4.0f, 5.0f, -6.0f};
    std::copy(values.begin(), values.end(), x.view<float>().data());
    dml_test::run(reduce_operator_desc{reduce_function::l1, x.desc(), y.desc(), 0, nullptr}, x.data(), y.data());
    for (std::size_t i = 0; i < 6; ++i) CHECK(y.view<float>().data()[i] == std::fabs(values[i]));
    dml_test::run(argmax_operator_desc{x.desc(), index.desc(), 0, nullptr}, x.data(), index.data());
    for (std::size_t i = 0; i < 6; ++i) CHECK(index.view<std::int64_t>().data()[i] == 0);

    dml_tensor s(type::float32, {}), t(type::float32, {});
    *s.view<float>().data() = -3.0f;
    dml_test::run(reduce_operator_desc{reduce_function::sum_square, s.desc(), t.desc(), 0, nullptr}, s.data(), t.data());
    CHECK(*t.view<float>().data() == 9.0f);
    // A rank-0 tensor has no axis; scans and scatter still need rank 1..8.
    const std::uint32_t axis0[] = {0};
    CHECK_THROWS_AS(dml_test::run(reduce_operator_desc{reduce_function::sum, s.desc(), t.desc(), 1, axis0}, s.data(), t.data()), tensorops::error);
    CHECK_THROWS_AS(dml_test::run(cumulative_summation_operator_desc{s.desc(), t.desc(), 0}, s.data(), t.data()), tensorops::error);
}
