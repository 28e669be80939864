// Quantity: an exact Kubernetes resource.Quantity ("500m", "64Gi", "1e3", "0.5").
// Parsing follows k8s.io/apimachinery/pkg/api/resource exactly: decimal and binary suffixes,
// e/E exponents, values below one nano rounded up to 1n. The value is held as a signed count
// of nano-units in 128 bits, so sums and comparisons never round.
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

  // Parses `text` as Kubernetes does. Returns nullopt when the text is not a quantity, or when
  // its magnitude exceeds what 128-bit nano-units hold (about 1.7e29), which no real quota
  // reaches. Surrounding whitespace is not accepted (Kubernetes does not accept it either).
  static std::optional<Quantity> parse(std::string_view text);

  static Quantity from_nanos(__int128 nanos) {
    Quantity q;
    q.nanos_ = nanos;
    return q;
  }
  static Quantity from_units(long long units) { return from_nanos(static_cast<__int128>(units) * 1'000'000'000); }
  static Quantity from_millis(long long millis) { return from_nanos(static_cast<__int128>(millis) * 1'000'000); }

  __int128 nanos() const { return nanos_; }

  // Saturating arithmetic: results are clamped to the 128-bit range instead of overflowing.
  Quantity operator+(const Quantity& other) const;
  Quantity operator*(long long factor) const;
  Quantity& operator+=(const Quantity& other) { return *this = *this + other; }

  friend std::strong_ordering operator<=>(const Quantity&, const Quantity&) = default;
  friend bool operator==(const Quantity&, const Quantity&) = default;

  // Exact text for messages: whole multiples of Ki/Mi/Gi/Ti/Pi/Ei use that suffix ("64Gi"),
  // otherwise the shortest exact decimal form ("500m", "16", "1500n", "2k" is printed "2000").
  std::string to_string() const;

 private:
  __int128 nanos_ = 0;
};

}  // namespace rjg::policy
