// tests/reference.hpp — independent scalar references for every operator, written as plain N-d index
// loops over dense row-major tensors, in wide precision. They share no code with the library: a test that
// compares the library with these compares two independent implementations of SEMANTICS.md.
//
// Precision: floating types (float16 and bfloat16 included) are computed in long double; integers wrap exactly as
// SEMANTICS.md §4 says, computed in uint64_t; user-defined types are computed with their own operators.
#pragma once

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include <tensorops/core/element.hpp>
#include <tensorops/core/bfloat16.hpp>
#include <tensorops/core/float16.hpp>

namespace tensorops_test::reference {

using tensorops::bfloat16;
using tensorops::float16;

/// The 16-bit floating storage types (named here, not through the library's narrow_float concept).
template <class T>
inline constexpr bool is_half_width_float = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

template <class T>
inline constexpr bool is_floating = std::is_floating_point_v<T> || is_half_width_float<T>;

/// The type a reference computes in for element type T.
template <class T>
using wide_t = std::conditional_t<is_floating<T>, long double, T>;

template <class T>
wide_t<T> widen(const T& value) {
    if constexpr (is_half_width_float<T>) return static_cast<long double>(static_cast<float>(value));
    else if constexpr (is_floating<T>) return static_cast<long double>(value);
    else return value;
}

/// Rounds a reference-domain value back to T (float16 and bfloat16 through double, since they have no long double
/// constructor: a sum or product of two such values is exact in double, or too far from a tie to round twice).
template <class T>
T narrow(const wide_t<T>& value) {
    if constexpr (is_half_width_float<T>) return T(static_cast<double>(value));
    else return static_cast<T>(value);
}

/// A dense row-major tensor.
template <class V>
struct dense {
    std::vector<std::size_t> sizes;
    std::vector<V> values;

    dense() = default;
    dense(std::vector<std::size_t> shape, std::vector<V> data) : sizes(std::move(shape)), values(std::move(data)) {
        assert(values.size() == element_count(sizes));
    }
    /// A tensor of the given shape with every element equal to `value`.
    static dense filled(std::vector<std::size_t> shape, V value) {
        dense out;
        out.values.assign(element_count(shape), value);
        out.sizes = std::move(shape);
        return out;
    }
    static std::size_t element_count(const std::vector<std::size_t>& shape) {
        std::size_t count = 1;
        for (std::size_t s : shape) count *= s;
        return count;
    }
    [[nodiscard]] std::size_t flat(const std::vector<std::size_t>& index) const {
        std::size_t position = 0;
        for (std::size_t d = 0; d < sizes.size(); ++d) position = position * sizes[d] + index[d];
        return position;
    }
    V& operator[](const std::vector<std::size_t>& index) { return values[flat(index)]; }
    const V& operator[](const std::vector<std::size_t>& index) const { return values[flat(index)]; }
};

/// Calls f(index) for every multi-index of `sizes`, in row-major order.
template <class F>
void for_each_index(const std::vector<std::size_t>& sizes, F&& f) {
    const std::size_t count = dense<int>::element_count(sizes);
    std::vector<std::size_t> index(sizes.size(), 0);
    for (std::size_t n = 0; n < count; ++n) {
        f(static_cast<const std::vector<std::size_t>&>(index));
        for (std::size_t d = sizes.size(); d-- > 0;) {
            if (++index[d] < sizes[d]) break;
            index[d] = 0;
        }
    }
}

/// Reads the elements of a strided tensor (data, sizes, element strides) into a dense tensor.
template <class T>
dense<std::remove_cv_t<T>> read(const T* data, const std::vector<std::size_t>& sizes, const std::vector<std::ptrdiff_t>& strides) {
    dense<std::remove_cv_t<T>> out;
    out.sizes = sizes;
    out.values.reserve(dense<int>::element_count(sizes));
    for_each_index(sizes, [&](const std::vector<std::size_t>& index) {
        std::ptrdiff_t offset = 0;
        for (std::size_t d = 0; d < sizes.size(); ++d) offset += static_cast<std::ptrdiff_t>(index[d]) * strides[d];
        out.values.push_back(data[offset]);
    });
    return out;
}

// ---------------------------------------------------------------------------------------------
// Arithmetic in the reference domain.

/// Identities: 0 and 1 for arithmetic types; a user type's own (its element_identity specialisation, the
/// customisation point SEMANTICS.md promises such types).
template <class T>
wide_t<T> zero() {
    if constexpr (std::is_arithmetic_v<T> || is_floating<T>) return wide_t<T>(0);
    else return tensorops::element_identity<T>::zero();
}
template <class T>
wide_t<T> one() {
    if constexpr (std::is_arithmetic_v<T> || is_floating<T>) return wide_t<T>(1);
    else return tensorops::element_identity<T>::one();
}

template <class T>
wide_t<T> add(const wide_t<T>& a, const wide_t<T>& b) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
    else return a + b;
}
template <class T>
wide_t<T> multiply(const wide_t<T>& a, const wide_t<T>& b) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
    else return a * b;
}
/// Absolute value; for integers |min| wraps to min.
template <class T>
wide_t<T> absolute(const wide_t<T>& a) {
    if constexpr (std::is_integral_v<T>) {
        if constexpr (std::is_signed_v<T>)
            if (a < 0) return static_cast<T>(std::uint64_t{0} - static_cast<std::uint64_t>(a));
        return a;
    } else {
        return std::fabs(a);
    }
}
/// NaN-propagating max/min in the reference domain.
template <class V>
V max_of(const V& a, const V& b) {
    if constexpr (std::is_floating_point_v<V>)
        if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<V>::quiet_NaN();
    return a < b ? b : a;
}
template <class V>
V min_of(const V& a, const V& b) {
    if constexpr (std::is_floating_point_v<V>)
        if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<V>::quiet_NaN();
    return b < a ? b : a;
}

