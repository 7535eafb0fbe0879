// One input of the typed fuzzer, decoded into an operator, an element type and an executor, then handed to the
// operator's family (typed_scan.cpp, typed_extreme_scan.cpp, typed_reduce.cpp, typed_tuples.cpp), which decodes and checks the call.
#include "typed_fuzzing.hpp"
#include "typed_operations.hpp"

namespace tensorops_fuzz::typed {

void fuzz_typed_input(const std::uint8_t* data, std::size_t size) {
    reader in(data, size);
    const std::uint32_t family = in.below(11);
    const auto type = static_cast<element_type>(in.below(static_cast<std::uint32_t>(element_type::count)));
    const executor_choice exec(in);
    switch (family) {
        case 0: fuzz_scan(in, type, false, exec); break;
        case 1: fuzz_scan(in, type, true, exec); break;
        case 2:
        case 3: fuzz_reduce(in, type, 0, exec); break;
        case 4: fuzz_reduce(in, type, 1, exec); break;
        case 5: fuzz_reduce(in, type, 2, exec); break;
        case 6:
        case 7: fuzz_tuples(in, type, false, exec); break;
        case 8: fuzz_tuples(in, type, true, exec); break;
        case 9: fuzz_extreme_scan(in, type, false, exec); break;
        default: fuzz_extreme_scan(in, type, true, exec); break;
    }
}

}  // namespace tensorops_fuzz::typed
