// The stage descriptor: the credential-free topology of a stage — a local
// directory, an S3 bucket, prefix, region, endpoint and addressing style,
// or a host's own store (lake_host_store) named by the stable id the host
// chose for it. A root records its descriptor when it is created; opening a stage
// from a descriptor plus the process's own credentials gives the same
// store every time.
//
// Text form (canonical: this key order, no whitespace; input: any order,
// a missing, duplicate or unknown key refused):
//   {"version":1,"kind":"local"}
//   {"version":1,"kind":"s3","bucket":"b","prefix":"p/q","region":"us-east-1",
//    "endpoint":"http://127.0.0.1:7480","path_style":true}
//   {"version":1,"kind":"host","host_id":"warehouse-7"}
// A local descriptor names no directory: the stage is <root>/stage of the
// root that holds it. A host descriptor names no store either: only the
// program that supplies the callbacks can open it, and it must present the
// same host_id (1..128 bytes of UTF-8 without control characters) at every
// open. Readers refuse any other version.
#ifndef LAKE_ENGINE_STAGE_DESCRIPTOR_H_
#define LAKE_ENGINE_STAGE_DESCRIPTOR_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lake {

inline constexpr int kStageDescriptorVersion = 1;
// A host id is a name, not a payload.
inline constexpr size_t kMaxHostIdBytes = 128;

struct StageDescriptor {
  enum class Kind { kLocal, kS3, kHost };
  Kind kind = Kind::kLocal;
  // kS3 only.
  std::string bucket;
  std::string prefix;  // without leading or trailing '/'
  std::string region;
  std::string endpoint;  // scheme://host[:port]
  bool path_style = false;
  // kHost only.
  std::string host_id;

  bool operator==(const StageDescriptor&) const = default;
};

// OK when `host_id` is a valid host id (see above).
absl::Status ValidateHostId(std::string_view host_id);

// Validates the fields (bucket name, prefix segments, region characters,
// endpoint syntax) and returns the normalised descriptor.
absl::StatusOr<StageDescriptor> ValidateStageDescriptor(StageDescriptor descriptor);

std::string StageDescriptorToJson(const StageDescriptor& descriptor);
absl::StatusOr<StageDescriptor> StageDescriptorFromJson(std::string_view text);

}  // namespace lake

#endif  // LAKE_ENGINE_STAGE_DESCRIPTOR_H_
