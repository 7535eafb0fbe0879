// The demo's DML_REDUCE_OPERATOR_DESC page.
#include "pages.hpp"

namespace directml_pages {

void reduce_pages(tally& counts) {
    tensor<float> x({3, 3}, {1, 2, 3, 3, 0, 4, 2, 4, 2});
    std::printf("DML_REDUCE_OPERATOR_DESC, Function DML_REDUCE_FUNCTION_SUM\n  InputTensor {3,3} FLOAT32 = %s\n",
                format(x.values, x.sizes).c_str());
    struct page_row {
        std::vector<std::uint32_t> axes, out_sizes;
        std::vector<float> expected;
    };
    const page_row rows[] = {{{0}, {1, 3}, {6, 6, 9}}, {{1}, {3, 1}, {6, 7, 8}}, {{0, 1}, {1, 1}, {21}}};
    for (const auto& row : rows) {
        tensor<float> y(row.out_sizes);
        dml::execute(dml::reduce_operator_desc{tensorops::reduce_function::sum, &x.desc, &y.desc,
                                               static_cast<std::uint32_t>(row.axes.size()), row.axes.data()},
                     x.values.data(), y.values.data());
        counts.report("Axes " + format_sizes(row.axes), y.values, row.expected, y.sizes);
    }
    std::printf("\n");
}

}  // namespace directml_pages
