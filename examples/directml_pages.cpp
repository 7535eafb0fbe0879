// The demo: every example of the DirectML documentation pages (SEMANTICS.md §1–§3), run through the
// runtime-typed layer tensorops::dml — descriptors filled in as a DirectML program would, buffers bound at
// execution — and printed with its input and parameters, the computed output beside the page's, and a verdict.
// Exit status 0 when every example matches.
#include <tensorops/tensorops.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

namespace dml = tensorops::dml;
using tensorops::axis_direction;

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

std::string format_sizes(const std::vector<std::uint32_t>& sizes) {
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
    void report(const std::string& parameters, const std::vector<T>& got, const std::vector<T>& expected, const std::vector<std::uint32_t>& sizes) {
        const bool same = got == expected;
        ++total;
        matched += same ? 1 : 0;
        std::printf("  %-30s  computed %-44s  page %-44s  %s\n", parameters.c_str(), format(got, sizes).c_str(), format(expected, sizes).c_str(),
                    same ? "match" : "MISMATCH");
    }
};

void cumulative_pages(tally& counts) {
    tensor<float> x({1, 1, 3, 4}, {2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4});
    struct page_row {
        std::uint32_t axis;
        axis_direction direction;
        bool exclusive;
        std::vector<float> sum, product;
    };
    const page_row rows[] = {
        {3, axis_direction::increasing, false, {2, 3, 6, 11, 3, 11, 18, 21, 9, 15, 17, 21}, {2, 2, 6, 30, 3, 24, 168, 504, 9, 54, 108, 432}},
        {3, axis_direction::increasing, true, {0, 2, 3, 6, 0, 3, 11, 18, 0, 9, 15, 17}, {1, 2, 2, 6, 1, 3, 24, 168, 1, 9, 54, 108}},
        {3, axis_direction::decreasing, false, {11, 9, 8, 5, 21, 18, 10, 3, 21, 12, 6, 4}, {30, 15, 15, 5, 504, 168, 21, 3, 432, 48, 8, 4}},
        {2, axis_direction::increasing, false, {2, 1, 3, 5, 5, 9, 10, 8, 14, 15, 12, 12}, {2, 1, 3, 5, 6, 8, 21, 15, 54, 48, 42, 60}},
    };
    for (const bool product : {false, true}) {
        const char* name = product ? "DML_CUMULATIVE_PRODUCT_OPERATOR_DESC" : "DML_CUMULATIVE_SUMMATION_OPERATOR_DESC";
        std::printf("%s\n  InputTensor %s FLOAT32 = %s\n", name, format_sizes(x.sizes).c_str(), format(x.values, x.sizes).c_str());
        for (const auto& row : rows) {
            tensor<float> y(x.sizes);
            if (product)
                dml::execute(dml::cumulative_product_operator_desc{&x.desc, &y.desc, row.axis, row.direction, row.exclusive}, x.values.data(), y.values.data());
            else
                dml::execute(dml::cumulative_summation_operator_desc{&x.desc, &y.desc, row.axis, row.direction, row.exclusive}, x.values.data(),
                             y.values.data());
            const std::string parameters = "Axis " + std::to_string(row.axis) +
                                           (row.direction == axis_direction::increasing ? " INCREASING" : " DECREASING") +
                                           (row.exclusive ? " exclusive" : "");
            counts.report(parameters, y.values, product ? row.product : row.sum, y.sizes);
        }
        std::printf("\n");
    }
}

void reduce_pages(tally& counts) {
    tensor<float> x({3, 3}, {1, 2, 3, 3, 0, 4, 2, 4, 2});
    std::printf("DML_REDUCE_OPERATOR_DESC, Function DML_REDUCE_FUNCTION_SUM\n  InputTensor {3,3} FLOAT32 = %s\n", format(x.values, x.sizes).c_str());
    struct page_row {
        std::vector<std::uint32_t> axes, out_sizes;
        std::vector<float> expected;
    };
    const page_row rows[] = {{{0}, {1, 3}, {6, 6, 9}}, {{1}, {3, 1}, {6, 7, 8}}, {{0, 1}, {1, 1}, {21}}};
    for (const auto& row : rows) {
        tensor<float> y(row.out_sizes);
        dml::execute(dml::reduce_operator_desc{tensorops::reduce_function::sum, &x.desc, &y.desc, static_cast<std::uint32_t>(row.axes.size()),
                                               row.axes.data()},
                     x.values.data(), y.values.data());
        counts.report("Axes " + format_sizes(row.axes), y.values, row.expected, y.sizes);
    }
    std::printf("\n");

    tensor<float> a({3, 3}, {1, 2, 3, 3, 0, 4, 2, 5, 2});
    std::printf("DML_ARGMAX_OPERATOR_DESC / DML_ARGMIN_OPERATOR_DESC (AxisDirection INCREASING: the first extreme), OutputTensor INT64\n");
    std::printf("  InputTensor {3,3} FLOAT32 = %s\n", format(a.values, a.sizes).c_str());
    struct arg_row {
        std::vector<std::uint32_t> axes, out_sizes;
        std::vector<std::int64_t> argmax, argmin;
    };
    const arg_row arg_rows[] = {{{0, 1}, {1, 1}, {7}, {4}}, {{0}, {1, 3}, {1, 2, 1}, {0, 1, 2}}, {{1}, {3, 1}, {2, 2, 1}, {0, 1, 0}}};
    for (const auto& row : arg_rows) {
        tensor<std::int64_t> y(row.out_sizes);
        const auto count = static_cast<std::uint32_t>(row.axes.size());
        dml::execute(dml::argmax_operator_desc{&a.desc, &y.desc, count, row.axes.data()}, a.values.data(), y.values.data());
        counts.report("ArgMax Axes " + format_sizes(row.axes), y.values, row.argmax, y.sizes);
        dml::execute(dml::argmin_operator_desc{&a.desc, &y.desc, count, row.axes.data()}, a.values.data(), y.values.data());
        counts.report("ArgMin Axes " + format_sizes(row.axes), y.values, row.argmin, y.sizes);
    }
    std::printf("\n");
}

