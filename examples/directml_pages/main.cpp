// The demo: every example of the DirectML documentation pages (SEMANTICS.md §1–§3), run through the
// runtime-typed layer tensorops::dml — descriptors filled in as a DirectML program would, buffers bound at
// execution — and printed with its input and parameters, the computed output beside the page's, and a verdict.
// Exit status 0 when every example matches. The pages of each operator: cumulative.cpp, reduce.cpp, arg_reduce.cpp,
// scatter.cpp; what they share: pages.hpp.
#include "pages.hpp"

int main() {
    using namespace directml_pages;
    std::printf("tensorops: the DirectML documentation examples, run through tensorops::dml on the CPU\n\n");
    tally counts;
    cumulative_pages(counts);
    reduce_pages(counts);
    arg_reduce_pages(counts);
    scatter_pages(counts);
    std::printf("%d of %d page examples match the documented output\n", counts.matched, counts.total);
    return counts.matched == counts.total ? 0 : 1;
}
