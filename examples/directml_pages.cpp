// The demo: the examples of the DirectML documentation pages (SEMANTICS.md §1–§3), computed by tensorops and
// printed beside the page's expected output. Operators are added here as they land.
#include <tensorops/tensorops.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace {

std::string format(tensorops::tensor_view<const float> view) {
    // Prints a rank-2 view (the page examples are {1,1,r,c}: the leading 1s are dropped by the caller).
    std::string text = "[";
    for (std::size_t i = 0; i < view.size(0); ++i) {
        text += i ? ", [" : "[";
        for (std::size_t j = 0; j < view.size(1); ++j) {
            char number[32];
            std::snprintf(number, sizeof number, "%s%g", j ? ", " : "", static_cast<double>(view(i, j)));
            text += number;
        }
        text += "]";
    }
    return text + "]";
}

}  // namespace

int main() {
    std::printf("tensorops: the DirectML documentation examples\n\n");
    std::vector<float> page_input{2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4};
    const tensorops::tensor_view<const float> input(page_input.data(), {3, 4});
    std::printf("cumulative pages, input {1,1,3,4} = %s\n", format(input).c_str());
    std::printf("  seen transposed through strides    = %s\n",
                format(tensorops::tensor_view<const float>(page_input.data(), {4, 3}, {1, 4})).c_str());
    std::printf("\n(operators land in the next issues: cumulative sum/product, reduce, scatter-ND)\n");
    return 0;
}
