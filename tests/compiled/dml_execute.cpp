// tests/compiled/dml_execute.cpp — dml::execute through tensorops::compiled (the layer compiled once, src/dml.cpp),
// built like a consumer: no -march, linked to tensorops::compiled. Each descriptor kind on a small tensor whose result
// is known, a data type whose kernels differ from float32's (int32, float16) where the kind takes them, each executor
// overload, and an invalid descriptor: the same error as header-only (operation, argument). The kernels' bits are the
// digest test's (compare_digests.cmake); this checks the layer's wiring: each overload reaches its own body, every
// argument arrives.
// Exit status 0 when every check holds; each failed check is printed.
#include <tensorops/tensorops.hpp>

#include "expect.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

namespace dml = tensorops::dml;

using compiled_test::expect;

template <class T>
dml::buffer_tensor_desc packed(dml::tensor_data_type type, const std::vector<std::uint32_t>& sizes) {
    std::uint64_t count = 1;
    for (auto s : sizes) count *= s;
    return {type, static_cast<std::uint32_t>(sizes.size()), sizes.data(), nullptr, (count * sizeof(T) + 3) / 4 * 4, 0};  // DirectML's rounding
}

void cumulative() {
    const std::vector<std::uint32_t> sizes{2, 3};
    const auto f32 = packed<float>(dml::tensor_data_type::float32, sizes);
    const float x[6] = {1, 2, 3, 4, 5, 6};
    float y[6] = {};
    dml::execute(dml::cumulative_summation_operator_desc{&f32, &f32, 1, tensorops::axis_direction::decreasing, true}, x, y);
    expect(y[0] == 5 && y[1] == 3 && y[2] == 0 && y[3] == 11 && y[4] == 6 && y[5] == 0, "cumulative summation (decreasing, exclusive)");
    tensorops::thread_pool pool(2);
    dml::execute(pool, dml::cumulative_product_operator_desc{&f32, &f32, 0, tensorops::axis_direction::increasing, false}, x, y);
    expect(y[0] == 1 && y[3] == 4 && y[5] == 18, "cumulative product on a pool");
    const auto i32 = packed<std::int32_t>(dml::tensor_data_type::int32, sizes);
    const std::int32_t xi[6] = {1, -2, 3, -4, 5, -6};
    std::int32_t yi[6] = {};
    dml::execute(dml::cumulative_summation_operator_desc{&i32, &i32, 1, tensorops::axis_direction::increasing, false}, xi, yi);
    expect(yi[2] == 2 && yi[5] == -5, "cumulative summation of int32");
}

void reductions() {
    const std::vector<std::uint32_t> sizes{2, 3}, reduced{1, 3}, rows{2, 1};
    const auto in = packed<float>(dml::tensor_data_type::float32, sizes);
    const auto out = packed<float>(dml::tensor_data_type::float32, reduced);
    const auto where = packed<std::int64_t>(dml::tensor_data_type::int64, rows);
    const float x[6] = {1, 7, 3, 4, 5, 9};
    const std::uint32_t axis0[1] = {0}, axis1[1] = {1};
    float y[3] = {};
    dml::execute(dml::reduce_operator_desc{tensorops::reduce_function::sum, &in, &out, 1, axis0}, x, y);
    expect(y[0] == 5 && y[1] == 12 && y[2] == 12, "reduce SUM over axis 0");
    std::int64_t w[2] = {-1, -1};
    dml::execute(dml::reduce_operator_desc{tensorops::reduce_function::argmax, &in, &where, 1, axis1}, x, w);
    expect(w[0] == 1 && w[1] == 2, "reduce ARGMAX over axis 1");
    dml::execute(dml::argmin_operator_desc{&in, &where, 1, axis1, tensorops::axis_direction::increasing}, x, w);
    expect(w[0] == 0 && w[1] == 0, "argmin over axis 1");
    tensorops::thread_pool pool(2);
    dml::execute(pool, dml::argmax_operator_desc{&in, &where, 1, axis1, tensorops::axis_direction::decreasing}, x, w);
    expect(w[0] == 1 && w[1] == 2, "argmax (last) on a pool");
    const auto h_in = packed<tensorops::float16>(dml::tensor_data_type::float16, sizes);
    const auto h_out = packed<tensorops::float16>(dml::tensor_data_type::float16, reduced);
    const tensorops::float16 xh[6] = {tensorops::float16(1.0f), tensorops::float16(7.0f), tensorops::float16(3.0f),
                                      tensorops::float16(4.0f), tensorops::float16(5.0f), tensorops::float16(9.0f)};
    tensorops::float16 yh[4] = {};  // 8 bytes: the descriptor's size, rounded up to 4
    dml::execute(dml::reduce_operator_desc{tensorops::reduce_function::max, &h_in, &h_out, 1, axis0}, xh, yh);
    expect(static_cast<float>(yh[0]) == 4 && static_cast<float>(yh[1]) == 7 && static_cast<float>(yh[2]) == 9, "reduce MAX of float16");
}

void scatter() {
    // DirectML's padded form: every tensor of rank 2, the table's last dimension and the indices' last two are data.
    const std::vector<std::uint32_t> table_sizes{1, 4}, index_sizes{2, 1}, update_sizes{1, 2};
    const auto table = packed<float>(dml::tensor_data_type::float32, table_sizes);
    const auto indices = packed<std::int64_t>(dml::tensor_data_type::int64, index_sizes);
    const auto updates = packed<float>(dml::tensor_data_type::float32, update_sizes);
    const float x[4] = {1, 2, 3, 4}, u[2] = {10, 20};
    const std::int64_t at[2] = {3, -4};  // -4 counts from the end: element 0
    float y[4] = {};
    dml::execute(dml::scatter_nd_operator_desc{&table, &indices, &updates, &table, 1, 2}, x, at, u, y);
    expect(y[0] == 20 && y[1] == 2 && y[2] == 3 && y[3] == 10, "scatter-ND");
    const std::int64_t out_of_range[2] = {3, 4};
    float untouched[4] = {7, 7, 7, 7};
    try {
        dml::execute(dml::scatter_nd_operator_desc{&table, &indices, &updates, &table, 1, 2}, x, out_of_range, u, untouched);
        expect(false, "scatter-ND with an index out of range did not throw");
    } catch (const tensorops::error& e) {
        expect(e.operator_name() == "dml::scatter_nd" && e.argument() == "indices",
               "scatter-ND's error names dml::scatter_nd and indices, not " + e.operator_name() + " and " + e.argument());
    }
    expect(untouched[0] == 7 && untouched[3] == 7, "scatter-ND wrote before its error");
}

void errors() {
    const std::vector<std::uint32_t> sizes{2, 3};
    const auto f32 = packed<float>(dml::tensor_data_type::float32, sizes);
    const float x[6] = {};
    float y[6] = {};
    try {
        dml::execute(dml::cumulative_summation_operator_desc{&f32, &f32, 2, tensorops::axis_direction::increasing, false}, x, y);
        expect(false, "cumulative summation along axis 2 of a rank-2 tensor did not throw");
    } catch (const tensorops::error& e) {
        expect(e.operator_name() == "dml::cumulative_summation" && e.argument() == "axis",
               "the error names dml::cumulative_summation and axis, not " + e.operator_name() + " and " + e.argument());
    }
}

}  // namespace

int main() {
    cumulative();
    reductions();
    scatter();
    errors();
    return compiled_test::exit_status("dml::execute through tensorops::compiled");
}
