// stub: replaced by the implementation of the 'review' command.
#include <cstdio>

#include "cli/commands.hpp"

namespace rjg::cli {

int run_review(const Args& /*args*/) {
  std::fputs("rayjob-guard: 'review' is not built yet\n", stderr);
  return 2;
}

}  // namespace rjg::cli
