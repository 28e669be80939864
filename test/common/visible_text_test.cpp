// visible(): what a tenant wrote, printed so that a terminal shows it instead of acting on it.
#include "common/visible_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace rjg {
namespace {

struct Case {
  std::string in;
  std::string out;
};

TEST(VisibleText, EscapesWhatATerminalActsOn) {
  const Case cases[] = {
      {"", ""},
      {"plain-name 1.2 [x] \"q\" back\\slash", "plain-name 1.2 [x] \"q\" back\\slash"},
      {"caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x9A\x80", "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x9A\x80"},
      {"a\x1b[2Jb", "a\\x1b[2Jb"},                        // ESC: clear screen
      {"\x1b]0;title\x07", "\\x1b]0;title\\x07"},          // OSC window title, BEL
      {"ok\rFAKE", "ok\\rFAKE"},                           // CR overwrites the line
      {"a\nb\tc", "a\\nb\\tc"},                            // one line stays one line
      {std::string("nul\0x", 5), "nul\\x00x"},
      {"\x01\x08\x1f\x7f", "\\x01\\x08\\x1f\\x7f"},       // C0 and DEL
      {"\xC2\x9B" "31m", "\\u009b31m"},                    // C1 CSI
      {"\xC2\x80\xC2\x85\xC2\x9F\xC2\xA0", "\\u0080\\u0085\\u009f\xC2\xA0"},  // NBSP is kept
      {"gpj.\xE2\x80\xAEtxt", "gpj.\\u202etxt"},           // RIGHT-TO-LEFT OVERRIDE
      {"\xE2\x80\xAA\xE2\x80\xAB\xE2\x80\xAC\xE2\x80\xAD", "\\u202a\\u202b\\u202c\\u202d"},
      {"\xE2\x81\xA6\xE2\x81\xA7\xE2\x81\xA8\xE2\x81\xA9", "\\u2066\\u2067\\u2068\\u2069"},
      {"\xE2\x80\x8E\xE2\x80\x8F\xD8\x9C", "\\u200e\\u200f\\u061c"},
      {"\xE2\x80\x8B", "\xE2\x80\x8B"},                    // zero-width space: not a control
      {"bad\xFFutf\xC3", "bad\\xffutf\\xc3"},              // stray byte, cut sequence
      {"\xC0\xAF", "\\xc0\\xaf"},                          // overlong '/'
      {"\xED\xA0\x80", "\\xed\\xa0\\x80"},                 // a surrogate
      {"\xF4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"},        // above U+10FFFF
      {"\x80x", "\\x80x"},                                 // lone continuation byte
  };
  for (const Case& c : cases) {
    EXPECT_EQ(visible(c.in), c.out) << "input: " << testing::PrintToString(c.in);
  }
}

TEST(VisibleText, OutputIsPrintable) {
  // Every byte value alone and after a UTF-8 lead: the result holds no C0, DEL or C1 byte pair.
  for (int b = 0; b < 256; ++b) {
    for (const std::string& in : {std::string(1, static_cast<char>(b)),
                                  std::string("\xC2") + static_cast<char>(b),
                                  std::string("\xE2\x80") + static_cast<char>(b)}) {
      const std::string out = visible(in);
      for (std::size_t i = 0; i < out.size(); ++i) {
        const auto c = static_cast<unsigned char>(out[i]);
        EXPECT_FALSE(c < 0x20 || c == 0x7F) << testing::PrintToString(in);
        if (c == 0xC2 && i + 1 < out.size()) {
          EXPECT_GE(static_cast<unsigned char>(out[i + 1]), 0xA0) << testing::PrintToString(in);
        }
      }
      EXPECT_EQ(out.find("\xE2\x80\xAE"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace rjg