// ---------------------------------------------------------------------------------------------
// The operations' names.

enum class scan_operation { sum, product };

/// The twelve functions, in DML_REDUCE_FUNCTION order (argmax/argmin have their own reference below).
enum class reduce_operation { argmax, argmin, average, l1, l2, log_sum, log_sum_exp, max, min, multiply, sum, sum_square };

enum class scatter_mode { none, add, multiply, max, min };

/// Output sizes of a reduction: 1 on every reduced axis.
inline std::vector<std::size_t> reduced_sizes(const std::vector<std::size_t>& sizes, const std::vector<std::size_t>& axes) {
    std::vector<std::size_t> out = sizes;
    for (std::size_t axis : axes) out[axis] = 1;
    return out;
}

/// Normalises one coordinate of an index tuple (negative counts from the end). Inputs must be in range.
template <class I>
std::size_t normalise_index(I value, std::size_t dimension) {
    const auto signed_value = static_cast<std::int64_t>(value);
    const std::int64_t normal = signed_value < 0 ? signed_value + static_cast<std::int64_t>(dimension) : signed_value;
    assert(normal >= 0 && static_cast<std::size_t>(normal) < dimension);
    return static_cast<std::size_t>(normal);
}

/// The index tuples of `indices` (shape [..., k]) with each coordinate c normalised against dimensions[c].
template <class I>
dense<std::size_t> normalised_tuples(const dense<I>& indices, const std::vector<std::size_t>& dimensions) {
    dense<std::size_t> out;
    out.sizes = indices.sizes;
    out.values.resize(indices.values.size());
    const std::size_t k = indices.sizes.back();
    for (std::size_t i = 0; i < indices.values.size(); ++i) out.values[i] = normalise_index(indices.values[i], dimensions[i % k]);
    return out;
}

// ---------------------------------------------------------------------------------------------
// The references of one element type.
//
// Static members of a class template, so that a test build can compile them once, optimised, for every built-in
// element type (reference.cpp's explicit instantiations, declared below where TENSOROPS_TEST_SUPPORT_COMPILED is
// set: tests/CMakeLists.txt) rather than in every test translation unit at the test build's own level — -O0 under the
// sanitisers, where these loops took half of the tests' time. User-defined types instantiate them as they are used.
// The free functions after the class are the interface.

template <class T>
struct element_references {
    // Cumulative sum / product (SEMANTICS.md §1).

