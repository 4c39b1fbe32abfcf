#include "engine/arrow/arrow_export.h"

#include <cerrno>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "engine/arrow/arrow_metadata.h"
#include "engine/arrow/lake_file_type.h"

namespace lake::arrow {
namespace {

using table::ColumnBatch;
using table::ColumnData;
using table::ColumnType;
using table::StringColumn;

// Where an empty data buffer points: consumers may dereference a data
// buffer without looking at the length first, and some refuse NULL.
alignas(64) constexpr uint8_t kEmptyRegion[64] = {};

const void* DataPointer(const void* data, size_t bytes) {
  return bytes == 0 ? static_cast<const void*>(kEmptyRegion) : data;
}

// ---- schemas ----

// private_data of one exported ArrowSchema. Each child owns a SchemaNode of
// its own, so a child moved out by the consumer outlives this one.
struct SchemaNode {
  std::string format;
  std::string name;
  std::string metadata;  // empty: no metadata
  std::vector<ArrowSchema> children;
  std::vector<ArrowSchema*> child_pointers;

  // Releases the children still held (release non-NULL): the ones the
  // consumer did not move out.
  ~SchemaNode() {
    for (ArrowSchema& child : children) {
      if (child.release != nullptr) child.release(&child);
    }
  }
};

void ReleaseSchema(ArrowSchema* schema) {
  delete static_cast<SchemaNode*>(schema->private_data);
  schema->private_data = nullptr;
  schema->release = nullptr;
}

// Points `out` into `node` and hands `node` to it. `node->children` must
// be final (their addresses are published).
void PublishSchema(std::unique_ptr<SchemaNode> node, int64_t flags, ArrowSchema* out) {
  node->child_pointers.clear();
  for (ArrowSchema& child : node->children) node->child_pointers.push_back(&child);
  out->format = node->format.c_str();
  out->name = node->name.c_str();
  out->metadata = node->metadata.empty() ? nullptr : node->metadata.data();
  out->flags = flags;
  out->n_children = static_cast<int64_t>(node->children.size());
  out->children = node->child_pointers.empty() ? nullptr : node->child_pointers.data();
  out->dictionary = nullptr;
  out->release = ReleaseSchema;
  out->private_data = node.release();
}

std::unique_ptr<SchemaNode> NewSchemaNode(std::string_view format, std::string_view name) {
  auto node = std::make_unique<SchemaNode>();
  node->format = std::string(format);
  node->name = std::string(name);
  return node;
}

void ExportFieldSchema(const table::ColumnSpec& spec, ArrowSchema* out) {
  std::unique_ptr<SchemaNode> node = NewSchemaNode(ArrowFormatOf(spec.type), spec.name);
  if (spec.type == ColumnType::kFile) {
    node->metadata = EncodeArrowMetadata({
        {std::string(kExtensionNameKey), std::string(kLakeFileExtensionName)},
        {std::string(kExtensionMetadataKey), ""},
    });
    node->children.resize(kLakeFileFields.size());  // value-initialised: released
    for (size_t i = 0; i < kLakeFileFields.size(); ++i) {
      PublishSchema(NewSchemaNode(kLakeFileFields[i].format, kLakeFileFields[i].name),
                    ARROW_FLAG_NULLABLE, &node->children[i]);
    }
  }
  PublishSchema(std::move(node), ARROW_FLAG_NULLABLE, out);
}

// ---- arrays ----

// private_data of one exported ArrowArray: the storage its buffers point
// into (only the members its type uses are filled) and its children's
// structs. Children own ArrayNodes of their own.
struct ArrayNode {
  std::vector<uint8_t> validity;  // packed; empty when there are no nulls
  std::vector<uint8_t> packed_bools;
  std::vector<int64_t> int64s;
  std::vector<double> float64s;
  StringColumn strings;
  std::vector<const void*> buffers;
  std::vector<ArrowArray> children;
  std::vector<ArrowArray*> child_pointers;

