// yaml-json: our side of the YAML differential test. For each file it prints one JSON line,
// {"name": N, "docs": [...]} with the JSON of every document admission::yaml_to_json (the reader
// of manifests and policy files) gives, or {"name": N, "error": E}, the shape the reference
// (main.go) prints. A test-only tool: run.py compares the two.
//   usage: yaml-json FILE...
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <string>

#include "admission/yaml_to_json.hpp"
#include "common/file.hpp"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    rjg::Result<std::string> text = rjg::read_file(argv[i]);
    if (!text.ok()) {
      std::fprintf(stderr, "%s\n", text.error().message.c_str());
      return 2;
    }
    rapidjson::StringBuffer out;
    rapidjson::Writer<rapidjson::StringBuffer> w(out);
    w.StartObject();
    w.Key("name");
    w.String(argv[i]);
    auto docs = rjg::admission::yaml_to_json(text.value());
    if (docs.ok()) {
      w.Key("docs");
      w.StartArray();
      for (const rjg::admission::YamlDocument& d : docs.value()) {
        d.doc.Accept(w);
      }
      w.EndArray();
    } else {
      w.Key("error");
      w.String(docs.error().message.c_str());
    }
    w.EndObject();
    std::fprintf(stdout, "%s\n", out.GetString());
  }
  return 0;
}
