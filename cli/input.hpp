// Reading a command's input file: shared by the commands that take FILE or - (stdin).
#pragma once

#include <string>

#include "common/result.hpp"

namespace rjg::cli {

// Returns the whole content of `path` ("-" = standard input), or kUnavailable
// "<path>: cannot be read: <reason>" (rjg::read_file).
Result<std::string> read_input(const std::string& path);

}  // namespace rjg::cli
