// The identity of a lake root, and the owner marker that ties a stage to
// the one root whose collector may delete its objects.
//
// A root id is a random UUIDv7 (canonical text, as an operation id). It is
// recorded in three places, each holding the same record:
//   <root>/root_id.json            beside the root's stage record (stage.json)
//   <stage>/_lake/owner            the owner marker: local <root>/stage/_lake/owner,
//                                  S3 <prefix>/_lake/owner (outside objects/)
//   <stage>/_lake/claims/<id>      a claim: written by a second root that found
//                                  the stage already owned by another root
//
// Format (version 1), one line of JSON:
//   {"lake_root_id":"<uuidv7>","sha256":"<64 hex: SHA-256 of \"lake_root_id=<uuidv7>\">"}\n
// The decoder refuses (DataLoss) anything but exactly these two keys, an id
// that is not a canonical UUIDv7, or a digest that does not match: the
// digest keeps a damaged character from passing as another root's id, and
// the marker, read from a shared stage, is outside input (fuzzed by
// fuzz/root_identity_fuzzer.cc).
#ifndef LAKE_ENGINE_GC_ROOT_IDENTITY_RECORD_H_
#define LAKE_ENGINE_GC_ROOT_IDENTITY_RECORD_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lake::gc {

inline constexpr std::string_view kRootIdFile = "root_id.json";
// Stage-relative names of the marker and of the claims directory.
inline constexpr std::string_view kOwnerMarkerName = "_lake/owner";
inline constexpr std::string_view kClaimsDirName = "_lake/claims";
// The record is about 130 bytes; a larger one is damaged.
inline constexpr size_t kMaxRootIdentityRecordBytes = 1024;

// Precondition: `root_id` is a canonical UUIDv7.
std::string EncodeRootIdentityRecord(std::string_view root_id);
// The root id the record names. DataLoss ("<what> is unreadable: …").
absl::StatusOr<std::string> DecodeRootIdentityRecord(std::string_view text,
                                                     std::string_view what);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_ROOT_IDENTITY_RECORD_H_
