// The shared cluster flags (see cluster_flags.hpp).
#include "cli/cluster_flags.hpp"

#include <cstdio>

#include "common/visible_text.hpp"

namespace rjg::cli {

std::optional<int> usage_or_help(const char* command, const std::string& err, bool help,
                                 const char* usage) {
  if (!err.empty()) {
    std::fprintf(stderr, "rayjob-guard %s: %s\n%s", command, visible(err).c_str(), usage);
    return 2;
  }
  if (help) {
    std::fputs(usage, stdout);
    std::fputs(kClusterFlagsHelp, stdout);
    return 0;
  }
  return std::nullopt;
}

void add_cluster_flags(std::vector<flags::Flag>& table, kube::ClusterFlags& out) {
  table.push_back({"--kubeconfig", "", true, flags::text(out.kubeconfig)});
  table.push_back({"--context", "", true, flags::text(out.context)});
  table.push_back({"--server", "", true, flags::text(out.server)});
  table.push_back({"--token-file", "", true, flags::text(out.token_file)});
  table.push_back({"--ca", "", true, flags::text(out.ca_file)});
}

std::string parse_with_cluster_flags(const std::vector<std::string>& args,
                                     std::vector<flags::Flag> table, kube::ClusterFlags& cluster,
                                     bool& help) {
  add_cluster_flags(table, cluster);
  Result<flags::Parsed> parsed = flags::parse(args, table);
  if (!parsed.ok()) {
    return parsed.error().message;
  }
  help = parsed.value().help;
  if (!help && !parsed.value().positional.empty()) {
    return "unexpected argument '" + parsed.value().positional.front() + "'";
  }
  return "";
}

bool any_cluster_flag(const kube::ClusterFlags& f) {
  return !f.kubeconfig.empty() || !f.context.empty() || !f.server.empty() ||
         !f.token_file.empty() || !f.ca_file.empty();
}

Result<Connection> connect(const kube::ClusterFlags& f, std::chrono::seconds timeout) {
  Connection c;
  RJG_ASSIGN_OR_RETURN(c.endpoint, kube::chosen_endpoint(f, kube::Environment::of_process()));
  RJG_ASSIGN_OR_RETURN(c.client, kube::HttpsClient::create(c.endpoint, timeout));
  return c;
}

}  // namespace rjg::cli
