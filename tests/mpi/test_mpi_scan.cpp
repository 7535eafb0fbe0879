// tests/mpi/test_mpi_scan.cpp — the sharded scans (sum, product, a caller's operation, running max / min, with and
// without indices, with ties, signed zeros and NaN payloads) against the single-process scans of the gathered tensor,
// bit for bit: random ranks, shapes, shard sizes (unequal, empty), local layouts, axes, directions, in place or not,
// executors; shapes past the fixed scan blocks (lines of 512 KiB, bands of 2 MiB) so that blocks and vector pairs
// straddle shards.
#include "mpi_support.hpp"

#include <cmath>

namespace mpi_test {

/// float16 and bfloat16, for which the trials draw no caller's operation.
template <class T>
inline constexpr bool narrow_float = std::is_same_v<T, float16> || std::is_same_v<T, tensorops::bfloat16>;

enum class scan_kind { sum, product, custom_max, maximum, minimum, maximum_indices, minimum_indices, log_sum_exp };

/// A global shape for a scan along `axis`: small, or long along it past a line block, or with wide rows past a band.
inline std::vector<std::size_t> scan_shape(context& c, std::size_t element_size, std::size_t& axis) {
    std::size_t rank = c.uniform(1, 4);
    std::vector<std::size_t> sizes(rank);
    for (auto& size : sizes) size = c.uniform(1, 6);
    axis = c.uniform(0, rank - 1);
    const int kind = static_cast<int>(c.uniform(0, 9));
    if (kind == 0) {  // a long contiguous line: past one block of 512 KiB
        for (auto& size : sizes) size = 1;
        sizes[rank - 1] = (std::size_t{3} << 19) / element_size + c.uniform(0, 5000);
        axis = rank - 1;
        if (rank > 1) sizes[0] = c.uniform(1, 2);
    } else if (kind == 1) {  // rows scanned across, several bands of 2 MiB
        if (rank < 2) {
            sizes.push_back(1);
            ++rank;
        }
        for (auto& size : sizes) size = 1;
        const std::size_t m = c.uniform(8, 300);
        axis = rank - 2;
        sizes[rank - 1] = m;
        sizes[axis] = (std::size_t{5} << 20) / (m * element_size) + c.uniform(0, 50);
    } else if (kind <= 4) {  // medium: a few hundred to a few thousand per axis
        sizes[axis] = c.uniform(1, 3000);
        if (rank > 1) sizes[rank - 1] = c.uniform(1, 70);
    }
    return sizes;
}

template <class T, class Index>
void scan_trial(context& c, tensorops::thread_pool& pool) {
    std::size_t axis = 0, sharded = 0;
    std::vector<std::size_t> global;
    scan_kind kind = static_cast<scan_kind>(c.uniform(0, 7));
    if (tensorops::builtin_floating<T> && c.chance(0.25)) {  // the log-sum-exp's three sharded cases, small
        kind = scan_kind::log_sum_exp;
        const int layout = static_cast<int>(c.uniform(0, 2));
        if (layout ==
            0) {  // contiguous lines along the sharded axis: kernel steps cut by shards, several shards per step
            global = {c.uniform(1, 3), c.uniform(1, 700)};
            axis = sharded = 1;
        } else if (layout == 1) {  // rows along the sharded axis, some past one block of columns
            global = {c.uniform(1, 2), c.uniform(1, 100), c.chance(0.2) ? c.uniform(1000, 1100) : c.uniform(2, 40)};
            axis = sharded = 1;
        } else {  // rows across another axis, the sharded one among the columns (columns in lanes and scalar)
            global = {c.uniform(1, 60), c.uniform(1, 4), c.uniform(1, 40)};
            sharded = c.uniform(1, 2);
        }
    } else {
        global = scan_shape(c, sizeof(T), axis);
        sharded = c.chance(0.5) ? axis : c.uniform(0, global.size() - 1);
    }
    const auto counts = random_split(c, global[sharded]);
    std::size_t offset = 0;
    for (int r = 0; r < c.rank; ++r) offset += counts[static_cast<std::size_t>(r)];
    if (kind == scan_kind::log_sum_exp && !tensorops::builtin_floating<T>) kind = scan_kind::sum;
    const bool extreme = kind == scan_kind::maximum || kind == scan_kind::minimum ||
                         kind == scan_kind::maximum_indices || kind == scan_kind::minimum_indices;
    if (narrow_float<T> && kind == scan_kind::custom_max) kind = scan_kind::sum;
    tensorops::scan_options options{.axis = axis,
                                    .direction = c.chance(0.5) ? tensorops::axis_direction::increasing : tensorops::axis_direction::decreasing,
                                    .exclusive = c.chance(0.5)};
    const bool in_place = c.chance(0.4), on_pool = c.chance(0.3);

    std::size_t count = 1;
    for (std::size_t size : global) count *= size;
    std::vector<T> data(count), expected(count);
    std::vector<Index> expected_indices(count);
    const double low = kind == scan_kind::product ? 0.9 : -1.0, high = kind == scan_kind::product ? 1.1 : 1.0;
    for (auto& value : data) value = random_value<T>(c, low, high);
    if (extreme) {  // ties (zeros of both signs) and NaN payloads
        if (c.chance(0.5))
            for (auto& value : data) value = static_cast<T>(static_cast<int>(c.uniform(0, 3)));
        if constexpr (std::is_floating_point_v<T>) {
            if (c.chance(0.5))
                for (auto& value : data)
                    if (c.chance(0.05)) value = value == T(0) ? -T(0) : value;
            if (c.chance(0.3))
                for (std::size_t k = 0; k < 3 && count > 0; ++k)
                    data[c.uniform(0, count - 1)] = static_cast<T>(std::nan(std::to_string(k + 1).c_str()));
        }
    }
    if constexpr (std::is_floating_point_v<T> || narrow_float<T>) {
        if (kind ==
            scan_kind::log_sum_exp) {  // every branch of the kernels: rises past their reach, trends, infinities, NaN
            const double scale = c.chance(0.3) ? 200.0 : 1.0, trend = c.chance(0.3) ? 0.01 : 0.0;
            for (std::size_t i = 0; i < count; ++i)
                data[i] = static_cast<T>(static_cast<double>(data[i]) * scale + trend * static_cast<double>(i % 5000));
            if (c.chance(0.3))
                for (std::size_t k = 0; k < 4 && count > 0; ++k) {
                    const double special[] = {-INFINITY, INFINITY, NAN, -INFINITY};
                    data[c.uniform(0, count - 1)] = static_cast<T>(special[k]);
                }
        }
    }
    const tensorops::tensor_view<const T> global_in(data.data(), global);
    const tensorops::tensor_view<T> global_out(expected.data(), global);
    const auto custom = [](const T& a, const T& b) { return b < a ? a : b; };
    if (kind == scan_kind::sum) tensorops::cumulative_sum(global_in, global_out, options);
    else if (kind == scan_kind::product) tensorops::cumulative_product(global_in, global_out, options);
    else if (kind == scan_kind::maximum) tensorops::cumulative_max(global_in, global_out, options);
    else if (kind == scan_kind::minimum) tensorops::cumulative_min(global_in, global_out, options);
    else if (kind == scan_kind::maximum_indices)
        tensorops::cumulative_max(global_in, global_out, tensorops::tensor_view<Index>(expected_indices.data(), global),
                                  options);
    else if (kind == scan_kind::minimum_indices)
        tensorops::cumulative_min(global_in, global_out, tensorops::tensor_view<Index>(expected_indices.data(), global),
                                  options);
    else if (kind == scan_kind::log_sum_exp) {
        if constexpr (tensorops::builtin_floating<T>) tensorops::cumulative_log_sum_exp(global_in, global_out, options);
    } else if constexpr (!narrow_float<T>)
        tensorops::cumulative_scan(global_in, global_out, options, custom, std::numeric_limits<T>::lowest());

    std::vector<std::size_t> local = global;
    local[sharded] = counts[static_cast<std::size_t>(c.rank)];
    const layout in_layout = random_layout(c, local), out_layout = random_layout(c, local);
    std::vector<T> in_buffer(in_layout.buffer), out_buffer(out_layout.buffer, T(7));
    const tensorops::tensor_view<T> in_view(in_buffer.data() + in_layout.base, local, in_layout.strides);
    for_each_shard_element(local, global, sharded, offset, [&](const std::vector<std::size_t>& index, std::size_t at) { element_at(in_view, index) = data[at]; });
    const tensorops::tensor_view<T> out_view = in_place ? in_view : tensorops::tensor_view<T>(out_buffer.data() + out_layout.base, local, out_layout.strides);
    const tensorops::mpi::sharded_view<T> in(in_view, sharded, offset, global[sharded], c.comm), out(out_view, sharded, offset, global[sharded], c.comm);
    const layout index_layout = random_layout(c, local);
    std::vector<Index> index_buffer(index_layout.buffer, Index(99));
    const tensorops::tensor_view<Index> index_view(index_buffer.data() + index_layout.base, local,
                                                   index_layout.strides);
    const tensorops::mpi::sharded_view<Index> indices(index_view, sharded, offset, global[sharded], c.comm);
    const auto call = [&](auto& exec) {
        if (kind == scan_kind::sum) tensorops::mpi::cumulative_sum<T>(exec, in, out, options);
        else if (kind == scan_kind::product) tensorops::mpi::cumulative_product<T>(exec, in, out, options);
        else if (kind == scan_kind::maximum) tensorops::mpi::cumulative_max<T>(exec, in, out, options);
        else if (kind == scan_kind::minimum) tensorops::mpi::cumulative_min<T>(exec, in, out, options);
        else if (kind == scan_kind::maximum_indices) tensorops::mpi::cumulative_max<T>(exec, in, out, indices, options);
        else if (kind == scan_kind::minimum_indices) tensorops::mpi::cumulative_min<T>(exec, in, out, indices, options);
        else if (kind == scan_kind::log_sum_exp) {
            if constexpr (tensorops::builtin_floating<T>)
                tensorops::mpi::cumulative_log_sum_exp<T>(exec, in, out, options);
        } else if constexpr (!narrow_float<T>)
            tensorops::mpi::cumulative_scan<T>(exec, in, out, options, custom, std::numeric_limits<T>::lowest());
    };
    if (on_pool) call(pool);
    else call(tensorops::sequential);

    std::string shape = "{";
    for (std::size_t size : global) shape += std::to_string(size) + " ";
    const std::string what = type_name<T>() + " scan kind " + std::to_string(static_cast<int>(kind)) + " shape " + shape + "} axis " +
                             std::to_string(axis) + " sharded " + std::to_string(sharded) + (options.exclusive ? " exclusive" : "") +
                             (options.direction == tensorops::axis_direction::decreasing ? " decreasing" : "") + (in_place ? " in place" : "");
    const bool with_indices = kind == scan_kind::maximum_indices || kind == scan_kind::minimum_indices;
    std::size_t wrong = 0, first_wrong = 0;
    double got = 0, wanted = 0;
    for_each_shard_element(local, global, sharded, offset, [&](const std::vector<std::size_t>& index, std::size_t at) {
        const bool indices_wrong = with_indices && element_at(index_view, index) != expected_indices[at];
        if ((!same_bits(element_at(out_view, index), expected[at]) || indices_wrong) && wrong++ == 0) {
            first_wrong = at;
            got = static_cast<double>(element_at(out_view, index));
            wanted = static_cast<double>(expected[at]);
        }
    });
    c.check(wrong == 0, what + ": " + std::to_string(wrong) + " elements differ, the first at global offset " +
                            std::to_string(first_wrong) + " (" + std::to_string(got) + " for " +
                            std::to_string(wanted) + ")");
}

}  // namespace mpi_test

int main(int argc, char** argv) {
    return mpi_test::run_trials(argc, argv, "test_mpi_scan", 60,
                                [](mpi_test::context& c, tensorops::thread_pool& pool) {
        switch (c.uniform(0, 6)) {
            case 0: mpi_test::scan_trial<float, std::int64_t>(c, pool); break;
            case 1: mpi_test::scan_trial<double, std::uint32_t>(c, pool); break;
            case 2: mpi_test::scan_trial<tensorops::float16, std::int32_t>(c, pool); break;
            case 3: mpi_test::scan_trial<std::int32_t, std::uint64_t>(c, pool); break;
            case 4: mpi_test::scan_trial<std::uint8_t, std::int64_t>(c, pool); break;
            case 5: mpi_test::scan_trial<tensorops::bfloat16, std::uint64_t>(c, pool); break;
            default: mpi_test::scan_trial<std::int64_t, std::int32_t>(c, pool); break;
        }
    });
}
