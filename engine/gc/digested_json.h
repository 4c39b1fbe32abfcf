// The envelope of the collector's small JSON records (plan manifest, apply
// progress): one JSON object whose "sha256" member is the SHA-256 of the
// object's canonical text without it (nlohmann's dump(): keys in byte
// order, no whitespace), written as one line.
//
// Reading is strict, because these records authorise deletion: the text
// must parse as an object, hold a digest that matches, and its fields must
// be exactly the ones the record's reader asks for (DigestedJsonFields
// refuses a missing field, a field of another type, and, once Finish is
// called, any field it was not asked for). Every failure is DataLoss
// naming the record.
#ifndef LAKE_ENGINE_GC_DIGESTED_JSON_H_
#define LAKE_ENGINE_GC_DIGESTED_JSON_H_

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"

namespace lake::gc {

// `object` (without "sha256") sealed with its digest, as one line.
std::string SealJson(const nlohmann::json& object);

// The object in `text` with its digest checked and removed. DataLoss
// ("<what> is damaged: …") for anything else; at most `max_bytes` long.
absl::StatusOr<nlohmann::json> OpenSealedJson(std::string_view text, std::string_view what,
                                              size_t max_bytes);

// Typed reads of an opened record's fields.
class DigestedJsonFields {
 public:
  DigestedJsonFields(const nlohmann::json& object, std::string_view what)
      : object_(object), what_(what) {}

  absl::StatusOr<std::string> String(std::string_view key, size_t max_bytes);
  absl::StatusOr<uint64_t> Unsigned(std::string_view key);
  absl::StatusOr<int64_t> Signed(std::string_view key);
  // The array itself (the caller reads its elements).
  absl::StatusOr<const nlohmann::json*> Array(std::string_view key);
  // OK when every field of the object was read.
  absl::Status Finish() const;

 private:
  absl::StatusOr<const nlohmann::json*> Field(std::string_view key);
  absl::Status Error(std::string_view why) const;

  const nlohmann::json& object_;
  std::string what_;
  std::set<std::string> read_;
};

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_DIGESTED_JSON_H_
