// The demo: the examples of the DirectML documentation pages (SEMANTICS.md §1–§3), computed by tensorops and
// printed beside each page's expected output, with a verdict. Operators are added here as they land.
#include <tensorops/tensorops.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace {

// Formats a tensor stored row-major with the given sizes, nested brackets per dimension.
std::string format(const std::vector<float>& values, const std::vector<std::size_t>& sizes) {
    std::string text;
    std::size_t position = 0;
    auto emit = [&](auto&& self, std::size_t dimension) -> void {
        text += "[";
        for (std::size_t i = 0; i < sizes[dimension]; ++i) {
            if (i) text += ", ";
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

struct tally {
    int matched = 0, total = 0;
    void report(const char* what, const std::vector<float>& got, const std::vector<float>& expected,
                const std::vector<std::size_t>& sizes) {
        const bool same = got == expected;
        ++total;
        matched += same ? 1 : 0;
        std::printf("  %-44s %s\n", what, format(got, sizes).c_str());
        if (!same) std::printf("  %-44s %s   <-- MISMATCH\n", "  page says", format(expected, sizes).c_str());
    }
};

void cumulative_pages(tally& counts) {
    const std::vector<std::size_t> sizes{1, 1, 3, 4};
    const std::vector<float> input{2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4};
    std::printf("DML_CUMULATIVE_SUMMATION / DML_CUMULATIVE_PRODUCT\n");
    std::printf("  input {1,1,3,4} = %s\n", format(input, sizes).c_str());
    struct page_row {
        std::size_t axis;
        tensorops::axis_direction direction;
        bool exclusive;
        std::vector<float> sum, product;
    };
    using tensorops::axis_direction;
    const page_row rows[] = {
        {3, axis_direction::increasing, false, {2, 3, 6, 11, 3, 11, 18, 21, 9, 15, 17, 21}, {2, 2, 6, 30, 3, 24, 168, 504, 9, 54, 108, 432}},
        {3, axis_direction::increasing, true, {0, 2, 3, 6, 0, 3, 11, 18, 0, 9, 15, 17}, {1, 2, 2, 6, 1, 3, 24, 168, 1, 9, 54, 108}},
        {3, axis_direction::decreasing, false, {11, 9, 8, 5, 21, 18, 10, 3, 21, 12, 6, 4}, {30, 15, 15, 5, 504, 168, 21, 3, 432, 48, 8, 4}},
        {2, axis_direction::increasing, false, {2, 1, 3, 5, 5, 9, 10, 8, 14, 15, 12, 12}, {2, 1, 3, 5, 6, 8, 21, 15, 54, 48, 42, 60}},
    };
    const tensorops::tensor_view<const float> x(input.data(), sizes);
    for (const auto& row : rows) {
        std::vector<float> sum(input.size()), product(input.size());
        const tensorops::scan_options options{row.axis, row.direction, row.exclusive};
        tensorops::cumulative_sum(x, tensorops::tensor_view<float>(sum.data(), sizes), options);
        tensorops::cumulative_product(x, tensorops::tensor_view<float>(product.data(), sizes), options);
        char parameters[96];
        std::snprintf(parameters, sizeof parameters, "Axis %zu, %s, exclusive %s", row.axis,
                      row.direction == axis_direction::increasing ? "INCREASING" : "DECREASING", row.exclusive ? "yes" : "no");
        std::printf("  %s\n", parameters);
        counts.report("  cumulative sum", sum, row.sum, sizes);
        counts.report("  cumulative product", product, row.product, sizes);
    }
    std::printf("\n");
}

void reduce_pages(tally& counts) {
    const std::vector<std::size_t> sizes{3, 3};
    const std::vector<float> input{1, 2, 3, 3, 0, 4, 2, 4, 2};
    std::printf("DML_REDUCE_OPERATOR_DESC, function SUM\n");
    std::printf("  input {3,3} = %s\n", format(input, sizes).c_str());
    const tensorops::tensor_view<const float> x(input.data(), sizes);
    struct page_row {
        std::vector<std::size_t> axes, out_sizes;
        std::vector<float> expected;
        const char* label;
    };
    const page_row rows[] = {{{0}, {1, 3}, {6, 6, 9}, "  Axes {0}"}, {{1}, {3, 1}, {6, 7, 8}, "  Axes {1}"}, {{0, 1}, {1, 1}, {21}, "  Axes {0,1}"}};
    for (const auto& row : rows) {
        std::vector<float> out(row.expected.size());
        tensorops::reduce(x, tensorops::tensor_view<float>(out.data(), row.out_sizes), tensorops::reduce_function::sum, row.axes);
        counts.report(row.label, out, row.expected, row.out_sizes);
    }
    std::printf("\n");

    const std::vector<float> arg_input{1, 2, 3, 3, 0, 4, 2, 5, 2};
    std::printf("DML_ARGMAX_OPERATOR_DESC / DML_ARGMIN_OPERATOR_DESC (INCREASING: first extreme)\n");
    std::printf("  input {3,3} = %s\n", format(arg_input, sizes).c_str());
    const tensorops::tensor_view<const float> a(arg_input.data(), sizes);
    struct arg_row {
        std::vector<std::size_t> axes, out_sizes;
        std::vector<float> argmax, argmin;
    };
    const arg_row arg_rows[] = {{{0, 1}, {1, 1}, {7}, {4}}, {{0}, {1, 3}, {1, 2, 1}, {0, 1, 2}}, {{1}, {3, 1}, {2, 2, 1}, {0, 1, 0}}};
    for (const auto& row : arg_rows) {
        std::vector<std::int64_t> indices(row.argmax.size());
        const tensorops::tensor_view<std::int64_t> y(indices.data(), row.out_sizes);
        std::string label = "  Axes {";
        for (std::size_t i = 0; i < row.axes.size(); ++i) label += (i ? "," : "") + std::to_string(row.axes[i]);
        tensorops::argmax(a, y, row.axes);
        counts.report((label + "} argmax").c_str(), std::vector<float>(indices.begin(), indices.end()), row.argmax, row.out_sizes);
        tensorops::argmin(a, y, row.axes);
        counts.report((label + "} argmin").c_str(), std::vector<float>(indices.begin(), indices.end()), row.argmin, row.out_sizes);
    }
    std::printf("\n");
}

}  // namespace

int main() {
    std::printf("tensorops: the DirectML documentation examples, computed on the CPU\n\n");
    tally counts;
    cumulative_pages(counts);
    reduce_pages(counts);
    std::printf("(the scatter-ND example joins when that operator lands)\n\n");
    std::printf("%d of %d page examples match the documented output\n", counts.matched, counts.total);
    return counts.matched == counts.total ? 0 : 1;
}
