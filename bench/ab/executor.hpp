// Paired A/B harness: the executor a case runs on, shared by the operation files (ops.cpp, reduce_ops.cpp,
// scan_ops.cpp). Included after <tensorops/tensorops.hpp>; internal linkage, so that each tree's side (its namespace
// renamed by build.sh) has its own pool and no name of one side's is merged with the other's.
#pragma once
namespace ab {
namespace {
/// This side's pool of two threads, made at its first use.
tensorops::thread_pool& two_threads() {
    static tensorops::thread_pool pool(2);
    return pool;
}

/// Calls go(executor): a sequential executor for threads == 1, else two_threads().
template <class Go>
void on_executor(int threads, Go&& go) {
    if (threads == 1) {
        tensorops::sequential_executor sequential;
        go(sequential);
    } else {
        go(two_threads());
    }
}
}  // namespace
}  // namespace ab
