// examples/mpi_prefix_sum.cpp — a tensor sharded across MPI ranks: running sums along the sharded axis and along another
// one, a column maximum, and the checks that the results are the single process's, bit for bit.
//   mpiexec -np 3 ./mpi_prefix_sum
#include <tensorops/mpi.hpp>  // before any other <mpi.h>: the C interface alone
#include <tensorops/tensorops.hpp>

#include <array>
#include <cstdio>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);

    // The global tensor: 300000 rows of 4 floats, sharded by rows (an even block distribution).
    constexpr std::size_t rows = 300000, columns = 4;
    const tensorops::mpi::shard_range mine = tensorops::mpi::block_shard(rows, MPI_COMM_WORLD);
    const auto value = [](std::size_t i) { return static_cast<float>((i * 2654435761u) % 1000) / 999.0f - 0.5f; };
    std::vector<float> shard(mine.count * columns), sums(shard.size());
    for (std::size_t i = 0; i < shard.size(); ++i) shard[i] = value(mine.offset * columns + i);

    // The local views and their place in the global tensor: axis 0, starting at row mine.offset of `rows`.
    const tensorops::mpi::sharded_view<const float> x(tensorops::tensor_view<const float>(shard.data(), {mine.count, columns}), 0, mine.offset, rows,
                                                      MPI_COMM_WORLD);
    const tensorops::mpi::sharded_view<float> y(tensorops::tensor_view<float>(sums.data(), {mine.count, columns}), 0, mine.offset, rows, MPI_COMM_WORLD);

    // Running sums down the rows (across the ranks), then along each row in place (each rank alone).
    tensorops::mpi::cumulative_sum<float>(x, y, {.axis = 0});
    std::array<float, columns> last_row{};
    if (mine.count > 0) std::memcpy(last_row.data(), &sums[(mine.count - 1) * columns], sizeof last_row);
    tensorops::mpi::cumulative_sum<float>(y, y, {.axis = 1, .exclusive = true});

    // The largest element of each column, and where it is (a global row index), on rank 0.
    std::array<float, columns> column_max{};
    std::array<std::int64_t, columns> where{};
    const std::array<std::size_t, 1> down{0};
    tensorops::mpi::reduce(x, tensorops::tensor_view<float>(column_max.data(), {1, columns}), tensorops::reduce_function::max, down,
                           tensorops::mpi::on_rank(0));
    tensorops::mpi::argmax(x, tensorops::tensor_view<std::int64_t>(where.data(), {1, columns}), down);

    // The same on one process, from the whole tensor: every rank checks its shard against it.
    std::vector<float> whole(rows * columns), expected(whole.size());
    for (std::size_t i = 0; i < whole.size(); ++i) whole[i] = value(i);
    const tensorops::tensor_view<const float> all(whole.data(), {rows, columns});
    const tensorops::tensor_view<float> all_sums(expected.data(), {rows, columns});
    tensorops::cumulative_sum(all, all_sums, {.axis = 0});
    tensorops::cumulative_sum(all_sums, all_sums, {.axis = 1, .exclusive = true});
    int same = std::memcmp(sums.data(), expected.data() + mine.offset * columns, sums.size() * sizeof(float)) == 0;
    std::array<std::int64_t, columns> expected_where{};
    tensorops::argmax(all, tensorops::tensor_view<std::int64_t>(expected_where.data(), {1, columns}), down);
    same = same && where == expected_where;
    int everywhere = 0;
    MPI_Allreduce(&same, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

    std::printf("rank %d of %d: rows [%zu, %zu), column 0's running sum at my last row %g\n", rank, ranks, mine.offset, mine.offset + mine.count,
                static_cast<double>(last_row[0]));
    if (rank == 0) {
        std::printf("column maxima %g %g %g %g at rows %lld %lld %lld %lld\n", static_cast<double>(column_max[0]), static_cast<double>(column_max[1]),
                    static_cast<double>(column_max[2]), static_cast<double>(column_max[3]), static_cast<long long>(where[0]),
                    static_cast<long long>(where[1]), static_cast<long long>(where[2]), static_cast<long long>(where[3]));
        std::printf("bit-identical to one process on every rank: %s\n", everywhere ? "yes" : "NO");
    }
    MPI_Finalize();
    return everywhere ? 0 : 1;
}
