// Quantity parsing and arithmetic, mirroring k8s.io/apimachinery/pkg/api/resource (quantity.go,
// suffix.go, v0.37.2): the same tokenizer, the same int64 fast path, and the same round-up slow
// path (capped for binary suffixes only), computed exactly on decimal digits instead of inf.Dec.
#include "policy/quantity.hpp"

#include <cstdint>
#include <limits>
#include <vector>

namespace rjg::policy {

namespace {

using u128 = unsigned __int128;

constexpr __int128 kMax = static_cast<__int128>(~static_cast<u128>(0) >> 1);
constexpr __int128 kMin = -kMax - 1;
constexpr long long kNanosPerUnit = 1'000'000'000;
// Kubernetes caps the slow path of binary suffixes (Ki..Ei) at maxAllowed = 2^63-1 units.
constexpr __int128 kCapNanos =
    static_cast<__int128>(std::numeric_limits<std::int64_t>::max()) * kNanosPerUnit;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// What parseQuantityString returns: sign, numerator digits (leading zeros stripped, "0" when
// none), fraction digits and the suffix text.
struct Pieces {
  bool positive = true;
  std::string_view num = "0";
  std::string_view denom;
  std::string_view suffix;
  bool has_digit = false;  // the number part holds at least one digit (inf.Dec needs one)
};

std::optional<Pieces> split(std::string_view s) {
  Pieces p;
  std::size_t pos = 0;
  const std::size_t end = s.size();
  if (pos < end && (s[0] == '-' || s[0] == '+')) {
    p.positive = s[0] == '+';
    ++pos;
  }
  while (pos < end && s[pos] == '0') {
    p.has_digit = true;
    ++pos;
  }
  if (pos >= end) {
    return p;
  }
  std::size_t start = pos;
  while (pos < end && is_digit(s[pos])) {
    ++pos;
  }
  if (pos > start) {
    p.num = s.substr(start, pos - start);
    p.has_digit = true;
  }
  if (pos >= end) {
    return p;
  }
  if (s[pos] == '.') {
    ++pos;
    start = pos;
    while (pos < end && is_digit(s[pos])) {
      ++pos;
    }
    p.denom = s.substr(start, pos - start);
    p.has_digit = p.has_digit || !p.denom.empty();
    if (pos >= end) {
      return p;
    }
  }
  const std::size_t suffix_start = pos;
  constexpr std::string_view kSuffixChars = "eEinumkKMGTP";
  while (pos < end && kSuffixChars.find(s[pos]) != std::string_view::npos) {
    ++pos;
  }
  if (pos < end && (s[pos] == '-' || s[pos] == '+')) {
    ++pos;
  }
  while (pos < end && is_digit(s[pos])) {
    ++pos;
  }
  if (pos < end) {
    return std::nullopt;  // a character that is neither suffix nor exponent digit
  }
  p.suffix = s.substr(suffix_start);
  return p;
}

struct Suffix {
  int base = 10;           // 10 or 2
  long long exponent = 0;  // power of `base`
};

std::optional<Suffix> interpret(std::string_view suffix) {
  struct Entry {
    std::string_view text;
    int base;
    int exponent;
  };
  static constexpr Entry kTable[] = {
      {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3}, {"", 10, 0},   {"k", 10, 3},  {"M", 10, 6},
      {"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18}, {"Ki", 2, 10}, {"Mi", 2, 20},
      {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60},
  };
  for (const Entry& e : kTable) {
    if (e.text == suffix) {
      return Suffix{e.base, e.exponent};
    }
  }
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) {
    return std::nullopt;
  }
  // strconv.ParseInt(suffix[1:], 10, 64), then Go's int32(parsed): an exponent beyond the int32
  // range wraps around exactly as it does in Kubernetes ("1e4294967296" is 1).
  std::string_view digits = suffix.substr(1);
  bool negative = false;
  if (digits[0] == '-' || digits[0] == '+') {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) {
    return std::nullopt;
  }
  unsigned long long magnitude = 0;
  const unsigned long long limit = negative ? (1ULL << 63) : (1ULL << 63) - 1;
  for (char c : digits) {
    if (!is_digit(c) || __builtin_mul_overflow(magnitude, 10ULL, &magnitude) ||
        __builtin_add_overflow(magnitude, static_cast<unsigned long long>(c - '0'), &magnitude) ||
        magnitude > limit) {
      return std::nullopt;
    }
  }
  const unsigned long long bits = negative ? 0ULL - magnitude : magnitude;
  const auto exponent = static_cast<std::int32_t>(static_cast<std::uint32_t>(bits));
  return Suffix{10, exponent};
}

// value * 10^power in 128 bits; nullopt on overflow. REQUIRES: value >= 0, power >= 0.
std::optional<__int128> scale_up(__int128 value, long long power) {
  for (long long i = 0; i < power && value != 0; ++i) {
    if (__builtin_mul_overflow(value, 10, &value)) {
      return std::nullopt;
    }
  }
  return value;
}

// The exact magnitude ceil(digits * 2^binary_exponent * 10^decimal_exponent) in nano-units,
// where `digits` is a decimal integer written as text, capped at kCapNanos when `cap` is set.
// This is Kubernetes' slow path (inf.Dec with RoundUp to nano, then, for binary suffixes only,
// the maxAllowed cap) without arbitrary-precision types: the digits are multiplied by powers of
// two in base 10, then the decimal exponent moves the point. Returns nullopt when the (uncapped)
// value does not fit 128 bits.
std::optional<__int128> slow_path_nanos(std::string_view digit_text, int binary_exponent,
                                        long long decimal_exponent, bool cap) {
  std::vector<int> digits;  // most significant first, no leading zeros
  digits.reserve(digit_text.size() + 20);
  for (char c : digit_text) {
    if (digits.empty() && c == '0') {
      continue;
    }
    digits.push_back(c - '0');
  }
  if (digits.empty()) {
    return 0;
  }
  // Doubling works least-significant digit first, so that a carry out of the top appends
  // instead of inserting at the front.
  std::vector<int> reversed(digits.rbegin(), digits.rend());
  for (int i = 0; i < binary_exponent; ++i) {
    int carry = 0;
    for (int& d : reversed) {
      const int v = d * 2 + carry;
      d = v % 10;
      carry = v / 10;
    }
    if (carry != 0) {
      reversed.push_back(carry);
    }
  }
  digits.assign(reversed.rbegin(), reversed.rend());
  const long long length = static_cast<long long>(digits.size());
  // Digits that land left of the nano point, and whether any nonzero digit falls right of it.
  const long long integer_digits = length + decimal_exponent;
  if (integer_digits <= 0) {
    return 1;  // nonzero and below one nano: rounded up to 1n
  }
  // 40 digits are at least 10^39, beyond 128 bits (and far above the cap, about 9.2e27).
  if (integer_digits > 39) {
    return cap ? std::optional<__int128>(kCapNanos) : std::nullopt;
  }
  __int128 value = 0;
  bool remainder = false;
  for (long long i = 0; i < integer_digits; ++i) {
    const int d = i < length ? digits[static_cast<std::size_t>(i)] : 0;
    if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, d, &value)) {
      return cap ? std::optional<__int128>(kCapNanos) : std::nullopt;
    }
  }
  for (long long i = integer_digits; i < length; ++i) {
    remainder = remainder || digits[static_cast<std::size_t>(i)] != 0;
  }
  if (remainder && __builtin_add_overflow(value, 1, &value)) {
    return cap ? std::optional<__int128>(kCapNanos) : std::nullopt;
  }
  return cap && value > kCapNanos ? kCapNanos : value;
}