  ~ArrayNode() {
    for (ArrowArray& child : children) {
      if (child.release != nullptr) child.release(&child);
    }
  }
};

void ReleaseArray(ArrowArray* array) {
  delete static_cast<ArrayNode*>(array->private_data);
  array->private_data = nullptr;
  array->release = nullptr;
}

void PublishArray(std::unique_ptr<ArrayNode> node, int64_t length, int64_t null_count,
                  ArrowArray* out) {
  node->child_pointers.clear();
  for (ArrowArray& child : node->children) node->child_pointers.push_back(&child);
  out->length = length;
  out->null_count = null_count;
  out->offset = 0;
  out->n_buffers = static_cast<int64_t>(node->buffers.size());
  out->n_children = static_cast<int64_t>(node->children.size());
  out->buffers = node->buffers.data();
  out->children = node->child_pointers.empty() ? nullptr : node->child_pointers.data();
  out->dictionary = nullptr;
  out->release = ReleaseArray;
  out->private_data = node.release();
}

// Bit i of the result is bytes[i] != 0, least significant bit first.
std::vector<uint8_t> PackBits(const std::vector<uint8_t>& bytes) {
  std::vector<uint8_t> bits((bytes.size() + 7) / 8, 0);
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != 0) bits[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
  return bits;
}

struct Validity {
  std::vector<uint8_t> bits;  // empty when null_count == 0
  int64_t null_count = 0;
};

Validity ValidityOf(const std::vector<uint8_t>& valid) {
  Validity validity;
  for (uint8_t v : valid) validity.null_count += v == 0 ? 1 : 0;
  if (validity.null_count != 0) validity.bits = PackBits(valid);
  return validity;
}

std::unique_ptr<ArrayNode> NewArrayNode(Validity validity) {
  auto node = std::make_unique<ArrayNode>();
  node->validity = std::move(validity.bits);
  node->buffers.push_back(node->validity.empty() ? nullptr : node->validity.data());
  return node;
}

void ExportStrings(StringColumn strings, Validity validity, int64_t length, ArrowArray* out) {
  int64_t null_count = validity.null_count;
  std::unique_ptr<ArrayNode> node = NewArrayNode(std::move(validity));
  node->strings = std::move(strings);
  // uint32 offsets below kMaxStringColumnBytes (< 2^31) are the same bits
  // as Arrow's int32 offsets.
  node->buffers.push_back(node->strings.offsets.data());
  node->buffers.push_back(DataPointer(node->strings.bytes.data(), node->strings.bytes.size()));
  PublishArray(std::move(node), length, null_count, out);
}

void ExportInt64s(std::vector<int64_t> values, Validity validity, int64_t length,
                  ArrowArray* out) {
  int64_t null_count = validity.null_count;
  std::unique_ptr<ArrayNode> node = NewArrayNode(std::move(validity));
  node->int64s = std::move(values);
  node->buffers.push_back(DataPointer(node->int64s.data(), node->int64s.size()));
  PublishArray(std::move(node), length, null_count, out);
}

void ExportFloat64s(std::vector<double> values, Validity validity, int64_t length,
                    ArrowArray* out) {
  int64_t null_count = validity.null_count;
  std::unique_ptr<ArrayNode> node = NewArrayNode(std::move(validity));
  node->float64s = std::move(values);
  node->buffers.push_back(DataPointer(node->float64s.data(), node->float64s.size()));
  PublishArray(std::move(node), length, null_count, out);
}

void ExportBools(const std::vector<uint8_t>& values, Validity validity, int64_t length,
                 ArrowArray* out) {
  int64_t null_count = validity.null_count;
  std::unique_ptr<ArrayNode> node = NewArrayNode(std::move(validity));
  node->packed_bools = PackBits(values);
  node->buffers.push_back(DataPointer(node->packed_bools.data(), node->packed_bools.size()));
  PublishArray(std::move(node), length, null_count, out);
}

// The lake.file struct: its own validity, and each child a copy of it.
void ExportFiles(ColumnData column, Validity validity, int64_t length, ArrowArray* out) {
  int64_t null_count = validity.null_count;
  std::unique_ptr<ArrayNode> node = NewArrayNode(validity);
  node->children.resize(kLakeFileFields.size());  // value-initialised: released
  ExportStrings(std::move(column.strings), validity, length, &node->children[kLakeFileUri]);
  ExportStrings(std::move(column.content_types), validity, length,
                &node->children[kLakeFileContentType]);
  ExportInt64s(std::move(column.int64s), validity, length, &node->children[kLakeFileSizeBytes]);
  ExportStrings(std::move(column.sha256s), std::move(validity), length,
                &node->children[kLakeFileSha256]);
  PublishArray(std::move(node), length, null_count, out);
}

void ExportColumn(ColumnData column, int64_t length, ArrowArray* out) {
  Validity validity = ValidityOf(column.valid);
  switch (column.type) {
    case ColumnType::kUtf8:
    case ColumnType::kBinary:
      ExportStrings(std::move(column.strings), std::move(validity), length, out);
      return;
    case ColumnType::kInt64:
    case ColumnType::kTimestamp:
      ExportInt64s(std::move(column.int64s), std::move(validity), length, out);
      return;
    case ColumnType::kFloat64:
      ExportFloat64s(std::move(column.float64s), std::move(validity), length, out);
      return;
    case ColumnType::kBool:
      ExportBools(column.bools, std::move(validity), length, out);
      return;
    case ColumnType::kFile:
      ExportFiles(std::move(column), std::move(validity), length, out);
      return;
  }
}

// ---- the stream ----

struct StreamState {
  table::Schema schema;
  BatchSource source;  // reset at the end or on an error
  bool ended = false;
  int error = 0;           // non-zero: a final error, returned again
  std::string last_error;  // what get_last_error shows; empty: none
};

StreamState& StateOf(ArrowArrayStream* stream) {
  return *static_cast<StreamState*>(stream->private_data);
}

// Makes `code` final and drops the source, freeing what it holds.
int Fail(StreamState& state, int code, absl::string_view message) {
  state.error = code;
  state.last_error = std::string(message);
  state.source = nullptr;
  return code;
}

// The errno a callback returns for `status` (lake.h, lake_statement_query).
int ErrnoOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      return EINVAL;
    case absl::StatusCode::kDataLoss:
      return EBADMSG;
    default:
      return EIO;
  }
}

