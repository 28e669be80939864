// Built with the same RapidJSON settings as admission/json_reader.cpp (no RAPIDJSON_SSE2, see
// admission/CMakeLists.txt), so that the floor uses the same string scans as the real parser.
#include "bench/tokenize_floor.hpp"

#include <rapidjson/reader.h>

namespace rjg::bench {

bool tokenize_in_place(const std::string& text, std::string& scratch) {
  // The same 16 bytes of padding json_reader.cpp keeps for the SIMD scans.
  scratch.assign(text);
  scratch.append(16, '\0');
  rapidjson::InsituStringStream in(scratch.data());
  rapidjson::BaseReaderHandler<> ignore;
  rapidjson::Reader reader;
  return !reader.Parse<rapidjson::kParseInsituFlag>(in, ignore).IsError();
}

}  // namespace rjg::bench