std::string u128_to_string(u128 v) {
  if (v == 0) {
    return "0";
  }
  std::string out;
  while (v != 0) {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return out;
}

// The spellings resources are written in almost always ("2", "500m", "8Gi"): 1 to 9 digits and
// one of the fixed suffixes, on Kubernetes' exact int64 path. Returns their value, or nullopt when
// `text` is anything else (the general parser below then decides, with the same result for these
// spellings: the short path only skips the general one's bookkeeping).
std::optional<Quantity> parse_common(std::string_view text) {
  std::size_t digits = 0;
  long long value = 0;
  while (digits < text.size() && digits < 10 && is_digit(text[digits])) {
    value = value * 10 + (text[digits] - '0');
    ++digits;
  }
  if (digits == 0 || digits > 9) {
    return std::nullopt;
  }
  const std::string_view suffix = text.substr(digits);
  constexpr __int128 kUnit = kNanosPerUnit;
  if (suffix.empty()) {
    return Quantity::from_nanos(value * kUnit);
  }
  if (suffix.size() == 1) {
    // Decimal suffixes (T, P, E and anything else take the general path); at most 9 digits
    // times 10^18 nanos fits easily in 128 bits.
    struct Decimal {
      char suffix;
      __int128 nanos;
    };
    static constexpr Decimal kDecimal[] = {
        {'n', 1},
        {'u', 1'000},
        {'m', 1'000'000},
        {'k', 1'000 * kUnit},
        {'M', 1'000'000 * kUnit},
        {'G', 1'000'000'000 * kUnit},
    };
    for (const Decimal& d : kDecimal) {
      if (d.suffix == suffix[0]) {
        return Quantity::from_nanos(value * d.nanos);
      }
    }
    return std::nullopt;
  }
  // Binary suffixes Ki, Mi, Gi (Ti, Pi, Ei take the general path).
  constexpr std::string_view kBinary = "KMG";
  const std::size_t binary = kBinary.find(suffix[0]);
  if (suffix.size() != 2 || suffix[1] != 'i' || binary == std::string_view::npos) {
    return std::nullopt;
  }
  const int exponent = 10 * static_cast<int>(binary + 1);
  // Kubernetes takes its exact int64 path for a binary suffix only while
  // 15 - digits - exponent * 3 / 10 - 1 >= 0; longer values go to the general path (and its cap).
  if (15 - static_cast<int>(digits) - exponent * 3 / 10 - 1 < 0) {
    return std::nullopt;
  }
  return Quantity::from_nanos((static_cast<__int128>(value) << exponent) * kUnit);
}

}  // namespace

std::optional<Quantity> Quantity::parse(std::string_view text) {
  if (std::optional<Quantity> q = parse_common(text)) {
    return q;
  }
  return parse_general(text);
}

std::optional<Quantity> Quantity::parse_general(std::string_view text) {
  if (text.empty()) {
    return std::nullopt;
  }
  const std::optional<Pieces> pieces = split(text);
  if (!pieces) {
    return std::nullopt;
  }
  const std::optional<Suffix> suffix = interpret(pieces->suffix);
  if (!suffix) {
    return std::nullopt;
  }
  const Pieces& p = *pieces;
  const long long digit_count = static_cast<long long>(p.num.size() + p.denom.size());
  const long long denom_len = static_cast<long long>(p.denom.size());

  // Kubernetes' int64 fast path: the value is exact and, unlike the slow path, never capped.
  bool fast = false;
  long long scale = 0;  // power of ten of the shifted digits
  int binary_exponent = 0;
  if (suffix->base == 10) {
    scale = suffix->exponent - denom_len;
    fast = 18 - digit_count >= 0 && scale >= -9;
  } else if (p.denom.empty()) {
    binary_exponent = static_cast<int>(suffix->exponent);
    fast = 15 - digit_count - suffix->exponent * 3 / 10 - 1 >= 0;
  }
  if (fast) {
    __int128 shifted = 0;
    for (char c : p.num) {
      shifted = shifted * 10 + (c - '0');
    }
    for (char c : p.denom) {
      shifted = shifted * 10 + (c - '0');
    }
    shifted <<= binary_exponent;
    const std::optional<__int128> nanos = scale_up(shifted, scale + 9);
    if (!nanos) {
      return std::nullopt;
    }
    return from_nanos(p.positive ? *nanos : -*nanos);
  }

  // The slow path parses the number text with inf.Dec, which needs at least one digit.
  if (!p.has_digit) {
    return std::nullopt;
  }
  std::string digit_text(p.num);
  digit_text.append(p.denom);
  const long long decimal_exponent = (suffix->base == 10 ? suffix->exponent : 0) - denom_len + 9;
  const bool binary = suffix->base == 2;
  const std::optional<__int128> nanos = slow_path_nanos(
      digit_text, binary ? static_cast<int>(suffix->exponent) : 0, decimal_exponent, binary);
  if (!nanos) {
    return std::nullopt;
  }
  return from_nanos(p.positive ? *nanos : -*nanos);
}

Quantity Quantity::operator+(const Quantity& other) const {
  __int128 sum = 0;
  if (__builtin_add_overflow(nanos_, other.nanos_, &sum)) {
    return from_nanos(other.nanos_ > 0 ? kMax : kMin);
  }
  return from_nanos(sum);
}

Quantity Quantity::operator*(long long factor) const {
  __int128 product = 0;
  if (__builtin_mul_overflow(nanos_, static_cast<__int128>(factor), &product)) {
    return from_nanos((nanos_ > 0) == (factor > 0) ? kMax : kMin);
  }
  return from_nanos(product);
}

std::string Quantity::to_string() const {
  if (nanos_ == 0) {
    return "0";
  }
  const bool negative = nanos_ < 0;
  const u128 magnitude =
      negative ? static_cast<u128>(-(nanos_ + 1)) + 1 : static_cast<u128>(nanos_);
  std::string sign = negative ? "-" : "";
  constexpr u128 kPerUnit = kNanosPerUnit;
  // Kubernetes caps a binary-suffixed quantity at 2^63-1 units when it reads it back, so larger
  // whole values are printed with a decimal exponent ("88e18"), which it reads back exactly.
  constexpr u128 kBinaryCapUnits = (static_cast<u128>(1) << 63) - 1;
  if (magnitude % kPerUnit == 0 && magnitude / kPerUnit > kBinaryCapUnits) {
    u128 units = magnitude / kPerUnit;
    int exponent = 0;
    while (units % 10 == 0) {
      units /= 10;
      ++exponent;
    }
    std::string text = sign + u128_to_string(units);
    if (exponent > 0) {
      text += 'e';
      text += std::to_string(exponent);
    }
    return text;
  }
  if (magnitude % kPerUnit == 0) {
    u128 units = magnitude / kPerUnit;
    static constexpr const char* kBinary[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    const char* suffix = "";
    for (const char* s : kBinary) {
      if (units < 1024 || units % 1024 != 0) {
        break;
      }
      units /= 1024;
      suffix = s;
    }
    return sign + u128_to_string(units) + suffix;
  }
  if (magnitude % 1'000'000 == 0) {
    return sign + u128_to_string(magnitude / 1'000'000) + "m";
  }
  if (magnitude % 1'000 == 0) {
    return sign + u128_to_string(magnitude / 1'000) + "u";
  }
  return sign + u128_to_string(magnitude) + "n";
}

}  // namespace rjg::policy
