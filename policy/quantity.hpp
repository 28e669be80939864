// Quantity: an exact Kubernetes resource.Quantity ("500m", "64Gi", "1e3", "0.5").
// Parsing follows k8s.io/apimachinery/pkg/api/resource ParseQuantity (v0.37.2) exactly: sign,
// digits, an optional decimal point, decimal SI suffixes (n u m k M G T P E), binary SI suffixes
// (Ki Mi Gi Ti Pi Ei), e/E exponents read as int64 and wrapped to int32 as Go's int32() does
// ("1e4294967296" is 1, "1e2147483648" is 1e-2147483648), values below one nano rounded up (away
// from zero) to 1n, and the cap Kubernetes applies to binary suffixes on its arbitrary-precision
// path. The value is held as a signed count of nano-units in 128 bits, so sums and comparisons
// never round. No floating point is used anywhere. test/differential/k8sref compares it with
// ParseQuantity itself.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace rjg::policy {

class Quantity {
 public:
  // Zero.
  Quantity() = default;

  // Parses `text` as Kubernetes' ParseQuantity does and returns its exact value. Returns nullopt
  // when Kubernetes would refuse the text (empty, stray characters, an unknown suffix, an exponent
  // beyond the int64 range, surrounding whitespace), and when the value Kubernetes would hold does not
  // fit 128-bit nano-units (about 1.7e29 units: "1e40", "9223372036854775807E"; the one deliberate
  // difference, listed in the differential test).
  // Kubernetes quirk kept on purpose: binary-suffixed inputs on its arbitrary-precision path
  // (fractional or large, such as "9Ei" or "1.5Ki") are capped at 2^63-1 units; decimal ones are
  // not capped.
  static std::optional<Quantity> parse(std::string_view text);
  // parse() without its short path for the common spellings ("2", "500m", "8Gi"). Only for the
  // tests and the quantity fuzz target, which check that both always agree; call parse().
  static std::optional<Quantity> parse_general(std::string_view text);

  // Return the quantity of exactly `nanos` nano-units, `units` whole units, `millis` milli-units.
  static Quantity from_nanos(__int128 nanos) {
    Quantity q;
    q.nanos_ = nanos;
    return q;
  }
  static Quantity from_units(long long units) {
    return from_nanos(static_cast<__int128>(units) * 1'000'000'000);
  }
  static Quantity from_millis(long long millis) {
    return from_nanos(static_cast<__int128>(millis) * 1'000'000);
  }

  // Returns the exact value in nano-units (1 CPU = 10^9, 1 byte of memory = 10^9).
  __int128 nanos() const { return nanos_; }
  // Returns true for zero.
  bool is_zero() const { return nanos_ == 0; }

  // Saturating arithmetic: results are clamped to the 128-bit range instead of overflowing.
  Quantity operator+(const Quantity& other) const;
  Quantity operator*(long long factor) const;
  Quantity& operator+=(const Quantity& other) { return *this = *this + other; }

  friend std::strong_ordering operator<=>(const Quantity&, const Quantity&) = default;
  friend bool operator==(const Quantity&, const Quantity&) = default;

  // Exact text for messages, parseable back to the same value:
  // - whole units that are an exact multiple of 1024 (at least 1Ki) use the largest binary suffix
  //   that divides them ("64Gi", "1536Mi"); this reads well for memory, and CPU counts that are
  //   multiples of 1024 are not realistic;
  // - other whole units print as a plain integer ("16", "2000": "2k" is printed "2000");
  // - fractions use the largest of m, u, n that is exact ("500m", "1500n");
  // - negative values get a leading "-"; saturated values print their (huge) exact digits.
  std::string to_string() const;

 private:
  __int128 nanos_ = 0;
};

}  // namespace rjg::policy
