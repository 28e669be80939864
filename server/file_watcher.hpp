// FileWatcher: notices when any of a set of files changes, by polling. cert-manager and kubelet
// rotate Secret volumes by swapping a "..data" symlink to a new directory, so the identity of a
// file is what its path resolves to now: the resolved path, device, inode, size and mtime.
// Polling (not inotify) sees symlink swaps anywhere on the path and works on every file system.
// Not thread-safe: one owner calls changed() from one thread (the server's reload timer).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rjg::server {

// What identifies the current content of a path. A missing file has exists == false.
struct FileStamp {
  bool exists = false;
  std::string resolved;  // realpath() of the path
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::int64_t size = 0;
  std::int64_t mtime_ns = 0;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};

// Returns the stamp of `path` now (following symlinks).
FileStamp stamp_file(const std::string& path);

class FileWatcher {
 public:
  // Watches `paths` (empty strings are skipped); the current state is the baseline.
  explicit FileWatcher(std::vector<std::string> paths);

  // Returns true when any watched file's stamp differs from the last call (or the baseline),
  // and records the new stamps.
  bool changed();

 private:
  std::vector<std::string> paths_;
  std::vector<FileStamp> stamps_;
};

}  // namespace rjg::server
