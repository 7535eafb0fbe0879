// libFuzzer target for tensorops::dml (build: clang++ -fsanitize=fuzzer,address,undefined; see fuzz/CMakeLists.txt).
//
// Each input is decoded into one operator call: the operator, random buffer tensor descriptors (usually consistent
// shapes, sometimes any field broken), buffers of exactly total_tensor_size_in_bytes bytes (heap blocks of that
// size, so AddressSanitizer sees any access past them), element values, and sometimes in-place or overlapping
// bindings. The property checked:
//   - the call either throws tensorops::error — and then no output byte has changed — or
//   - it returns, every output element equals the scalar reference (tests/reference.hpp) computed from the
//     input buffers, and every output byte the output descriptor does not address is unchanged;
//   - no byte outside the buffers is read or written (AddressSanitizer), no undefined behaviour (UBSan).
// Any other outcome aborts, which libFuzzer reports with the input that caused it.
// Inputs of odd length run on a pool of three threads that cuts work from 64 bytes of traffic on (so even the
// fuzzer's small tensors are cut into pieces); even ones run sequentially. The same checks apply to both.
#include <tensorops/tensorops.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "reference.hpp"

namespace {

namespace dml = tensorops::dml;
namespace ref = tensorops_test::reference;

/// The executor of the current input (see the file comment).
tensorops::executor_ref current_executor = tensorops::sequential;
using dml::tensor_data_type;
using tensorops::axis_direction;
using tensorops::reduce_function;

// Outcomes per operator (cumulative sum, product, reduce, argmax, argmin, scatter): descriptor only validated (no
// buffer or too large), rejected by execute, run and checked. Printed at exit when TENSOROPS_FUZZ_STATS is set.
enum outcome { validated_only, rejected, checked };
std::uint64_t outcomes[6][3] = {};
int current_operation = 0;
void count(outcome what) { ++outcomes[current_operation][what]; }
void print_outcomes() {
    const char* names[] = {"cumulative_summation", "cumulative_product", "reduce", "argmax", "argmin", "scatter_nd"};
    for (int i = 0; i < 6; ++i)
        std::fprintf(stderr, "%-22s validated only %8llu  rejected %8llu  run and checked %8llu\n", names[i],
                     static_cast<unsigned long long>(outcomes[i][validated_only]), static_cast<unsigned long long>(outcomes[i][rejected]),
                     static_cast<unsigned long long>(outcomes[i][checked]));
}

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "dml_fuzzer: %s\n", what);
    std::abort();
}

// ---------------------------------------------------------------------------------------------
// Reading the input

/// The input as a stream of decisions. Past its end the stream goes on with pseudo-random bytes seeded by the
/// input (xorshift), so a short input still decodes to a complete call, and the same input always to the same one.
class reader {
public:
    reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {
        for (std::size_t i = 0; i < size; ++i) state_ = (state_ ^ data[i]) * 0x100000001b3ull;
    }
    std::uint8_t byte() {
        if (position_ < size_) return data_[position_++];
        state_ ^= state_ << 13;
        state_ ^= state_ >> 7;
        state_ ^= state_ << 17;
        return static_cast<std::uint8_t>(state_ >> 56);
    }
    std::uint32_t below(std::uint32_t bound) { return bound == 0 ? 0 : byte() % bound; }  // [0, bound)
    bool chance(std::uint8_t in_256) { return byte() < in_256; }
    std::uint32_t word() {
        std::uint32_t value = 0;
        for (int i = 0; i < 4; ++i) value = value << 8 | byte();
        return value;
    }
    void bytes(void* out, std::size_t count) {
        auto* target = static_cast<std::uint8_t*>(out);
        for (std::size_t i = 0; i < count; ++i) target[i] = byte();
    }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t position_ = 0;
    std::uint64_t state_ = 0xcbf29ce484222325ull;
};

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

std::uint64_t element_count(const std::uint32_t* sizes, std::uint32_t rank) {
    std::uint64_t count = 1;
    for (std::uint32_t d = 0; d < rank; ++d) count *= sizes[d];
    return count;
}

