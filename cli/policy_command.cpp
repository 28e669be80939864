// stub: replaced by the implementation of the 'policy' command.
#include <cstdio>

#include "cli/commands.hpp"

namespace rjg::cli {

int run_policy(const Args& /*args*/) {
  std::fputs("rayjob-guard: 'policy' is not built yet\n", stderr);
  return 2;
}

}  // namespace rjg::cli
