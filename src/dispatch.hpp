// src/dispatch.hpp — the compiled library's choice of instruction-set level (src/dispatch.cpp): which table the
// routes (routes.hpp) call through.
#pragma once

#include <optional>
#include <string_view>

#include "kernel_table.hpp"

namespace tensorops::compiled {

/// The table of the level in use: chosen at the first call (TENSOROPS_ISA, else the best level the CPU runs), or set
/// by set_isa_level since. Errors: tensorops::error when TENSOROPS_ISA names no level or one the CPU does not run
/// (nothing is chosen then; the next call tries again).
const kernel_table& active_kernel_table();

/// The level TENSOROPS_ISA's value `name` names (sse2, avx2, avx512), or none.
[[nodiscard]] std::optional<isa_level> level_named(std::string_view name) noexcept;

/// `level` itself if a CPU whose best level is `best` runs it and the library has its kernels (sse2, avx2, avx512);
/// otherwise a tensorops::error of operation `operation` and argument `argument` that names the level and `best`.
isa_level runnable_level(isa_level level, isa_level best, std::string_view operation, std::string_view argument);

}  // namespace tensorops::compiled