    /// y[i] along `axis` per the §1 table: forward or reverse traversal, inclusive or exclusive.
    static dense<wide_t<T>> cumulative(const dense<T>& x, std::size_t axis, bool reverse, bool exclusive, scan_operation operation) {
        const wide_t<T> identity = operation == scan_operation::sum ? zero<T>() : one<T>();
        auto y = dense<wide_t<T>>::filled(x.sizes, identity);
        std::vector<std::size_t> line_sizes = x.sizes;
        line_sizes[axis] = 1;
        const std::size_t n = x.sizes[axis];
        for_each_index(line_sizes, [&](const std::vector<std::size_t>& line) {
            std::vector<std::size_t> index = line;
            wide_t<T> running = identity;
            for (std::size_t step = 0; step < n; ++step) {
                index[axis] = reverse ? n - 1 - step : step;
                const wide_t<T> value = widen(x[index]);
                const wide_t<T> next = operation == scan_operation::sum ? add<T>(running, value) : multiply<T>(running, value);
                y[index] = exclusive ? running : next;
                running = next;
            }
        });
        return y;
    }

    // Running maximum / minimum with the index of the running extreme, cumulative log-sum-exp
    // (ops/cumulative_extreme.hpp).

    /// For every position along `axis`, the input coordinate (along the axis) of the extreme of the elements it covers
    /// (per the §1 table: forward or reverse traversal, inclusive or exclusive): the first NaN met in traversal order if
    /// there is one, else the first met of the largest (`maximum`) or smallest values, compared as numbers (−0 = +0).
    /// −1 where no element is covered (the exclusive scan's first position).
    static dense<std::int64_t> cumulative_extreme_index(const dense<T>& x, std::size_t axis, bool reverse, bool exclusive, bool maximum) {
        auto y = dense<std::int64_t>::filled(x.sizes, -1);
        std::vector<std::size_t> line_sizes = x.sizes;
        line_sizes[axis] = 1;
        const std::size_t n = x.sizes[axis];
        const auto is_nan = [](const wide_t<T>& v) {
            if constexpr (is_floating<T>) return std::isnan(v);
            else return (void)v, false;
        };
        for_each_index(line_sizes, [&](const std::vector<std::size_t>& line) {
            std::vector<std::size_t> index = line, best_index = line;
            std::int64_t best = -1;
            for (std::size_t step = 0; step < n; ++step) {
                index[axis] = reverse ? n - 1 - step : step;
                if (exclusive) y[index] = best;
                const wide_t<T> value = widen(x[index]);
                bool better = best < 0;
                if (!better) {
                    best_index[axis] = static_cast<std::size_t>(best);
                    const wide_t<T> held = widen(x[best_index]);
                    if (is_nan(held)) better = false;
                    else if (is_nan(value)) better = true;
                    else better = maximum ? held < value : value < held;
                }
                if (better) best = static_cast<std::int64_t>(index[axis]);
                if (!exclusive) y[index] = best;
            }
        });
        return y;
    }

    /// ln Σ e^x over the elements each position covers (per the §1 table), in long double: NaN if one is NaN, +inf if
    /// one is +inf, −inf if none is above −inf (or none is covered); else M + ln Σ e^(x − M) with M their maximum, the
    /// sum taken afresh over every covered element whenever M changes.
    static dense<long double> cumulative_log_sum_exp(const dense<T>& x, std::size_t axis, bool reverse, bool exclusive) {
        constexpr long double infinity = std::numeric_limits<long double>::infinity();
        auto y = dense<long double>::filled(x.sizes, -infinity);
        std::vector<std::size_t> line_sizes = x.sizes;
        line_sizes[axis] = 1;
        const std::size_t n = x.sizes[axis];
        for_each_index(line_sizes, [&](const std::vector<std::size_t>& line) {
            std::vector<std::size_t> index = line;
            std::vector<long double> covered;
            bool nan = false, plus_infinity = false;
            long double top = -infinity, sum = 0;
            for (std::size_t step = 0; step < n; ++step) {
                index[axis] = reverse ? n - 1 - step : step;
                const auto result = [&] {
                    if (nan) return std::numeric_limits<long double>::quiet_NaN();
                    if (plus_infinity) return infinity;
                    if (top == -infinity) return -infinity;
                    return top + std::log(sum);
                };
                if (exclusive) y[index] = result();
                const long double value = widen(x[index]);
                covered.push_back(value);
                if (std::isnan(value)) nan = true;
                else if (value == infinity) plus_infinity = true;
                else if (value > top) {
                    top = value;
                    sum = 0;
                    for (long double c : covered)
                        if (c > -infinity) sum += std::exp(c - top);
                } else if (value > -infinity) {
                    sum += std::exp(value - top);
                }
                if (!exclusive) y[index] = result();
            }
        });
        return y;
    }

