#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include <tensorops/core/error.hpp>

TEST_CASE("error: is an invalid_argument whose message names operator, argument and rule") {
    const tensorops::error e("cumulative_sum", "options.axis", "is 5 but the rank is 3");
    const std::invalid_argument& base = e;
    CHECK(std::string(base.what()) == "tensorops::cumulative_sum: argument 'options.axis': is 5 but the rank is 3");
    CHECK(e.operator_name() == "cumulative_sum");
    CHECK(e.argument() == "options.axis");
    CHECK(e.rule() == "is 5 but the rank is 3");
    CHECK_THROWS_AS(throw e, std::invalid_argument);
}
