// The demo's DML_ARGMAX_OPERATOR_DESC and DML_ARGMIN_OPERATOR_DESC pages.
#include "pages.hpp"

namespace directml_pages {

void arg_reduce_pages(tally& counts) {
    tensor<float> a({3, 3}, {1, 2, 3, 3, 0, 4, 2, 5, 2});
    std::printf(
        "DML_ARGMAX_OPERATOR_DESC / DML_ARGMIN_OPERATOR_DESC (AxisDirection INCREASING: the first extreme), "
        "OutputTensor INT64\n");
    std::printf("  InputTensor {3,3} FLOAT32 = %s\n", format(a.values, a.sizes).c_str());
    struct arg_row {
        std::vector<std::uint32_t> axes, out_sizes;
        std::vector<std::int64_t> argmax, argmin;
    };
    const arg_row arg_rows[] = {{{0, 1}, {1, 1}, {7}, {4}},
                                {{0}, {1, 3}, {1, 2, 1}, {0, 1, 2}},
                                {{1}, {3, 1}, {2, 2, 1}, {0, 1, 0}}};
    for (const auto& row : arg_rows) {
        tensor<std::int64_t> y(row.out_sizes);
        const auto count = static_cast<std::uint32_t>(row.axes.size());
        dml::execute(dml::argmax_operator_desc{&a.desc, &y.desc, count, row.axes.data()}, a.values.data(),
                     y.values.data());
        counts.report("ArgMax Axes " + format_sizes(row.axes), y.values, row.argmax, y.sizes);
        dml::execute(dml::argmin_operator_desc{&a.desc, &y.desc, count, row.axes.data()}, a.values.data(),
                     y.values.data());
        counts.report("ArgMin Axes " + format_sizes(row.axes), y.values, row.argmin, y.sizes);
    }
    std::printf("\n");
}

}  // namespace directml_pages
