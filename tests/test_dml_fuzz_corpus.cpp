// The dml fuzzer's seed corpus (fuzz/corpus) replayed as a test: every input decoded into its operator call and
// checked as the fuzzer checks it (fuzz/dml_fuzzer.cpp: a rejected call leaves the output untouched, an accepted one
// matches the reference and writes nothing else, under the sanitizers nothing outside the buffers). An input that
// breaks the property aborts; Catch reports the abort with the input's file name. The coverage-guided fuzzing itself
// is a configuration of its own (tools/run-tests.sh clang-fuzz).
#include <catch2/catch.hpp>

#include <algorithm>
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
    std::uint64_t before[6][3];
    std::copy(&tensorops_fuzz::outcomes[0][0], &tensorops_fuzz::outcomes[0][0] + 18, &before[0][0]);
    for (const auto& path : inputs) {
        INFO("input " << path.filename().string());
        std::ifstream file(path, std::ios::binary);
        const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        tensorops_fuzz::fuzz_one_input(bytes.data(), bytes.size());
    }
    std::uint64_t rejections = 0;
    for (int operation = 0; operation < 6; ++operation) {
        INFO("operation " << operation << " (cumulative sum, product, reduce, argmax, argmin, scatter_nd)");
        CHECK(tensorops_fuzz::outcomes[operation][tensorops_fuzz::checked] > before[operation][tensorops_fuzz::checked]);
        rejections += tensorops_fuzz::outcomes[operation][tensorops_fuzz::rejected] - before[operation][tensorops_fuzz::rejected];
    }
    CHECK(rejections > 0);
}
