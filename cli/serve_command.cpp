// rayjob-guard serve: parse and validate the flags once, then hand over to the server layer.
// Exit codes: 0 after a graceful shutdown, 1 when startup fails (unreadable or invalid
// certificate, key or policy, port in use), 2 for a usage error.
#include <malloc.h>

#include <cstdio>
#include <string>

#include "cli/commands.hpp"
#include "server/server.hpp"
#include "server/server_config.hpp"
#include "common/visible_text.hpp"

namespace rjg::cli {

namespace {

// A review of a large RayJob allocates a few hundred KB at once (the body, the parsed document's
// pool) and frees it when the answer is sent. glibc's defaults serve blocks above 128 KB with
// mmap and give the top of the heap back above 128 KB free, so every such request paid
// mmap/munmap or brk and a few page faults for memory it asks for again right away (~4 faults
// and 10 % of the CPU per 60 KB review). Blocks up to 1 MiB now come from the heap, and up to 4
// MiB of free heap is kept; bigger bodies (up to --max-body-bytes) still use mmap and are
// returned, so RSS stays bounded.
void tune_malloc_for_requests() {
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  mallopt(M_TRIM_THRESHOLD, 4 << 20);
}

}  // namespace

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
                 visible(config.error().message).c_str());
    return 2;
  }
  tune_malloc_for_requests();
  const Status status = server::serve(config.value(), RJG_VERSION);
  if (!status.ok()) {
    std::fprintf(stderr, "rayjob-guard serve: %s\n", visible(status.error().message).c_str());
    return 1;
  }
  return 0;
}

}  // namespace rjg::cli
