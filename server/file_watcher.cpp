// Polling file-change detection through stat() and realpath().
#include "server/file_watcher.hpp"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>

namespace rjg::server {

FileStamp stamp_file(const std::string& path) {
  FileStamp s;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return s;
  }
  s.exists = true;
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) != nullptr) {
    s.resolved = buf;
  }
  s.device = static_cast<std::uint64_t>(st.st_dev);
  s.inode = static_cast<std::uint64_t>(st.st_ino);
  s.size = static_cast<std::int64_t>(st.st_size);
  s.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  return s;
}

FileWatcher::FileWatcher(std::vector<std::string> paths) {
  for (auto& p : paths) {
    if (!p.empty()) {
      paths_.push_back(std::move(p));
    }
  }
  for (const auto& p : paths_) {
    stamps_.push_back(stamp_file(p));
  }
}

bool FileWatcher::changed() {
  bool any = false;
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    FileStamp now = stamp_file(paths_[i]);
    if (!(now == stamps_[i])) {
      stamps_[i] = std::move(now);
      any = true;
    }
  }
  return any;
}

}  // namespace rjg::server
