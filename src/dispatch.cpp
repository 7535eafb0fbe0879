// src/dispatch.cpp — the compiled library's runtime dispatch: which level's kernel table the routes call through.
//
// The choice is made once, at the first call of an operator or of active_isa_level, and kept in one atomic pointer:
// after it, every call costs one relaxed load and an indirect call, never a test per element. This file is compiled
// for the consumer's baseline (no -march of its own) and never executes an instruction the CPU may lack: a level's
// entry function is called only after CPUID and XGETBV said the CPU and the OS run that level.
//
// The kernels read one piece of shared mutable state, simd/cpu_profile.hpp's two setting atomics (set_line_hints,
// set_avx512_kernels). The level objects keep those two symbols global (src/CMakeLists.txt's whitelist), so the
// program has one of each, which the consumer's calls and every level's kernels share; every other symbol of a
// level object is local to it.
#include "dispatch.hpp"

#include <atomic>
#include <cstdlib>
#include <string>

#include <tensorops/simd/cpu.hpp>

namespace tensorops::compiled {

namespace {

std::atomic<const kernel_table*> active_table{nullptr};

isa_level best_level_of_cpu() noexcept {
    static const isa_level best = simd::cpu_runs_x86_64_v4()   ? isa_level::avx512
                                  : simd::cpu_runs_x86_64_v3() ? isa_level::avx2
                                                               : isa_level::sse2;
    return best;
}

const kernel_table* table_of(isa_level level) noexcept {
    switch (level) {
        case isa_level::sse2: return tensorops_kernel_table_sse2();
        case isa_level::avx2: return tensorops_kernel_table_avx2();
        case isa_level::avx512: return tensorops_kernel_table_avx512();
        default: return nullptr;
    }
}

/// The level of the first call: TENSOROPS_ISA's, or the CPU's best.
isa_level initial_level() {
    const char* forced = std::getenv("TENSOROPS_ISA");
    if (forced == nullptr || *forced == '\0') return best_level_of_cpu();
    const auto level = level_named(forced);
    if (!level)
        throw error("TENSOROPS_ISA", "environment",
                    std::string("is '") + forced + "', which names no instruction-set level (sse2, avx2 or avx512)");
    return runnable_level(*level, best_level_of_cpu(), "TENSOROPS_ISA", "environment");
}

}  // namespace

std::optional<isa_level> level_named(std::string_view name) noexcept {
    for (const auto level : {isa_level::sse2, isa_level::avx2, isa_level::avx512})
        if (name == isa_level_name(level)) return level;
    return std::nullopt;
}

isa_level runnable_level(isa_level level, isa_level best, std::string_view operation, std::string_view argument) {
    const bool compiled = level == isa_level::sse2 || level == isa_level::avx2 || level == isa_level::avx512;
    if (!compiled)
        throw error(operation, argument,
                    std::string("is ").append(isa_level_name(level)) + ": the compiled library has the kernels of sse2, avx2 and avx512 only");
    if (static_cast<int>(level) > static_cast<int>(best))
        throw error(operation, argument,
                    std::string("is ").append(isa_level_name(level)) + ", which this CPU does not run (its best level is " +
                        std::string(isa_level_name(best)) + ")");
    return level;
}

const kernel_table& active_kernel_table() {
    if (const auto* table = active_table.load(std::memory_order_acquire)) return *table;
    const kernel_table* chosen = table_of(initial_level());
    const kernel_table* expected = nullptr;
    // A concurrent first call or set_isa_level may have stored first: theirs stands.
    if (!active_table.compare_exchange_strong(expected, chosen, std::memory_order_acq_rel)) return *expected;
    return *chosen;
}

}  // namespace tensorops::compiled

namespace tensorops::detail {

isa_level compiled_active_isa_level() { return compiled::active_kernel_table().level; }

void compiled_set_isa_level(isa_level level) {
    const auto runnable = compiled::runnable_level(level, compiled::best_level_of_cpu(), "set_isa_level", "level");
    compiled::active_table.store(compiled::table_of(runnable), std::memory_order_release);
}

isa_level compiled_cpu_isa_level() noexcept { return compiled::best_level_of_cpu(); }

}  // namespace tensorops::detail