    // Reduce (SEMANTICS.md §2, §4, §5).

    /// The groups of a reduction: groups[o] holds, in row-major order over the reduced axes, the elements of `x` that
    /// reduce into output element o (row-major over the output's sizes, `reduced_sizes`). One row-major pass over x:
    /// an element's output position is its index with the reduced coordinates dropped, and the elements of one group
    /// are met in row-major order of their reduced coordinates, since the kept ones are the same for all of them.
    static std::vector<std::vector<T>> groups_of(const dense<T>& x, const std::vector<std::size_t>& axes) {
        const auto out_sizes = reduced_sizes(x.sizes, axes);
        std::vector<std::size_t> out_strides(x.sizes.size(), 0);  // 0 on the reduced axes
        std::size_t out_count = 1;
        for (std::size_t d = x.sizes.size(); d-- > 0;) {
            out_strides[d] = out_sizes[d] == x.sizes[d] ? out_count : 0;
            out_count *= out_sizes[d];
        }
        std::vector<std::vector<T>> groups(out_count);
        const std::size_t group_size = out_count == 0 ? 0 : x.values.size() / out_count;
        for (auto& group : groups) group.reserve(group_size);
        std::size_t n = 0;
        for_each_index(x.sizes, [&](const std::vector<std::size_t>& index) {
            std::size_t out = 0;
            for (std::size_t d = 0; d < index.size(); ++d) out += index[d] * out_strides[d];
            groups[out].push_back(x.values[n++]);
        });
        return groups;
    }

    /// Reduces `x` over `axes` (rank kept). Floating types: long double, with the stable log-sum-exp of §2.
    /// Integers: sum, product, L1, sum of squares wrap; max and min exact; average, L2 and the logarithms are
    /// computed in long double from the exact integer values (the integer policy of the library is decided in
    /// its reduce operator and tested there).
    static dense<long double> reduce(const dense<T>& x, const std::vector<std::size_t>& axes, reduce_operation operation) {
        auto out = dense<long double>::filled(reduced_sizes(x.sizes, axes), 0.0L);
        const auto groups = groups_of(x, axes);
        for (std::size_t o = 0; o < groups.size(); ++o) {
            std::vector<wide_t<T>> group;
            group.reserve(groups[o].size());
            for (const T& element : groups[o]) group.push_back(widen(element));
            const auto n = static_cast<long double>(group.size());
            auto as_long_double = [](const wide_t<T>& v) { return static_cast<long double>(v); };
            long double result = 0;
            switch (operation) {
                case reduce_operation::sum:
                case reduce_operation::sum_square:
                case reduce_operation::l1:
                case reduce_operation::multiply: {
                    wide_t<T> acc = operation == reduce_operation::multiply ? one<T>() : zero<T>();
                    for (const auto& v : group) {
                        if (operation == reduce_operation::sum) acc = add<T>(acc, v);
                        else if (operation == reduce_operation::sum_square) acc = add<T>(acc, multiply<T>(v, v));
                        else if (operation == reduce_operation::l1) acc = add<T>(acc, absolute<T>(v));
                        else acc = multiply<T>(acc, v);
                    }
                    result = as_long_double(acc);
                    break;
                }
                case reduce_operation::max:
                case reduce_operation::min: {
                    long double acc = as_long_double(group.front());
                    for (const auto& v : group)
                        acc = operation == reduce_operation::max ? max_of(acc, as_long_double(v)) : min_of(acc, as_long_double(v));
                    result = acc;
                    break;
                }
                case reduce_operation::average:
                case reduce_operation::l2:
                case reduce_operation::log_sum: {
                    long double acc = 0;
                    for (const auto& v : group) acc += operation == reduce_operation::l2 ? as_long_double(v) * as_long_double(v) : as_long_double(v);
                    result = operation == reduce_operation::average ? acc / n : operation == reduce_operation::l2 ? std::sqrt(acc) : std::log(acc);
                    break;
                }
                case reduce_operation::log_sum_exp: {
                    long double shift = -std::numeric_limits<long double>::infinity();
                    bool any_nan = false;
                    for (const auto& v : group) {
                        const long double value = as_long_double(v);
                        if (std::isnan(value)) any_nan = true;
                        else shift = std::max(shift, value);
                    }
                    if (any_nan) {
                        result = std::numeric_limits<long double>::quiet_NaN();
                        break;
                    }
                    if (std::isinf(shift)) shift = shift > 0 ? shift : 0;  // ±inf max: shift by 0 (+inf: result is +inf)
                    if (std::isinf(shift)) {
                        result = shift;
                        break;
                    }
                    long double acc = 0;
                    for (const auto& v : group) acc += std::exp(as_long_double(v) - shift);
                    result = shift + std::log(acc);
                    break;
                }
                case reduce_operation::argmax:
                case reduce_operation::argmin:
                    assert(false && "use reference::arg_reduce");
                    break;
            }
            out.values[o] = result;
        }
        return out;
    }

