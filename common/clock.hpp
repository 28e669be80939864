// unix_seconds: the wall clock as whole seconds since the Unix epoch, the one form in which the
// reaper's TTLs, audit's ages and exec credentials' expiries are compared. For the edges only
// (cli/, kube/): policy/ takes the time as an argument and reads no clock.
#pragma once

#include <chrono>
#include <cstdint>

namespace rjg {

inline std::int64_t unix_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace rjg
