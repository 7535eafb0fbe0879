// tensorops/simd/x86/f16c_packs.hpp — float16 loads and stores of 32-byte x86 registers by F16C (the isa::avx2
// overloads of load_halves, store_halves and load_halves_partial). Compiled where the build targets AVX2 and F16C.
#pragma once

#include <cstddef>

#include "../../core/float16.hpp"
#include "../../core/inline.hpp"
#include "../isa.hpp"
#include "../register.hpp"
#include "../warnings.hpp"
#include "avx2.hpp"
#include "f16c.hpp"

TENSOROPS_SIMD_WARNINGS_BEGIN  // simd/warnings.hpp
#if TENSOROPS_HAS_XSIMD && defined(__AVX2__) && defined(__F16C__)
namespace tensorops::simd::kernel {

template <class P>
    requires(P::size == 8)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_halves(const float16* source, isa::avx2) noexcept {
    return P(f16c::load(source));
}

template <class P>
    requires(P::size == 8)
[[TENSOROPS_ALWAYS_INLINE]] inline void store_halves(float16 * destination, const P& value, isa::avx2) noexcept {
    f16c::store(destination, value);
}

/// The halves' bytes by detail::load_bytes_partial, widened; the fill blended in above.
template <class P>
    requires(P::size == 8)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P load_halves_partial(const float16* source, std::size_t count,
                                                                    float fill, isa::avx2) noexcept {
    const P widened(f16c::widen(detail::load_bytes_partial<4>(source, count * sizeof(float16))));
    if (fill == 0.0f) return widened;  // the lanes above read as +0.0
    return xsimd::select(detail::lanes_below<P>(count), widened, P(fill));
}

}  // namespace tensorops::simd::kernel
#endif
TENSOROPS_SIMD_WARNINGS_END
