// read_file: the project's one way to read a whole input (policy files, tenants' manifests and
// reviews, kubeconfigs, the reaper's token and CA, benchmark payloads), and kMaxInputBytes, the
// one size limit of every input path, request bodies included (kMaxExportBytes: a whole
// cluster's objects for `audit -f`, not one input object). Header-only like the rest of
// common/; the policy layer never includes it (it does no I/O).
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>

#include "common/result.hpp"

namespace rjg {

// The largest input accepted anywhere: an AdmissionReview body (the webhook's default
// --max-body-bytes), a manifest read by check or review, a policy file, a kubeconfig. 7 MiB:
// the apiserver refuses objects over 3 MiB, and an UPDATE review carries two of them
// (object and oldObject) plus the envelope; controller-runtime caps webhook bodies at 7 MiB too.
inline constexpr std::size_t kMaxInputBytes = 7 * 1024 * 1024;

// The largest export of a cluster's objects (`audit -f`: every RayJob, Job, RayCluster and Pod
// of a cluster in one List, not one object): 256 MiB, about 25,000 Pods of 10 KiB.
inline constexpr std::size_t kMaxExportBytes = 256 * 1024 * 1024;

// Returns "<max_bytes> bytes (<max_bytes / MiB> MiB)" or "<max_bytes> bytes", for messages.
inline std::string describe_limit(std::size_t max_bytes) {
  constexpr std::size_t kMiB = 1024 * 1024;
  std::string out = std::to_string(max_bytes) + " bytes";
  if (max_bytes % kMiB == 0) {
    out += " (" + std::to_string(max_bytes / kMiB) + " MiB)";
  }
  return out;
}

// Reads `fd` to its end, stopping as soon as more than `max_bytes` arrived, so an endless or
// huge input (a pipe, a device, a file growing while read) never costs more than the limit.
// `name` is the input's name in messages: "<name>: read error: <reason>" (kUnavailable; a
// directory gives "Is a directory"), "<name>: larger than the input limit of N bytes (M MiB)"
// (kInvalidArgument).
inline Result<std::string> read_fd(int fd, const std::string& name,
                                   std::size_t max_bytes = kMaxInputBytes) {
  std::string out;
  char chunk[64 * 1024];
  while (true) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return unavailable(name + ": read error: " + std::strerror(errno));
    }
    if (n == 0) {
      return out;
    }
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      return invalid_argument(name + ": larger than the input limit of " +
                              describe_limit(max_bytes));
    }
    out.append(chunk, static_cast<std::size_t>(n));
  }
}

// Returns the whole content of `path`, byte for byte, at most `max_bytes`. Returns kUnavailable
// "<path>: cannot be read: <reason>" when it cannot be opened or is a directory, "<path>: read
// error: <reason>" when reading fails part way, and kInvalidArgument "<path>: larger than the
// input limit of N bytes (M MiB)" (a regular file is refused from its size before any read).
inline Result<std::string> read_file(const std::string& path,
                                     std::size_t max_bytes = kMaxInputBytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return unavailable(path + ": cannot be read: " + std::strerror(errno));
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return unavailable(path + ": cannot be read: " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    return unavailable(path + ": cannot be read: " + std::strerror(EISDIR));
  }
  if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > max_bytes) {
    return invalid_argument(path + ": larger than the input limit of " + describe_limit(max_bytes));
  }
  return read_fd(fd, path, max_bytes);
}

}  // namespace rjg
