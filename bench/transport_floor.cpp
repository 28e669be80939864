// The server without review(): `rayjob-guard serve` with admission::review() replaced by an answer
// computed once at startup, so that a load test measures everything the server does around a
// review (TLS, HTTP parsing, the event loop, the decision log line, metrics, the kernel's loopback
// path) and nothing of the review itself. bench/run-bench.sh runs it next to the real server and
// nginx: real server = this floor + review(); nginx = a fixed reply with none of our edge work.
//
// usage: rjg_transport_floor --answer-from REVIEW.json SERVE-FLAGS...
//   REVIEW.json is reviewed once with the policy that SERVE-FLAGS name (the embedded default
//   without --policy); every request body is then answered with that response, byte for byte, and
//   logged and counted like a real decision. The body is not looked at.
#include <cstdio>
#include <string>
#include <vector>

#include "admission/policy_file.hpp"
#include "admission/review.hpp"
#include "common/file.hpp"
#include "server/server.hpp"
#include "server/server_config.hpp"

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "rjg_transport_floor: %s\n", message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string answer_from;
  std::vector<std::string> serve_args{"serve"};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--answer-from") {
      if (i + 1 == argc) {
        return fail("--answer-from needs a file");
      }
      answer_from = argv[++i];
    } else {
      serve_args.push_back(arg);
    }
  }
  if (answer_from.empty()) {
    return fail("usage: rjg_transport_floor --answer-from REVIEW.json SERVE-FLAGS...");
  }
  auto config = rjg::server::parse_server_config(serve_args);
  if (!config.ok()) {
    return fail(config.error().message);
  }
  const rjg::Result<std::string> text = rjg::read_file(answer_from);
  if (!text.ok()) {
    return fail(text.error().message);
  }
  auto policy = rjg::admission::load_policy_or_default(config.value().policy_file);
  if (!policy.ok()) {
    return fail(policy.error().message);
  }
  auto answer = rjg::admission::review(text.value(), policy.value());
  if (!answer.ok()) {
    return fail(answer_from + ": " + answer.error().message);
  }
  // Lives until main returns, after serve(); the lambda holds only its address, so copying the
  // function per request (as the session does) costs what copying an empty one does.
  static rjg::admission::ReviewResult stored;
  stored = std::move(answer.value());
  rjg::server::ReviewFn fixed = [](std::string_view, const rjg::admission::LoadedPolicy&)
      -> rjg::Result<rjg::admission::ReviewResult> { return stored; };
  const rjg::Status status =
      rjg::server::serve(config.value(), "transport-floor", std::move(fixed));
  if (!status.ok()) {
    std::fprintf(stderr, "rjg_transport_floor: %s\n", status.error().message.c_str());
    return 1;
  }
  return 0;
}