    /// Index of the first (or, with `last`, the last) extreme of each group, row-major flattened over the
    /// reduced axes in increasing axis order. NaN counts as the extreme.
    static dense<std::int64_t> arg_reduce(const dense<T>& x, const std::vector<std::size_t>& axes, bool maximum, bool last) {
        auto out = dense<std::int64_t>::filled(reduced_sizes(x.sizes, axes), 0);
        const auto groups = groups_of(x, axes);
        for (std::size_t o = 0; o < groups.size(); ++o) {
            std::int64_t position = 0, best_position = -1;
            long double best = 0;
            bool best_is_nan = false;
            for (const T& element : groups[o]) {
                const long double value = static_cast<long double>(widen(element));
                const bool value_is_nan = std::isnan(value);
                bool take = false;
                if (best_position < 0) take = true;
                else if (best_is_nan) take = value_is_nan && last;
                else if (value_is_nan) take = true;
                else if (value == best) take = last;
                else take = maximum ? value > best : value < best;
                if (take) {
                    best = value;
                    best_is_nan = value_is_nan;
                    best_position = position;
                }
                ++position;
            }
            out.values[o] = best_position;
        }
        return out;
    }

    // Scatter-ND and gather-ND (SEMANTICS.md §3), over index tuples already normalised (normalised_tuples).

    /// output = input; then for every index tuple p in row-major order of `tuples` (shape [..., k]):
    /// output[tuples[p], j] = combine(output[tuples[p], j], updates[p, j]) for every trailing index j.
    static dense<T> scatter_nd(const dense<T>& input, const dense<std::size_t>& tuples, const dense<T>& updates, scatter_mode mode) {
        dense<T> out = input;
        const std::size_t k = tuples.sizes.back();
        const std::vector<std::size_t> tuple_sizes(tuples.sizes.begin(), tuples.sizes.end() - 1);
        const std::vector<std::size_t> slice_sizes(input.sizes.begin() + static_cast<std::ptrdiff_t>(k), input.sizes.end());
        std::size_t tuple_number = 0;
        for_each_index(tuple_sizes, [&](const std::vector<std::size_t>&) {
            std::vector<std::size_t> target(input.sizes.size(), 0);
            for (std::size_t c = 0; c < k; ++c) target[c] = tuples.values[tuple_number * k + c];
            std::size_t slice_position = 0;
            const std::size_t slice_count = dense<int>::element_count(slice_sizes);
            for_each_index(slice_sizes, [&](const std::vector<std::size_t>& j) {
                for (std::size_t d = 0; d < j.size(); ++d) target[k + d] = j[d];
                const T update = updates.values[tuple_number * slice_count + slice_position++];
                T& destination = out[target];
                const wide_t<T> a = widen(destination), b = widen(update);
                switch (mode) {
                    case scatter_mode::none: destination = update; break;
                    case scatter_mode::add: destination = narrow<T>(add<T>(a, b)); break;
                    case scatter_mode::multiply: destination = narrow<T>(multiply<T>(a, b)); break;
                    case scatter_mode::max: destination = narrow<T>(max_of(a, b)); break;
                    case scatter_mode::min: destination = narrow<T>(min_of(a, b)); break;
                }
            });
            ++tuple_number;
        });
        return out;
    }

