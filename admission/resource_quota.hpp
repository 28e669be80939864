// One core/v1 ResourceQuota as JSON from the API (a list item, a watch event's object, a GET) ->
// what quota-fit reads of it (policy::ResourceQuotaSpec) and the namespace it belongs to. Every
// read goes through json_reader.hpp, so each field's type is checked before it is read and every
// error names its JSON path.
#pragma once

#include <string>
#include <string_view>

#include "admission/json_reader.hpp"
#include "common/result.hpp"
#include "policy/cluster_quota.hpp"

namespace rjg::admission {

// A decoded ResourceQuota: its namespace and what quota-fit reads of it.
struct DecodedResourceQuota {
  std::string namespace_;         // metadata.namespace
  policy::ResourceQuotaSpec spec;  // metadata.name, spec.hard, spec.scopes, spec.scopeSelector
};

// Decodes `object`, whose JSON path is `path` ("items[3]", or "" for a whole document). Returns
// kInvalidArgument naming the path for what the apiserver itself refuses in a ResourceQuota, or
// a wrong type:
// - not an object, or a duplicate key in an object read;
// - `kind` other than ResourceQuota or `apiVersion` other than v1 (either may be absent, as in
//   the items of a list);
// - metadata.name or metadata.namespace missing or empty;
// - a spec.hard value that is not a Kubernetes quantity (policy::Quantity), a negative one, or a
//   fraction for `pods` or a `count/` key (integers in Kubernetes);
// - a spec.scopes item that is not a string;
// - a matchExpressions item without scopeName, with an operator other than In, NotIn, Exists and
//   DoesNotExist, without values for In and NotIn, or with values for Exists and DoesNotExist.
// Every spec.hard key is kept, also those quota-fit cannot compute (it skips them). Scope names
// are not checked against a list: one that a later Kubernetes adds is kept, and quota-fit
// counts every pod in it rather than lose the quota. status is not read.
Result<DecodedResourceQuota> decode_resource_quota(const json::Value& object,
                                                   const json::Path& path);
// As above, with the path "" (errors read "spec.hard.cpu: ...").
Result<DecodedResourceQuota> decode_resource_quota(const json::Value& object);
// Parses `text` (one JSON document, json::parse's checks) and decodes it as above.
Result<DecodedResourceQuota> decode_resource_quota(std::string_view text);

// A quantity as the API writes one (a string, or an integer): returns it, or kInvalidArgument
// naming `path` for another type, text that is not a Kubernetes quantity, or a negative one. Also
// what admission/kueue_queue.hpp reads Kueue's quotas with.
Result<policy::Quantity> decode_quantity(const json::Value& value, const json::Path& path);

}  // namespace rjg::admission
