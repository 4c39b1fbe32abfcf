#include "engine/arrow/arrow_location.h"

#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "engine/arrow/arrow_metadata.h"
#include "engine/arrow/lake_file_type.h"

namespace lake::arrow {
namespace {

absl::Status Invalid(std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("Arrow lake.file cell: ", std::string(what)));
}

std::string_view TextOf(const char* text) { return text == nullptr ? std::string_view() : text; }

bool BitSet(const void* bits, int64_t index) {
  const auto* bytes = static_cast<const uint8_t*>(bits);
  return (bytes[index / 8] >> (index % 8) & 1) != 0;
}

// True when the value at physical index `index` of `array` is null.
bool IsNullAt(const ArrowArray& array, int64_t index) {
  if (array.null_count == 0 || array.n_buffers < 1 || array.buffers[0] == nullptr) return false;
  return !BitSet(array.buffers[0], index);
}

// The physical index of logical index `logical` in `array`, after checking
// that `logical` is within its length. `what` names the array in errors.
absl::StatusOr<int64_t> PhysicalIndex(const ArrowArray& array, int64_t logical,
                                      std::string_view what) {
  if (array.release == nullptr) return Invalid(absl::StrCat(std::string(what), " is released"));
  if (array.offset < 0 || array.length < 0) {
    return Invalid(absl::StrCat(std::string(what), " has a negative offset or length"));
  }
  if (logical < 0 || logical >= array.length) {
    return Invalid(absl::StrCat(std::string(what), ": index ", logical, " is outside its ",
                                array.length, " values"));
  }
  if (array.offset > std::numeric_limits<int64_t>::max() - logical) {
    return Invalid(absl::StrCat(std::string(what), ": offset overflows"));
  }
  return array.offset + logical;
}

absl::Status CheckIsLakeFile(const ArrowSchema& field) {
  std::string name(TextOf(field.name));
  auto not_lake_file = [&] {
    return Invalid(absl::StrCat("column '", name, "' is not a lake.file column"));
  };
  if (field.metadata == nullptr || TextOf(field.format) != "+s") return not_lake_file();
  absl::StatusOr<size_t> extent = ArrowMetadataExtent(field.metadata);
  if (!extent.ok()) {
    return Invalid(absl::StrCat("column '", name, "': ", extent.status().message()));
  }
  absl::StatusOr<ArrowMetadata> metadata =
      DecodeArrowMetadata(std::string_view(field.metadata, *extent));
  if (!metadata.ok()) {
    return Invalid(absl::StrCat("column '", name, "': ", metadata.status().message()));
  }
  if (FindArrowMetadata(*metadata, kExtensionNameKey) != kLakeFileExtensionName) {
    return not_lake_file();
  }
  return absl::OkStatus();
}

// The child of the file struct that holds `field`, as (schema, array).
struct FileChild {
  const ArrowSchema* schema = nullptr;
  const ArrowArray* array = nullptr;
};

absl::StatusOr<FileChild> FindChild(const ArrowSchema& field, const ArrowArray& array,
                                    const LakeFileField& wanted) {
  if (field.n_children != array.n_children || field.n_children < 0 ||
      (field.n_children > 0 && (field.children == nullptr || array.children == nullptr))) {
    return Invalid("the file struct's children do not match its array's");
  }
  for (int64_t i = 0; i < field.n_children; ++i) {
    const ArrowSchema* child = field.children[i];
    if (child == nullptr || TextOf(child->name) != wanted.name) continue;
    if (TextOf(child->format) != wanted.format) {
      return Invalid(absl::StrCat("field '", std::string(wanted.name), "' has format '",
                                  std::string(TextOf(child->format)), "', not '",
                                  std::string(wanted.format), "'"));
    }
    if (array.children[i] == nullptr) {
      return Invalid(absl::StrCat("field '", std::string(wanted.name), "' has no array"));
    }
    return FileChild{child, array.children[i]};
  }
  return Invalid(absl::StrCat("no field '", std::string(wanted.name), "'"));
}

// The child's value index for struct index `struct_index`, checked, and
// refusing a null where the struct holds a value.
absl::StatusOr<int64_t> ChildIndex(const FileChild& child, int64_t struct_index,
                                   int64_t buffers) {
  std::string what = absl::StrCat("field '", std::string(TextOf(child.schema->name)), "'");
  absl::StatusOr<int64_t> index = PhysicalIndex(*child.array, struct_index, what);
  if (!index.ok()) return index.status();
  if (child.array->n_buffers != buffers || child.array->buffers == nullptr) {
    return Invalid(absl::StrCat(what, " has ", child.array->n_buffers, " buffers, not ", buffers));
  }
  for (int64_t b = 1; b < buffers; ++b) {
    if (child.array->buffers[b] == nullptr) return Invalid(absl::StrCat(what, " lacks a buffer"));
  }
  if (IsNullAt(*child.array, *index)) return Invalid(absl::StrCat(what, " is null"));
  return index;
}

absl::StatusOr<std::string_view> Utf8At(const FileChild& child, int64_t struct_index) {
  absl::StatusOr<int64_t> index = ChildIndex(child, struct_index, 3);
  if (!index.ok()) return index.status();
  const auto* offsets = static_cast<const int32_t*>(child.array->buffers[1]);
  int32_t begin = offsets[*index];
  int32_t end = offsets[*index + 1];
  if (begin < 0 || end < begin) {
    return Invalid(absl::StrCat("field '", std::string(TextOf(child.schema->name)), "' has bad offsets"));
  }
  const char* data = static_cast<const char*>(child.array->buffers[2]);
  return std::string_view(data + begin, static_cast<size_t>(end - begin));
}

absl::StatusOr<int64_t> Int64At(const FileChild& child, int64_t struct_index) {
  absl::StatusOr<int64_t> index = ChildIndex(child, struct_index, 2);
  if (!index.ok()) return index.status();
  int64_t value = 0;
  std::memcpy(&value, static_cast<const int64_t*>(child.array->buffers[1]) + *index,
              sizeof(value));
  return value;
}

}  // namespace

