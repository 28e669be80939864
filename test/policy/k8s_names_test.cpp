// Tests policy/k8s_names against the cases of k8s.io/apimachinery's validation tests: DNS-1123
// labels and subdomains, DNS-1035 labels, qualified names and label values.
#include "policy/k8s_names.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rjg::policy {
namespace {

struct Row {
  std::string text;
  bool label, subdomain, qualified, value;
};

TEST(K8sNames, MatchesApimachinery) {
  const std::vector<Row> rows = {
      {"a", true, true, true, true},
      {"team-a", true, true, true, true},
      {"0a9", true, true, true, true},
      {"a.b", false, true, true, true},
      {"batch.queue-1", false, true, true, true},
      {"", false, false, false, true},
      {"-a", false, false, false, false},
      {"a-", false, false, false, false},
      {"A", false, false, true, true},
      {"a_b", false, false, true, true},
      {"a..b", false, false, true, true},
      {"a-.b", false, false, true, true},
      {".a", false, false, false, false},
      {"a.", false, false, false, false},
      {"a b", false, false, false, false},
      {"é", false, false, false, false},
      {std::string(63, 'a'), true, true, true, true},
      {std::string(64, 'a'), false, true, false, false},
      {std::string(253, 'a'), false, true, false, false},
      {std::string(254, 'a'), false, false, false, false},
      {std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
           std::string(61, 'd'),
       false, true, false, false},
      {std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
           std::string(62, 'd'),
       false, false, false, false},
      {"kueue.x-k8s.io/queue-name", false, false, true, false},
      {"ray.io/", false, false, false, false},
      {"/name", false, false, false, false},
      {"a/b/c", false, false, false, false},
      {"Ray.io/x", false, false, false, false},
      {"ray.io/" + std::string(63, 'x'), false, false, true, false},
      {"ray.io/" + std::string(64, 'x'), false, false, false, false},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.text);
    EXPECT_EQ(is_dns1123_label(r.text), r.label);
    EXPECT_EQ(is_dns1123_subdomain(r.text), r.subdomain);
    EXPECT_EQ(is_qualified_name(r.text), r.qualified);
    EXPECT_EQ(is_label_value(r.text), r.value);
  }
}

TEST(K8sNames, Dns1035LabelStartsWithALetter) {
  EXPECT_TRUE(is_dns1035_label("a"));
  EXPECT_TRUE(is_dns1035_label("job-1"));
  EXPECT_FALSE(is_dns1035_label("1job"));
  EXPECT_FALSE(is_dns1035_label("job-"));
  EXPECT_FALSE(is_dns1035_label("Job"));
  EXPECT_FALSE(is_dns1035_label(""));
  EXPECT_TRUE(is_dns1035_label(std::string(63, 'a')));
  EXPECT_FALSE(is_dns1035_label(std::string(64, 'a')));
}

}  // namespace
}  // namespace rjg::policy
