// One input of the dml half of the fuzzer, decoded and checked (the property is in fuzzer.cpp's file comment). Called
// by fuzz_input.cpp, in the libFuzzer target and in the tests, which replay the seed corpus (tests/test_fuzz_corpus.cpp).
#include "fuzzing.hpp"

namespace tensorops_fuzz {

void fuzz_one_input(const std::uint8_t* data, std::size_t size) {
    static tensorops::thread_pool pool(3, 64);
    if (size % 2 == 1) current_executor = pool;
    else current_executor = tensorops::sequential;
    reader in(data, size);
    const std::uint32_t operation = in.below(6);
    current_operation = static_cast<int>(operation);
    const auto type = static_cast<tensor_data_type>(1 + in.below(11));
    switch (operation) {
        case 0: fuzz_cumulative(in, type, false); break;
        case 1: fuzz_cumulative(in, type, true); break;
        case 2: fuzz_reduce(in, type, 0); break;
        case 3: fuzz_reduce(in, type, 1); break;
        case 4: fuzz_reduce(in, type, 2); break;
        default: fuzz_scatter(in, type); break;
    }
}

}  // namespace tensorops_fuzz
