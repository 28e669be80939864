// json_to_yaml (see json_to_yaml.hpp).
#include "admission/json_to_yaml.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <yaml.h>

#include <memory>

#include "admission/yaml_to_json.hpp"

namespace rjg::admission {
namespace {

int append(void* out, unsigned char* buffer, size_t size) {
  static_cast<std::string*>(out)->append(reinterpret_cast<const char*>(buffer), size);
  return 1;
}

class Emitter {
 public:
  explicit Emitter(std::string& out) {
    yaml_emitter_initialize(&e_);
    yaml_emitter_set_output(&e_, append, &out);
    yaml_emitter_set_unicode(&e_, 1);
    yaml_emitter_set_indent(&e_, 2);
    yaml_emitter_set_width(&e_, -1);  // no folding of long strings
  }
  ~Emitter() { yaml_emitter_delete(&e_); }
  Emitter(const Emitter&) = delete;
  Emitter& operator=(const Emitter&) = delete;

  // Emits `event` (initialized by the caller); false when libyaml refused it.
  bool emit(yaml_event_t& event) { return yaml_emitter_emit(&e_, &event) == 1; }
  std::string error() const { return e_.problem == nullptr ? "unknown" : e_.problem; }

 private:
  yaml_emitter_t e_{};
};

bool scalar(Emitter& em, std::string_view text, bool quoted) {
  yaml_event_t ev;
  yaml_scalar_event_initialize(
      &ev, nullptr, nullptr,
      reinterpret_cast<yaml_char_t*>(const_cast<char*>(text.data())),
      static_cast<int>(text.size()), quoted ? 0 : 1, 1,
      quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
  return em.emit(ev);
}

// A string: plain (or whatever libyaml finds it needs) when a YAML 1.1 reader resolves the plain
// text as the same string, else double-quoted.
bool string(Emitter& em, std::string_view text) {
  return scalar(em, text,
                resolve_plain_scalar(text).kind != ResolvedScalar::Kind::kString);
}

bool node(Emitter& em, const json::Value& v) {
  yaml_event_t ev;
  switch (v.GetType()) {
    case rapidjson::kNullType: return scalar(em, "null", false);
    case rapidjson::kFalseType: return scalar(em, "false", false);
    case rapidjson::kTrueType: return scalar(em, "true", false);
    case rapidjson::kStringType: return string(em, {v.GetString(), v.GetStringLength()});
    case rapidjson::kNumberType: {
      rapidjson::StringBuffer buf;
      rapidjson::Writer<rapidjson::StringBuffer> w(buf);
      v.Accept(w);
      return scalar(em, {buf.GetString(), buf.GetSize()}, false);
    }
    case rapidjson::kArrayType: {
      yaml_sequence_start_event_initialize(&ev, nullptr, nullptr, 1, YAML_BLOCK_SEQUENCE_STYLE);
      if (!em.emit(ev)) {
        return false;
      }
      for (const json::Value& item : v.GetArray()) {
        if (!node(em, item)) {
          return false;
        }
      }
      yaml_sequence_end_event_initialize(&ev);
      return em.emit(ev);
    }
    case rapidjson::kObjectType: {
      yaml_mapping_start_event_initialize(&ev, nullptr, nullptr, 1, YAML_BLOCK_MAPPING_STYLE);
      if (!em.emit(ev)) {
        return false;
      }
      for (const auto& m : v.GetObject()) {
        if (!string(em, json::key_of(m)) || !node(em, m.value)) {
          return false;
        }
      }
      yaml_mapping_end_event_initialize(&ev);
      return em.emit(ev);
    }
  }
  return false;
}

}  // namespace

Result<std::string> json_to_yaml(const json::Value& value) {
  std::string out;
  {
    Emitter em(out);
    yaml_event_t ev;
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    bool ok = em.emit(ev);
    yaml_document_start_event_initialize(&ev, nullptr, nullptr, nullptr, 1);
    ok = ok && em.emit(ev) && node(em, value);
    yaml_document_end_event_initialize(&ev, 1);
    ok = ok && em.emit(ev);
    yaml_stream_end_event_initialize(&ev);
    ok = ok && em.emit(ev);
    if (!ok) {
      return internal_error("YAML output: libyaml refused it: " + em.error());
    }
  }
  return out;
}

Result<std::string> json_text_to_yaml(std::string_view json_text) {
  RJG_ASSIGN_OR_RETURN(const json::Document doc, json::parse(json_text));
  return json_to_yaml(doc);
}

}  // namespace rjg::admission
