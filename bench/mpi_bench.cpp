// bench/mpi_bench.cpp — per-rank speed of the sharded operators against the library's local kernel on the same shard
// (f32, 64 MiB per rank by default), in interleaved rounds: each round times the local call and the sharded call
// alternately (a barrier before each, the slowest rank's time), and the median ratio over the rounds is printed.
//   mpiexec -np 2 ./mpi_bench [rounds] [MiB per rank]
#include <tensorops/mpi.hpp>
#include <tensorops/tensorops.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

double seconds_of(const std::function<void()>& call) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    call();
    double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const std::size_t rounds = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 15;
    const std::size_t mib = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 64;
    const std::size_t per_rank = mib << 18;  // floats
    const std::size_t columns = 4096, rows = per_rank / columns;
    std::vector<float> x(per_rank), y(per_rank);
    for (std::size_t i = 0; i < per_rank; ++i) x[i] = static_cast<float>((i * 2654435761u) % 1000) / 999.0f;
    std::vector<std::int32_t> xi(per_rank);
    for (std::size_t i = 0; i < per_rank; ++i) xi[i] = static_cast<std::int32_t>(i % 1000);
    std::vector<float> column_sums(columns), row_sums(rows);
    std::vector<std::int32_t> int_column_sums(columns);
    const std::size_t offset = static_cast<std::size_t>(rank) * rows, global_rows = static_cast<std::size_t>(ranks) * rows;

    // Rows sharded: [rows, columns] per rank of [ranks · rows, columns]; and one long line sharded.
    const tensorops::tensor_view<const float> in(x.data(), {rows, columns});
    const tensorops::tensor_view<float> out(y.data(), {rows, columns});
    const tensorops::mpi::sharded_view<const float> sin(in, 0, offset, global_rows, MPI_COMM_WORLD);
    const tensorops::mpi::sharded_view<float> sout(out, 0, offset, global_rows, MPI_COMM_WORLD);
    const tensorops::tensor_view<const float> line_in(x.data(), {per_rank});
    const tensorops::tensor_view<float> line_out(y.data(), {per_rank});
    const tensorops::mpi::sharded_view<const float> sline_in(line_in, 0, static_cast<std::size_t>(rank) * per_rank, per_rank * static_cast<std::size_t>(ranks),
                                                             MPI_COMM_WORLD);
    const tensorops::mpi::sharded_view<float> sline_out(line_out, 0, static_cast<std::size_t>(rank) * per_rank, per_rank * static_cast<std::size_t>(ranks),
                                                        MPI_COMM_WORLD);
    const std::array<std::size_t, 1> down{0}, across{1};
    const std::array<std::size_t, 2> both{0, 1};
    // Features sharded: [rows, columns] per rank of [rows, ranks · columns], reduced over the features.
    const tensorops::mpi::sharded_view<const float> sfeatures(in, 1, static_cast<std::size_t>(rank) * columns,
                                                              static_cast<std::size_t>(ranks) * columns, MPI_COMM_WORLD);
    const tensorops::mpi::sharded_view<float> sfeatures_out(out, 1, static_cast<std::size_t>(rank) * columns,
                                                            static_cast<std::size_t>(ranks) * columns, MPI_COMM_WORLD);
    std::vector<std::int32_t> indices(per_rank);
    const tensorops::tensor_view<std::int32_t> index_view(indices.data(), {rows, columns}),
        line_indices(indices.data(), {per_rank});
    const tensorops::mpi::sharded_view<std::int32_t> sindices(index_view, 0, offset, global_rows, MPI_COMM_WORLD);
    const tensorops::mpi::sharded_view<std::int32_t> sline_indices(line_indices, 0,
                                                                   static_cast<std::size_t>(rank) * per_rank,
                                                                   per_rank * static_cast<std::size_t>(ranks),
                                                                   MPI_COMM_WORLD);
    float line_result = 0;
    const tensorops::tensor_view<const std::int32_t> in_int(xi.data(), {rows, columns});
    const tensorops::mpi::sharded_view<const std::int32_t> sin_int(in_int, 0, offset, global_rows, MPI_COMM_WORLD);

    struct pair {
        std::string name;
        std::function<void()> local, sharded;
    };
    const std::vector<pair> pairs =
        {
            {"cumulative_sum along a non-sharded axis (rows of 4096)",
             [&] { tensorops::cumulative_sum(in, out, {.axis = 1}); },
             [&] { tensorops::mpi::cumulative_sum<float>(sin, sout, {.axis = 1}); }},
            {"cumulative_sum along the sharded axis (across rows, bands)",
             [&] { tensorops::cumulative_sum(in, out, {.axis = 0}); },
             [&] { tensorops::mpi::cumulative_sum<float>(sin, sout, {.axis = 0}); }},
            {"cumulative_sum along the sharded axis (one contiguous line)",
             [&] { tensorops::cumulative_sum(line_in, line_out, {.axis = 0}); },
             [&] { tensorops::mpi::cumulative_sum<float>(sline_in, sline_out, {.axis = 0}); }},
            {"cumulative_max with indices along the sharded axis (rows)",
             [&] { tensorops::cumulative_max(in, out, index_view, {.axis = 0}); },
             [&] { tensorops::mpi::cumulative_max<float>(sin, sout, sindices, {.axis = 0}); }},
            {"cumulative_max with indices along the sharded axis (one line)",
             [&] { tensorops::cumulative_max(line_in, line_out, line_indices, {.axis = 0}); },
             [&] { tensorops::mpi::cumulative_max<float>(sline_in, sline_out, sline_indices, {.axis = 0}); }},
            {"cumulative_log_sum_exp along the sharded axis (rows, pipelined)",
             [&] { tensorops::cumulative_log_sum_exp(in, out, {.axis = 0}); },
             [&] { tensorops::mpi::cumulative_log_sum_exp<float>(sin, sout, {.axis = 0}); }},
            {"cumulative_log_sum_exp along the sharded axis (one line, in turn)",
             [&] { tensorops::cumulative_log_sum_exp(line_in, line_out, {.axis = 0}); },
             [&] { tensorops::mpi::cumulative_log_sum_exp<float>(sline_in, sline_out, {.axis = 0}); }},
            {"cumulative_log_sum_exp down rows, the columns sharded",
             [&] { tensorops::cumulative_log_sum_exp(in, out, {.axis = 0}); },
             [&] { tensorops::mpi::cumulative_log_sum_exp<float>(sfeatures, sfeatures_out, {.axis = 0}); }},
            {"reduce MULTIPLY f32 over the sharded axis (a running row, staged)",
             [&] {
        tensorops::reduce(in, tensorops::tensor_view<float>(column_sums.data(), {1, columns}),
                          tensorops::reduce_function::multiply, down);
             },
             [&] {
        tensorops::mpi::reduce(sin, tensorops::tensor_view<float>(column_sums.data(), {1, columns}),
                               tensorops::reduce_function::multiply, down);
            }},
                            {"reduce MULTIPLY f32 of the whole sharded line (fixed blocks)",
                             [&] {
        tensorops::reduce(line_in, tensorops::tensor_view<float>(&line_result, {1}),
                          tensorops::reduce_function::multiply, down);
                             },
                             [&] {
        tensorops::mpi::reduce(sline_in, tensorops::tensor_view<float>(&line_result, {1}),
                               tensorops::reduce_function::multiply, down);
                            }},
                            {"reduce LOG_SUM_EXP f32 of the whole sharded line (fixed blocks)",
                             [&] {
        tensorops::reduce(line_in, tensorops::tensor_view<float>(&line_result, {1}),
                          tensorops::reduce_function::log_sum_exp, down);
                             },
                             [&] {
        tensorops::mpi::reduce(sline_in, tensorops::tensor_view<float>(&line_result, {1}),
                               tensorops::reduce_function::log_sum_exp, down);
                            }},
                            {"reduce SUM f32 over sharded features (rows re-sharded)",
                             [&] {
        tensorops::reduce(in, tensorops::tensor_view<float>(row_sums.data(), {rows, 1}),
                          tensorops::reduce_function::sum, across);
                             },
                             [&] {
        tensorops::mpi::reduce(sfeatures, tensorops::tensor_view<float>(row_sums.data(), {rows, 1}),
                               tensorops::reduce_function::sum, across);
                            }},
                            {"reduce SUM f32 of all of a column-sharded matrix (flat re-shard)",
                             [&] {
        tensorops::reduce(in, tensorops::tensor_view<float>(&line_result, {1, 1}), tensorops::reduce_function::sum,
                          both);
                             },
                             [&] {
        tensorops::mpi::reduce(sfeatures, tensorops::tensor_view<float>(&line_result, {1, 1}),
                               tensorops::reduce_function::sum, both);
                            }},
                            {"reduce LOG_SUM_EXP f32 of all of a column-sharded matrix (flat)",
                             [&] {
        tensorops::reduce(in, tensorops::tensor_view<float>(&line_result, {1, 1}),
                          tensorops::reduce_function::log_sum_exp, both);
                             },
                             [&] {
        tensorops::mpi::reduce(sfeatures, tensorops::tensor_view<float>(&line_result, {1, 1}),
                               tensorops::reduce_function::log_sum_exp, both);
                            }},
                            {"reduce SUM f32 over rows, the columns sharded (the line's plan)",
                             [&] {
        tensorops::reduce(in, tensorops::tensor_view<float>(column_sums.data(), {1, columns}),
                          tensorops::reduce_function::sum, down);
                             },
                             [&] {
        tensorops::mpi::reduce(
            sfeatures,
            tensorops::mpi::sharded_view<float>(tensorops::tensor_view<float>(column_sums.data(), {1, columns}), 1,
                                                static_cast<std::size_t>(rank) * columns,
                                                static_cast<std::size_t>(ranks) * columns, MPI_COMM_WORLD),
            tensorops::reduce_function::sum, down);
                            }},
                            {"reduce SUM f32 over a non-sharded axis (each rank its shard)",
                             [&] {
        tensorops::reduce(in, tensorops::tensor_view<float>(row_sums.data(), {rows, 1}),
                          tensorops::reduce_function::sum, across);
                             },
                             [&] {
        tensorops::mpi::reduce(sin,
                               tensorops::mpi::sharded_view<float>(tensorops::tensor_view<float>(row_sums.data(),
                                                                                                 {rows, 1}),
                                                                   0, offset, global_rows, MPI_COMM_WORLD),
                               tensorops::reduce_function::sum, across);
                            }},
                            {"reduce SUM f32 over the sharded axis (units where their rows are)",
                             [&] {
        tensorops::reduce(in, tensorops::tensor_view<float>(column_sums.data(), {1, columns}),
                          tensorops::reduce_function::sum, down);
                             },
                             [&] {
        tensorops::mpi::reduce(sin, tensorops::tensor_view<float>(column_sums.data(), {1, columns}),
                               tensorops::reduce_function::sum, down);
                            }},
                            {"reduce LOG_SUM_EXP f32 over the sharded axis (blocks where their rows are)",
                             [&] {
        tensorops::reduce(in, tensorops::tensor_view<float>(column_sums.data(), {1, columns}),
                          tensorops::reduce_function::log_sum_exp, down);
                             },
                             [&] {
        tensorops::mpi::reduce(sin, tensorops::tensor_view<float>(column_sums.data(), {1, columns}),
                               tensorops::reduce_function::log_sum_exp, down);
                            }},
                            {"reduce SUM f32 of the whole sharded line (its blocks where they lie)",
                             [&] {
        tensorops::reduce(line_in, tensorops::tensor_view<float>(column_sums.data(), {1}),
                          tensorops::reduce_function::sum, down);
                             },
                             [&] {
        tensorops::mpi::reduce(sline_in, tensorops::tensor_view<float>(column_sums.data(), {1}),
                               tensorops::reduce_function::sum, down);
                            }},
                            {"reduce SUM int32 over the sharded axis (exact partials)",
                             [&] {
        tensorops::reduce(in_int, tensorops::tensor_view<std::int32_t>(int_column_sums.data(), {1, columns}),
                          tensorops::reduce_function::sum, down);
                             },
                             [&] {
        tensorops::mpi::reduce(sin_int, tensorops::tensor_view<std::int32_t>(int_column_sums.data(), {1, columns}),
                               tensorops::reduce_function::sum, down);
                            }},
                            };
    if (rank == 0) std::printf("%d ranks, %zu MiB f32 per rank, %zu interleaved rounds: median local / sharded time (the speed ratio)\n", ranks, mib, rounds);
    const char* only = std::getenv("TENSOROPS_BENCH_ONLY");  // a part of the names to run, if given
    for (const pair& p : pairs) {
        if (only != nullptr && p.name.find(only) == std::string::npos) continue;
        std::vector<double> local, sharded, ratio;
        for (std::size_t r = 0; r < rounds; ++r) {
            local.push_back(seconds_of(p.local));
            sharded.push_back(seconds_of(p.sharded));
            ratio.push_back(local.back() / sharded.back());
        }
        if (rank == 0)
            std::printf("  %-62s local %7.2f ms  sharded %7.2f ms  speed %5.1f %%\n", p.name.c_str(), 1e3 * median(local), 1e3 * median(sharded),
                        100 * median(ratio));
    }
    MPI_Finalize();
    return 0;
}
