// Fuzz target: policy::Quantity::parse and the arithmetic and ordering the quota rules rely on.
// The input is split at the first newline into two quantity texts a and b. Checked for every
// text that parses:
// - to_string() parses back to the same value (messages never print a value the parser reads
//   differently);
// - parse never accepts surrounding whitespace, and is deterministic;
// - parse (with its short path for common spellings) and parse_general agree on every input;
// - a + b == b + a; a + 0 == a; sums and products equal the exact 128-bit result when that does
//   not overflow, and saturate (never wrap) when it does;
// - ordering agrees with the nano count and is antisymmetric.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

#include "fuzz/fuzz_check.hpp"
#include "policy/quantity.hpp"

namespace {

using rjg::policy::Quantity;
constexpr __int128 kMax = static_cast<__int128>(~static_cast<unsigned __int128>(0) >> 1);
constexpr __int128 kMin = -kMax - 1;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

void check_one(std::string_view text, const Quantity& q) {
  FUZZ_CHECK(!text.empty());
  FUZZ_CHECK(!is_space(text.front()) && !is_space(text.back()));
  const auto again = Quantity::parse(text);
  FUZZ_CHECK(again.has_value() && *again == q);
  const std::string printed = q.to_string();
  FUZZ_CHECK(!printed.empty());
  const auto reparsed = Quantity::parse(printed);
  if (!reparsed.has_value() || *reparsed != q) {
    std::fprintf(stderr, "round trip: '%.*s' printed as '%s'\n", static_cast<int>(text.size()),
                 text.data(), printed.c_str());
  }
  FUZZ_CHECK(reparsed.has_value() && *reparsed == q);
  FUZZ_CHECK(q + Quantity() == q);
}

void check_pair(const Quantity& a, const Quantity& b) {
  FUZZ_CHECK(a + b == b + a);
  __int128 exact = 0;
  if (!__builtin_add_overflow(a.nanos(), b.nanos(), &exact)) {
    FUZZ_CHECK((a + b).nanos() == exact);
  } else {
    FUZZ_CHECK((a + b).nanos() == (b.nanos() > 0 ? kMax : kMin));
  }
  FUZZ_CHECK((a < b) == (a.nanos() < b.nanos()));
  FUZZ_CHECK((a == b) == (a.nanos() == b.nanos()));
  FUZZ_CHECK(!((a < b) && (b < a)));
  Quantity acc = a;
  acc += b;
  FUZZ_CHECK(acc == a + b);
}

void check_product(const Quantity& a, long long factor) {
  __int128 exact = 0;
  if (!__builtin_mul_overflow(a.nanos(), static_cast<__int128>(factor), &exact)) {
    FUZZ_CHECK((a * factor).nanos() == exact);
  } else {
    const bool negative = (a.nanos() < 0) != (factor < 0);
    FUZZ_CHECK((a * factor).nanos() == (negative ? kMin : kMax));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nl = input.find('\n');
  const std::string_view ta = input.substr(0, nl);
  const std::string_view tb =
      nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);

  const auto a = Quantity::parse(ta);
  const auto b = Quantity::parse(tb);
  FUZZ_CHECK(a == Quantity::parse_general(ta));
  FUZZ_CHECK(b == Quantity::parse_general(tb));
  if (a) {
    check_one(ta, *a);
    // Replica counts multiply pod footprints: int32 replicas times int32 hosts.
    check_product(*a, static_cast<long long>(size) * 2147483647LL);
    check_product(*a, -3);
    check_product(*a, 0);
  }
  if (b) {
    check_one(tb, *b);
  }
  if (a && b) {
    check_pair(*a, *b);
  }
  return 0;
}
