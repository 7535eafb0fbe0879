// tensorops/simd/implementations.hpp — every instruction set's implementations of the vocabulary (the overloads in
// namespace simd::kernel), included in one place and in one order: the register types first, then each file after
// the files whose tags it falls back to. A new instruction set (arm/neon.hpp, …) is one more line here and one more tag
// in isa.hpp. Each file compiles to nothing where the build does not target its instruction set.
#pragma once

#include "register.hpp"
#include "scalar.hpp"
#include "portable.hpp"
#include "generic.hpp"
#include "x86/sse2.hpp"
#include "x86/sse41.hpp"
#include "x86/avx2.hpp"
#include "x86/f16c_packs.hpp"
#include "x86/bf16.hpp"
#include "x86/avx512.hpp"
#include "generic_math.hpp"
