// Reading a command's input file: shared by the commands that take FILE or - (stdin).
#pragma once

#include <string>

#include "common/result.hpp"

namespace rjg::cli {

// Returns the whole content of `path` ("-" = standard input, named "stdin" in messages), at most
// kMaxInputBytes, read with rjg::read_file / rjg::read_fd: kUnavailable "<path>: cannot be read:
// <reason>" (a missing file, a directory, no permission), kInvalidArgument "<path>: larger than
// the input limit of N bytes (7 MiB)" as soon as more than the limit arrived.
Result<std::string> read_input(const std::string& path);

}  // namespace rjg::cli
