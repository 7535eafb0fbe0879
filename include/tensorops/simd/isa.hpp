// tensorops/simd/isa.hpp — the instruction-set tags: which implementation of a vocabulary function a register takes.
//
// Every register has one tag, simd::isa_of<P> (register.hpp): what the register is and what the build may do with it.
// The implementations of a vocabulary function are overloads of one function in namespace simd::kernel, one per tag
// that has something better than its base has; overload resolution picks the most derived one that exists. An
// instruction set's file therefore only adds overloads, and a register without an overload of its own takes its
// base's: the fallback by tag (xsimd's requires_arch). The chains follow the register's width, never cross it: a
// 64-byte register falls back to the generic code, not to 32-byte code.
#pragma once

namespace tensorops::simd::isa {

/// Any register: lane by lane through arrays (portable.hpp) — correct everywhere, the last resort.
struct portable {};

/// The one-lane register of builds without xsimd (scalar.hpp).
struct scalar : portable {};

/// Any xsimd register: xsimd's own portable operations (generic.hpp).
struct generic : portable {};

/// Any xsimd register of an x86 build: what holds for every x86 register (x86/sse2.hpp: maxps's operand order).
struct x86 : generic {};

/// A 16-byte x86 register (x86/sse2.hpp).
struct sse2 : x86 {};

/// A 16-byte x86 register in a build that targets SSE4.1 (x86/sse41.hpp).
struct sse41 : sse2 {};

/// A 32-byte x86 register with AVX2 (x86/avx2.hpp; float16 conversions with F16C: x86/f16c_packs.hpp; bfloat16's:
/// x86/bf16.hpp, as for every x86 register).
struct avx2 : x86 {};

/// A 64-byte x86 register with AVX-512F (x86/avx512.hpp).
struct avx512 : x86 {};

/// A 64-byte x86 register with AVX-512BW too: masked loads of 8- and 16-bit lanes (x86/avx512.hpp).
struct avx512bw : avx512 {};

}  // namespace tensorops::simd::isa
