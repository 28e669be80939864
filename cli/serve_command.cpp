// rayjob-guard serve: parse and validate the flags once, then hand over to the server layer.
// Exit codes: 0 after a graceful shutdown, 1 when startup fails (unreadable or invalid
// certificate, key or policy, port in use), 2 for a usage error.
#include <cstdio>
#include <string>

#include "cli/commands.hpp"
#include "server/server.hpp"
#include "server/server_config.hpp"

namespace rjg::cli {

int run_serve(const Args& args) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::fputs(server::serve_usage(), stdout);
      return 0;
    }
  }
  auto config = server::parse_server_config(args);
  if (!config.ok()) {
    std::fprintf(stderr, "rayjob-guard serve: %s (see 'rayjob-guard serve --help')\n",
                 config.error().message.c_str());
    return 2;
  }
  const Status status = server::serve(config.value(), RJG_VERSION);
  if (!status.ok()) {
    std::fprintf(stderr, "rayjob-guard serve: %s\n", status.error().message.c_str());
    return 1;
  }
  return 0;
}

}  // namespace rjg::cli
