// FUZZ_CHECK: the invariant check of every fuzz target. A failed check prints what broke and
// aborts, which libFuzzer reports as a crash and saves the input as a reproducer. Active in every
// build type (unlike assert), because a fuzz target that checks nothing finds only crashes.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                  \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::fprintf(stderr, "FUZZ_CHECK failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                       \
    }                                                                                     \
  } while (false)
