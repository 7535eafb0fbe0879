// The typed fuzzer's element types and operator families (one translation unit each, so the build compiles them
// in parallel), called by typed_one_input.cpp.
#pragma once

#include <cstdint>
#include <type_traits>

#include <tensorops/core/bfloat16.hpp>
#include <tensorops/core/float16.hpp>

#include "reader.hpp"

namespace tensorops_fuzz::typed {

class executor_choice;

/// The element types fuzzed: a few, so that the operators' instantiations (each compiled once per type) stay few.
enum class element_type { float32, float64, float16, int32, uint8, int64, bfloat16, count };

/// Calls f(std::type_identity<T>{}) with the C++ type of `type`.
template <class F>
void visit(element_type type, F&& f) {
    switch (type) {
        case element_type::float32: f(std::type_identity<float>{}); break;
        case element_type::float64: f(std::type_identity<double>{}); break;
        case element_type::float16: f(std::type_identity<tensorops::float16>{}); break;
        case element_type::int32: f(std::type_identity<std::int32_t>{}); break;
        case element_type::uint8: f(std::type_identity<std::uint8_t>{}); break;
        case element_type::int64: f(std::type_identity<std::int64_t>{}); break;
        default: f(std::type_identity<tensorops::bfloat16>{}); break;
    }
}

/// Calls f(std::type_identity<I>{}) with index type number `which` modulo 4: int64, int32, uint64, uint32.
template <class F>
void visit_index(std::uint32_t which, F&& f) {
    switch (which % 4) {
        case 0: f(std::type_identity<std::int64_t>{}); break;
        case 1: f(std::type_identity<std::int32_t>{}); break;
        case 2: f(std::type_identity<std::uint64_t>{}); break;
        default: f(std::type_identity<std::uint32_t>{}); break;
    }
}

void fuzz_scan(reader& in, element_type type, bool product, const executor_choice& exec);            // typed_scan.cpp
void fuzz_extreme_scan(reader& in, element_type type, bool log_sum_exp, const executor_choice& exec);  // typed_extreme_scan.cpp
void fuzz_reduce(reader& in, element_type type, int which, const executor_choice& exec);             // typed_reduce.cpp: 0 reduce, 1 argmax, 2 argmin
void fuzz_tuples(reader& in, element_type type, bool gather, const executor_choice& exec);           // typed_tuples.cpp

/// Decodes one input into a call of the typed API and checks it (typed_one_input.cpp).
void fuzz_typed_input(const std::uint8_t* data, std::size_t size);

}  // namespace tensorops_fuzz::typed
