// The fuzzer's one entry for an input (fuzz_input.cpp), called by the libFuzzer target (fuzzer.cpp) and by the
// corpus replay of the tests (tests/test_fuzz_corpus.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tensorops_fuzz {

/// Whether an input goes to the dml descriptors' half: a first byte below this does (a quarter of the inputs); any
/// other input, the empty one included, goes to the typed API's half.
inline constexpr std::uint8_t dml_selector_limit = 64;

/// Decodes one input into a call — of tensorops::dml (the rest of the input after the first byte, fuzz_one_input.cpp)
/// or of the typed API (typed_one_input.cpp) — and checks its outcome; aborts if the property does not hold.
void fuzz_input(const std::uint8_t* data, std::size_t size);

}  // namespace tensorops_fuzz
