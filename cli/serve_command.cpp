// stub: replaced by the implementation of the 'serve' command.
#include <cstdio>

#include "cli/commands.hpp"

namespace rjg::cli {

int run_serve(const Args& /*args*/) {
  std::fputs("rayjob-guard: 'serve' is not built yet\n", stderr);
  return 2;
}

}  // namespace rjg::cli
