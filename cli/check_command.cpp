// stub: replaced by the implementation of the 'check' command.
#include <cstdio>

#include "cli/commands.hpp"

namespace rjg::cli {

int run_check(const Args& /*args*/) {
  std::fputs("rayjob-guard: 'check' is not built yet\n", stderr);
  return 2;
}

}  // namespace rjg::cli
