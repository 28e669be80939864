// Reading a command's input file: shared by the commands that take FILE or - (stdin).
#pragma once

#include <cstddef>
#include <string>

#include "common/file.hpp"
#include "common/result.hpp"

namespace rjg::cli {

// Returns the whole content of `path` ("-" = standard input, named "stdin" in messages), at most
// `max_bytes`, read with rjg::read_file / rjg::read_fd: kUnavailable "<path>: cannot be read:
// <reason>" (a missing file, a directory, no permission), kInvalidArgument "<path>: larger than
// the input limit of N bytes (M MiB)" as soon as more than the limit arrived.
Result<std::string> read_input(const std::string& path, std::size_t max_bytes = kMaxInputBytes);

}  // namespace rjg::cli
