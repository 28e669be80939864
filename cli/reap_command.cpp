// stub: replaced by the implementation of the 'reap' command.
#include <cstdio>

#include "cli/commands.hpp"

namespace rjg::cli {

int run_reap(const Args& /*args*/) {
  std::fputs("rayjob-guard: 'reap' is not built yet\n", stderr);
  return 2;
}

}  // namespace rjg::cli
