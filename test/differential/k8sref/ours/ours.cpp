// rjg-differential-ours: rayjob-guard's side of the differential tests (test/differential/k8sref/).
// Test-only. Reads one hex-encoded case a line on stdin and writes one answer a line on stdout:
//   quantity  ->  "ok <nano-units> <Quantity::to_string()>"  or  "refused"
//   imageref  ->  "ok\t<registry>\t<repository>\t<tag>\t<digest>"  or  "refused\t<reason>"
// (registry, repository, tag and digest as parse_image_ref extracts them: empty when absent).
// Exit 2 on a line that is not hex or an unknown mode.
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "policy/image_ref.hpp"
#include "policy/quantity.hpp"

namespace {

std::optional<std::string> unhex(std::string_view line) {
  if (line.size() % 2 != 0) {
    return std::nullopt;
  }
  const auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    return -1;
  };
  std::string out;
  out.reserve(line.size() / 2);
  for (std::size_t i = 0; i < line.size(); i += 2) {
    const int hi = nibble(line[i]);
    const int lo = nibble(line[i + 1]);
    if (hi < 0 || lo < 0) {
      return std::nullopt;
    }
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

std::string decimal(__int128 v) {
  if (v == 0) {
    return "0";
  }
  const bool negative = v < 0;
  unsigned __int128 m = negative ? static_cast<unsigned __int128>(-(v + 1)) + 1
                                 : static_cast<unsigned __int128>(v);
  std::string out;
  while (m != 0) {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  }
  return negative ? "-" + out : out;
}

std::string answer_quantity(const std::string& text) {
  const std::optional<rjg::policy::Quantity> q = rjg::policy::Quantity::parse(text);
  if (!q) {
    return "refused";
  }
  return "ok " + decimal(q->nanos()) + " " + q->to_string();
}

std::string answer_imageref(const std::string& text) {
  const rjg::Result<rjg::policy::ImageRef> r = rjg::policy::parse_image_ref(text);
  if (!r.ok()) {
    std::string reason = r.error().message;
    for (char& c : reason) {
      c = (c == '\n' || c == '\t') ? ' ' : c;
    }
    return "refused\t" + reason;
  }
  const rjg::policy::ImageRef& ref = r.value();
  return "ok\t" + std::string(ref.registry) + "\t" + std::string(ref.repository) + "\t" +
         std::string(ref.tag) + "\t" + std::string(ref.digest);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc == 2 ? argv[1] : "";
  if (mode != "quantity" && mode != "imageref") {
    std::cerr << "usage: rjg-differential-ours quantity|imageref < hex lines\n";
    return 2;
  }
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    const std::optional<std::string> text = unhex(line);
    if (!text) {
      std::cerr << "rjg-differential-ours: not a hex line: " << line << "\n";
      return 2;
    }
    std::cout << (mode == "quantity" ? answer_quantity(*text) : answer_imageref(*text)) << '\n';
  }
  std::cout.flush();
  return std::cout ? 0 : 1;
}
