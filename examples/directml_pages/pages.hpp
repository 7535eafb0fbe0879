// The demo's shared pieces (examples/directml_pages/): how a tensor is held and printed, and the tally of page examples
// that match. Each operator's pages are a file of their own (cumulative.cpp, reduce.cpp, arg_reduce.cpp, scatter.cpp),
// compiled in two groups (examples/CMakeLists.txt).
#pragma once

#include <tensorops/tensorops.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace directml_pages {

namespace dml = tensorops::dml;

// Formats `values` (row-major, any arithmetic type) with nested brackets per dimension of `sizes`.
template <class T>
std::string format(const std::vector<T>& values, const std::vector<std::uint32_t>& sizes) {
    std::string text;
    std::size_t position = 0;
    auto emit = [&](auto&& self, std::size_t dimension) -> void {
        text += "[";
        for (std::uint32_t i = 0; i < sizes[dimension]; ++i) {
            if (i) text += ",";
            if (dimension + 1 == sizes.size()) {
                char number[32];
                std::snprintf(number, sizeof number, "%g", static_cast<double>(values[position++]));
                text += number;
            } else {
                self(self, dimension + 1);
            }
        }
        text += "]";
    };
    emit(emit, 0);
    return text;
}

inline std::string format_sizes(const std::vector<std::uint32_t>& sizes) {
    std::string text = "{";
    for (std::size_t i = 0; i < sizes.size(); ++i) text += (i ? "," : "") + std::to_string(sizes[i]);
    return text + "}";
}

// A packed tensor of element type T: its values, sizes and DML descriptor.
template <class T>
struct tensor {
    std::vector<std::uint32_t> sizes;
    std::vector<T> values;
    dml::buffer_tensor_desc desc{};

    tensor(std::vector<std::uint32_t> shape, std::vector<T> data) : sizes(std::move(shape)), values(std::move(data)) {
        std::size_t count = 1;
        for (auto s : sizes) count *= s;
        values.resize(count);
        desc.data_type = dml::data_type_of<T>;
        desc.dimension_count = static_cast<std::uint32_t>(sizes.size());
        desc.sizes = sizes.data();
        desc.total_tensor_size_in_bytes = dml::calc_buffer_tensor_size(desc);
        // float32 and int64 packed tensors need exactly their element bytes (already a multiple of 4): `values` is
        // the whole buffer. (A packed int8 tensor of 3 elements would need a 4-byte buffer.)
    }
    explicit tensor(std::vector<std::uint32_t> shape) : tensor(std::move(shape), {}) {}
    tensor(const tensor&) = delete;
};

struct tally {
    int matched = 0, total = 0;
    // One line: parameters, the computed output, the page's, and the verdict.
    template <class T>
    void report(const std::string& parameters, const std::vector<T>& got, const std::vector<T>& expected,
                const std::vector<std::uint32_t>& sizes) {
        const bool same = got == expected;
        ++total;
        matched += same ? 1 : 0;
        std::printf("  %-30s  computed %-44s  page %-44s  %s\n", parameters.c_str(), format(got, sizes).c_str(),
                    format(expected, sizes).c_str(), same ? "match" : "MISMATCH");
    }
};

// The pages of each operator: each prints its examples and reports them to `counts`.
void cumulative_pages(tally& counts);  // DML_CUMULATIVE_SUMMATION / _PRODUCT_OPERATOR_DESC
void reduce_pages(tally& counts);      // DML_REDUCE_OPERATOR_DESC
void arg_reduce_pages(tally& counts);  // DML_ARGMAX / DML_ARGMIN_OPERATOR_DESC
void scatter_pages(tally& counts);     // DML_SCATTER_ND_OPERATOR_DESC

}  // namespace directml_pages
