// The least any RapidJSON-based review can do with a request body: tokenize it once, building
// nothing. bench/review_benchmark.cpp times it next to review() as the floor of the parse stage.
#pragma once

#include <string>

namespace rjg::bench {

// Returns true when `text` is well-formed JSON, tokenized in place by RapidJSON's reader with a
// handler that keeps nothing. `scratch` receives a NUL-terminated, padded copy of `text` (reused
// between calls, as a server reuses its buffers); the copy is part of what is timed.
bool tokenize_in_place(const std::string& text, std::string& scratch);

}  // namespace rjg::bench
