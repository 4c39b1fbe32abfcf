// The Arrow form of a `file` column: the `lake.file` extension type.
//
// Storage type: a nullable struct ("+s") of four children, in this order:
//   uri           utf8  ("u")  canonical location URI
//   content_type  utf8  ("u")
//   size_bytes    int64 ("l")  >= 0
//   sha256        utf8  ("u")  64 lowercase hex characters
// The field's metadata carries ARROW:extension:name = "lake.file" and
// ARROW:extension:metadata = "" (no parameters). A consumer that does not
// know the extension sees the plain struct. Where the struct is null, every
// child is null too (the children carry the struct's validity), so
// `video.uri` is NULL in SQL for a row without a file.
//
// Each non-null cell is a DataLocation that MakeDataLocation accepts;
// DataLocationFromArrow (arrow_location.h) turns one back into a handle.
#ifndef LAKE_ENGINE_ARROW_LAKE_FILE_TYPE_H_
#define LAKE_ENGINE_ARROW_LAKE_FILE_TYPE_H_

#include <array>
#include <string_view>

namespace lake::arrow {

inline constexpr std::string_view kLakeFileExtensionName = "lake.file";

struct LakeFileField {
  std::string_view name;
  std::string_view format;
};
inline constexpr std::array<LakeFileField, 4> kLakeFileFields = {{
    {"uri", "u"},
    {"content_type", "u"},
    {"size_bytes", "l"},
    {"sha256", "u"},
}};
// Positions in kLakeFileFields (and among an exported struct's children).
inline constexpr size_t kLakeFileUri = 0;
inline constexpr size_t kLakeFileContentType = 1;
inline constexpr size_t kLakeFileSizeBytes = 2;
inline constexpr size_t kLakeFileSha256 = 3;

}  // namespace lake::arrow

#endif  // LAKE_ENGINE_ARROW_LAKE_FILE_TYPE_H_
