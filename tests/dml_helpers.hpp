// tests/dml_helpers.hpp — tensors for the tensorops::dml tests: a descriptor together with a buffer of exactly the
// size it declares, typed views of that buffer for the typed API, and an error matcher.
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include <tensorops/tensorops.hpp>

namespace dml_test {

using tensorops::dml::buffer_tensor_desc;
using tensorops::dml::tensor_data_type;

/// A DML tensor: sizes, optional strides (empty = packed), a descriptor pointing at them, and a zeroed buffer of
/// total_tensor_size_in_bytes bytes (8-byte aligned; the descriptor's size is calc_buffer_tensor_size plus
/// `extra_bytes`). Neither copyable nor movable: the descriptor points into the object.
class dml_tensor {
public:
    dml_tensor(tensor_data_type type, std::vector<std::uint32_t> sizes, std::vector<std::uint32_t> strides = {}, std::uint64_t extra_bytes = 0)
        : sizes_(std::move(sizes)), strides_(std::move(strides)) {
        desc_.data_type = type;
        desc_.dimension_count = static_cast<std::uint32_t>(sizes_.size());
        desc_.sizes = sizes_.data();
        desc_.strides = strides_.empty() ? nullptr : strides_.data();
        desc_.total_tensor_size_in_bytes = tensorops::dml::calc_buffer_tensor_size(desc_) + extra_bytes;
        words_.assign((desc_.total_tensor_size_in_bytes + 7) / 8 + 1, 0);  // +1: room to misalign on purpose
    }
    dml_tensor(const dml_tensor&) = delete;
    dml_tensor& operator=(const dml_tensor&) = delete;

    [[nodiscard]] const buffer_tensor_desc* desc() const { return &desc_; }
    /// The descriptor, to break one field on purpose.
    buffer_tensor_desc& edit() { return desc_; }
    [[nodiscard]] void* data() { return words_.data(); }
    [[nodiscard]] const void* data() const { return words_.data(); }
    [[nodiscard]] std::size_t byte_size() const { return static_cast<std::size_t>(desc_.total_tensor_size_in_bytes); }
    [[nodiscard]] std::vector<unsigned char> snapshot() const {
        std::vector<unsigned char> out(byte_size());
        std::memcpy(out.data(), words_.data(), out.size());
        return out;
    }
    void restore(const std::vector<unsigned char>& bytes) { std::memcpy(words_.data(), bytes.data(), bytes.size()); }
    [[nodiscard]] const std::vector<std::uint32_t>& sizes() const { return sizes_; }

    /// A typed view of dimensions [first, rank) over the buffer (the dropped leading sizes must be 1).
    template <class T>
    [[nodiscard]] tensorops::tensor_view<T> view(std::size_t first = 0) {
        std::vector<std::size_t> sizes(sizes_.begin() + static_cast<std::ptrdiff_t>(first), sizes_.end());
        std::vector<std::ptrdiff_t> strides(sizes_.size());
        std::ptrdiff_t packed = 1;
        for (std::size_t d = sizes_.size(); d-- > 0;) {
            strides[d] = strides_.empty() ? packed : static_cast<std::ptrdiff_t>(strides_[d]);
            packed *= static_cast<std::ptrdiff_t>(sizes_[d]);
        }
        strides.erase(strides.begin(), strides.begin() + static_cast<std::ptrdiff_t>(first));
        return tensorops::tensor_view<T>(static_cast<T*>(data()), sizes, strides);
    }
    /// Writes `values` (row-major order of the indices) into the tensor's elements.
    template <class T>
    void assign(const std::vector<T>& values) {
        const auto v = view<T>();
        std::size_t i = 0;
        for_each_offset(v, [&](std::ptrdiff_t offset) { v.data()[offset] = values[i++]; });
    }
    /// The tensor's elements in row-major order of the indices.
    template <class T>
    [[nodiscard]] std::vector<T> values() {
        const auto v = view<T>();
        std::vector<T> out;
        for_each_offset(v, [&](std::ptrdiff_t offset) { out.push_back(v.data()[offset]); });
        return out;
    }

private:
    template <class View, class F>
    static void for_each_offset(const View& v, F&& f) {
        std::vector<std::size_t> index(v.rank(), 0);
        for (std::size_t n = v.element_count(); n-- > 0;) {
            f(v.offset_of(index));
            for (std::size_t d = v.rank(); d-- > 0;) {
                if (++index[d] < v.size(d)) break;
                index[d] = 0;
            }
        }
    }

    std::vector<std::uint32_t> sizes_, strides_;
    buffer_tensor_desc desc_{};
    std::vector<std::uint64_t> words_;
};

/// tensorops::dml::execute, compiled once for the whole test binary (dml_instances.cpp): every execute overload
/// instantiates the typed operators for all eleven data types, which is worth compiling once, not per test file.
void run(const tensorops::dml::cumulative_summation_operator_desc& desc, const void* input, void* output);
void run(const tensorops::dml::cumulative_product_operator_desc& desc, const void* input, void* output);
void run(const tensorops::dml::reduce_operator_desc& desc, const void* input, void* output);
void run(const tensorops::dml::argmax_operator_desc& desc, const void* input, void* output);
void run(const tensorops::dml::argmin_operator_desc& desc, const void* input, void* output);
void run(const tensorops::dml::scatter_nd_operator_desc& desc, const void* input, const void* indices, const void* updates, void* output);

/// The input types SEMANTICS.md §2 allows for each reduce function (DirectML's table, FLOAT64 added), written out
/// independently of the library's table.
inline bool reduce_accepts(tensorops::reduce_function function, tensor_data_type input) {
    using enum tensor_data_type;
    const auto in = [&](std::initializer_list<tensor_data_type> list) {
        for (auto t : list)
            if (t == input) return true;
        return false;
    };
    switch (function) {
        case tensorops::reduce_function::average:
        case tensorops::reduce_function::l2:
        case tensorops::reduce_function::log_sum:
        case tensorops::reduce_function::log_sum_exp: return in({float64, float32, float16, bfloat16});
        case tensorops::reduce_function::l1:
        case tensorops::reduce_function::sum_square:
        case tensorops::reduce_function::multiply:
        case tensorops::reduce_function::sum: return in({float64, float32, float16, bfloat16, int64, int32, uint64, uint32});
        default: return in({float64, float32, float16, bfloat16, int64, int32, int16, int8, uint64, uint32, uint16, uint8});
    }
}

/// Runs `call`, which must throw tensorops::error from `operation` naming `argument`; returns the rule.
template <class F>
std::string expect_error(F&& call, const std::string& operation, const std::string& argument) {
    try {
        call();
    } catch (const tensorops::error& e) {
        INFO(e.what());
        CHECK(e.operator_name() == operation);
        CHECK(e.argument() == argument);
        return e.rule();
    }
    FAIL_CHECK("no tensorops::error was thrown; expected " << operation << " / " << argument);
    return {};
}

}  // namespace dml_test
