// tests/compiled/left_out.cpp — a tensorops::compiled built with fewer element types (TENSOROPS_COMPILED_TYPES, here
// without int32), used like a consumer: a typed call on the left-out type compiles header-only here and runs; dml::execute
// refuses that data type with an error naming the option (nothing written) and runs the types the library holds.
// Exit status 0 when every check holds; each failed check is printed.
#include <tensorops/tensorops.hpp>

#include "expect.hpp"

#include <cstdint>
#include <cstdio>
#include <string>

namespace {

namespace dml = tensorops::dml;

using compiled_test::expect;

}  // namespace

int main() {
    static_assert(tensorops::detail::compiled_element<float>, "float32 is built: its calls take the library's routes");
    static_assert(!tensorops::detail::compiled_element<std::int32_t> && tensorops::detail::left_out_of_compiled<std::int32_t>,
                  "int32 is left out: its calls compile header-only");

    const std::int32_t xi[4] = {1, 2, 3, 4};
    std::int32_t yi[4] = {};
    tensorops::cumulative_sum(tensorops::tensor_view<const std::int32_t>(xi, {4}), tensorops::tensor_view<std::int32_t>(yi, {4}), {.axis = 0});
    expect(yi[0] == 1 && yi[1] == 3 && yi[2] == 6 && yi[3] == 10, "typed cumulative_sum on the left-out int32");

    const std::uint32_t sizes[1] = {4};
    const dml::buffer_tensor_desc i32{dml::tensor_data_type::int32, 1, sizes, nullptr, 16, 0};
    std::int32_t untouched[4] = {7, 7, 7, 7};
    try {
        dml::execute(dml::cumulative_summation_operator_desc{&i32, &i32, 0, tensorops::axis_direction::increasing, false}, xi, untouched);
        expect(false, "dml::execute on the left-out INT32 did not throw");
    } catch (const tensorops::error& e) {
        const std::string what = e.what();
        expect(e.argument() == "data_type" && what.find("TENSOROPS_COMPILED_TYPES") != std::string::npos && what.find("INT32") != std::string::npos,
               std::string("the error names the data type and the option: ") + what);
    }
    expect(untouched[0] == 7 && untouched[1] == 7 && untouched[2] == 7 && untouched[3] == 7, "nothing written on the refused call");

    const dml::buffer_tensor_desc f32{dml::tensor_data_type::float32, 1, sizes, nullptr, 16, 0};
    const float xf[4] = {1, 2, 3, 4};
    float yf[4] = {};
    dml::execute(dml::cumulative_summation_operator_desc{&f32, &f32, 0, tensorops::axis_direction::increasing, false}, xf, yf);
    expect(yf[0] == 1 && yf[1] == 3 && yf[2] == 6 && yf[3] == 10, "dml::execute on the built float32");
    return compiled_test::exit_status("left-out types");
}
