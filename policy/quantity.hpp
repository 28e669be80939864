// Quantity: an exact Kubernetes resource.Quantity ("500m", "64Gi", "1e3", "0.5").
// Parsing follows k8s.io/apimachinery/pkg/api/resource ParseQuantity exactly: sign, digits, an
// optional decimal point, decimal SI suffixes (n u m k M G T P E), binary SI suffixes (Ki Mi Gi Ti
// Pi Ei), e/E exponents within +-2147483647, values below one nano rounded up (away from zero)
// to 1n, and the same cap Kubernetes applies on its arbitrary-precision path. The value is held as
// a signed count of nano-units in 128 bits, so sums and comparisons never round. No floating
// point is used anywhere.
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
  // beyond +-2147483647, surrounding whitespace), and when the value Kubernetes would hold does not
  // fit 128-bit nano-units (about 1.7e29; only reachable through short inputs with huge exponents
  // such as "1e40", which Kubernetes keeps uncapped on its int64 fast path).
  // Kubernetes quirk kept on purpose: inputs on its arbitrary-precision path (more than 18
  // significant digits, sub-nano digits, fractional or large binary values such as "9Ei") are
  // capped at 2^63-1 units, while short inputs such as "12E" are not.
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
