// src/dml.cpp — the dml layer of tensorops::compiled: every dml::execute overload's body (dml/execute.hpp's
// execute_here) compiled once, here, for the consumer's baseline. Its typed calls go through the routes like any
// consumer's (the kernels of the level in use), so a program that calls dml::execute compiles the call, not the layer.
// A library built with fewer element types (TENSOROPS_COMPILED_TYPES) holds the layer for those alone: a descriptor of a
// type left out is refused by name (dml/descriptors.hpp, visit_data_type).
#include <tensorops/tensorops.hpp>

namespace tensorops::dml::detail {

void compiled_execute(const executor_ref& exec, const cumulative_summation_operator_desc& desc, const void* input, void* output) {
    execute_here(exec, desc, input, output);
}
void compiled_execute(const executor_ref& exec, const cumulative_product_operator_desc& desc, const void* input, void* output) {
    execute_here(exec, desc, input, output);
}
void compiled_execute(const executor_ref& exec, const reduce_operator_desc& desc, const void* input, void* output) {
    execute_here(exec, desc, input, output);
}
void compiled_execute(const executor_ref& exec, const argmax_operator_desc& desc, const void* input, void* output) {
    execute_here(exec, desc, input, output);
}
void compiled_execute(const executor_ref& exec, const argmin_operator_desc& desc, const void* input, void* output) {
    execute_here(exec, desc, input, output);
}
void compiled_execute(const executor_ref& exec, const scatter_nd_operator_desc& desc, const void* input, const void* indices, const void* updates,
                      void* output) {
    execute_here(exec, desc, input, indices, updates, output);
}

}  // namespace tensorops::dml::detail
