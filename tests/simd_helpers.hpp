// Helpers of the simd/ tests (test_simd_*.cpp): the lanes of pack<T> as plain values, random lanes, and comparisons.
// The simd tests are compiled twice: with xsimd at the build's ISA level, and with TENSOROPS_NO_XSIMD (one-lane
// registers).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <type_traits>

#include <tensorops/simd/pack.hpp>

#include "support.hpp"

namespace {
template <class T>
using C = tensorops::simd::compute_t<T>;

template <class T>
constexpr std::size_t W = tensorops::simd::lanes<T>;

template <class T>
std::array<C<T>, W<T>> random_lanes(tensorops_test::test_rng& rng, bool small = false) {
    std::array<C<T>, W<T>> values;
    for (auto& v : values) v = static_cast<C<T>>(tensorops_test::random_value<T>(rng, small));
    return values;
}

template <class T>
bool same(C<T> a, C<T> b) {
    if constexpr (std::is_floating_point_v<C<T>>)
        if (std::isnan(a) && std::isnan(b)) return true;
    return a == b;
}

template <class T, class Op>
C<T> wrap(C<T> a, C<T> b, Op op) {
    return tensorops::from_accumulator<C<T>>(op(tensorops::to_accumulator(a), tensorops::to_accumulator(b)));
}
}  // namespace