    /// output[b..., p..., j...] = input[b..., tuples[b..., p...], j...] with the first `batch_dims` dimensions
    /// of input and tuples shared (ONNX GatherND).
    static dense<T> gather_nd(const dense<T>& input, const dense<std::size_t>& tuples, std::size_t batch_dims) {
        const std::size_t k = tuples.sizes.back();
        std::vector<std::size_t> out_sizes(tuples.sizes.begin(), tuples.sizes.end() - 1);
        out_sizes.insert(out_sizes.end(), input.sizes.begin() + static_cast<std::ptrdiff_t>(batch_dims + k), input.sizes.end());
        auto out = dense<T>::filled(out_sizes, T{});
        const std::size_t tuple_rank = tuples.sizes.size() - 1;
        std::vector<std::size_t> tuple_index(tuple_rank + 1), source;  // reused: an allocation per element is slow under ASan
        source.reserve(input.sizes.size());
        for_each_index(out_sizes, [&](const std::vector<std::size_t>& index) {
            std::copy(index.begin(), index.begin() + static_cast<std::ptrdiff_t>(tuple_rank), tuple_index.begin());
            source.assign(index.begin(), index.begin() + static_cast<std::ptrdiff_t>(batch_dims));
            for (std::size_t c = 0; c < k; ++c) {
                tuple_index.back() = c;
                source.push_back(tuples[tuple_index]);
            }
            source.insert(source.end(), index.begin() + static_cast<std::ptrdiff_t>(tuple_rank), index.end());
            out[index] = input[source];
        });
        return out;
    }
};

// The interface: each reference for the element type of its arguments.

template <class T>
dense<wide_t<T>> cumulative(const dense<T>& x, std::size_t axis, bool reverse, bool exclusive, scan_operation operation) {
    return element_references<T>::cumulative(x, axis, reverse, exclusive, operation);
}
template <class T>
dense<std::int64_t> cumulative_extreme_index(const dense<T>& x, std::size_t axis, bool reverse, bool exclusive, bool maximum) {
    return element_references<T>::cumulative_extreme_index(x, axis, reverse, exclusive, maximum);
}
template <class T>
dense<long double> cumulative_log_sum_exp(const dense<T>& x, std::size_t axis, bool reverse, bool exclusive) {
    return element_references<T>::cumulative_log_sum_exp(x, axis, reverse, exclusive);
}
template <class T>
std::vector<std::vector<T>> groups_of(const dense<T>& x, const std::vector<std::size_t>& axes) {
    return element_references<T>::groups_of(x, axes);
}
template <class T>
dense<long double> reduce(const dense<T>& x, const std::vector<std::size_t>& axes, reduce_operation operation) {
    return element_references<T>::reduce(x, axes, operation);
}
template <class T>
dense<std::int64_t> arg_reduce(const dense<T>& x, const std::vector<std::size_t>& axes, bool maximum, bool last) {
    return element_references<T>::arg_reduce(x, axes, maximum, last);
}
template <class T, class I>
dense<T> scatter_nd(const dense<T>& input, const dense<I>& indices, const dense<T>& updates, scatter_mode mode = scatter_mode::none) {
    const std::vector<std::size_t> dimensions(input.sizes.begin(), input.sizes.begin() + static_cast<std::ptrdiff_t>(indices.sizes.back()));
    return element_references<T>::scatter_nd(input, normalised_tuples(indices, dimensions), updates, mode);
}
template <class T, class I>
dense<T> gather_nd(const dense<T>& input, const dense<I>& indices, std::size_t batch_dims = 0) {
    const auto first = input.sizes.begin() + static_cast<std::ptrdiff_t>(batch_dims);
    const std::vector<std::size_t> dimensions(first, first + static_cast<std::ptrdiff_t>(indices.sizes.back()));
    return element_references<T>::gather_nd(input, normalised_tuples(indices, dimensions), batch_dims);
}

#if defined(TENSOROPS_TEST_SUPPORT_COMPILED)
// Compiled once, optimised, in tests/reference.cpp (the list there is the same).
extern template struct element_references<double>;
extern template struct element_references<float>;
extern template struct element_references<float16>;
extern template struct element_references<bfloat16>;
extern template struct element_references<std::int8_t>;
extern template struct element_references<std::int16_t>;
extern template struct element_references<std::int32_t>;
extern template struct element_references<std::int64_t>;
extern template struct element_references<std::uint8_t>;
extern template struct element_references<std::uint16_t>;
extern template struct element_references<std::uint32_t>;
extern template struct element_references<std::uint64_t>;
extern template struct element_references<long double>;  // the tests' widened data
#endif

}  // namespace tensorops_test::reference
