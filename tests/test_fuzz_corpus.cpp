// The dml fuzzer's seed corpus (fuzz/corpus) replayed as a test: every input decoded into its operator call and
// checked as the fuzzer checks it (fuzz/dml_fuzzer.cpp: a rejected call leaves the output untouched, an accepted one
// matches the reference and writes nothing else, under the sanitizers nothing outside the buffers). An input that
// breaks the property aborts; Catch reports the abort with the input's file name. The coverage-guided fuzzing itself
// is a configuration of its own (tools/run-tests.sh clang-fuzz).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzzing.hpp"

#ifndef TENSOROPS_FUZZ_CORPUS_DIR
#error "the build defines TENSOROPS_FUZZ_CORPUS_DIR (tests/CMakeLists.txt)"
#endif

TEST_CASE("dml fuzz corpus: every seed input runs clean; every operator is run and checked, some calls rejected", "[dml]") {
    std::vector<std::filesystem::path> inputs;
    for (const auto& entry : std::filesystem::directory_iterator(TENSOROPS_FUZZ_CORPUS_DIR))
        if (entry.is_regular_file()) inputs.push_back(entry.path());
    std::sort(inputs.begin(), inputs.end());
    REQUIRE(inputs.size() >= 100);
    using tensorops_fuzz::outcomes;
    std::uint64_t before[std::size(outcomes)][std::size(outcomes[0])];
    std::memcpy(before, outcomes, sizeof before);
    for (const auto& path : inputs) {
        INFO("input " << path.filename().string());
        std::ifstream file(path, std::ios::binary);
        const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        tensorops_fuzz::fuzz_one_input(bytes.data(), bytes.size());
    }
    std::uint64_t rejections = 0;
    for (std::size_t operation = 0; operation < std::size(outcomes); ++operation) {
        INFO("operation " << tensorops_fuzz::operation_names[operation]);
        CHECK(outcomes[operation][tensorops_fuzz::checked] > before[operation][tensorops_fuzz::checked]);
        rejections += outcomes[operation][tensorops_fuzz::rejected] - before[operation][tensorops_fuzz::rejected];
    }
    CHECK(rejections > 0);
}
