// flags: the one command-line grammar of every rayjob-guard command (serve, review, check, policy,
// reap, and the bench programs that take serve's flags). A command lists its flags in a table;
// parse() reads `--name VALUE`, `--name=VALUE`, a short alias (`-n VALUE`), switches (`--once`),
// `--help`/`-h`, and positional arguments (anything else, `-` for stdin included). `--` ends the
// flags. Values are checked by the flag's own setter, so each error names its flag.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"

namespace rjg::flags {

struct Flag {
  std::string_view name;   // "--policy"
  std::string_view alias;  // "-n", or "" for none
  // True for a flag that takes a value; false for a switch, whose setter receives "".
  bool takes_value = true;
  // Stores the value. Returns kInvalidArgument with the reason (parse() prefixes the flag name).
  std::function<Status(const std::string& value)> set;
};

struct Parsed {
  bool help = false;                    // --help or -h was given (parsing stopped there)
  std::vector<std::string> positional;  // in order
};

// Parses args[1..] (args[0] is the command's name) against `table`, in kubectl's forms: `--name
// VALUE`, `--name=VALUE`, `-n VALUE`, `-nVALUE` and `-n=VALUE`. Returns kInvalidArgument
// "unknown option 'X'", "--flag needs a value", "--flag takes no value" or "--flag: <setter's
// reason>".
inline Result<Parsed> parse(const std::vector<std::string>& args, const std::vector<Flag>& table) {
  Parsed out;
  bool only_positional = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (only_positional || a == "-" || a.empty() || a[0] != '-') {
      out.positional.push_back(a);
      continue;
    }
    if (a == "--") {
      only_positional = true;
      continue;
    }
    if (a == "--help" || a == "-h") {
      out.help = true;
      return out;
    }
    std::string_view name = a;
    std::optional<std::string> inline_value;
    if (a.rfind("--", 0) == 0) {
      if (const auto eq = name.find('='); eq != std::string_view::npos) {
        inline_value = a.substr(eq + 1);  // --namespace=NS
        name = name.substr(0, eq);
      }
    } else if (a.size() > 2) {
      // kubectl's (pflag's) short forms: -ojson, -o=json, -n=NS.
      inline_value = a.substr(a[2] == '=' ? 3 : 2);
      name = name.substr(0, 2);
    }
    const Flag* flag = nullptr;
    for (const Flag& f : table) {
      if (f.name == name || (!f.alias.empty() && f.alias == name)) {
        flag = &f;
        break;
      }
    }
    if (flag == nullptr) {
      return invalid_argument("unknown option '" + std::string(name) + "'");
    }
    std::string value;
    if (!flag->takes_value) {
      if (inline_value) {
        return invalid_argument(std::string(flag->name) + " takes no value");
      }
    } else if (inline_value) {
      value = std::move(*inline_value);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return invalid_argument(std::string(flag->name) + " needs a value");
    }
    if (Status st = flag->set(value); !st.ok()) {
      return invalid_argument(std::string(flag->name) + ": " + st.error().message);
    }
  }
  return out;
}

// A setter for a flag whose value is a non-empty string.
inline std::function<Status(const std::string&)> text(std::string& into) {
  return [&into](const std::string& v) -> Status {
    if (v.empty()) {
      return invalid_argument("empty value");
    }
    into = v;
    return {};
  };
}

// A setter for a whole number within [min, max] (at most 9 digits, no sign): anything else is
// "must be a whole number in MIN-MAX, got 'TEXT'".
inline std::function<Status(const std::string&)> whole(long& into, long min, long max) {
  return [&into, min, max](const std::string& text) -> Status {
    if (text.empty() || text.size() > 9 ||
        text.find_first_not_of("0123456789") != std::string::npos || std::stol(text) < min ||
        std::stol(text) > max) {
      return invalid_argument("must be a whole number in " + std::to_string(min) + "-" +
                              std::to_string(max) + ", got '" + text + "'");
    }
    into = std::stol(text);
    return {};
  };
}

// A setter for a value that must be one of `choices` (at least one): anything else is "must be
// A, B or C, got 'TEXT'". Every command's --output uses it, so they all say it the same way.
inline std::function<Status(const std::string&)> one_of(std::string& into,
                                                         std::vector<std::string_view> choices) {
  return [&into, choices = std::move(choices)](const std::string& text) -> Status {
    for (std::string_view c : choices) {
      if (text == c) {
        into = text;
        return {};
      }
    }
    std::string list;
    for (std::size_t i = 0; i < choices.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + std::string(choices[i]);
    }
    return invalid_argument("must be " + list + ", got '" + text + "'");
  };
}

// A setter for a switch.
inline std::function<Status(const std::string&)> on(bool& into) {
  return [&into](const std::string&) -> Status {
    into = true;
    return {};
  };
}

}  // namespace rjg::flags
