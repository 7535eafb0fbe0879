// bench/compile_time.sh's dml task: one tensorops::dml::execute call site (a reduction: its data type is known only at
// run time, so the call instantiates the reduce operator for every element type the dml layer takes).
#include <tensorops/tensorops.hpp>
#include <cstdint>
#include <cstdio>

int main() {
    float data[12] = {2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4}, column_sums[4];
    const std::uint32_t sizes[2] = {3, 4}, reduced_sizes[2] = {1, 4}, axes[1] = {0};
    namespace dml = tensorops::dml;
    const dml::buffer_tensor_desc input{dml::tensor_data_type::float32, 2, sizes, nullptr, sizeof data, 0};
    const dml::buffer_tensor_desc output{dml::tensor_data_type::float32, 2, reduced_sizes, nullptr, sizeof column_sums, 0};
    dml::execute(dml::reduce_operator_desc{tensorops::reduce_function::sum, &input, &output, 1, axes}, data, column_sums);
    std::printf("%g %g %g %g\n", column_sums[0], column_sums[1], column_sums[2], column_sums[3]);  // 14 10 14 12
}
