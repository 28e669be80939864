// rayjob-guard check: RayJob manifests (YAML/JSON) judged exactly as the webhook would judge them
// after `kubectl create`, with the same messages. For tenants before they submit, and for CI.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "admission/check.hpp"
#include "admission/finding_format.hpp"
#include "admission/policy_file.hpp"
#include "cli/commands.hpp"

namespace rjg::cli {
namespace {

constexpr const char* kHelp =
    "usage: rayjob-guard check [--policy FILE] [--namespace NS] [--output text|json] FILE...\n"
    "Checks every RayJob in the YAML/JSON manifests FILE... (- for stdin) as a CREATE, with the\n"
    "CRD defaults of the policy's KubeRay version applied, exactly as the webhook would.\n"
    "Other kinds are skipped with a note.\n"
    "  --policy FILE       policy YAML (default: the built-in policy)\n"
    "  -n, --namespace NS  namespace for objects without metadata.namespace (default: default)\n"
    "  -o, --output FMT    text (default) or json (an array of per-object results)\n"
    "Exit status: 0 all allowed, 1 any denied, 2 bad input (unreadable file, YAML error).\n";

std::optional<std::string> read_input(const std::string& path) {
  std::ostringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  text << in.rdbuf();
  return text.str();
}

struct FileResult {
  std::string file;
  std::vector<admission::CheckedObject> objects;
};

void print_text(const FileResult& r) {
  for (const admission::CheckedObject& o : r.objects) {
    if (!o.is_rayjob) {
      std::printf("note: %s document %zu: skipping %s %s%s (not a ray.io RayJob)\n", r.file.c_str(),
                  o.document, o.api_version.empty() ? "(no apiVersion)" : o.api_version.c_str(),
                  o.kind.empty() ? "(no kind)" : o.kind.c_str(),
                  o.name.empty() ? "" : ("/" + o.name).c_str());
      continue;
    }
    for (const policy::Finding& f : o.verdict.warnings) {
      std::printf("Warning: %s\n", admission::format_finding(f).c_str());
    }
    if (o.verdict.allowed) {
      std::printf("rayjob.ray.io/%s (%s) allowed\n", o.name.c_str(), r.file.c_str());
    } else {
      std::printf("rayjob.ray.io/%s (%s) denied:\n", o.name.c_str(), r.file.c_str());
      for (const policy::Finding& f : o.verdict.denials) {
        std::printf("  %s\n", admission::format_finding(f).c_str());
      }
    }
  }
}

void write_findings(rapidjson::Writer<rapidjson::StringBuffer>& w, const policy::Findings& list) {
  w.StartArray();
  for (const policy::Finding& f : list) {
    w.StartObject();
    w.Key("rule");
    const std::string_view id = policy::rule_id_name(f.rule);
    w.String(id.data(), static_cast<rapidjson::SizeType>(id.size()));
    w.Key("field");
    w.String(f.field.c_str(), static_cast<rapidjson::SizeType>(f.field.size()));
    w.Key("message");
    w.String(f.message.c_str(), static_cast<rapidjson::SizeType>(f.message.size()));
    w.Key("text");
    const std::string text = admission::format_finding(f);
    w.String(text.c_str(), static_cast<rapidjson::SizeType>(text.size()));
    w.EndObject();
  }
  w.EndArray();
}

void print_json(const std::vector<FileResult>& results) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto str = [&w](const std::string& s) {
    w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartArray();
  for (const FileResult& r : results) {
    for (const admission::CheckedObject& o : r.objects) {
      w.StartObject();
      w.Key("file");
      str(r.file);
      w.Key("document");
      w.Uint64(o.document);
      w.Key("line");
      w.Int(o.line);
      w.Key("apiVersion");
      str(o.api_version);
      w.Key("kind");
      str(o.kind);
      w.Key("name");
      str(o.name);
      w.Key("skipped");
      w.Bool(!o.is_rayjob);
      if (o.is_rayjob) {
        w.Key("namespace");
        str(o.namespace_);
        w.Key("allowed");
        w.Bool(o.verdict.allowed);
        w.Key("denials");
        write_findings(w, o.verdict.denials);
        w.Key("warnings");
        write_findings(w, o.verdict.warnings);
      }
      w.EndObject();
    }
  }
  w.EndArray();
  std::fwrite(buffer.GetString(), 1, buffer.GetSize(), stdout);
  std::fputc('\n', stdout);
}

}  // namespace

int run_check(const Args& args) {
  std::optional<std::string> policy_path;
  admission::CheckOptions options;
  std::string output = "text";
  std::vector<std::string> files;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      return 0;
    }
    auto value = [&](const char* name) -> std::optional<std::string> {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "rayjob-guard check: %s needs a value\n", name);
        return std::nullopt;
      }
      return args[++i];
    };
    if (a == "--policy") {
      policy_path = value("--policy");
      if (!policy_path) {
        return 2;
      }
    } else if (a == "--namespace" || a == "-n") {
      options.namespace_ = value("--namespace");
      if (!options.namespace_) {
        return 2;
      }
    } else if (a.rfind("--namespace=", 0) == 0) {
      options.namespace_ = a.substr(12);
    } else if (a == "--output" || a == "-o") {
      std::optional<std::string> v = value("--output");
      if (!v) {
        return 2;
      }
      output = *v;
    } else if (a.rfind("--output=", 0) == 0) {
      output = a.substr(9);
    } else if (a.rfind("--policy=", 0) == 0) {
      policy_path = a.substr(9);
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "rayjob-guard check: unknown option '%s' (see --help)\n", a.c_str());
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (output != "text" && output != "json") {
    std::fprintf(stderr, "rayjob-guard check: --output must be text or json, got '%s'\n",
                 output.c_str());
    return 2;
  }
  if (options.namespace_ && options.namespace_->empty()) {
    std::fputs("rayjob-guard check: --namespace must not be empty\n", stderr);
    return 2;
  }
  if (files.empty()) {
    std::fputs("rayjob-guard check: no FILE given (see --help)\n", stderr);
    return 2;
  }
  Result<admission::LoadedPolicy> policy =
      policy_path ? admission::load_policy_file(*policy_path)
                  : admission::decode_policy(admission::default_policy_yaml());
  if (!policy.ok()) {
    std::fprintf(stderr, "rayjob-guard check: %s\n", policy.error().message.c_str());
    return 2;
  }
  bool bad_input = false;
  bool denied = false;
  std::vector<FileResult> results;
  for (const std::string& file : files) {
    std::optional<std::string> text = read_input(file);
    if (!text) {
      std::fprintf(stderr, "rayjob-guard check: %s: cannot be read\n", file.c_str());
      bad_input = true;
      continue;
    }
    Result<std::vector<admission::CheckedObject>> checked =
        admission::check_manifests(*text, options, policy.value());
    if (!checked.ok()) {
      std::fprintf(stderr, "rayjob-guard check: %s: %s\n", file.c_str(),
                   checked.error().message.c_str());
      bad_input = true;
      continue;
    }
    FileResult r{file, std::move(checked).value()};
    for (const admission::CheckedObject& o : r.objects) {
      denied = denied || !o.verdict.allowed;
    }
    if (output == "text") {
      print_text(r);
    }
    results.push_back(std::move(r));
  }
  if (output == "json") {
    print_json(results);
  }
  if (bad_input) {
    return 2;
  }
  return denied ? 1 : 0;
}

}  // namespace rjg::cli
