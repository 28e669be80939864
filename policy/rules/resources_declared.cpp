// resources-declared: every container that will run sets cpu and memory requests and limits,
// limits for every extended resource it requests, and only quantities Kubernetes accepts for a
// pod (parseable and not negative); otherwise the namespace's ResourceQuota or the apiserver
// refuses its pods after the RayJob was admitted.
#include <string>
#include <string_view>
#include <vector>

#include "policy/field_paths.hpp"
#include "policy/quantity.hpp"
#include "policy/rules/rules.hpp"

namespace rjg::policy {

namespace {

// Why a missing field matters, for one field (`it`) or several (`them`).
std::string why(std::size_t missing) {
  return std::string("the namespace ResourceQuota refuses pods without ") +
         (missing == 1 ? "it" : "them") +
         ", after the RayJob was admitted, and the RayJob then holds quota without running";
}

// Extended resources (vendor/name) and huge pages are not overcommittable: Kubernetes refuses a
// pod that requests one without a limit.
bool needs_limit(const std::string& resource) {
  return (resource.find('/') != std::string::npos &&
          resource.find("kubernetes.io/") == std::string::npos) ||
         resource.rfind("hugepages-", 0) == 0;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += i == 0 ? "" : (i + 1 == names.size() ? " and " : ", ");
    out += names[i];
  }
  return out;
}

std::string join_fields(const std::vector<std::string>& names, const char* list) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += i == 0 ? "" : (i + 1 == names.size() ? " and " : ", ");
    out += std::string("resources.") + list + "." + names[i];
  }
  return out;
}

void report(Findings& out, std::string field, std::string message, std::vector<Edit> fix = {}) {
  out.push_back({RuleId::kResourcesDeclared, Finding::Kind::kViolation, std::move(field),
                 std::move(message), std::move(fix)});
}

// Edits writing `names` into `to` (requests or limits) with the amounts `from` already has, or
// none when `from` lacks one of them: amounts are the tenant's to choose, a copy is not a guess.
std::vector<Edit> copy_amounts(const std::optional<ResourceList>& from,
                               const std::vector<std::string>& names, const std::string& to) {
  std::vector<Edit> fix;
  for (const std::string& name : names) {
    if (!from || !from->contains(name)) {
      return {};
    }
    const std::optional<Quantity> amount = Quantity::parse(from->at(name));
    if (!amount || *amount < Quantity()) {
      return {};
    }
    // A resource name with dots (nvidia.com/gpu) is one key: bracketed, as Edit paths allow.
    const bool dotted = name.find('.') != std::string::npos;
    fix.push_back(Edit::set(dotted ? to + "[" + name + "]" : to + "." + name, from->at(name)));
  }
  return fix;
}