/// Fills in the descriptor of `t` for `type` and the sizes already in t.sizes[0, rank): strides (none, packed,
/// padded, permuted, broadcast), the total size and the alignment — usually valid, sometimes not. Then allocates
/// its buffer when the declared size is at most max_buffer_bytes, and fills it with input bytes.
void describe(reader& in, fuzz_tensor& t, tensor_data_type type, std::uint32_t rank, bool output) {
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
void random_sizes(reader& in, std::uint32_t* sizes, std::uint32_t rank) {
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
layout layout_of(const dml::buffer_tensor_desc& desc, std::size_t first = 0) {
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
void require_untouched_outside(const fuzz_tensor& t, const std::vector<std::uint8_t>& before, std::size_t element_bytes) {
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
        const long double tolerance = std::is_same_v<T, double> ? 1e-12L : std::is_same_v<T, float> ? 1e-5L : 2e-3L;
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

std::vector<std::uint8_t> snapshot(const fuzz_tensor& t) { return {t.memory.data, t.memory.data + t.memory.bytes}; }

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

bool buffers_ready(std::initializer_list<const fuzz_tensor*> tensors) {
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
bool small_enough(std::initializer_list<const fuzz_tensor*> tensors) {
    for (const fuzz_tensor* t : tensors)
        if (element_count(t->desc.sizes, t->desc.dimension_count) > 4 * max_elements) return false;
    return true;
}

bool aligned(const fuzz_tensor& t, std::size_t alignment) { return reinterpret_cast<std::uintptr_t>(t.memory.data) % alignment == 0; }

void fuzz_cumulative(reader& in, tensor_data_type type, bool product) {
    fuzz_tensor x, y;
    const std::uint32_t rank = 1 + in.below(8);
    random_sizes(in, x.sizes, rank);
    std::copy(x.sizes, x.sizes + 9, y.sizes);
    if (in.chance(4)) y.sizes[in.below(rank)] += 1;
    describe(in, x, type, rank, false);
    const bool in_place = in.chance(48);
    if (in_place) y.desc = x.desc;
    else describe(in, y, in.chance(8) ? static_cast<tensor_data_type>(1 + in.below(11)) : type, rank, true);
    const std::uint32_t axis = in.chance(8) ? in.below(10) : in.below(rank);
    const auto direction = static_cast<axis_direction>(in.chance(4) ? in.below(4) : in.below(2));
    const bool exclusive = in.chance(128);
    fuzz_tensor& out = in_place ? x : y;
    const dml::cumulative_summation_operator_desc sum_desc{&x.desc, &out.desc, axis, direction, exclusive};
    const dml::cumulative_product_operator_desc product_desc{&x.desc, &out.desc, axis, direction, exclusive};
    const bool valid = product ? accepted(product_desc) : accepted(sum_desc);
    if (!buffers_ready({&x, &out}) || (valid && !small_enough({&x, &out}))) {
        count(validated_only);
        return;
    }
    const tensor_data_type element_type = dml::is_known(x.desc.data_type) ? x.desc.data_type : type;
    dml::visit_data_type(element_type, [&]<class T>(std::type_identity<T>) {
        fill_values<T>(in, x, product ? value_class::product : value_class::general);
        const std::vector<std::uint8_t> before = snapshot(out);
        std::optional<ref::dense<T>> input;
        if (valid && aligned(x, alignof(T))) input = read<T>(x);  // before the call: in place overwrites it
        const bool ran = run(
            [&] {
                if (product) dml::execute(current_executor, product_desc, x.memory.data, out.memory.data);
                else dml::execute(current_executor, sum_desc, x.memory.data, out.memory.data);
            },
            out, before);
        if (!ran) return;
        if (!valid || !input) fail("execute ran a call that validate rejects, or with a misaligned buffer");
        const auto expected = ref::cumulative<T>(*input, axis, direction == axis_direction::decreasing, exclusive,
                                                 product ? ref::scan_operation::product : ref::scan_operation::sum);
        require_close(read<T>(out), expected, true);
        if (!in_place) require_untouched_outside(out, before, sizeof(T));
    });
}

void fuzz_reduce(reader& in, tensor_data_type type, int which) {  // which: 0 reduce, 1 argmax, 2 argmin
    fuzz_tensor x, y;
    const std::uint32_t rank = 1 + in.below(8);
    random_sizes(in, x.sizes, rank);
    std::uint32_t axes[10] = {};
    std::uint32_t axis_count = 0;
    bool reduced[8] = {};
    for (std::uint32_t d = 0; d < rank; ++d)
        if (in.chance(100)) axes[axis_count++] = d, reduced[d] = true;
    if (axis_count == 0) axes[axis_count++] = in.below(rank), reduced[axes[0]] = true;
    for (std::uint32_t i = axis_count; i > 1; --i) std::swap(axes[i - 1], axes[in.below(i)]);
    if (in.chance(6)) axes[in.below(axis_count)] = in.below(10);       // out of range or duplicate
    if (in.chance(4)) axis_count = in.chance(128) ? 0 : axis_count + 1;  // axes[] has room for it
    if (axis_count > 0 && axes[axis_count - 1] > 100) axes[axis_count - 1] = 0;
    for (std::uint32_t d = 0; d < rank; ++d) y.sizes[d] = reduced[d] ? 1 : x.sizes[d];
    if (in.chance(4)) y.sizes[in.below(rank)] += 1;
    auto function = which == 0 ? static_cast<reduce_function>(in.below(in.chance(4) ? 16 : 12)) : reduce_function::argmax;
    const bool arg = which != 0 || function == reduce_function::argmax || function == reduce_function::argmin;
    constexpr tensor_data_type index_types[] = {tensor_data_type::int64, tensor_data_type::int32, tensor_data_type::uint64, tensor_data_type::uint32};
    const tensor_data_type out_type = arg ? index_types[in.below(4)] : type;
    describe(in, x, type, rank, false);
    describe(in, y, in.chance(8) ? static_cast<tensor_data_type>(1 + in.below(11)) : out_type, rank, true);
    const auto direction = static_cast<axis_direction>(in.chance(4) ? in.below(4) : in.below(2));
    const dml::reduce_operator_desc reduce_desc{function, &x.desc, &y.desc, axis_count, axes};
    const dml::argmax_operator_desc argmax_desc{&x.desc, &y.desc, axis_count, axes, direction};
    const dml::argmin_operator_desc argmin_desc{&x.desc, &y.desc, axis_count, axes, direction};
    if (in.chance(8)) y.desc.data_type = type;  // occasionally a value output for argmax: rejected
    const bool valid = which == 0 ? accepted(reduce_desc) : which == 1 ? accepted(argmax_desc) : accepted(argmin_desc);
    if (!buffers_ready({&x, &y}) || (valid && !small_enough({&x, &y}))) {
        count(validated_only);
        return;
    }
    const tensor_data_type element_type = dml::is_known(x.desc.data_type) ? x.desc.data_type : type;
    dml::visit_data_type(element_type, [&]<class T>(std::type_identity<T>) {
        const bool order_only = function == reduce_function::max || function == reduce_function::min || arg;
        fill_values<T>(in, x, function == reduce_function::multiply ? value_class::product : order_only ? value_class::ordering : value_class::general);
        const std::vector<std::uint8_t> before = snapshot(y);
        void* output = in.chance(8) ? static_cast<void*>(x.memory.data) : y.memory.data;  // same buffer: an overlap, rejected
        const bool ran = run(
            [&] {
                if (which == 0) dml::execute(current_executor, reduce_desc, x.memory.data, output);
                else if (which == 1) dml::execute(current_executor, argmax_desc, x.memory.data, output);
                else dml::execute(current_executor, argmin_desc, x.memory.data, output);
            },
            y, before);
        if (!ran) return;
        if (!valid || output != y.memory.data) fail("execute ran a call that validate rejects, or an output overlapping its input");
        const std::vector<std::size_t> axis_list(axes, axes + axis_count);
        const auto input = read<T>(x);
        const bool maximum = which == 1 || (which == 0 && function == reduce_function::argmax);
        if (arg) {
            const bool last = which != 0 && direction == axis_direction::decreasing;
            const auto expected = ref::arg_reduce(input, axis_list, maximum, last);
            dml::visit_index_type(y.desc.data_type, [&]<class I>(std::type_identity<I>) {
                const auto got = read<I>(y);
                for (std::size_t i = 0; i < got.values.size(); ++i)
                    if (static_cast<std::int64_t>(got.values[i]) != expected.values[i]) fail("argmax/argmin differs from the reference");
                require_untouched_outside(y, before, sizeof(I));
            });
            return;
        }
        const auto expected = ref::reduce(input, axis_list, static_cast<ref::reduce_operation>(function));
        const bool exact = function != reduce_function::average && function != reduce_function::l2 && function != reduce_function::log_sum &&
                           function != reduce_function::log_sum_exp;
        require_close(read<T>(y), expected, exact);
        require_untouched_outside(y, before, sizeof(T));
    });
}

void fuzz_scatter(reader& in, tensor_data_type type) {
    fuzz_tensor input, indices, updates, output;
    const std::uint32_t rank = 1 + in.below(6);
    std::uint32_t m = 1 + in.below(rank), q = 1 + in.below(rank);
    const std::uint32_t m0 = m, k = 1 + in.below(m);
    while ((q - 1) + (m - k) > rank) --q;
    const std::uint32_t u = (q - 1) + (m - k);
    for (std::uint32_t d = 0; d < rank; ++d) input.sizes[d] = indices.sizes[d] = updates.sizes[d] = 1;
    for (std::uint32_t d = rank - m; d < rank; ++d) input.sizes[d] = 1 + in.below(5);
    for (std::uint32_t d = rank - q; d + 1 < rank; ++d) indices.sizes[d] = 1 + in.below(4);
    indices.sizes[rank - 1] = k;
    std::uint32_t position = rank - u;
    for (std::uint32_t d = rank - q; d + 1 < rank; ++d) updates.sizes[position++] = indices.sizes[d];
    for (std::uint32_t d = rank - m + k; d < rank; ++d) updates.sizes[position++] = input.sizes[d];
    std::copy(input.sizes, input.sizes + 9, output.sizes);
    if (in.chance(6)) updates.sizes[in.below(rank)] += 1;
    if (in.chance(3)) m = in.below(rank + 2);
    if (in.chance(3)) q = in.below(rank + 2);
    constexpr tensor_data_type index_types[] = {tensor_data_type::int64, tensor_data_type::int32, tensor_data_type::uint64, tensor_data_type::uint32};
    describe(in, input, type, rank, false);
    describe(in, indices, in.chance(4) ? static_cast<tensor_data_type>(1 + in.below(11)) : index_types[in.below(4)], rank, false);
    describe(in, updates, in.chance(4) ? static_cast<tensor_data_type>(1 + in.below(11)) : type, rank, false);
    const bool in_place = in.chance(48);
    if (in_place) output.desc = input.desc;
    else describe(in, output, type, rank, true);
    fuzz_tensor& out = in_place ? input : output;
    const dml::scatter_nd_operator_desc desc{&input.desc, &indices.desc, &updates.desc, &out.desc, m, q};
    const bool valid = accepted(desc);
    if (!buffers_ready({&input, &indices, &updates, &out}) || (valid && !small_enough({&input, &indices, &updates, &out}))) {
        count(validated_only);
        return;
    }
    const tensor_data_type element_type = dml::is_known(input.desc.data_type) ? input.desc.data_type : type;
    dml::visit_data_type(element_type, [&]<class T>(std::type_identity<T>) {
        fill_values<T>(in, input, value_class::ordering);
        fill_values<T>(in, updates, value_class::ordering);
        const auto run_with = [&]<class I>(std::type_identity<I>) {
            fill_indices<I>(in, indices, input.sizes + (rank - m0), rank);
            const std::vector<std::uint8_t> before = snapshot(out);
            std::optional<ref::dense<T>> source;
            if (valid && aligned(input, alignof(T))) source = read<T>(input, rank - m);  // before the call: in place overwrites it
            const bool ran = run([&] { dml::execute(current_executor, desc, input.memory.data, indices.memory.data, updates.memory.data, out.memory.data); }, out, before);
            if (!ran) return;
            if (!valid || !source) fail("execute ran a call that validate rejects, or with a misaligned buffer");
            const std::uint32_t tuple_rank = (q - 1) + (m - k);  // the meaningful rank of updates (valid: m, q in [1, rank])
            const auto expected = ref::scatter_nd(*source, read<I>(indices, rank - q), read<T>(updates, rank - tuple_rank));
            const auto got = read<T>(out, rank - m);
            for (std::size_t i = 0; i < got.values.size(); ++i)
                if (std::memcmp(&got.values[i], &expected.values[i], sizeof(T)) != 0) fail("scatter differs from the reference");
            if (!in_place) require_untouched_outside(out, before, sizeof(T));
        };
        if (dml::types::index.contains(indices.desc.data_type)) dml::visit_index_type(indices.desc.data_type, run_with);
        else run_with(std::type_identity<std::int64_t>{});  // rejected: the indices' type is wrong
    });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const bool report = [] {
        if (std::getenv("TENSOROPS_FUZZ_STATS") != nullptr) std::atexit(print_outcomes);
        return true;
    }();
    (void)report;
    static tensorops::thread_pool pool(3, 64);
    if (size % 2 == 1) current_executor = pool;
    else current_executor = tensorops::sequential;
    reader in(data, size);
    const std::uint32_t operation = in.below(6);
    current_operation = static_cast<int>(operation);
    const auto type = static_cast<tensor_data_type>(1 + in.below(11));
    switch (operation) {
        case 0: fuzz_cumulative(in, type, false); break;
        case 1: fuzz_cumulative(in, type, true); break;
        case 2: fuzz_reduce(in, type, 0); break;
        case 3: fuzz_reduce(in, type, 1); break;
        case 4: fuzz_reduce(in, type, 2); break;
        default: fuzz_scatter(in, type); break;
    }
    return 0;
}
