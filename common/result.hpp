// Error and Result<T>: the one error vocabulary shared by every layer.
// Startup and per-request input errors are values of these types; transport errors use
// Boost's error_code instead, and broken invariants are asserts.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace rjg {

// A small closed set of error codes. Pick the first that fits:
enum class ErrorCode {
  // The input itself is wrong and retrying it unchanged cannot help: malformed JSON or YAML,
  // a wrong field type, an unknown policy key, a bad quantity. The message names the path.
  kInvalidArgument,
  // The input is well formed but asks for something this build does not handle: another
  // AdmissionReview version, a KubeRay version outside the supported range.
  kUnsupported,
  // A file or peer could not be read or reached (missing certificate file, refused connection).
  // Retrying later may help.
  kUnavailable,
  // A bug or an unexpected library failure. Never used for anything the outside world controls.
  kInternal,
};

// Returns the stable lower-case name of `code` ("invalid-argument", ...).
const char* error_code_name(ErrorCode code);

// An error: a code plus a human message that says what is wrong and where.
struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
};

// Either a T or an Error. Cheap to move; check ok() before value().
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // REQUIRES: ok().
  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  // REQUIRES: !ok().
  const Error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

// Result<void> equivalent: Status is ok or carries an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  // REQUIRES: !ok().
  const Error& error() const {
    assert(!ok_);
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};

// Returns the error of `expr` (a Status or a Result<T>) from the enclosing function, which
// returns Status or Result<U>, when it is not ok. Keeps linear code linear, as Abseil's
// ABSL_RETURN_IF_ERROR does.
#define RJG_RETURN_IF_ERROR(expr)     \
  do {                                \
    const auto& rjg_status_ = (expr); \
    if (!rjg_status_.ok()) {          \
      return rjg_status_.error();     \
    }                                 \
  } while (0)

// `lhs = value of expr` when the Result `expr` is ok, else returns its error from the enclosing
// function. `lhs` may declare a variable: RJG_ASSIGN_OR_RETURN(const Value* v, read(...));
#define RJG_ASSIGN_OR_RETURN(lhs, expr) \
  RJG_ASSIGN_OR_RETURN_IMPL_(RJG_CONCAT_(rjg_result_, __LINE__), lhs, expr)
#define RJG_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) {                                 \
    return tmp.error();                            \
  }                                                \
  lhs = std::move(tmp).value()
#define RJG_CONCAT_(a, b) RJG_CONCAT_INNER_(a, b)
#define RJG_CONCAT_INNER_(a, b) a##b

inline Error invalid_argument(std::string message) {
  return Error{ErrorCode::kInvalidArgument, std::move(message)};
}
inline Error unsupported(std::string message) {
  return Error{ErrorCode::kUnsupported, std::move(message)};
}
inline Error unavailable(std::string message) {
  return Error{ErrorCode::kUnavailable, std::move(message)};
}
inline Error internal_error(std::string message) {
  return Error{ErrorCode::kInternal, std::move(message)};
}

inline const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid-argument";
    case ErrorCode::kUnsupported:
      return "unsupported";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kInternal:
      return "internal";
  }
  return "internal";
}

}  // namespace rjg
