// Text that is safe to print to a terminal or a CI log: what a tenant wrote (a RayJob name, a
// label, an image, a file name, a policy value) can hold bytes that move the cursor, clear the
// screen, set the window title or reorder the line (ESC, CR, BS, the C1 controls, Unicode bidi
// overrides). Every human-readable output of the CLI and the webhook's deny message and warnings
// pass their text through visible() once, at the point where it is written.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rjg {

namespace visible_detail {

inline constexpr char kHex[] = "0123456789abcdef";

inline void append_hex(std::string& out, unsigned value, int digits) {
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
    out += kHex[(value >> shift) & 0xFU];
  }
}

// The length of the well-formed UTF-8 sequence at s[i] and its code point, or 0 when the bytes
// there are not one (a stray continuation byte, an overlong form, a surrogate, a cut sequence).
inline std::size_t decode_utf8(std::string_view s, std::size_t i, unsigned& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned lead = b(0);
  std::size_t len = 0;
  unsigned min = 0;
  if (lead < 0x80) {
    cp = lead;
    return 1;
  }
  if (lead >= 0xC2 && lead <= 0xDF) {
    len = 2;
    cp = lead & 0x1FU;
    min = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    len = 3;
    cp = lead & 0x0FU;
    min = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    len = 4;
    cp = lead & 0x07U;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) {
    return 0;
  }
  for (std::size_t k = 1; k < len; ++k) {
    if ((b(k) & 0xC0U) != 0x80U) {
      return 0;
    }
    cp = (cp << 6) | (b(k) & 0x3FU);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return len;
}

// Code points that reorder or hide text without being controls: the bidi embeddings,
// overrides and isolates, the directional marks, and the Arabic letter mark (Unicode UAX #9).
inline bool is_bidi_format(unsigned cp) {
  return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E ||
         cp == 0x200F || cp == 0x061C;
}

}  // namespace visible_detail

// Returns `text` with every byte or character a terminal would act on instead of showing
// rendered as a visible escape: \t, \n and \r as themselves, other C0 controls and DEL as \xNN
// (ESC is \x1b, NUL \x00), C1 controls (U+0080 to U+009F) and the bidi formatting characters
// (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C) as \uNNNN, and each byte that is not
// part of well-formed UTF-8 as \xNN. Everything else, other UTF-8 included, is kept, and a
// backslash stays a single backslash (the escapes are for the eye; the JSON outputs carry the
// exact value). Text with nothing to escape comes back unchanged.
inline std::string visible(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    unsigned cp = 0;
    const std::size_t len = visible_detail::decode_utf8(text, i, cp);
    if (len == 0) {
      out += "\\x";
      visible_detail::append_hex(out, static_cast<unsigned char>(text[i]), 2);
      ++i;
      continue;
    }
    if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp < 0x20 || cp == 0x7F) {
      out += "\\x";
      visible_detail::append_hex(out, cp, 2);
    } else if ((cp >= 0x80 && cp <= 0x9F) || visible_detail::is_bidi_format(cp)) {
      out += "\\u";
      visible_detail::append_hex(out, cp, 4);
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
  }
  return out;
}

}  // namespace rjg
