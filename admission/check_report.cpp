// JUnit XML and SARIF from check results (see check_report.hpp).
#include "admission/check_report.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

#include "admission/finding_format.hpp"
#include "common/visible_text.hpp"
#include "policy/rule_id.hpp"

namespace rjg::admission {
namespace {

// `text` as XML 1.0 character data or attribute value: markup escaped, and what XML cannot
// carry (C0 controls but tab, newline and CR; U+FFFE, U+FFFF; bytes that are not UTF-8) as
// U+FFFD.
std::string xml(std::string_view text) {
  constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    unsigned cp = 0;
    const std::size_t len = visible_detail::decode_utf8(text, i, cp);
    if (len == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: {
        const bool allowed =
            (cp >= 0x20 || cp == '\t' || cp == '\n' || cp == '\r') && cp != 0xFFFE && cp != 0xFFFF;
        out += allowed ? text.substr(i, len) : kReplacement;
      }
    }
    i += len;
  }
  return out;
}

std::string label(const CheckedObject& o) {
  return (o.kind.empty() ? std::string("object") : o.kind) + "/" + o.name + " (document " +
         std::to_string(o.document) + ")";
}

struct Counts {
  std::size_t tests = 0, failures = 0, skipped = 0;
};

Counts count(const CheckedFile& f) {
  Counts c;
  for (const CheckedObject& o : f.objects) {
    ++c.tests;
    c.failures += o.is_rayjob && !o.verdict.allowed ? 1 : 0;
    c.skipped += o.is_rayjob ? 0 : 1;
  }
  return c;
}

std::string counts(const Counts& c) {
  return " tests=\"" + std::to_string(c.tests) + "\" failures=\"" + std::to_string(c.failures) +
         "\" errors=\"0\" skipped=\"" + std::to_string(c.skipped) + "\"";
}

}  // namespace

std::string encode_check_text(const CheckedFile& r) {
  std::string out;
  const std::string file = visible(r.file);
  for (const CheckedObject& o : r.objects) {
    const std::string name = visible(o.name);
    const std::string where = file + " document " + std::to_string(o.document) + ": ";
    if (!o.is_rayjob) {
      out += "note: " + where + "skipping " +
             (o.api_version.empty() ? "(no apiVersion)" : visible(o.api_version)) + " " +
             (o.kind.empty() ? "(no kind)" : visible(o.kind)) + (o.name.empty() ? "" : "/" + name) +
             " (not a ray.io RayJob)\n";
      continue;
    }
    if (!o.remark.empty()) {
      out += "note: " + where + visible(o.remark) + "\n";
    }
    for (const policy::Finding& f : o.verdict.warnings) {
      out += "Warning: " + visible(format_finding(f)) + "\n";
    }
    out += "rayjob.ray.io/" + name + " (" + file + ") ";
    if (o.verdict.allowed) {
      out += "allowed\n";
      continue;
    }
    out += "denied:\n";
    for (const policy::Finding& f : o.verdict.denials) {
      out += "  " + visible(format_finding(f)) + "\n";
    }
  }
  return out;
}

std::string encode_check_junit(const std::vector<CheckedFile>& files) {
  Counts all;
  std::string suites;
  for (const CheckedFile& f : files) {
    const Counts c = count(f);
    all.tests += c.tests;
    all.failures += c.failures;
    all.skipped += c.skipped;
    suites += "  <testsuite name=\"" + xml(f.file) + "\"" + counts(c) + ">\n";
    for (const CheckedObject& o : f.objects) {
      suites += "    <testcase classname=\"" + xml(f.file) + "\" name=\"" + xml(label(o)) + "\"";
      std::string body;
      if (!o.is_rayjob) {
        body += "      <skipped message=\"not a RayJob\"/>\n";
      } else if (!o.verdict.allowed) {
        std::string lines;
        for (const policy::Finding& d : o.verdict.denials) {
          lines += format_finding(d) + "\n";
        }
        body += "      <failure type=\"denied\" message=\"denied: " +
                std::to_string(o.verdict.denials.size()) + " finding(s)\">" + xml(lines) +
                "</failure>\n";
      }
      std::string out;
      for (const policy::Finding& w : o.verdict.warnings) {
        out += "Warning: " + format_finding(w) + "\n";
      }
      if (!o.remark.empty()) {
        out += o.remark + "\n";
      }
      if (!out.empty()) {
        body += "      <system-out>" + xml(out) + "</system-out>\n";
      }
      suites += body.empty() ? "/>\n" : ">\n" + body + "    </testcase>\n";
    }
    suites += "  </testsuite>\n";
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"rayjob-guard check\"" +
         counts(all) + ">\n" + suites + "</testsuites>\n";
}

std::string encode_check_sarif(const std::vector<CheckedFile>& files, std::string_view version) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  const auto str = [&w](std::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  w.Key("$schema");
  str("https://json.schemastore.org/sarif-2.1.0.json");
  w.Key("version");
  str("2.1.0");
  w.Key("runs");
  w.StartArray();
  w.StartObject();
  w.Key("tool");
  w.StartObject();
  w.Key("driver");
  w.StartObject();
  w.Key("name");
  str("rayjob-guard");
  w.Key("version");
  str(version);
  w.Key("rules");
  w.StartArray();
  for (const policy::RuleId id : policy::kAllRules) {
    w.StartObject();
    w.Key("id");
    str(policy::rule_id_name(id));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.EndObject();
  w.Key("results");
  w.StartArray();
  for (const CheckedFile& f : files) {
    for (const CheckedObject& o : f.objects) {
      const auto result = [&](const policy::Finding& finding, const char* level) {
        w.StartObject();
        w.Key("ruleId");
        str(policy::rule_id_name(finding.rule));
        w.Key("level");
        str(level);
        w.Key("message");
        w.StartObject();
        w.Key("text");
        str(label(o) + ": " + format_finding(finding));
        w.EndObject();
        w.Key("locations");
        w.StartArray();
        w.StartObject();
        w.Key("physicalLocation");
        w.StartObject();
        w.Key("artifactLocation");
        w.StartObject();
        w.Key("uri");
        str(f.file);
        w.EndObject();
        w.Key("region");
        w.StartObject();
        w.Key("startLine");
        w.Int(std::max(o.line, 1));
        w.EndObject();
        w.EndObject();
        if (!finding.field.empty()) {
          w.Key("logicalLocations");
          w.StartArray();
          w.StartObject();
          w.Key("fullyQualifiedName");
          str(finding.field);
          w.EndObject();
          w.EndArray();
        }
        w.EndObject();
        w.EndArray();
        w.EndObject();
      };
      for (const policy::Finding& d : o.verdict.denials) {
        result(d, "error");
      }
      for (const policy::Finding& warning : o.verdict.warnings) {
        result(warning, warning.kind == policy::Finding::Kind::kAdvisory ? "note" : "warning");
      }
    }
  }
  w.EndArray();
  w.EndObject();
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace rjg::admission
