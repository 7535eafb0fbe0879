// libFuzzer target for tensorops::dml (build: clang++ -fsanitize=fuzzer,address,undefined; see fuzz/CMakeLists.txt).
//
// Each input is decoded into one operator call: the operator, random buffer tensor descriptors (usually consistent
// shapes, sometimes any field broken), buffers of exactly total_tensor_size_in_bytes bytes (heap blocks of that
// size, so AddressSanitizer sees any access past them), element values, and sometimes in-place or overlapping
// bindings. The property checked:
//   - the call either throws tensorops::error — and then no output byte has changed — or
//   - it returns, every output element equals the scalar reference (tests/reference.hpp) computed from the
//     input buffers, and every output byte the output descriptor does not address is unchanged;
//   - no byte outside the buffers is read or written (AddressSanitizer), no undefined behaviour (UBSan).
// Any other outcome aborts, which libFuzzer reports with the input that caused it.
// Inputs of odd length run on a pool of three threads that cuts work from 64 bytes of traffic on (so even the
// fuzzer's small tensors are cut into pieces); even ones run sequentially. The same checks apply to both.
#include <cstdio>
#include <cstdlib>

#include "fuzzing.hpp"

namespace {

using namespace tensorops_fuzz;

void print_outcomes() {
    for (std::size_t i = 0; i < std::size(operation_names); ++i)
        std::fprintf(stderr, "%-22s validated only %8llu  rejected %8llu  run and checked %8llu\n", operation_names[i],
                     static_cast<unsigned long long>(outcomes[i][validated_only]), static_cast<unsigned long long>(outcomes[i][rejected]),
                     static_cast<unsigned long long>(outcomes[i][checked]));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const bool report = [] {
        if (std::getenv("TENSOROPS_FUZZ_STATS") != nullptr) std::atexit(print_outcomes);
        return true;
    }();
    (void)report;
    fuzz_one_input(data, size);
    return 0;
}
