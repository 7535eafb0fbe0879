// bench/main.cpp — entry point of tensorops_bench.
//
// Measures the machine's read and copy bandwidth before any benchmark runs (so the first figures are
// already in the context header and never land in a timed loop), then runs the registered benchmarks.
// Also replaces malloc and friends (forwarding to glibc) so every benchmark can report `allocs_per_iter`.
#include "harness.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

// ---------------------------------------------------------------------------------------------
// Counting allocations. glibc supports replacing malloc from the main executable (every shared library,
// libstdc++'s operator new included, then calls these); each replacement forwards to glibc's own
// implementation (its exported __libc_* entry points), so memory from either side may be freed by the
// other. Only the count is added.

extern "C" {
void* __libc_malloc(std::size_t size) noexcept;
void* __libc_calloc(std::size_t count, std::size_t size) noexcept;
void* __libc_realloc(void* p, std::size_t size) noexcept;
void* __libc_memalign(std::size_t alignment, std::size_t size) noexcept;
void __libc_free(void* p) noexcept;

void* malloc(std::size_t size) noexcept {
    tb::count_allocation();
    return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) noexcept {
    tb::count_allocation();
    return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t size) noexcept {
    tb::count_allocation();
    return __libc_realloc(p, size);
}
void free(void* p) noexcept { __libc_free(p); }
void* memalign(std::size_t alignment, std::size_t size) noexcept {
    tb::count_allocation();
    return __libc_memalign(alignment, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
    tb::count_allocation();
    return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) noexcept {
    if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
    tb::count_allocation();
    void* p = __libc_memalign(alignment, size);
    if (p == nullptr) return ENOMEM;
    *out = p;
    return 0;
}
}

// ---------------------------------------------------------------------------------------------

namespace {

std::string gigabytes_per_second(double bytes_per_second) {
    char text[64];
    std::snprintf(text, sizeof text, "%.2f GB/s", bytes_per_second / 1e9);
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    // Listing the benchmarks needs no limits (measuring them takes a second or two).
    bool listing = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--benchmark_list_tests" || arg == "--benchmark_list_tests=true" ||
            arg == "--benchmark_list_tests=1") {
            listing = true;
        }
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    if (listing) {
        benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();
        return 0;
    }

    const auto& l = tb::limits();
    benchmark::AddCustomContext("read_limit (64 MiB f32 sum, best of " + std::to_string(l.read_passes) + ")",
                                gigabytes_per_second(l.read_bytes_per_second));
    benchmark::AddCustomContext("copy_limit (64 MiB memcpy, read+write, best of " +
                                    std::to_string(l.copy_passes) + ")",
                                gigabytes_per_second(l.copy_bytes_per_second));
    benchmark::AddCustomContext("read_2_threads (64 MiB f32 sum, wall clock, best of 10)",
                                gigabytes_per_second(tb::read_bandwidth_threads(2)));
    benchmark::AddCustomContext("limits_note",
                                "best pass seen (thread CPU time), raised by BM_read/copy_limit_64MiB as "
                                "they run; bytes counted = read + written; pct counters print as '/s': read %");

    benchmark::RunSpecifiedBenchmarks();

    // The final limits, in case the visible limit benchmarks raised them during the run.
    const auto& f = tb::limits();
    std::fprintf(stderr, "tensorops_bench: final limits: read %s (%d passes), copy %s (%d passes)\n",
                 gigabytes_per_second(f.read_bytes_per_second).c_str(), f.read_passes,
                 gigabytes_per_second(f.copy_bytes_per_second).c_str(), f.copy_passes);
    benchmark::Shutdown();
    return 0;
}
