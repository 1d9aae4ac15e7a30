#pragma once
// Every numeric flag of every command is declared through these, so that one
// parser (util/number.hpp) reads them all: the same syntax, the same refusals,
// one line `mudjack: error: --FLAG must be ... <range>, got '...'` and exit 2
// for a value that is not a plain decimal number in the flag's range. CLI11's
// own conversions (which take "nan", "inf", "0x10" and spaces) are not used
// for numbers. The help shows the value as INT, NUMBER or DURATION;
// tests/integration/numeric_flags_test.cpp finds the numeric flags by those
// words in each command's --help.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <type_traits>

#include "util/error.hpp"
#include "util/number.hpp"

namespace mudjack::cli {

namespace detail {
template <class T>
struct Unwrapped {
  using type = T;
};
template <class T>
struct Unwrapped<std::optional<T>> {
  using type = T;
};
}  // namespace detail

// A real-valued flag (double, or std::optional<double>) in `range`.
template <class T>
CLI::Option* add_number(CLI::App* app, const std::string& flag, T& target, const util::Range& range,
                        const std::string& help) {
  static_assert(std::is_floating_point_v<typename detail::Unwrapped<T>::type>);
  return app
      ->add_option_function<std::string>(
          flag,
          [&target, flag, range](const std::string& text) {
            auto parsed = util::parse_real(flag, text, range);
            if (!parsed.value) throw util::FatalError(parsed.error);
            target = *parsed.value;
          },
          help)
      ->type_name("NUMBER");
}

// An integer flag (any integer type, or std::optional of one) in `range`,
// which must fit the type.
template <class T>
CLI::Option* add_number(CLI::App* app, const std::string& flag, T& target,
                        const util::IntRange& range, const std::string& help) {
  using V = typename detail::Unwrapped<T>::type;
  static_assert(std::is_integral_v<V>);
  return app
      ->add_option_function<std::string>(
          flag,
          [&target, flag, range](const std::string& text) {
            auto parsed = util::parse_int(flag, text, range);
            if (!parsed.value) throw util::FatalError(parsed.error);
            target = static_cast<V>(*parsed.value);
          },
          help)
      ->type_name("INT");
}

// A duration flag ("90s", "10m", "1h30m"; util::parse_duration_s) as seconds.
inline CLI::Option* add_duration(CLI::App* app, const std::string& flag, double& seconds,
                                 const util::Range& range, const std::string& help) {
  return app
      ->add_option_function<std::string>(
          flag,
          [&seconds, flag, range](const std::string& text) {
            auto parsed = util::parse_duration_s(flag, text, range);
            if (!parsed.value) throw util::FatalError(parsed.error);
            seconds = *parsed.value;
          },
          help)
      ->type_name("DURATION");
}

}  // namespace mudjack::cli
