// check: the library path of `rayjob-guard check`. Manifests (YAML or JSON) -> one verdict per
// RayJob, computed exactly as the webhook would after `kubectl create`: CRD defaults of the
// pinned KubeRay version applied, evaluated as a CREATE through policy::evaluate.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admission/json_reader.hpp"
#include "admission/policy_file.hpp"
#include "common/result.hpp"
#include "policy/cluster_quota.hpp"
#include "policy/verdict.hpp"

namespace rjg::admission {

struct CheckedObject {
  std::size_t document = 0;  // 1-based YAML document index in the file
  int line = 0;              // line where that document starts
  std::string api_version;
  std::string kind;
  bool is_rayjob = false;  // false: skipped, `verdict` is empty and allowed
  std::string name;        // metadata.name, else metadata.generateName
  std::string namespace_;  // the namespace it was evaluated in
  // For a RayJob judged under an empty name (no metadata, or neither name nor generateName):
  // what to tell the user, since the apiserver would refuse the object for that alone. Else "".
  std::string remark;
  policy::Verdict verdict;
  json::Document source;  // the object as the file holds it, before CRD defaults (for --fix)
};

struct CheckOptions {
  // --namespace: used when an object has no metadata.namespace; an object whose namespace differs
  // is bad input, as kubectl says.
  std::optional<std::string> namespace_;
  // The cluster's ResourceQuotas, for a policy with quota.source: cluster (`check` given a
  // cluster); null: quota-fit judges by the policy's entries, as offline.
  std::shared_ptr<const policy::ClusterQuotas> cluster_quotas;
};

// Checks every object of `text`. Returns kInvalidArgument for unreadable manifests (YAML errors
// with line and column), a RayJob field of the wrong type (named by path, with the document) or
// a namespace conflict with options.namespace_. `policy` must outlive the call only.
Result<std::vector<CheckedObject>> check_manifests(std::string_view text,
                                                   const CheckOptions& options,
                                                   const LoadedPolicy& policy);

// One input file of `check` and what was found in it.
struct CheckedFile {
  std::string file;  // as given on the command line ("-" for stdin)
  std::vector<CheckedObject> objects;
};

// Returns what `check --output json` prints (without the trailing newline): an array with one
// object per document: file, document, line, apiVersion, kind, name, skipped, and for RayJobs
// namespace, allowed, denials[] and warnings[] ({rule, kind, field, message, text, fix[]}; each fix
// edit is {op: set|remove, field, value}; kind is violation or advisory).
std::string encode_check_results(const std::vector<CheckedFile>& files);

}  // namespace rjg::admission
