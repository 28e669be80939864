// The process allocator's settings, compiled into the executables that rjg_link_allocator() (the
// top CMakeLists.txt) gives mimalloc; never part of a library. Linking libmimalloc replaces malloc
// and free for the whole process; the header below sends operator new and delete straight to it
// too (without it they would reach mimalloc through libstdc++'s operator new and then malloc).
#include <mimalloc-new-delete.h>
#include <mimalloc.h>

#include <cstdlib>

namespace {

// mimalloc gives a page its thread no longer uses back to the OS once the page has been free for
// the decommit delay, and it looks only when that thread next allocates or frees. At mimalloc's
// default of 25 ms, the threads that read and reviewed a burst of multi-megabyte requests kept
// their pages while they idled: hardening.bad_inputs measured 38 MiB of RSS after the burst,
// against 14 MiB before it. At 1 ms the same burst leaves 21 MiB, and the benchmark's back-to-back
// reviews, which reuse their pages within microseconds, make no more madvise calls than before.
// MIMALLOC_DECOMMIT_DELAY in the environment still wins.
const bool kDecommitDelaySet = [] {
  if (std::getenv("MIMALLOC_DECOMMIT_DELAY") == nullptr) {
    mi_option_set(mi_option_decommit_delay, 1);
  }
  return true;
}();

}  // namespace
