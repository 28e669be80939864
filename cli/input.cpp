// read_input (see input.hpp) and usage_error (see commands.hpp).
#include "cli/input.hpp"

#include <unistd.h>

#include <cstdio>

#include "cli/commands.hpp"
#include "common/file.hpp"
#include "common/visible_text.hpp"

namespace rjg::cli {

Result<std::string> read_input(const std::string& path, std::size_t max_bytes) {
  if (path != "-") {
    return read_file(path, max_bytes);
  }
  return read_fd(STDIN_FILENO, "stdin", max_bytes);
}

int usage_error(const char* command, const std::string& message) {
  std::fprintf(stderr, "rayjob-guard %s: %s (see --help)\n", command, visible(message).c_str());
  return 2;
}

}  // namespace rjg::cli
