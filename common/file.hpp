// read_file: the project's one way to read a whole file (policy files, tenants' manifests and
// reviews, the reaper's token and CA, benchmark payloads). Header-only like the rest of common/;
// the policy layer never includes it (it does no I/O).
#pragma once

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "common/result.hpp"

namespace rjg {

// Returns the whole content of `path`, byte for byte. Returns kUnavailable
// "<path>: cannot be read: <reason>" when it cannot be opened, "<path>: read error" when reading
// fails part way.
inline Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return unavailable(path + ": cannot be read: " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return unavailable(path + ": read error");
  }
  return std::move(text).str();
}

}  // namespace rjg
