// The URI rules of DATALOCATION.md: parsing, canonical percent-encoding,
// and segment checks. Pure functions of their input (fuzzed).
//
// Canonical form: a path or key is percent-encoded per RFC 3986 — the
// unreserved characters (A-Z a-z 0-9 - . _ ~) and '/' stay literal, every
// other byte is %XX with uppercase hex. A URI is decoded exactly once, and
// only a URI already in canonical form is accepted, so one object has
// exactly one URI (garbage collection compares URIs as identities; a second
// spelling of a referenced object must never look unreferenced).
#ifndef LAKE_ENGINE_LOCATION_URI_H_
#define LAKE_ENGINE_LOCATION_URI_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/utf8.h"

namespace lake {

enum class UriScheme { kFile, kS3 };

struct ParsedUri {
  UriScheme scheme = UriScheme::kFile;
  std::string bucket;  // kS3 only
  // Decoded. kFile: an absolute path ("/srv/x"); kS3: the key ("a/b").
  std::string path;
};

// The canonical encoding of a decoded path or key.
std::string PercentEncodePath(std::string_view decoded);

// `file://` + the canonical encoding of an absolute path.
std::string FormatFileUri(std::string_view absolute_path);
// `s3://bucket/` + the canonical encoding of the key.
std::string FormatS3Uri(std::string_view bucket, std::string_view key);

// Parses a location URI: `file:///abs/path` (empty authority) or
// `s3://bucket/key`. Refuses (InvalidLocation) any other scheme, a host in
// a file URI, a non-canonical encoding, and a decoded path or key with an
// empty, "." or ".." segment, a NUL byte or invalid UTF-8; the message ends
// with the URI (C-escaped, its first 256 bytes).
absl::StatusOr<ParsedUri> ParseLocationUri(std::string_view uri);

// ParseLocationUri's verdict without its result: the same checks and the
// same errors, and no allocation for the common all-literal URI (checked
// where a URI is only validated, once per row on the append path).
absl::Status CheckLocationUri(std::string_view uri);

// The decoded path of a valid file:// URI spelled without a percent-escape
// (which decodes to itself: the text after "file://"), without allocating;
// nullopt for any other URI, valid or not (ParseLocationUri decides those).
std::optional<std::string_view> LiteralFileUriPath(std::string_view uri);

// OK when every '/'-separated segment of `path` is non-empty, not "." or
// "..", free of NUL bytes, and the whole is valid UTF-8.
absl::Status ValidatePathSegments(std::string_view path);

// True when `child` lies strictly beneath `parent` on a '/' boundary
// ("data" holds "data/x", never "data-evil/x"). An empty parent holds
// every non-empty child.
bool IsStrictlyBeneath(std::string_view child, std::string_view parent);

// S3 bucket naming: 3–63 of [a-z0-9.-], starting and ending alphanumeric.
bool IsValidBucketName(std::string_view bucket);

}  // namespace lake

#endif  // LAKE_ENGINE_LOCATION_URI_H_
