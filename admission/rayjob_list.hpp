// decode_rayjob_list: the JSON of one page of a ray.io/v1 RayJobList (what
// GET /apis/ray.io/v1[/namespaces/NS]/rayjobs returns) -> the reaper's typed candidates.
// Only the fields the reap decision reads are decoded; every one is type-checked, and a wrong
// type is an error naming its JSON path instead of a guess.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "admission/json_reader.hpp"
#include "common/result.hpp"
#include "policy/reap_decision.hpp"

namespace rjg::admission {

struct RayJobListPage {
  std::vector<policy::ReapCandidate> items;
  // metadata.continue: empty on the last page; otherwise pass it back as `continue=`.
  std::string continue_token;
};

// Parses one list page (of `kind`, unless empty: a `kubectl get` List or any typed list) and
// hands each item with its path ("items[i]") to `each`. The one reader of a list envelope: the
// reaper's RayJobList, and every list audit reads. Returns the page's metadata.continue token
// ("" on the last page), or kInvalidArgument naming the JSON path; the first error of `each`
// stops the walk and is returned.
Result<std::string> decode_list_page(
    std::string_view text, std::string_view kind,
    const std::function<Status(const json::Value& item, const json::Path& path)>& each);

// Decodes one list page. Returns kInvalidArgument, with the JSON path in the message, for:
// text that is not JSON; a top level that is not an object; `kind` other than "RayJobList";
// `items` absent or not an array; an item that is not an object; an item without
// metadata.name / metadata.namespace / metadata.uid strings; annotations that are not an object
// of strings; `status` not an object; status.jobStatus / jobDeploymentStatus / message / endTime
// not strings; an endTime that is not RFC 3339; metadata.continue not a string.
// An absent status or absent status fields are fine (a RayJob the operator has not seen yet).
Result<RayJobListPage> decode_rayjob_list(std::string_view text);

// The body of the reaper's DELETE of one RayJob: DeleteOptions with Background propagation, so
// the garbage collector removes the submitter Job and the RayCluster, and a uid precondition, so
// a RayJob recreated under the same name is never hit. Written by RapidJSON, so any uid text
// stays valid JSON.
std::string encode_delete_options(std::string_view uid);

// Decodes one list item (its JSON path is `path`) into `out`: the metadata and status fields
// above, with the same errors. decode_rayjob_list calls it for each item; so does audit, which
// reads the spec of the same item too.
Status decode_reap_candidate(const json::Value& item, const json::Path& path,
                             policy::ReapCandidate& out);

// Parses an RFC 3339 date-time ("2026-11-29T15:07:29Z", fractional seconds and numeric offsets
// accepted) into whole seconds since the epoch (fractions truncated toward the past).
// Returns kInvalidArgument when the text is not of that form or a field is out of range.
Result<std::int64_t> parse_rfc3339(std::string_view text);

}  // namespace rjg::admission
