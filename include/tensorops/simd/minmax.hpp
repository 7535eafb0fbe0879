// tensorops/simd/minmax.hpp — minimum and maximum that propagate NaN, for lanes and for scalars.
//
// x86 `maxps`/`minps` return their second operand when either is NaN, so a raw vector max silently drops
// a NaN depending on lane order. These functions return NaN whenever either operand is NaN (SEMANTICS.md
// §4), in every lane, whatever the order. Which of two zeros (+0, −0) is returned is unspecified. x86 does it in three
// instructions (x86/sse2.hpp), other registers with NaN tests and a blend (generic.hpp). The scalar forms,
// max_propagate_nan(C, C) and min_propagate_nan(C, C), are scalar.hpp's.
#pragma once

#include <type_traits>

#include "../core/inline.hpp"
#include "implementations.hpp"
#include "pack.hpp"

namespace tensorops::simd {

/// Lane-wise larger of a and b; NaN in every lane where either is NaN.
template <class P>
    requires(!std::is_arithmetic_v<P>)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P max_propagate_nan(const P& a, const P& b) noexcept {
    return kernel::max_propagate_nan(a, b, isa_of<P>{});
}

/// Lane-wise smaller of a and b; NaN in every lane where either is NaN.
template <class P>
    requires(!std::is_arithmetic_v<P>)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P min_propagate_nan(const P& a, const P& b) noexcept {
    return kernel::min_propagate_nan(a, b, isa_of<P>{});
}

/// The larger of a and b per lane where neither is NaN; a or b, unspecified which, where one is: one maxps on x86,
/// for kernels that catch NaN some other way (the NaN-propagating max_propagate_nan costs three).
template <class P>
    requires(!std::is_arithmetic_v<P>)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P max_ignoring_nan(const P& a, const P& b) noexcept {
    return kernel::max_ignoring_nan(a, b, isa_of<P>{});
}

/// x, or `floor` where x < floor, per floating lane; NaN where x is NaN (a clamp that lets a NaN through to
/// what follows, for kernels that detect it there). One maxps on x86, whose second operand wins where either is NaN.
template <class P>
    requires(!std::is_arithmetic_v<P>)
[[nodiscard, TENSOROPS_ALWAYS_INLINE]] inline P clamp_below_keeping_nan(const P& x, const P& floor) noexcept {
    return kernel::clamp_below_keeping_nan(x, floor, isa_of<P>{});
}

}  // namespace tensorops::simd
