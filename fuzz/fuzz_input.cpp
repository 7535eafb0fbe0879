// The fuzzer's one entry for an input: the first byte picks the half (fuzz_input.hpp).
#include "fuzz_input.hpp"

#include "fuzzing.hpp"
#include "typed_operations.hpp"

namespace tensorops_fuzz {

void fuzz_input(const std::uint8_t* data, std::size_t size) {
    if (size > 0 && data[0] < dml_selector_limit) fuzz_one_input(data + 1, size - 1);
    else typed::fuzz_typed_input(size > 0 ? data + 1 : data, size > 0 ? size - 1 : 0);
}

}  // namespace tensorops_fuzz
