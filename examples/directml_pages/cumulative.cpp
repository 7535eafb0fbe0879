// The demo's DML_CUMULATIVE_SUMMATION_OPERATOR_DESC and DML_CUMULATIVE_PRODUCT_OPERATOR_DESC pages.
#include "pages.hpp"

namespace directml_pages {

using tensorops::axis_direction;

void cumulative_pages(tally& counts) {
    tensor<float> x({1, 1, 3, 4}, {2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4});
    struct page_row {
        std::uint32_t axis;
        axis_direction direction;
        bool exclusive;
        std::vector<float> sum, product;
    };
    // clang-format off: one page row a line, as the page prints them
    const page_row rows[] = {
        {3, axis_direction::increasing, false, {2, 3, 6, 11, 3, 11, 18, 21, 9, 15, 17, 21}, {2, 2, 6, 30, 3, 24, 168, 504, 9, 54, 108, 432}},
        {3, axis_direction::increasing, true, {0, 2, 3, 6, 0, 3, 11, 18, 0, 9, 15, 17}, {1, 2, 2, 6, 1, 3, 24, 168, 1, 9, 54, 108}},
        {3, axis_direction::decreasing, false, {11, 9, 8, 5, 21, 18, 10, 3, 21, 12, 6, 4}, {30, 15, 15, 5, 504, 168, 21, 3, 432, 48, 8, 4}},
        {2, axis_direction::increasing, false, {2, 1, 3, 5, 5, 9, 10, 8, 14, 15, 12, 12}, {2, 1, 3, 5, 6, 8, 21, 15, 54, 48, 42, 60}},
    };
    // clang-format on
    for (const bool product : {false, true}) {
        const char* name = product ? "DML_CUMULATIVE_PRODUCT_OPERATOR_DESC" : "DML_CUMULATIVE_SUMMATION_OPERATOR_DESC";
        std::printf("%s\n  InputTensor %s FLOAT32 = %s\n", name, format_sizes(x.sizes).c_str(),
                    format(x.values, x.sizes).c_str());
        for (const auto& row : rows) {
            tensor<float> y(x.sizes);
            if (product)
                dml::execute(dml::cumulative_product_operator_desc{&x.desc, &y.desc, row.axis, row.direction,
                                                                   row.exclusive},
                             x.values.data(), y.values.data());
            else
                dml::execute(dml::cumulative_summation_operator_desc{&x.desc, &y.desc, row.axis, row.direction,
                                                                     row.exclusive},
                             x.values.data(), y.values.data());
            const std::string parameters =
                "Axis " + std::to_string(row.axis) +
                (row.direction == axis_direction::increasing ? " INCREASING" : " DECREASING") +
                (row.exclusive ? " exclusive" : "");
            counts.report(parameters, y.values, product ? row.product : row.sum, y.sizes);
        }
        std::printf("\n");
    }
}

}  // namespace directml_pages
