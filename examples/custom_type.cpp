// A user-defined element type through the typed API: amounts of money in integer cents.
//
// `money` is not a built-in type, so the operators take their generic (strided scalar) path with its own
// operators. What each operator needs is a concept (core/element.hpp):
//   cumulative_sum, reduce SUM     additive: a + b, and element_identity<money>::zero()
//   reduce MAX/MIN, argmax/argmin  totally_ordered_element: a < b
//   scatter_nd                     element: copyable and default-constructible
// `money` has no constructor from int, so it specialises element_identity (the customisation point) for its zero.
// The runtime-typed layer (tensorops::dml) knows only DirectML's data types; user types go through the typed API.
#include <tensorops/tensorops.hpp>

#include <cinttypes>
#include <cstdint>
#include <cstdio>

struct money {
    std::int64_t cents = 0;
    friend money operator+(money a, money b) { return {a.cents + b.cents}; }
    friend bool operator<(money a, money b) { return a.cents < b.cents; }
};

template <>
struct tensorops::element_identity<money> {
    static constexpr money zero() { return {0}; }
};

static void print_row(const char* label, const money* values, std::size_t count) {
    std::printf("  %-22s", label);
    for (std::size_t i = 0; i < count; ++i) std::printf(" %9.2f", static_cast<double>(values[i].cents) / 100.0);
    std::printf("\n");
}

int main() {
    // Three accounts (rows) × five days (columns) of transactions.
    money ledger[3][5] = {{{1250}, {-300}, {4000}, {-1999}, {120}},
                          {{-500}, {-500}, {10000}, {-2500}, {-75}},
                          {{300}, {300}, {300}, {300}, {-1200}}};
    const tensorops::tensor_view<const money> transactions(&ledger[0][0], {3, 5});
    std::printf("transactions (3 accounts x 5 days):\n");
    for (const auto& account : ledger) print_row("", account, 5);

    // Running balance of each account: a cumulative sum along the days.
    money balance[3][5];
    tensorops::cumulative_sum(transactions, tensorops::tensor_view<money>(&balance[0][0], {3, 5}), {.axis = 1});
    std::printf("\nrunning balance (cumulative_sum, axis 1):\n");
    for (const auto& account : balance) print_row("", account, 5);

    // Totals per account, and the largest single transaction of each day with the account it came from.
    money totals[3], largest[5];
    std::int64_t from_account[5];
    tensorops::reduce(transactions, tensorops::tensor_view<money>(totals, {3, 1}), tensorops::reduce_function::sum, {1});
    tensorops::reduce(transactions, tensorops::tensor_view<money>(largest, {1, 5}), tensorops::reduce_function::max, {0});
    tensorops::argmax(transactions, tensorops::tensor_view<std::int64_t>(from_account, {1, 5}), {0});
    std::printf("\n");
    print_row("total per account:", totals, 3);
    print_row("largest of each day:", largest, 5);
    std::printf("  %-22s", "from account:");
    for (std::int64_t a : from_account) std::printf(" %9" PRId64, a);
    std::printf("\n");

    // Corrections: replace two transactions in place (scatter_nd; -1 counts from the end: the last day).
    const std::int64_t where[2][2] = {{0, 3}, {2, -1}};
    const money fixed[2] = {{-1899}, {-1000}};
    const tensorops::tensor_view<money> book(&ledger[0][0], {3, 5});
    tensorops::scatter_nd(tensorops::tensor_view<const money>(book), tensorops::tensor_view<const std::int64_t>(&where[0][0], {2, 2}),
                          tensorops::tensor_view<const money>(fixed, {2}), book);
    std::printf("\nafter scatter_nd corrections at (0,3) and (2,-1):\n");
    for (const auto& account : ledger) print_row("", account, 5);

    // A type without what an operator needs is rejected at compile time (money has no *):
    static_assert(!tensorops::multiplicative<money>);
    // … and invalid arguments throw tensorops::error, as for built-in types.
    try {
        tensorops::cumulative_sum(transactions, tensorops::tensor_view<money>(&balance[0][0], {5, 3}), {});
    } catch (const tensorops::error& e) {
        std::printf("\n%s\n", e.what());
    }
}