absl::StatusOr<DataLocation> DataLocationFromArrow(const ArrowSchema& schema,
                                                   const ArrowArray& batch, int64_t column,
                                                   int64_t row) {
  if (schema.release == nullptr) return Invalid("the schema is released");
  if (TextOf(schema.format) != "+s") return Invalid("the schema is not a struct");
  if (schema.n_children != batch.n_children || schema.n_children < 0 ||
      (schema.n_children > 0 && (schema.children == nullptr || batch.children == nullptr))) {
    return Invalid("the schema's children do not match the batch's");
  }
  if (column < 0 || column >= schema.n_children) {
    return Invalid(absl::StrCat("column ", column, " is outside the ", schema.n_children,
                                " columns"));
  }
  absl::StatusOr<int64_t> batch_index = PhysicalIndex(batch, row, "the batch");
  if (!batch_index.ok()) return batch_index.status();

  const ArrowSchema* field = schema.children[column];
  const ArrowArray* array = batch.children[column];
  if (field == nullptr || array == nullptr) return Invalid("a column is missing");
  if (absl::Status status = CheckIsLakeFile(*field); !status.ok()) return status;
  std::string column_name(TextOf(field->name));

  // A struct's children are indexed by the struct's offset plus the
  // logical index: offsets add up level by level.
  absl::StatusOr<int64_t> struct_index =
      PhysicalIndex(*array, *batch_index, absl::StrCat("column '", column_name, "'"));
  if (!struct_index.ok()) return struct_index.status();
  if (IsNullAt(batch, *batch_index) || IsNullAt(*array, *struct_index)) {
    return absl::NotFoundError(
        absl::StrCat("column '", column_name, "' row ", row, " holds no file (null)"));
  }

  FileChild children[kLakeFileFields.size()];
  for (size_t i = 0; i < kLakeFileFields.size(); ++i) {
    absl::StatusOr<FileChild> child = FindChild(*field, *array, kLakeFileFields[i]);
    if (!child.ok()) return child.status();
    children[i] = *child;
  }
  absl::StatusOr<std::string_view> uri = Utf8At(children[kLakeFileUri], *struct_index);
  if (!uri.ok()) return uri.status();
  absl::StatusOr<std::string_view> content_type =
      Utf8At(children[kLakeFileContentType], *struct_index);
  if (!content_type.ok()) return content_type.status();
  absl::StatusOr<int64_t> size_bytes = Int64At(children[kLakeFileSizeBytes], *struct_index);
  if (!size_bytes.ok()) return size_bytes.status();
  absl::StatusOr<std::string_view> sha256 = Utf8At(children[kLakeFileSha256], *struct_index);
  if (!sha256.ok()) return sha256.status();
  if (*size_bytes < 0) return Invalid(absl::StrCat("size_bytes ", *size_bytes, " is negative"));
  return MakeDataLocation(*uri, *content_type, static_cast<uint64_t>(*size_bytes), *sha256);
}

}  // namespace lake::arrow
