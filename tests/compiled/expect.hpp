// tests/compiled/expect.hpp — the checks of the compiled library's test programs (plain executables, no test
// framework: they are built like a consumer): each failed check is printed and counted; main returns exit_status().
#pragma once

#include <cstdio>
#include <string>

namespace compiled_test {

inline int failures = 0;

inline void expect(bool holds, const std::string& what) {
    if (!holds) {
        std::printf("FAILED: %s\n", what.c_str());
        ++failures;
    }
}

/// 0 when every check held (and says so, naming the program), 1 otherwise.
inline int exit_status(const char* program) {
    if (failures == 0) std::printf("%s: every check held\n", program);
    return failures == 0 ? 0 : 1;
}

}  // namespace compiled_test
