// Tests policy/pip_requirement: PEP 508 items, PEP 440 ordering and the floor questions.
#include "policy/pip_requirement.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rjg::policy {
namespace {

using Kind = PipRequirement::Kind;

TEST(PipRequirement, ParsesItems) {
  struct Row {
    const char* item;
    Kind kind;
    const char* name;
    std::vector<std::string> extras;
    std::vector<VersionSpecifier> specs;
    bool marker;
  };
  const std::vector<Row> rows = {
      {"boto3>=1.35.0", Kind::kPackage, "boto3", {}, {{">=", "1.35.0"}}, false},
      {"  Boto3 >= 1.35.0 ", Kind::kPackage, "boto3", {}, {{">=", "1.35.0"}}, false},
      {"requests==2.26.0", Kind::kPackage, "requests", {}, {{"==", "2.26.0"}}, false},
      {"botocore>=1.34.41,<2",
       Kind::kPackage,
       "botocore",
       {},
       {{">=", "1.34.41"}, {"<", "2"}},
       false},
      {"boto3[crt]~=1.35.0; python_version >= '3.8'",
       Kind::kPackage,
       "boto3",
       {"crt"},
       {{"~=", "1.35.0"}},
       true},
      {"Foo_Bar.baz[Extra_One, two]>1",
       Kind::kPackage,
       "foo-bar-baz",
       {"extra-one", "two"},
       {{">", "1"}},
       false},
      {"boto3 (>=1.35.0)", Kind::kPackage, "boto3", {}, {{">=", "1.35.0"}}, false},
      {"boto3===1.35.0", Kind::kPackage, "boto3", {}, {{"===", "1.35.0"}}, false},
      {"boto3!=1.35.1,<=1.40",
       Kind::kPackage,
       "boto3",
       {},
       {{"!=", "1.35.1"}, {"<=", "1.40"}},
       false},
      {"boto3==1.35.*", Kind::kPackage, "boto3", {}, {{"==", "1.35.*"}}, false},
      {"boto3", Kind::kPackage, "boto3", {}, {}, false},
      {"-f https://storage.googleapis.com/jax-releases/libtpu_releases.html",
       Kind::kOption,
       "",
       {},
       {},
       false},
      {"--index-url https://example.org/simple", Kind::kOption, "", {}, {}, false},
      {"boto3 @ https://example.org/boto3-1.35.0-py3-none-any.whl", Kind::kUrl, "", {}, {}, false},
      {"git+https://github.com/boto/boto3", Kind::kUrl, "", {}, {}, false},
      {"https://example.org/pkg.whl", Kind::kUrl, "", {}, {}, false},
      {"./local/pkg", Kind::kUrl, "", {}, {}, false},
  };
  for (const Row& r : rows) {
    Result<PipRequirement> req = parse_pip_requirement(r.item);
    ASSERT_TRUE(req.ok()) << r.item << ": " << req.error().message;
    EXPECT_EQ(req.value().kind, r.kind) << r.item;
    if (r.kind == Kind::kPackage) {
      EXPECT_EQ(req.value().name, r.name) << r.item;
      EXPECT_EQ(req.value().extras, r.extras) << r.item;
      EXPECT_EQ(req.value().specifiers, r.specs) << r.item;
      EXPECT_EQ(req.value().has_marker, r.marker) << r.item;
    }
  }
}

TEST(PipRequirement, RefusesMalformedItems) {
  const std::vector<std::pair<const char*, const char*>> rows = {
      {"", "empty"},
      {"   ", "empty"},
      {"boto3[crt", "']'"},
      {"boto3 =>1.0", "version clause"},
      {"boto3>=", "no version"},
      {"boto3 1.0", "version clause"},
      {"boto3 (>=1.0", "')'"},
      {"[crt]boto3", "project name"},
      {"boto3>=1.0 2.0", "not a version"},
      {"boto3[cr t]", "extra"},
  };
  for (const auto& [item, fragment] : rows) {
    Result<PipRequirement> req = parse_pip_requirement(item);
    ASSERT_FALSE(req.ok()) << "\"" << item << "\" parsed";
    EXPECT_EQ(req.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(req.error().message.find(fragment), std::string::npos)
        << item << ": " << req.error().message;
  }
}

TEST(PipRequirement, OrdersPep440Versions) {
  // Each version sorts strictly after the previous one.
  const std::vector<const char*> ascending = {
      "1.0.dev0", "1.0a1.dev1",     "1.0a1",     "1.0alpha2", "1.0b1", "1.0c1", "1.0rc2",
      "1.0",      "1.0.post1.dev1", "1.0.post1", "1.0-2",     "1.0.1", "1.2",   "1.10",
      "1.34.40",  "1.34.41",        "1.35.0rc1", "1.35.0",    "2!0.1",
  };
  for (std::size_t i = 1; i < ascending.size(); ++i) {
    const auto a = parse_pep440(ascending[i - 1]);
    const auto b = parse_pep440(ascending[i]);
    ASSERT_TRUE(a && b) << ascending[i - 1] << " / " << ascending[i];
    EXPECT_LT(compare_versions(*a, *b), 0) << ascending[i - 1] << " < " << ascending[i];
    EXPECT_GT(compare_versions(*b, *a), 0) << ascending[i] << " > " << ascending[i - 1];
  }
  const std::vector<std::pair<const char*, const char*>> equal = {
      {"1.35", "1.35.0"},         {"v1.35.0", "1.35.0"},  {"1.0RC1", "1.0rc1"},
      {"1.0-preview1", "1.0rc1"}, {"1.0+local.1", "1.0"}, {"1.0.post", "1.0.post0"},
      {"1.0-r1", "1.0.post1"},
  };
  for (const auto& [a, b] : equal) {
    const auto va = parse_pep440(a);
    const auto vb = parse_pep440(b);
    ASSERT_TRUE(va && vb) << a << " / " << b;
    EXPECT_EQ(compare_versions(*va, *vb), 0) << a << " == " << b;
  }
  for (const char* bad : {"", "x", "1.", "1.0.*", "1.0 rc1", "1..0", "1.0+", "1.0+.x", "latest"}) {
    EXPECT_FALSE(parse_pep440(bad).has_value()) << bad;
  }
}

std::vector<VersionSpecifier> specs_of(const char* item) {
  return parse_pip_requirement(item).value().specifiers;
}

TEST(PipRequirement, GuaranteesAFloor) {
  const std::vector<std::pair<const char*, bool>> rows = {
      {"boto3>=1.35.0", true},
      {"boto3>=1.35", true},
      {"boto3>=1.36.2", true},
      {"boto3==1.35.0", true},
      {"boto3==1.40.3", true},
      {"boto3===1.35.0", true},
      {"boto3>1.35.0", true},
      {"boto3>1.34.99", false},
      {"boto3~=1.35.0", true},
      {"boto3~=1.34", false},
      {"boto3==1.35.*", true},
      {"boto3==1.34.*", false},
      {"boto3>=1.34.41", false},
      {"boto3>=1.35.0rc1", false},
      {"boto3>=1.35.0.post1", true},
      {"boto3", false},
      {"boto3<2", false},
      {"boto3<=1.40", false},
      {"boto3!=1.0", false},
      {"boto3>=1.26,<2", false},
      {"boto3>=1.26,>=1.35.0", true},
      {"boto3>=1.35.0,<1.36", true},
      {"boto3>=garbage", false},
  };
  for (const auto& [item, want] : rows) {
    EXPECT_EQ(guarantees_at_least(specs_of(item), "1.35.0"), want) << item;
  }
  EXPECT_FALSE(guarantees_at_least(specs_of("boto3>=1.35.0"), "not-a-version"));
}

TEST(PipRequirement, DetectsCapsBelowTheFloor) {
  const std::vector<std::pair<const char*, bool>> rows = {
      {"botocore==1.29.76", true}, {"botocore==1.34.41", false}, {"botocore<1.34.41", true},
      {"botocore<1.34.42", false}, {"botocore<=1.34.40", true},  {"botocore<=1.34.41", false},
      {"botocore~=1.29.0", true},  {"botocore~=1.34.0", false},  {"botocore~=1.29", false},
      {"botocore==1.29.*", true},  {"botocore==1.34.*", false},  {"botocore>=1.0", false},
      {"botocore", false},         {"botocore!=1.34.41", false}, {"botocore===1.29.0", true},
  };
  for (const auto& [item, want] : rows) {
    EXPECT_EQ(caps_below(specs_of(item), "1.34.41"), want) << item;
  }
}

}  // namespace
}  // namespace rjg::policy
