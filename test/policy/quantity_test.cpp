// Tests policy/quantity: parsing ported from Kubernetes' own quantity tests
// (apimachinery/pkg/api/resource/quantity_test.go: TestQuantityParse valid and invalid tables,
// the rounding and cap cases, TestQuantityParseEmit values, TestQuantityCmp), plus saturation and
// the message form.
#include "policy/quantity.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rjg::policy {
namespace {

constexpr __int128 kNano = 1;
constexpr __int128 kUnit = 1'000'000'000;
// decQuantity(v, exp) of the Kubernetes tests, in nanos: v * 10^exp units.
__int128 dec(long long v, int exponent) {
  __int128 n = static_cast<__int128>(v) * kUnit;
  for (int i = 0; i < exponent; ++i) {
    n *= 10;
  }
  for (int i = 0; i > exponent; --i) {
    n /= 10;
  }
  return n;
}
const __int128 kMaxAllowed = static_cast<__int128>(INT64_MAX) * kUnit;

struct ValidCase {
  const char* input;
  __int128 nanos;
};

std::string nanos_text(__int128 v) { return Quantity::from_nanos(v).to_string(); }

TEST(Quantity, ParsesKubernetesValidTable) {
  const std::vector<ValidCase> table = {
      {"0", 0},
      {"0n", 0},
      {"0u", 0},
      {"0m", 0},
      {"0Ki", 0},
      {"0k", 0},
      {"0Mi", 0},
      {"0M", 0},
      {"0Gi", 0},
      {"0G", 0},
      {"0Ti", 0},
      {"0T", 0},
      {"1", dec(1, 0)},
      // Binary suffixes.
      {"1Ki", dec(1024, 0)},
      {"8Ki", dec(8 * 1024, 0)},
      {"7Mi", dec(7LL << 20, 0)},
      {"6Gi", dec(6LL << 30, 0)},
      {"5Ti", dec(5LL << 40, 0)},
      {"4Pi", dec(4LL << 50, 0)},
      {"3Ei", dec(3LL << 60, 0)},
      {"10Ti", dec(10LL << 40, 0)},
      {"100Ti", dec(100LL << 40, 0)},
      // Decimal suffixes.
      {"5n", dec(5, -9)},
      {"4u", dec(4, -6)},
      {"3m", dec(3, -3)},
      {"9", dec(9, 0)},
      {"8k", dec(8, 3)},
      {"50k", dec(5, 4)},
      {"7M", dec(7, 6)},
      {"6G", dec(6, 9)},
      {"5T", dec(5, 12)},
      {"40T", dec(4, 13)},
      {"300T", dec(3, 14)},
      {"2P", dec(2, 15)},
      {"1E", dec(1, 18)},
      // Decimal exponents.
      {"1E-3", dec(1, -3)},
      {"1e3", dec(1, 3)},
      {"1E6", dec(1, 6)},
      {"1e9", dec(1, 9)},
      {"1E12", dec(1, 12)},
      {"1e15", dec(1, 15)},
      {"1E18", dec(1, 18)},
      // Nonstandard but still parsable.
      {"1e14", dec(1, 14)},
      {"1e13", dec(1, 13)},
      {"100.035k", dec(100035, 0)},
      // Things that look like floating point.
      {"0.001", dec(1, -3)},
      {"0.0005k", dec(5, -1)},
      {"0.005", dec(5, -3)},
      {"0.05", dec(5, -2)},
      {"0.5", dec(5, -1)},
      {"0.00050k", dec(5, -1)},
      {"0.00500", dec(5, -3)},
      {"0.05000", dec(5, -2)},
      {"0.50000", dec(5, -1)},
      {"0.5e0", dec(5, -1)},
      {"0.5e-1", dec(5, -2)},
      {"0.5e-2", dec(5, -3)},
      {"10.035M", dec(10035, 3)},
      {"1.2e3", dec(12, 2)},
      {"1.3E+6", dec(13, 5)},
      {"1.40e9", dec(14, 8)},
      {"1.53E12", dec(153, 10)},
      {"1.6e15", dec(16, 14)},
      {"1.7E18", dec(17, 17)},
      {"9.01", dec(901, -2)},
      {"8.1k", dec(81, 2)},
      {"7.123456M", dec(7123456, 0)},
      {"6.987654321G", dec(6987654321, 0)},
      {"5.444T", dec(5444, 9)},
      {"40.1T", dec(401, 11)},
      {"300.2T", dec(3002, 11)},
      {"2.5P", dec(25, 14)},
      {"1.01E", dec(101, 16)},
      // Things that saturate or round.
      {"3.001n", dec(4, -9)},
      {"1.1E-9", dec(2, -9)},
      {"0.0000000001", dec(1, -9)},
      {"0.0000000005", dec(1, -9)},
      {"0.00000000050", dec(1, -9)},
      {"0.5e-9", dec(1, -9)},
      {"0.9n", dec(1, -9)},
      {"0.00000012345", dec(124, -9)},
      {"0.00000012354", dec(124, -9)},
      {"9Ei", kMaxAllowed},
      {"9223372036854775807Ki", kMaxAllowed},
      {"12E", dec(12, 18)},
      // Fractional binary values.
      {"100.035Ki", dec(10243584, -2)},
      {"0.5Mi", dec(524288, 0)},
      {"0.05Gi", dec(536870912, -1)},
      {"0.025Ti", dec(274877906944LL, -1)},
      // Things written by trolls.
      {"0.000000000001Ki", dec(2, -9)},
      {".001", dec(1, -3)},
      {".0001k", dec(100, -3)},
      {"1.", dec(1, 0)},
      {"1.G", dec(1, 9)},
      // TestQuantityParseEmit values.
      {"1024Mi", dec(1LL << 30, 0)},
      {"1000M", dec(1, 9)},
      {".001Ki", dec(1024, -3)},
      {".000001Ki", dec(1024, -6)},
      {".000000001Ki", dec(1024, -9)},
      {".000000000001Ki", dec(2, -9)},
      // TestParseQuantityString inputs that are whole quantities.
      {"1.025Ti", dec(1025LL << 40, -3)},
  };
  for (const ValidCase& c : table) {
    SCOPED_TRACE(c.input);
    const std::optional<Quantity> q = Quantity::parse(c.input);
    ASSERT_TRUE(q.has_value()) << c.input;
    EXPECT_EQ(q->nanos(), c.nanos)
        << c.input << " parsed as " << q->to_string() << ", want " << nanos_text(c.nanos);
    // Kubernetes runs every row again with an explicit sign.
    const std::optional<Quantity> neg = Quantity::parse(std::string("-") + c.input);
    ASSERT_TRUE(neg.has_value()) << "-" << c.input;
    EXPECT_EQ(neg->nanos(), -c.nanos) << "-" << c.input;
    const std::optional<Quantity> pos = Quantity::parse(std::string("+") + c.input);
    ASSERT_TRUE(pos.has_value()) << "+" << c.input;
    EXPECT_EQ(pos->nanos(), c.nanos) << "+" << c.input;
  }
}

TEST(Quantity, RefusesKubernetesInvalidTable) {
  const std::vector<std::string> invalid = {
      "",
      "1.1.M",
      "1+1.0M",
      "0.1mi",
      "0.1am",
      "aoeu",
      ".5i",
      "1i",
      "-3.01i",
      "-3.01e-",
      // An exponent outside the int64 range is refused (inside it, it wraps: see below).
      "1E9223372036854775808",
      "1e18446744073709551616",
      // Whitespace is not trimmed.
      " 1",
      "1 ",
      "1\t",
      "Non-Numeric",
      // More malformed suffixes and exponents.
      "1e",
      "1E+",
      "1ee3",
      "1Ee3",
      "1KiB",
      "1K",
      "1kb",
      "1Gb",
      "1mk",
      "1e3e",
      "2 cores",
      "1,5",
      "0x10",
      "1_000",
      "--1",
      "+-1",
      "\xc2\xb5",
      // The slow path needs a digit in the number text.
      "Pi",
      ".Ei",
  };
  for (const std::string& text : invalid) {
    EXPECT_FALSE(Quantity::parse(text).has_value()) << "\"" << text << "\" parsed unexpectedly";
  }
}

TEST(Quantity, KeepsKubernetesFastPathQuirks) {
  // Inputs on Kubernetes' int64 fast path are exact and never capped; a sign or suffix alone is
  // zero there. Documented, not endorsed: resources-declared only refuses what Kubernetes refuses.
  struct Row {
    const char* input;
    __int128 nanos;
  };
  const std::vector<Row> rows = {
      {"1e19", dec(1, 19)}, {"-", 0}, {"+", 0}, {"m", 0}, {"Ki", 0},
      {"1E2147483647", -1},  // beyond 128-bit nanos: nullopt, checked below
  };
  for (const Row& r : rows) {
    const std::optional<Quantity> q = Quantity::parse(r.input);
    if (r.nanos < 0) {
      EXPECT_FALSE(q.has_value()) << r.input;
      continue;
    }
    ASSERT_TRUE(q.has_value()) << r.input;
    EXPECT_EQ(q->nanos(), r.nanos) << r.input;
  }
  // Go reads the exponent as int64 and converts it with int32(), which wraps (found by
  // test/differential/k8sref: ours used to refuse these; ParseQuantity accepts them).
  EXPECT_EQ(Quantity::parse("1e4294967297")->nanos(), dec(10, 0));
  EXPECT_EQ(Quantity::parse("1e4294967296")->nanos(), kUnit);
  EXPECT_EQ(Quantity::parse("1E9223372036854775807")->nanos(), dec(1, -1));
  // 2147483648 wraps to -2147483648: below one nano, 1n (Go's slow path takes hours on it).
  EXPECT_EQ(Quantity::parse("1E2147483648")->nanos(), kNano);
  // The largest fast-path values that still fit 128-bit nanos, and the first that does not.
  EXPECT_EQ(Quantity::parse("1e28")->nanos(), dec(1, 28));
  EXPECT_FALSE(Quantity::parse("1e40").has_value());
  // TestParseQuantityString: a lone point (with or without a sign) is zero, a doubled sign is not.
  EXPECT_EQ(Quantity::parse(".")->nanos(), 0);
  EXPECT_EQ(Quantity::parse("-.")->nanos(), 0);
  EXPECT_FALSE(Quantity::parse("--.").has_value());
  // 20 digits leave the fast path; apimachinery v0.37.2 caps only binary suffixes there, so a
  // decimal value stays exact (found by test/differential/k8sref: ours used to cap it too).
  EXPECT_EQ(Quantity::parse("10000000000000000000")->nanos(), dec(1, 19));
  EXPECT_EQ(Quantity::parse("92233720368547758070")->nanos(), dec(9223372036854775807LL, 1));
  EXPECT_EQ(Quantity::parse("10000000000000000000Ki")->nanos(), kMaxAllowed);
  // Beyond 128-bit nanos on the slow path: refused (Go holds 9.2e36 units).
  EXPECT_FALSE(Quantity::parse("9223372036854775807E").has_value());
  EXPECT_EQ(Quantity::parse("999999999999999999")->nanos(), dec(999999999999999999LL, 0));
  EXPECT_EQ(Quantity::parse("-9Ei")->nanos(), -kMaxAllowed);
  // Below one nano, however far, rounds up to 1n; exactly zero stays zero.
  EXPECT_EQ(Quantity::parse("1e-2147483647")->nanos(), kNano);
  EXPECT_EQ(Quantity::parse("0e-2147483647")->nanos(), 0);
  EXPECT_EQ(Quantity::parse("-0.0000000000000000000000000001")->nanos(), -kNano);
  // Long fractions are exact, and rounding only happens past the ninth decimal.
  EXPECT_EQ(Quantity::parse("1.000000000000000000000000000000001")->nanos(), kUnit + 1);
  EXPECT_EQ(Quantity::parse("1.000000001000000000000000000000000")->nanos(), kUnit + 1);
}

// parse() takes a short path for the spellings resources are usually written in; it must give
// exactly what the general parser gives, including where Kubernetes leaves its int64 fast path
// (a binary suffix on too many digits is capped on the general path).
TEST(Quantity, ShortPathAgreesWithTheGeneralParser) {
  const std::string_view suffixes[] = {"",
                                       "n",
                                       "u",
                                       "m",
                                       "k",
                                       "M",
                                       "G",
                                       "T",
                                       "P",
                                       "E",
                                       "Ki",
                                       "Mi",
                                       "Gi",
                                       "Ti",
                                       "Pi",
                                       "Ei",
                                       "i",
                                       "mi",
                                       "K",
                                       "g",
                                       "e3",
                                       "E2",
                                       "Kb",
                                       "x",
                                       ".",
                                       " ",
                                       "-",
                                       "+",
                                       "0",
                                       "Gi ",
                                       "ki",
                                       std::string_view("\0", 1),
                                       std::string_view("m\0", 2),
                                       std::string_view("Gi\0", 3)};
  const char* numbers[] = {"0",         "00",        "1",           "7",          "09",
                           "10",        "999",       "1024",        "99999",      "100000",
                           "12345678",  "123456789", "999999999",   "1234567890", "9999999999",
                           "000000001", "-1",        "+2",          "1.5",        ".5",
                           "5.",        "",          "18446744073", "4294967296"};
  int checked = 0;
  for (const char* n : numbers) {
    for (std::string_view suffix : suffixes) {
      const std::string text = std::string(n) + std::string(suffix);
      EXPECT_EQ(Quantity::parse(text), Quantity::parse_general(text)) << '"' << text << '"';
      ++checked;
    }
  }
  EXPECT_EQ(checked, 24 * 34);
  // Values where only the digit count decides the path: 5 digits of Gi are exact, 6 are not on
  // Kubernetes' fast path (and still exact here, far below the cap).
  EXPECT_EQ(Quantity::parse("99999Gi")->nanos(),
            static_cast<__int128>(99999) * (1LL << 30) * 1'000'000'000);
  EXPECT_EQ(Quantity::parse("999999Gi"), Quantity::parse_general("999999Gi"));
}

TEST(Quantity, ComparesLikeKubernetes) {
  struct Row {
    const char* x;
    const char* y;
    int expect;
  };
  const std::vector<Row> rows = {
      {"0", "0", 0},        {"100m", "50m", 1},         {"50m", "100m", -1}, {"10000T", "100Gi", 1},
      {"1Gi", "1024Mi", 0}, {"1G", "1Gi", -1},          {"0.5", "500m", 0},  {"1e3", "1k", 0},
      {"-1", "0", -1},      {"64Gi", "68719476736", 0},
  };
  for (const Row& r : rows) {
    const Quantity x = *Quantity::parse(r.x);
    const Quantity y = *Quantity::parse(r.y);
    const int got = x < y ? -1 : (y < x ? 1 : 0);
    EXPECT_EQ(got, r.expect) << r.x << " vs " << r.y;
  }
}

TEST(Quantity, ArithmeticSaturates) {
  const Quantity max =
      Quantity::from_nanos(static_cast<__int128>(~static_cast<unsigned __int128>(0) >> 1));
  const Quantity one = Quantity::from_units(1);
  EXPECT_EQ(max + one, max);
  EXPECT_EQ(max * 2, max);
  EXPECT_EQ((Quantity() + one * -1) * 2, Quantity::from_units(-2));
  EXPECT_EQ(Quantity::from_nanos(-max.nanos() - 1) + one * -1,
            Quantity::from_nanos(-max.nanos() - 1));
  EXPECT_EQ(max * -2, Quantity::from_nanos(-max.nanos() - 1));
  Quantity sum;
  sum += Quantity::from_millis(500);
  sum += Quantity::from_millis(500);
  EXPECT_EQ(sum, one);
  EXPECT_EQ(*Quantity::parse("2Gi") * 2147483647, Quantity::from_units((2LL << 30) * 2147483647LL));
}

TEST(Quantity, PrintsExactText) {
  struct Row {
    const char* input;
    const char* text;
  };
  const std::vector<Row> rows = {
      {"0", "0"},
      {"64Gi", "64Gi"},
      {"1536Mi", "1536Mi"},
      {"1.5Gi", "1536Mi"},
      {"1024Mi", "1Gi"},
      {"500m", "500m"},
      {"0.5", "500m"},
      {"1500n", "1500n"},
      {"1.5u", "1500n"},
      {"2k", "2000"},
      {"16", "16"},
      {"1080m", "1080m"},
      {"-2Gi", "-2Gi"},
      {"1e-9", "1n"},
      {"3u", "3u"},
      {"1023", "1023"},
      {"2048", "2Ki"},
      {"1Ei", "1Ei"},
      {"2Ei", "2Ei"},
      {"1G", "1000000000"},
      {"9Ei", "9223372036854775807"},
      // Above 2^63-1 units a binary suffix would be capped when read back: decimal exponent.
      {"88E", "88e18"},
      {"1e19", "1e19"},
      {"12E", "12e18"},
  };
  for (const Row& r : rows) {
    const std::optional<Quantity> q = Quantity::parse(r.input);
    ASSERT_TRUE(q.has_value()) << r.input;
    EXPECT_EQ(q->to_string(), r.text) << r.input;
    // The text parses back to the same value.
    const std::optional<Quantity> back = Quantity::parse(q->to_string());
    ASSERT_TRUE(back.has_value()) << q->to_string();
    EXPECT_EQ(*back, *q) << r.input;
  }
}

}  // namespace
}  // namespace rjg::policy
