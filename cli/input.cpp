// read_input (see input.hpp).
#include "cli/input.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

namespace rjg::cli {

std::optional<std::string> read_input(const std::string& path) {
  std::ostringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  text << in.rdbuf();
  return text.str();
}

}  // namespace rjg::cli