// Callbacks are called from C: nothing may propagate out of them, and the
// only exception the engine's code can raise is std::bad_alloc.
int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  StreamState& state = StateOf(stream);
  try {
    absl::Status status = ExportArrowSchema(state.schema, out);
    if (!status.ok()) {
      state.last_error = std::string(status.message());
      return EINVAL;
    }
    return 0;
  } catch (const std::bad_alloc&) {
    state.last_error = "out of memory";
    return ENOMEM;
  }
}

void WriteEnd(ArrowArray* out) { *out = ArrowArray{}; }

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  StreamState& state = StateOf(stream);
  if (state.error != 0) return state.error;
  if (state.ended) {
    WriteEnd(out);
    return 0;
  }
  try {
    absl::StatusOr<std::optional<ColumnBatch>> next = state.source();
    if (!next.ok()) return Fail(state, ErrnoOf(next.status()), next.status().message());
    if (!next->has_value()) {
      state.ended = true;
      state.source = nullptr;
      WriteEnd(out);
      return 0;
    }
    if ((*next)->schema != state.schema) {
      return Fail(state, EINVAL, "a batch's schema differs from the stream's schema");
    }
    absl::Status status = ExportArrowArray(std::move(**next), out);
    if (!status.ok()) return Fail(state, EINVAL, status.message());
    return 0;
  } catch (const std::bad_alloc&) {
    return Fail(state, ENOMEM, "out of memory");
  }
}

const char* StreamGetLastError(ArrowArrayStream* stream) {
  const StreamState& state = StateOf(stream);
  return state.last_error.empty() ? nullptr : state.last_error.c_str();
}

void StreamRelease(ArrowArrayStream* stream) {
  delete static_cast<StreamState*>(stream->private_data);
  stream->private_data = nullptr;
  stream->release = nullptr;
}

}  // namespace

std::string_view ArrowFormatOf(ColumnType type) {
  switch (type) {
    case ColumnType::kUtf8:
      return "u";
    case ColumnType::kInt64:
      return "l";
    case ColumnType::kFloat64:
      return "g";
    case ColumnType::kBool:
      return "b";
    case ColumnType::kBinary:
      return "z";
    case ColumnType::kTimestamp:
      return "tsu:UTC";
    case ColumnType::kFile:
      return "+s";
  }
  return "";
}

absl::Status ExportArrowSchema(const table::Schema& schema, ArrowSchema* out) {
  if (absl::Status status = table::ValidateSchema(schema); !status.ok()) return status;
  std::unique_ptr<SchemaNode> root = NewSchemaNode("+s", "");
  root->children.resize(schema.columns.size());  // value-initialised: released
  for (size_t i = 0; i < schema.columns.size(); ++i) {
    ExportFieldSchema(schema.columns[i], &root->children[i]);
  }
  PublishSchema(std::move(root), 0, out);
  return absl::OkStatus();
}

absl::Status ExportArrowArray(ColumnBatch batch, ArrowArray* out) {
  if (absl::Status status = batch.CheckShape(); !status.ok()) return status;
  const auto length = static_cast<int64_t>(batch.num_rows);
  auto root = std::make_unique<ArrayNode>();
  root->buffers.push_back(nullptr);  // the batch struct has no nulls
  root->children.resize(batch.columns.size());  // value-initialised: released
  for (size_t i = 0; i < batch.columns.size(); ++i) {
    ExportColumn(std::move(batch.columns[i]), length, &root->children[i]);
  }
  PublishArray(std::move(root), length, 0, out);
  return absl::OkStatus();
}

ArrowArrayStream MakeArrowStream(table::Schema schema, BatchSource source) {
  auto state = std::make_unique<StreamState>();
  state->schema = std::move(schema);
  state->source = std::move(source);
  ArrowArrayStream stream{};
  stream.get_schema = StreamGetSchema;
  stream.get_next = StreamGetNext;
  stream.get_last_error = StreamGetLastError;
  stream.release = StreamRelease;
  stream.private_data = state.release();
  return stream;
}

}  // namespace lake::arrow
