// tensorops/core/error.hpp — the one exception type the library throws.
#pragma once

#include "language.hpp"

#include <stdexcept>
#include <string>
#include <string_view>

namespace tensorops {

/// Thrown for every invalid argument. `what()` reads
///   "tensorops::<operator>: argument '<argument>': <rule>"
/// and the three parts are also available separately, so callers (and tests) can tell which
/// argument broke which rule without parsing the message. Kernels never throw: every check happens
/// in the operator entry points before any output element is written.
class error : public std::invalid_argument {
public:
    error(std::string_view operator_name, std::string_view argument, std::string_view rule)
        : std::invalid_argument(compose(operator_name, argument, rule)),
          operator_name_(operator_name),
          argument_(argument),
          rule_(rule) {}

    /// The public entry point that rejected the call, e.g. "cumulative_sum".
    [[nodiscard]] const std::string& operator_name() const noexcept { return operator_name_; }
    /// The argument at fault, e.g. "output" or "options.axis".
    [[nodiscard]] const std::string& argument() const noexcept { return argument_; }
    /// The rule it broke, in words, with the offending values.
    [[nodiscard]] const std::string& rule() const noexcept { return rule_; }

private:
    static std::string compose(std::string_view operator_name, std::string_view argument,
                               std::string_view rule) {
        std::string message = "tensorops::";
        message.append(operator_name).append(": argument '").append(argument).append("': ");
        message.append(rule);
        return message;
    }

    std::string operator_name_;
    std::string argument_;
    std::string rule_;
};

}  // namespace tensorops