void scatter_pages(tally& counts) {
    std::printf("DML_SCATTER_ND_OPERATOR_DESC\n");
    // The page prints Input {8} and Indices {4,1} (ranks differ) with FLOAT32 indices: not a legal descriptor,
    // and this layer says why. Its legal padded form: Input {1,8}, Indices {4,1}, Updates {1,4}, m = 1, q = 2.
    tensor<float> flat_input({8}, {1, 2, 3, 4, 5, 6, 7, 8}), flat_updates({4}, {9, 10, 11, 12});
    tensor<float> float_indices({4, 1}, {4, 3, 1, 7});
    try {
        dml::validate(dml::scatter_nd_operator_desc{&flat_input.desc, &float_indices.desc, &flat_updates.desc, &flat_input.desc, 1, 2});
    } catch (const tensorops::error& e) {
        std::printf("  as printed on the page (Input {8}, Indices {4,1} FLOAT32) the descriptor is rejected:\n    %s\n", e.what());
    }
    tensor<float> input({1, 8}, {1, 2, 3, 4, 5, 6, 7, 8}), updates({1, 4}, {9, 10, 11, 12}), output({1, 8});
    tensor<std::int64_t> indices({4, 1}, {4, 3, 1, 7});
    std::printf("  InputTensor {1,8} FLOAT32 = %s\n  IndicesTensor {4,1} INT64 = %s\n  UpdatesTensor {1,4} FLOAT32 = %s\n",
                format(input.values, input.sizes).c_str(), format(indices.values, indices.sizes).c_str(),
                format(updates.values, updates.sizes).c_str());
    dml::execute(dml::scatter_nd_operator_desc{&input.desc, &indices.desc, &updates.desc, &output.desc, 1, 2}, input.values.data(),
                 indices.values.data(), updates.values.data(), output.values.data());
    counts.report("InputDimensionCount 1, IndicesDimensionCount 2", output.values, std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12}, output.sizes);

    // The page's shape example: Input [3,4,5,6,7] (m = 5), Indices [1,1,1,2,3] (q = 3) → Updates [1,1,2,6,7].
    const std::vector<std::uint32_t> in_sizes{3, 4, 5, 6, 7}, index_sizes{1, 1, 1, 2, 3}, update_sizes{1, 1, 2, 6, 7};
    const dml::buffer_tensor_desc in{dml::tensor_data_type::float32, 5, in_sizes.data(), nullptr, 2520 * 4, 0},
        ix{dml::tensor_data_type::int32, 5, index_sizes.data(), nullptr, 6 * 4, 0},
        up{dml::tensor_data_type::float32, 5, update_sizes.data(), nullptr, 84 * 4, 0};
    bool valid = true;
    try {
        dml::validate(dml::scatter_nd_operator_desc{&in, &ix, &up, &in, 5, 3});
    } catch (const tensorops::error& e) {
        valid = false;
        std::printf("    %s\n", e.what());
    }
    ++counts.total;
    counts.matched += valid ? 1 : 0;
    std::printf("  %-30s  Input {3,4,5,6,7} m=5, Indices {1,1,1,2,3} q=3 -> Updates {1,1,2,6,7}: %s\n\n", "shape example",
                valid ? "accepted, as the page says (match)" : "rejected (MISMATCH)");
}

}  // namespace

int main() {
    std::printf("tensorops: the DirectML documentation examples, run through tensorops::dml on the CPU\n\n");
    tally counts;
    cumulative_pages(counts);
    reduce_pages(counts);
    scatter_pages(counts);
    std::printf("%d of %d page examples match the documented output\n", counts.matched, counts.total);
    return counts.matched == counts.total ? 0 : 1;
}