// Checks one resource block. `what_of()` names the container for messages (`container
// "ray-head"`) and `field_of()` is the block's field path; both are called only for a finding, so
// that a compliant RayJob builds no strings.
template <typename WhatOf, typename FieldOf>
void check_block(const WhatOf& what_of, const std::optional<ResourceList>& requests,
                 const std::optional<ResourceList>& limits, const FieldOf& field_of,
                 Findings& out) {
  // Bad quantities first: they are what the apiserver itself would refuse.
  for (const auto* list : {&requests, &limits}) {
    if (!*list) {
      continue;
    }
    const char* which = list == &requests ? "requests" : "limits";
    for (const auto& [name, text] : **list) {
      const std::optional<Quantity> q = Quantity::parse(text);
      if (!q) {
        report(out, field_of() + "." + which + "." + name,
               what_of() + ": \"" + text +
                   "\" is not a Kubernetes quantity; write it like \"2\", \"500m\", "
                   "\"8Gi\" or \"1e3\" (no spaces, units Ki Mi Gi Ti or k M G T, m for milli)");
      } else if (*q < Quantity()) {
        // The CRD's quantity pattern admits a sign, so the RayJob is stored; the apiserver then
        // refuses every pod ("must be greater than or equal to 0"), and quota-fit ignores the
        // value (a negative must not offset the other containers).
        report(out, field_of() + "." + which + "." + name,
               what_of() + ": " + which + "." + name + " is negative (\"" + text +
                   "\"); Kubernetes refuses the pod (\"must be greater than or equal to 0\") "
                   "after the RayJob was admitted; write the amount the container needs, 0 or "
                   "more, such as \"2\", \"500m\" or \"8Gi\"");
      }
    }
  }
  const bool has_requests = requests && !requests->empty();
  const bool has_limits = limits && !limits->empty();
  if (!has_requests && !has_limits) {
    report(out, field_of(),
           what_of() +
               " sets no resources; set resources.requests.cpu, resources.requests.memory, "
               "resources.limits.cpu and resources.limits.memory; " +
               why(4));
    return;
  }
  std::vector<std::string> missing_requests;
  std::vector<std::string> missing_limits;
  for (const char* r : {"cpu", "memory"}) {
    if (!requests || requests->count(r) == 0) {
      missing_requests.push_back(r);
    }
    if (!limits || limits->count(r) == 0) {
      missing_limits.push_back(r);
    }
  }
  std::vector<std::string> extended_without_limit;
  if (requests) {
    for (const auto& [name, text] : *requests) {
      if (needs_limit(name) && (!limits || limits->count(name) == 0)) {
        extended_without_limit.push_back(name);
      }
    }
  }
  if (missing_requests.empty() && missing_limits.empty() && extended_without_limit.empty()) {
    return;
  }
  const std::string what = what_of();
  const std::string resources_field = field_of();
  if (!missing_requests.empty()) {
    const std::string field = missing_requests.size() == 1 && has_requests
                                  ? resources_field + ".requests." + missing_requests[0]
                                  : resources_field + ".requests";
    report(
        out, field,
        what + " sets no " + join_names(missing_requests) + " request; set " +
            join_fields(missing_requests, "requests") +
            " (a ResourceQuota on requests.* refuses pods without them; the policy requires them "
            "written even where Kubernetes would copy the limit)",
        copy_amounts(limits, missing_requests, resources_field + ".requests"));
  }
  if (!missing_limits.empty()) {
    const std::string field = missing_limits.size() == 1 && has_limits
                                  ? resources_field + ".limits." + missing_limits[0]
                                  : resources_field + ".limits";
    report(out, field,
           what + " sets no " + join_names(missing_limits) + " limit; set " +
               join_fields(missing_limits, "limits") + "; " + why(missing_limits.size()),
           copy_amounts(requests, missing_limits, resources_field + ".limits"));
  }
  for (const std::string& name : extended_without_limit) {
    report(out, resources_field + ".limits." + name,
           what + " requests " + name + " without a limit; set resources.limits." + name +
               " equal to the request (Kubernetes refuses pods that request an extended resource "
               "without a limit)",
           copy_amounts(requests, {name}, resources_field + ".limits"));
  }
}

// Checks every container of `t`; `spec_field_of()` returns the template's spec field path.
template <typename SpecFieldOf>
void check_template(const PodTemplate& t, const SpecFieldOf& spec_field_of, std::string_view note,
                    Findings& out) {
  for (const bool init : {false, true}) {
    const std::vector<Container>& list = init ? t.init_containers : t.containers;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Container& c = list[i];
      const auto what_of = [&] {
        return (init ? "init container \"" : "container \"") + c.name + "\"" + std::string(note);
      };
      const auto field_of = [&] {
        return spec_field_of() + (init ? ".initContainers[" : ".containers[") + std::to_string(i) +
               "].resources";
      };
      check_block(what_of, c.requests, c.limits, field_of, out);
    }
  }
}

// A field path known when the code is written, as a callable for check_template/check_block.
auto fixed(const char* path) {
  return [path] { return std::string(path); };
}

}  // namespace

void check_resources_declared(const RuleContext& ctx, Findings& out) {
  const RayJobSpec& spec = ctx.job.spec;
  if (spec.ray_cluster_spec) {
    const RayClusterSpec& rc = *spec.ray_cluster_spec;
    check_template(rc.head.pod_template, fixed("spec.rayClusterSpec.headGroupSpec.template.spec"),
                   "", out);
    for (std::size_t i = 0; i < rc.worker_groups.size(); ++i) {
      const auto spec_field_of = [i] { return worker_group_field(i) + ".template.spec"; };
      check_template(rc.worker_groups[i].pod_template, spec_field_of, "", out);
    }
    // KubeRay's autoscaler defaults set everything; an override replaces them wholesale.
    const bool autoscaling = rc.enable_in_tree_autoscaling.value_or(false);
    if (autoscaling && rc.autoscaler_options &&
        (rc.autoscaler_options->requests || rc.autoscaler_options->limits)) {
      check_block(fixed("the autoscaler container (autoscalerOptions.resources replaces "
                        "KubeRay's defaults)"),
                  rc.autoscaler_options->requests, rc.autoscaler_options->limits,
                  fixed("spec.rayClusterSpec.autoscalerOptions.resources"), out);
    }
  }
  // KubeRay uses a submitterPodTemplate verbatim, without default resources, and only in
  // K8sJobMode (SidecarMode refuses it; HTTPMode and InteractiveMode never create the pod).
  if (spec.submitter_pod_template && spec.submission_mode.value_or("K8sJobMode") == "K8sJobMode") {
    check_template(*spec.submitter_pod_template, fixed("spec.submitterPodTemplate.spec"),
                   " (KubeRay adds no default resources to a submitterPodTemplate)", out);
  }
}

}  // namespace rjg::policy
