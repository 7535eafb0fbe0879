# Locates xsimd's headers without its CMake package (Debian's links a bare `xtl` and fails).
# Sets TENSOROPS_XSIMD_INCLUDE_DIR (cached; empty/NOTFOUND when xsimd is absent).
find_path(TENSOROPS_XSIMD_INCLUDE_DIR NAMES xsimd/xsimd.hpp
  DOC "Directory holding xsimd/xsimd.hpp (optional: tensorops falls back to scalar code)")
