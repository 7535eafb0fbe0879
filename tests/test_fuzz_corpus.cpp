// The fuzzer's seed corpus (fuzz/corpus) replayed as a test: every input decoded into its call — of tensorops::dml or
// of the typed API, as its first byte says (fuzz/fuzz_input.hpp) — and checked as the fuzzer checks it
// (fuzz/fuzzer.cpp: a refused call is one the contract allows refusing and leaves memory untouched, an accepted one
// is allowed, matches the reference and writes nothing else; under the sanitizers nothing outside the buffers). An
// input that breaks the property aborts; Catch reports the abort with the input's file name. The coverage-guided
// fuzzing itself is a configuration of its own (tools/run-tests.sh clang-fuzz).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "fuzzing.hpp"
#include "typed_fuzzing.hpp"

#ifndef TENSOROPS_FUZZ_CORPUS_DIR
#error "the build defines TENSOROPS_FUZZ_CORPUS_DIR (tests/CMakeLists.txt)"
#endif

TEST_CASE("fuzz corpus: every seed input runs clean; every operator of both halves is run and checked, some calls refused", "[dml]") {
    std::vector<std::filesystem::path> inputs;
    for (const auto& entry : std::filesystem::directory_iterator(TENSOROPS_FUZZ_CORPUS_DIR))
        if (entry.is_regular_file()) inputs.push_back(entry.path());
    std::sort(inputs.begin(), inputs.end());
    REQUIRE(inputs.size() >= 100);
    namespace typed = tensorops_fuzz::typed;
    using tensorops_fuzz::outcomes;
    std::uint64_t dml_before[std::size(outcomes)][std::size(outcomes[0])];
    std::uint64_t typed_before[std::size(typed::outcomes)][std::size(typed::outcomes[0])];
    std::memcpy(dml_before, outcomes, sizeof dml_before);
    std::memcpy(typed_before, typed::outcomes, sizeof typed_before);
    for (const auto& path : inputs) {
        INFO("input " << path.filename().string());
        std::ifstream file(path, std::ios::binary);
        const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        tensorops_fuzz::fuzz_input(bytes.data(), bytes.size());
    }
    std::uint64_t rejections = 0;
    for (std::size_t operation = 0; operation < std::size(outcomes); ++operation) {
        INFO("dml operation " << tensorops_fuzz::operation_names[operation]);
        CHECK(outcomes[operation][tensorops_fuzz::checked] > dml_before[operation][tensorops_fuzz::checked]);
        rejections += outcomes[operation][tensorops_fuzz::rejected] - dml_before[operation][tensorops_fuzz::rejected];
    }
    CHECK(rejections > 0);
    for (std::size_t operation = 0; operation < typed::operation_count; ++operation) {
        INFO("typed operation " << typed::operation_names[operation]);
        CHECK(typed::outcomes[operation][typed::checked] > typed_before[operation][typed::checked]);
        CHECK(typed::outcomes[operation][typed::refused] > typed_before[operation][typed::refused]);
    }
}
