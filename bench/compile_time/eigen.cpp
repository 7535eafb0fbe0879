// bench/compile_time.sh's Eigen task: the README example's computations with Eigen's Tensor module (3.4), as a user
// of it would write them. Eigen has no scatter-ND (a loop here) and no argument checking at run time (asserts).
#include <unsupported/Eigen/CXX11/Tensor>
#include <cstdio>

int main() {
    float data[12] = {2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4};
    Eigen::TensorMap<Eigen::Tensor<float, 2, Eigen::RowMajor>> x(data, 3, 4);

    // Running sums along axis 1, last element first, excluding the element itself.
    const Eigen::array<bool, 2> reverse_columns{false, true};
    Eigen::Tensor<float, 2, Eigen::RowMajor> y = x.reverse(reverse_columns).cumsum(1, true).reverse(reverse_columns);
    std::printf("%g %g %g %g\n", y(0, 0), y(0, 1), y(0, 2), y(0, 3));  // 9 8 5 0

    // The largest value of each column, and the row it is in.
    const Eigen::array<Eigen::Index, 1> rows{0};
    Eigen::Tensor<float, 1, Eigen::RowMajor> column_max = x.maximum(rows);
    Eigen::Tensor<Eigen::Index, 1, Eigen::RowMajor> where = x.argmax(0);
    std::printf("%g@%lld %g@%lld\n", column_max(0), (long long)where(0), column_max(1), (long long)where(1));  // 9@2 8@1

    // In place, through a transposed view of the same memory: products down the columns.
    Eigen::TensorMap<Eigen::Tensor<float, 2, Eigen::ColMajor>> columns(data, 4, 3);
    columns = columns.cumprod(1).eval();
    std::printf("%g\n", data[8]);  // 2 · 3 · 9 = 54

    // Scatter-ND by hand.
    float base[8] = {1, 2, 3, 4, 5, 6, 7, 8}, updates[4] = {9, 10, 11, 12};
    long long indices[4] = {4, 3, 1, 7};
    Eigen::TensorMap<Eigen::Tensor<float, 1>> base_view(base, 8);
    Eigen::Tensor<float, 1> scattered = base_view;
    for (int i = 0; i < 4; ++i) scattered(indices[i]) = updates[i];
    std::printf("%g %g %g %g\n", scattered(1), scattered(3), scattered(4), scattered(7));  // 11 10 9 12
}
