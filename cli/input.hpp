// Reading a command's input file: shared by the commands that take FILE or - (stdin).
#pragma once

#include <optional>
#include <string>

namespace rjg::cli {

// Returns the whole content of `path` ("-" = standard input), or nullopt when it cannot be read.
std::optional<std::string> read_input(const std::string& path);

}  // namespace rjg::cli
