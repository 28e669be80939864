// Helpers shared by the golden suites: list case directories, read and write files.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace rjg::golden {

inline std::optional<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline bool write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

// Returns the sorted names of the entries of `dir` for which `keep` is true.
template <typename Keep>
std::vector<std::string> list_dir(const std::filesystem::path& dir, Keep keep) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (keep(entry)) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

inline std::vector<std::string> golden_cases() {
  return list_dir(RJG_GOLDEN_CASES_DIR, [](const std::filesystem::directory_entry& e) {
    return e.is_directory() && std::filesystem::exists(e.path() / "request.json");
  });
}

inline std::vector<std::string> corpus_files() {
  return list_dir(RJG_CORPUS_DIR, [](const std::filesystem::directory_entry& e) {
    return e.is_regular_file() && e.path().extension() == ".yaml";
  });
}

// gtest parameter names allow only [A-Za-z0-9_].
inline std::string test_name(const std::string& file) {
  std::string out;
  for (char c : file) {
    out += (std::isalnum(static_cast<unsigned char>(c)) != 0) ? c : '_';
  }
  return out;
}

}  // namespace rjg::golden
