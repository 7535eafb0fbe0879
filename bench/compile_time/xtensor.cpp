// bench/compile_time.sh's xtensor task: the README example's computations with xtensor (0.24), as a user of it would
// write them. xtensor's cumsum has no reverse or exclusive form (flip, and subtract the element) and it has no
// scatter-ND (a loop here).
#include <xtensor/xadapt.hpp>
#include <xtensor/xsort.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xtensor.hpp>
#include <cstdio>

int main() {
    float data[12] = {2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4};
    auto x = xt::adapt(&data[0], 12, xt::no_ownership(), std::array<std::size_t, 2>{3, 4});

    // Running sums along axis 1, last element first, excluding the element itself.
    xt::xtensor<float, 2> y = xt::flip(xt::cumsum(xt::flip(x, 1), 1), 1) - x;
    std::printf("%g %g %g %g\n", y(0, 0), y(0, 1), y(0, 2), y(0, 3));  // 9 8 5 0

    // The largest value of each column, and the row it is in.
    xt::xtensor<float, 1> column_max = xt::amax(x, {0});
    xt::xtensor<std::size_t, 1> where = xt::argmax(x, 0);
    std::printf("%g@%lld %g@%lld\n", column_max(0), (long long)where(0), column_max(1), (long long)where(1));  // 9@2 8@1

    // In place, through a transposed view of the same memory: products down the columns.
    auto columns = xt::transpose(x);
    xt::xtensor<float, 2> products = xt::cumprod(columns, 1);
    columns = products;
    std::printf("%g\n", data[8]);  // 2 · 3 · 9 = 54

    // Scatter-ND by hand.
    float base[8] = {1, 2, 3, 4, 5, 6, 7, 8}, updates[4] = {9, 10, 11, 12};
    std::size_t indices[4] = {4, 3, 1, 7};
    xt::xtensor<float, 1> scattered = xt::adapt(&base[0], 8, xt::no_ownership(), std::array<std::size_t, 1>{8});
    for (int i = 0; i < 4; ++i) scattered(indices[i]) = updates[i];
    std::printf("%g %g %g %g\n", scattered(1), scattered(3), scattered(4), scattered(7));  // 11 10 9 12
}
