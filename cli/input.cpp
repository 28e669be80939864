// read_input (see input.hpp).
#include "cli/input.hpp"

#include <iostream>
#include <sstream>

#include "common/file.hpp"

namespace rjg::cli {

Result<std::string> read_input(const std::string& path) {
  if (path != "-") {
    return read_file(path);
  }
  std::ostringstream text;
  text << std::cin.rdbuf();
  return std::move(text).str();
}

}  // namespace rjg::cli
