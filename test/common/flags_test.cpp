// flags::parse: the flag forms kubectl users type, and the errors for the rest.
#include "common/flags.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace rjg::flags {
namespace {

struct Got {
  std::string output;
  std::string ns;
  bool all = false;
  std::vector<std::string> positional;
  std::string error;
};

Got run(std::initializer_list<const char*> given) {
  Got got;
  std::vector<std::string> args = {"cmd"};
  for (const char* a : given) {
    args.emplace_back(a);
  }
  Result<Parsed> r = parse(args, {{"--output", "-o", true, text(got.output)},
                                  {"--namespace", "-n", true, text(got.ns)},
                                  {"--all-namespaces", "-A", false, on(got.all)}});
  if (!r.ok()) {
    got.error = r.error().message;
  } else {
    got.positional = r.value().positional;
  }
  return got;
}

TEST(Flags, KubectlForms) {
  const auto expect_json_in_ns = [](const Got& got, const char* form) {
    EXPECT_EQ(got.error, "") << form;
    EXPECT_EQ(got.output, "json") << form;
    EXPECT_EQ(got.ns, "ns") << form;
  };
  expect_json_in_ns(run({"--output", "json", "--namespace", "ns"}), "--output json");
  expect_json_in_ns(run({"--output=json", "--namespace=ns"}), "--output=json");
  expect_json_in_ns(run({"-o", "json", "-n", "ns"}), "-o json");
  expect_json_in_ns(run({"-ojson", "-nns"}), "-ojson");
  expect_json_in_ns(run({"-o=json", "-n=ns"}), "-o=json");
  const Got got = run({"-A", "file.yaml", "-", "--", "-o"});
  EXPECT_TRUE(got.all);
  EXPECT_EQ(got.positional, (std::vector<std::string>{"file.yaml", "-", "-o"}));
}

TEST(Flags, ErrorsNameTheFlag) {
  EXPECT_EQ(run({"-Ax"}).error, "--all-namespaces takes no value");
  EXPECT_EQ(run({"--all-namespaces=true"}).error, "--all-namespaces takes no value");
  EXPECT_EQ(run({"-x"}).error, "unknown option '-x'");
  EXPECT_EQ(run({"-xjson"}).error, "unknown option '-x'");
  EXPECT_EQ(run({"--outputs=json"}).error, "unknown option '--outputs'");
  EXPECT_EQ(run({"-o"}).error, "--output needs a value");
  EXPECT_EQ(run({"-o="}).error, "--output: empty value");
}

}  // namespace
}  // namespace rjg::flags
