// tests/mpi/tuple_support.hpp — what the tests of mpi::gather_nd and mpi::scatter_nd share: random global shapes and
// shards, every rank's random index tuples (drawn on every rank from the shared stream, so that each rank can build
// the single-process call on the gathered tensors), and packed arrays placed in random local layouts.
#pragma once

#include "mpi_support.hpp"

#include <cmath>
#include <limits>

namespace mpi_test {

/// A global tensor sharded along `axis`: every rank's count, this rank's offset and local sizes.
struct shards {
    std::vector<std::size_t> global, counts, local;
    std::size_t axis = 0, offset = 0;
};
inline shards random_shards(context& c, std::vector<std::size_t> global, std::size_t axis) {
    shards s;
    s.global = std::move(global);
    s.axis = axis;
    s.counts = random_split(c, s.global[axis]);
    for (int r = 0; r < c.rank; ++r) s.offset += s.counts[static_cast<std::size_t>(r)];
    s.local = s.global;
    s.local[axis] = s.counts[static_cast<std::size_t>(c.rank)];
    return s;
}

inline std::size_t element_count(const std::vector<std::size_t>& sizes) {
    std::size_t count = 1;
    for (std::size_t size : sizes) count *= size;
    return count;
}

/// Random packed index tuples of shape tuple_sizes ++ {extents.size()}: coordinate c in range for extents[c], negative
/// now and then for signed I; with `few`, only the first two indices of each dimension (many duplicates).
template <class I>
std::vector<I> random_tuples(context& c, const std::vector<std::size_t>& tuple_sizes,
                             const std::vector<std::size_t>& extents, bool few) {
    const std::size_t tuples = element_count(tuple_sizes), k = extents.size();
    std::vector<I> values(tuples * k);
    for (std::size_t n = 0; n < tuples; ++n)
        for (std::size_t i = 0; i < k; ++i) {
            const std::size_t extent = extents[i];
            const std::size_t index = c.uniform(0, (few ? std::min<std::size_t>(extent, 2) : extent) - 1);
            const bool negative = std::is_signed_v<I> && c.chance(0.3);
            values[n * k + i] =
                negative ? static_cast<I>(static_cast<std::int64_t>(index) - static_cast<std::int64_t>(extent))
                         : static_cast<I>(index);
        }
    return values;
}

/// A random value of T, floating ones now and then a special (±0, ±inf, NaN) when `specials`.
template <class T>
T random_element(context& c, bool specials) {
    if constexpr (!std::is_integral_v<T>) {
        if (specials && c.chance(0.1)) {
            switch (c.uniform(0, 4)) {
                case 0: return static_cast<T>(0.0);
                case 1: return static_cast<T>(-0.0);
                case 2: return static_cast<T>(std::numeric_limits<float>::infinity());
                case 3: return static_cast<T>(-std::numeric_limits<float>::infinity());
                default: return static_cast<T>(std::numeric_limits<float>::quiet_NaN());
            }
        }
        return random_value<T>(c, -2.0, 2.0);
    } else {
        return random_value<T>(c, 0, 0);
    }
}

/// A packed array copied into a buffer of a random layout (mpi_support.hpp's random_layout), and the view of it.
template <class T>
struct placed {
    std::vector<T> buffer;
    tensorops::tensor_view<T> view;
};
template <class T>
placed<T> place(const layout& l, const std::vector<std::size_t>& sizes, const std::vector<T>& packed, T fill) {
    placed<T> p;
    p.buffer.assign(l.buffer, fill);
    p.view = tensorops::tensor_view<T>(p.buffer.data() + l.base, sizes, l.strides);
    if (!packed.empty())
        for_each_shard_element(sizes, sizes, 0, 0, [&](const std::vector<std::size_t>& index, std::size_t at) {
            element_at(p.view, index) = packed[at];
        });
    return p;
}

/// Every rank's random layout of a view of its own `sizes[r]` (each rank draws all, in rank order, to keep the shared
/// stream in step), this rank's returned.
inline layout my_layout(context& c, const std::vector<std::vector<std::size_t>>& sizes) {
    layout mine;
    for (int r = 0; r < c.ranks; ++r) {
        layout l = random_layout(c, sizes[static_cast<std::size_t>(r)]);
        if (r == c.rank) mine = l;
    }
    return mine;
}

/// An element's bytes in hexadecimal, for failure messages.
template <class T>
std::string bits_of(const T& value) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    std::string text = "0x";
    for (std::size_t i = sizeof(T); i-- > 0;) {
        constexpr char digits[] = "0123456789abcdef";
        text += digits[bytes[i] >> 4];
        text += digits[bytes[i] & 15];
    }
    return text;
}

/// Both NaN, or both zero (of either sign): the values whose bits scatter_nd's max and min leave unspecified.
template <class T>
bool same_unspecified(const T& a, const T& b) {
    if constexpr (std::is_integral_v<T>) {
        (void)a;
        (void)b;
        return false;
    } else {
        const auto x = static_cast<double>(static_cast<float>(a)), y = static_cast<double>(static_cast<float>(b));
        return (std::isnan(x) && std::isnan(y)) || (x == 0.0 && y == 0.0);
    }
}

/// "{a b c}"
inline std::string describe(const std::vector<std::size_t>& sizes) {
    std::string text = "{";
    for (std::size_t i = 0; i < sizes.size(); ++i) text += (i ? " " : "") + std::to_string(sizes[i]);
    return text + "}";
}

}  // namespace mpi_test
