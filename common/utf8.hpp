// utf8: the length of a UTF-8 sequence from its lead byte, for code that walks text it has
// checked (or that must always advance): the admission encoder's message truncation, and the
// YAML reader's character-to-byte cursor.
#pragma once

#include <cstddef>

namespace rjg {

// Length of the UTF-8 sequence starting with `lead` (1 for a stray byte, so a walk always
// advances).
inline std::size_t utf8_sequence_length(unsigned char lead) {
  if (lead < 0x80) {
    return 1;
  }
  if ((lead & 0xE0) == 0xC0) {
    return 2;
  }
  if ((lead & 0xF0) == 0xE0) {
    return 3;
  }
  return (lead & 0xF8) == 0xF0 ? 4 : 1;
}

}  // namespace rjg
