// tests/reference.cpp — the scalar references of the built-in element types, compiled once per test build with
// optimisation (tests/CMakeLists.txt: tensorops_test_support). The test translation units see them as explicit
// instantiations declared in reference.hpp (TENSOROPS_TEST_SUPPORT_COMPILED) and do not compile them again.
#include "reference.hpp"

namespace tensorops_test::reference {

template struct element_references<double>;
template struct element_references<float>;
template struct element_references<float16>;
template struct element_references<bfloat16>;
template struct element_references<std::int8_t>;
template struct element_references<std::int16_t>;
template struct element_references<std::int32_t>;
template struct element_references<std::int64_t>;
template struct element_references<std::uint8_t>;
template struct element_references<std::uint16_t>;
template struct element_references<std::uint32_t>;
template struct element_references<std::uint64_t>;
template struct element_references<long double>;  // the tests' widened data

}  // namespace tensorops_test::reference
