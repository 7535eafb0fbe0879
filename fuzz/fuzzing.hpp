// Shared by the translation units of the fuzzer's dml half (fuzz_one_input.cpp: decoding the operator; fuzz_cumulative.cpp,
// fuzz_reduce.cpp, fuzz_scatter.cpp: one operator family each, so the build compiles the dml layer in three
// pieces that run in parallel): decoding an input into descriptors and buffers, and checking a call's outcome.
#pragma once

#include <tensorops/tensorops.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "reader.hpp"
#include "reference.hpp"

namespace tensorops_fuzz {

namespace dml = tensorops::dml;
namespace ref = tensorops_test::reference;

/// The executor of the current input: a pool of three threads for inputs of odd length, sequential otherwise
/// (fuzz_one_input.cpp sets it).
inline tensorops::executor_ref current_executor = tensorops::sequential;
using dml::tensor_data_type;
using tensorops::axis_direction;
using tensorops::reduce_function;

// Outcomes per operator (cumulative sum, product, reduce, argmax, argmin, scatter): descriptor only validated (no
// buffer or too large), rejected by execute, run and checked. Printed at exit when TENSOROPS_FUZZ_STATS is set.
enum outcome { validated_only, rejected, checked };
inline constexpr const char* operation_names[] = {"cumulative_summation", "cumulative_product", "reduce", "argmax", "argmin", "scatter_nd"};
inline std::uint64_t outcomes[std::size(operation_names)][3] = {};
inline int current_operation = 0;
inline void count(outcome what) { ++outcomes[current_operation][what]; }

// ---------------------------------------------------------------------------------------------
// Tensors: a descriptor (which may be broken on purpose) and, when its declared size is small enough, a buffer

constexpr std::uint64_t max_buffer_bytes = 1 << 16;
constexpr std::uint32_t max_elements = 1024;

/// A buffer of exactly `bytes` bytes at `offset` bytes into its own heap block (so its end is the block's end).
struct buffer {
    std::unique_ptr<std::uint8_t[]> block;
    std::uint8_t* data = nullptr;
    std::size_t bytes = 0;
    void allocate(std::size_t size, std::size_t offset) {
        block.reset(new std::uint8_t[size + offset]);
        data = block.get() + offset;
        bytes = size;
    }
};

struct fuzz_tensor {
    std::uint32_t sizes[9] = {};
    std::uint32_t strides[9] = {};
    dml::buffer_tensor_desc desc{};
    buffer memory;
    bool allocated = false;
};

inline std::uint64_t element_count(const std::uint32_t* sizes, std::uint32_t rank) {
    std::uint64_t count = 1;
    for (std::uint32_t d = 0; d < rank; ++d) count *= sizes[d];
    return count;
}

/// Fills in the descriptor of `t` for `type` and the sizes already in t.sizes[0, rank): strides (none, packed,
/// padded, permuted, broadcast), the total size and the alignment — usually valid, sometimes not. Then allocates
/// its buffer when the declared size is at most max_buffer_bytes, and fills it with input bytes.
inline void describe(reader& in, fuzz_tensor& t, tensor_data_type type, std::uint32_t rank, bool output) {
    t.desc.data_type = in.chance(4) ? static_cast<tensor_data_type>(in.below(14)) : type;
    t.desc.dimension_count = in.chance(3) ? in.below(10) : rank;
    t.desc.sizes = in.chance(2) ? nullptr : t.sizes;
    if (in.chance(3)) t.sizes[in.below(rank)] = in.chance(128) ? 0 : in.word();
    t.desc.strides = nullptr;
    const std::uint32_t layout = in.below(8);
    if (layout >= 4) {  // explicit strides: packed in a random dimension order, with padding, some broadcast
        std::uint32_t order[8];
        for (std::uint32_t d = 0; d < rank; ++d) order[d] = d;
        if (layout >= 6)
            for (std::uint32_t d = rank; d > 1; --d) std::swap(order[d - 1], order[in.below(d)]);
        std::uint64_t step = 1 + (layout == 7 ? in.below(2) : 0);
        for (std::uint32_t i = rank; i-- > 0;) {
            const std::uint32_t d = order[i];
            t.strides[d] = static_cast<std::uint32_t>(std::min<std::uint64_t>(step, 0xFFFFFFFFu));
            step = step * std::max<std::uint32_t>(t.sizes[d], 1) + (layout >= 5 ? in.below(3) : 0);
        }
        if (in.chance(output ? 6 : 40)) t.strides[in.below(rank)] = 0;
        if (in.chance(4)) t.strides[in.below(rank)] = in.word();
        t.desc.strides = t.strides;
    }
    std::uint64_t needed = 0;
    if (t.desc.sizes != nullptr && t.desc.dimension_count >= 1 && t.desc.dimension_count <= 8 && dml::is_known(t.desc.data_type))
        needed = dml::calc_buffer_tensor_size(t.desc);
    t.desc.total_tensor_size_in_bytes = needed + (in.chance(32) ? in.below(9) : 0);
    if (in.chance(6) && needed > 0) t.desc.total_tensor_size_in_bytes = needed - 1 - in.below(static_cast<std::uint32_t>(std::min<std::uint64_t>(needed, 64)));
    const std::uint32_t element = dml::element_size(t.desc.data_type);
    const std::uint32_t alignment_pick = in.below(16);
    t.desc.guaranteed_base_offset_alignment = alignment_pick < 12 ? 0 : alignment_pick == 12 ? element : alignment_pick == 13 ? 16 : in.below(20);
    if (t.desc.total_tensor_size_in_bytes <= max_buffer_bytes) {
        const std::size_t offset = in.chance(8) ? in.below(8) : 0;  // sometimes misaligned
        t.memory.allocate(static_cast<std::size_t>(t.desc.total_tensor_size_in_bytes), offset);
        t.allocated = true;
    }
}

/// Random sizes of the given rank with at most max_elements elements.
inline void random_sizes(reader& in, std::uint32_t* sizes, std::uint32_t rank) {
    std::uint32_t budget = max_elements;
    for (std::uint32_t d = 0; d < rank; ++d) {
        sizes[d] = 1 + in.below(std::min<std::uint32_t>(budget, rank <= 2 ? 24 : 5));
        budget = std::max<std::uint32_t>(1, budget / sizes[d]);
    }
}

// ---------------------------------------------------------------------------------------------
// Values

enum class value_class { general, product, ordering };

/// Element values from the input: integers of any bit pattern; floats small integers and halves (sums exact in every
/// order, so the reference and the library agree exactly), only −1, 0, 1 for products (no overflow to inf·0), and
/// NaN and infinities too where order is all that matters.
template <class T>
void fill_values(reader& in, fuzz_tensor& t, value_class kind) {
    if (!t.allocated) return;
    const std::size_t count = t.memory.bytes / sizeof(T);
    const std::size_t offset = (alignof(T) - reinterpret_cast<std::uintptr_t>(t.memory.data) % alignof(T)) % alignof(T);
    if constexpr (std::is_integral_v<T>) {
        in.bytes(t.memory.data, t.memory.bytes);
    } else {
        for (std::size_t i = 0; i < count && offset + (i + 1) * sizeof(T) <= t.memory.bytes; ++i) {
            const std::uint8_t b = in.byte();
            float value = static_cast<float>(static_cast<int>(b % 9) - 4) * (b & 0x80 ? 0.5f : 1.0f);
            if (kind == value_class::product) value = static_cast<float>(static_cast<int>(b % 3) - 1);
            if (kind == value_class::ordering && b >= 250)
                value = b == 250 ? std::numeric_limits<float>::quiet_NaN() : b == 251 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
            const T element = static_cast<T>(value);
            std::memcpy(t.memory.data + offset + i * sizeof(T), &element, sizeof(T));
        }
    }
}

/// Writes index values through the indices descriptor's layout (when it is sane enough to follow): coordinate c of
/// each tuple in [−extent, extent) (signed) or [0, extent) (unsigned) of input dimension c, rarely anything at all.
template <class I>
void fill_indices(reader& in, fuzz_tensor& t, const std::uint32_t* extents, std::uint32_t rank) {
    if (!t.allocated || t.desc.sizes != t.sizes || t.desc.dimension_count != rank || reinterpret_cast<std::uintptr_t>(t.memory.data) % alignof(I) != 0 ||
        element_count(t.sizes, rank) > 4 * max_elements)
        return;  // the call is rejected anyway; the buffer keeps its bytes
    std::vector<std::size_t> sizes(t.sizes, t.sizes + rank);
    std::uint64_t packed = 1;
    std::vector<std::uint64_t> strides(rank);
    for (std::uint32_t d = rank; d-- > 0;) {
        strides[d] = t.desc.strides ? t.desc.strides[d] : packed;
        packed *= t.sizes[d];
    }
    ref::for_each_index(sizes, [&](const std::vector<std::size_t>& index) {
        std::uint64_t offset = 0;
        for (std::uint32_t d = 0; d < rank; ++d) offset += index[d] * strides[d];
        if ((offset + 1) * sizeof(I) > t.memory.bytes) return;
        const std::int64_t extent = std::max<std::uint32_t>(extents[index[rank - 1]], 1);
        std::int64_t value = static_cast<std::int64_t>(in.below(static_cast<std::uint32_t>(std::min<std::int64_t>(extent, 1 << 20))));
        if (std::is_signed_v<I> && in.chance(64)) value -= extent;
        if (in.chance(2)) value = static_cast<std::int64_t>(in.word()) - 0x80000000LL;  // usually out of range
        const I index_value = static_cast<I>(value);
        std::memcpy(t.memory.data + offset * sizeof(I), &index_value, sizeof(I));
    });
}

// ---------------------------------------------------------------------------------------------
// Checking results

/// The view a descriptor describes (all dimensions, or the last `meaningful` ones), as sizes and strides.
struct layout {
    std::vector<std::size_t> sizes;
    std::vector<std::ptrdiff_t> strides;
};
inline layout layout_of(const dml::buffer_tensor_desc& desc, std::size_t first = 0) {
    layout out;
    std::ptrdiff_t packed = 1;
    out.sizes.assign(desc.dimension_count, 0);
    out.strides.assign(desc.dimension_count, 0);
    for (std::size_t d = desc.dimension_count; d-- > 0;) {
        out.sizes[d] = desc.sizes[d];
        out.strides[d] = desc.strides ? static_cast<std::ptrdiff_t>(desc.strides[d]) : packed;
        packed *= static_cast<std::ptrdiff_t>(desc.sizes[d]);
    }
    out.sizes.erase(out.sizes.begin(), out.sizes.begin() + static_cast<std::ptrdiff_t>(first));
    out.strides.erase(out.strides.begin(), out.strides.begin() + static_cast<std::ptrdiff_t>(first));
    return out;
}

template <class T>
ref::dense<T> read(const fuzz_tensor& t, std::size_t first = 0) {
    const layout l = layout_of(t.desc, first);
    return ref::read(reinterpret_cast<const T*>(t.memory.data), l.sizes, l.strides);
}

/// Every byte of `after` that the descriptor does not address equals `before`.
inline void require_untouched_outside(const fuzz_tensor& t, const std::vector<std::uint8_t>& before, std::size_t element_bytes) {
    std::vector<bool> addressed(t.memory.bytes, false);
    const layout l = layout_of(t.desc);
    ref::for_each_index(l.sizes, [&](const std::vector<std::size_t>& index) {
        std::size_t offset = 0;
        for (std::size_t d = 0; d < index.size(); ++d) offset += index[d] * static_cast<std::size_t>(l.strides[d]);
        for (std::size_t b = 0; b < element_bytes; ++b) addressed[offset * element_bytes + b] = true;
    });
    for (std::size_t i = 0; i < t.memory.bytes; ++i)
        if (!addressed[i] && t.memory.data[i] != before[i]) fail("a byte of the output outside the tensor was written");
}

/// Equal, or (floating types) both NaN, or within a few units of the type's precision of the long-double value.
template <class T>
bool close(const T& got, long double expected, bool exact) {
    if constexpr (std::is_integral_v<T>) {
        return got == static_cast<T>(expected);
    } else {
        const long double value = static_cast<long double>(static_cast<double>(got));
        if (std::isnan(expected) || std::isnan(value)) return std::isnan(expected) && std::isnan(value);
        const long double rounded = static_cast<long double>(static_cast<double>(ref::narrow<T>(expected)));
        if (value == rounded) return true;
        if (exact) return false;
        if (std::isinf(value) || std::isinf(rounded)) return false;
        const long double tolerance = std::is_same_v<T, double>  ? 1e-12L
                                      : std::is_same_v<T, float> ? 1e-5L
                                      : std::is_same_v<T, tensorops::bfloat16> ? 1.6e-2L  // two units of its 8 bits
                                                                                : 2e-3L;
        return std::fabs(value - rounded) <= tolerance * std::max<long double>(1, std::fabs(rounded));
    }
}

template <class T, class V>
void require_close(const ref::dense<T>& got, const ref::dense<V>& expected, bool exact) {
    if (got.values.size() != expected.values.size()) fail("result size differs from the reference");
    for (std::size_t i = 0; i < got.values.size(); ++i)
        if (!close(got.values[i], static_cast<long double>(expected.values[i]), exact)) fail("result differs from the reference");
}

// ---------------------------------------------------------------------------------------------
// The operators

inline std::vector<std::uint8_t> snapshot(const fuzz_tensor& t) { return {t.memory.data, t.memory.data + t.memory.bytes}; }

/// Runs `call`; on tensorops::error requires `output` unchanged and returns false; returns true when it ran.
template <class F>
bool run(F&& call, const fuzz_tensor& output, const std::vector<std::uint8_t>& before) {
    try {
        call();
    } catch (const tensorops::error&) {
        if (output.allocated && snapshot(output) != before) fail("a rejected call changed its output");
        count(rejected);
        return false;
    }
    count(checked);
    return true;
}

inline bool buffers_ready(std::initializer_list<const fuzz_tensor*> tensors) {
    for (const fuzz_tensor* t : tensors)
        if (!t->allocated) return false;
    return true;
}

/// Whether validate() accepts the descriptor.
template <class Desc>
bool accepted(const Desc& desc) {
    try {
        dml::validate(desc);
        return true;
    } catch (const tensorops::error&) {
        return false;
    }
}

/// For descriptors validate() accepted: every tensor small enough to compute and check (broadcast strides let a
/// tensor of 2^32 − 1 elements live in 4 bytes; validation is all such a call can be fuzzed for).
inline bool small_enough(std::initializer_list<const fuzz_tensor*> tensors) {
    for (const fuzz_tensor* t : tensors)
        if (element_count(t->desc.sizes, t->desc.dimension_count) > 4 * max_elements) return false;
    return true;
}

inline bool aligned(const fuzz_tensor& t, std::size_t alignment) { return reinterpret_cast<std::uintptr_t>(t.memory.data) % alignment == 0; }

// The operator families (one translation unit each).
void fuzz_cumulative(reader& in, tensor_data_type type, bool product);
void fuzz_reduce(reader& in, tensor_data_type type, int which);  // which: 0 reduce, 1 argmax, 2 argmin
void fuzz_scatter(reader& in, tensor_data_type type);

/// Decodes one input into an operator call and checks its outcome; aborts (fail) if the property does not hold.
/// fuzz_one_input.cpp; fuzz_input.cpp calls it with the input after its first byte.
void fuzz_one_input(const std::uint8_t* data, std::size_t size);

}  // namespace tensorops_fuzz
