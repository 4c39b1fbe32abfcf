// Where an S3 stage keeps things, and which locations it contains.
//
//   s3://<bucket>/<prefix>/objects/<xx>/<uuidv7>
//   s3://<bucket>/<prefix>/tenants/<tenant>/objects/<xx>/<uuidv7>
//
// (without "<prefix>/" when the prefix is empty). A location is contained
// when it names exactly this bucket and a managed key beneath the prefix on
// a '/' boundary — "data" holds "data/x", never "data-evil/x" — and, with a
// tenant, beneath that tenant's objects.
#ifndef LAKE_ENGINE_S3_S3_STAGE_LAYOUT_H_
#define LAKE_ENGINE_S3_S3_STAGE_LAYOUT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/data_location.h"

namespace lake {

class S3StageLayout {
 public:
  // The bucket must be a valid bucket name; the prefix is "" or '/'-joined
  // segments without empty, "." or ".." ones (leading and trailing '/'
  // are dropped); the tenant was validated.
  static absl::StatusOr<S3StageLayout> Create(std::string bucket, std::string prefix,
                                              std::string tenant);

  const std::string& bucket() const { return bucket_; }
  const std::string& prefix() const { return prefix_; }
  const std::string& tenant() const { return tenant_; }

  // A fresh object key (full S3 key, prefix included).
  std::string NewObjectKey() const;
  // The key under which listing finds every object this stage may serve.
  std::string ListPrefix() const;
  // The full key prefix of this stage's (or tenant's) own objects
  // directory, with its trailing '/': "<prefix>/objects/".
  std::string ObjectsKeyPrefix() const;
  std::string UriOfKey(std::string_view key) const;
  // True when a full S3 key names a managed object of this stage.
  bool ContainsKey(std::string_view key) const;
  // The full S3 key a contained location names, or InvalidLocation.
  absl::StatusOr<std::string> KeyOfLocation(const DataLocation& location) const;

 private:
  S3StageLayout(std::string bucket, std::string prefix, std::string tenant)
      : bucket_(std::move(bucket)), prefix_(std::move(prefix)), tenant_(std::move(tenant)) {}
  // The key relative to the prefix, when the key lies beneath it.
  bool RelativeKey(std::string_view key, std::string_view* relative) const;

  std::string bucket_;
  std::string prefix_;
  std::string tenant_;
};

}  // namespace lake

#endif  // LAKE_ENGINE_S3_S3_STAGE_LAYOUT_H_
