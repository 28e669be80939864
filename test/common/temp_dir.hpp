// A temporary directory for a test's files (kubeconfigs, tokens, certificates, plugin scripts,
// generated inputs), removed with everything in it when the test ends.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/file.hpp"

namespace rjg::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "rjg-test-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `text` to NAME (replacing the file, as a rotation does: a new inode) and returns its
  // path; `mode` 0755 for a script.
  std::string write(const std::string& name, const std::string& text, mode_t mode = 0644) const {
    const std::string p = path_ + "/" + name;
    const std::string tmp = p + ".tmp";
    std::ofstream(tmp) << text;
    ::chmod(tmp.c_str(), mode);
    std::filesystem::rename(tmp, p);
    return p;
  }
  // The content of NAME ("" when it cannot be read).
  std::string read(const std::string& name) const {
    Result<std::string> text = read_file(path_ + "/" + name);
    return text.ok() ? text.value() : std::string();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace rjg::testing
