#pragma once
// Expected failures of a request as values that carry their HTTP status:
// a client's bad request is expected, so it is never a util::FatalError
// (util/error.hpp: that one is caught once, at the top of the CLI).
// Request validation returns Result<T>; a route handler returns
// std::optional<HttpError> and the route table answers it as
// {"error": message, "status": status} (server/routes.hpp).
//
// Header-only and free of cpp-httplib, so validation stays a pure function.

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "util/error.hpp"

namespace mudjack::server {

struct HttpError {
  int status = 400;     // 4xx: the client's mistake; 5xx: the server's
  std::string message;  // one line, naming the field or thing that was wrong
};

inline HttpError bad_request(std::string message) {
  return {400, std::move(message)};
}

// A value or the HttpError that stopped it (C++20 has no std::expected).
template <typename T>
class Result {
 public:
  // Implicit on purpose: `return value;` and `return HttpError{...};` both read plainly.
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Result(HttpError error) : v_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Only when ok().
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // Only when !ok().
  const HttpError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, HttpError> v_;
};

// The one boundary between the server and lower layers that report bad
// input by throwing util::FatalError (plan:: checking a parameter name or
// value, a suite listing that rejects a parameter, a device selection that
// matches nothing): a handler that passes client input down calls them
// through here, and the throw becomes an HttpError with `status` (400 by
// default: the input was the client's) and FatalError's one-line message.
// Other exceptions pass through (the server answers them 500).
//
//   Result<std::vector<model::CaseInfo>> cases =
//       from_fatal([&] { return plan::list_cases(refs, python, params); });
//
// `call` must return a value (not void).
template <typename F>
auto from_fatal(F&& call, int status = 400) -> Result<std::invoke_result_t<F>> {
  try {
    return std::forward<F>(call)();
  } catch (const util::FatalError& e) {
    return HttpError{status, e.what()};
  }
}

}  // namespace mudjack::server
