// The demo's DML_SCATTER_ND_OPERATOR_DESC page.
#include "pages.hpp"

namespace directml_pages {

void scatter_pages(tally& counts) {
    std::printf("DML_SCATTER_ND_OPERATOR_DESC\n");
    // The page prints Input {8} and Indices {4,1} (ranks differ) with FLOAT32 indices: not a legal descriptor,
    // and this layer says why. Its legal padded form: Input {1,8}, Indices {4,1}, Updates {1,4}, m = 1, q = 2.
    tensor<float> flat_input({8}, {1, 2, 3, 4, 5, 6, 7, 8}), flat_updates({4}, {9, 10, 11, 12});
    tensor<float> float_indices({4, 1}, {4, 3, 1, 7});
    try {
        dml::validate(dml::scatter_nd_operator_desc{&flat_input.desc, &float_indices.desc, &flat_updates.desc,
                                                    &flat_input.desc, 1, 2});
    } catch (const tensorops::error& e) {
        std::printf("  as printed on the page (Input {8}, Indices {4,1} FLOAT32) the descriptor is rejected:\n    %s\n",
                    e.what());
    }
    tensor<float> input({1, 8}, {1, 2, 3, 4, 5, 6, 7, 8}), updates({1, 4}, {9, 10, 11, 12}), output({1, 8});
    tensor<std::int64_t> indices({4, 1}, {4, 3, 1, 7});
    std::printf(
        "  InputTensor {1,8} FLOAT32 = %s\n  IndicesTensor {4,1} INT64 = %s\n  UpdatesTensor {1,4} FLOAT32 = %s\n",
        format(input.values, input.sizes).c_str(), format(indices.values, indices.sizes).c_str(),
        format(updates.values, updates.sizes).c_str());
    dml::execute(dml::scatter_nd_operator_desc{&input.desc, &indices.desc, &updates.desc, &output.desc, 1, 2},
                 input.values.data(), indices.values.data(), updates.values.data(), output.values.data());
    counts.report("InputDimensionCount 1, IndicesDimensionCount 2", output.values,
                  std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12}, output.sizes);

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
    std::printf("  %-30s  Input {3,4,5,6,7} m=5, Indices {1,1,1,2,3} q=3 -> Updates {1,1,2,6,7}: %s\n\n",
                "shape example", valid ? "accepted, as the page says (match)" : "rejected (MISMATCH)");
}

}  // namespace directml_pages
