// Query results through the Arrow C data and stream interfaces: what the
// exported structs hold, read back by hand as a consumer reads them; the
// release rules; and the stream's call sequence and errors.
#include "engine/arrow/arrow_export.h"

#include <doctest/doctest.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/arrow/arrow_metadata.h"
#include "tests/support/sample_batch.h"
#include "tests/support/status_checks.h"

namespace lake::arrow {
namespace {

using table::CellValue;
using table::ColumnBatch;
using table::ColumnType;
using testing::SampleBatch;
using testing::SampleSchema;

// Owners that release at scope exit, so a failing REQUIRE leaks nothing.
struct OwnedSchema {
  ArrowSchema s{};
  ~OwnedSchema() {
    if (s.release != nullptr) s.release(&s);
  }
};
struct OwnedArray {
  ArrowArray a{};
  ~OwnedArray() {
    if (a.release != nullptr) a.release(&a);
  }
};
struct OwnedStream {
  ArrowArrayStream s{};
  ~OwnedStream() {
    if (s.release != nullptr) s.release(&s);
  }
};

// ---- reading exported arrays by hand ----

bool Bit(const void* bits, int64_t i) {
  return (static_cast<const uint8_t*>(bits)[i / 8] >> (i % 8) & 1) != 0;
}
bool ValidAt(const ArrowArray& a, int64_t row) {
  return a.buffers[0] == nullptr || Bit(a.buffers[0], a.offset + row);
}
std::string StringAt(const ArrowArray& a, int64_t row) {
  const auto* offsets = static_cast<const int32_t*>(a.buffers[1]);
  const auto* data = static_cast<const char*>(a.buffers[2]);
  int64_t i = a.offset + row;
  return std::string(data + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
}
int64_t Int64At(const ArrowArray& a, int64_t row) {
  return static_cast<const int64_t*>(a.buffers[1])[a.offset + row];
}
double Float64At(const ArrowArray& a, int64_t row) {
  return static_cast<const double*>(a.buffers[1])[a.offset + row];
}

CellValue CellFromArrow(const ArrowArray& a, ColumnType type, int64_t row) {
  if (!ValidAt(a, row)) return std::monostate{};
  switch (type) {
    case ColumnType::kUtf8:
      return StringAt(a, row);
    case ColumnType::kInt64:
      return Int64At(a, row);
    case ColumnType::kFloat64:
      return Float64At(a, row);
    case ColumnType::kBool:
      return Bit(a.buffers[1], a.offset + row);
    case ColumnType::kBinary:
      return table::Binary{StringAt(a, row)};
    case ColumnType::kTimestamp:
      return table::TimestampMicros{Int64At(a, row)};
    case ColumnType::kFile: {
      int64_t i = a.offset + row;
      return DataLocation{StringAt(*a.children[0], i), StringAt(*a.children[1], i),
                          static_cast<uint64_t>(Int64At(*a.children[2], i)),
                          StringAt(*a.children[3], i)};
    }
  }
  return std::monostate{};
}

int64_t CountNulls(const ColumnBatch& batch, size_t column) {
  int64_t nulls = 0;
  for (size_t row = 0; row < batch.num_rows; ++row) nulls += batch.columns[column].IsNull(row);
  return nulls;
}

ColumnBatch OneColumn(ColumnType type, const std::vector<CellValue>& cells) {
  ColumnBatch batch = ColumnBatch::Empty(table::Schema{{{"c", type}}});
  for (const CellValue& cell : cells) REQUIRE(batch.AppendRow({cell}).ok());
  return batch;
}

// ---- schema ----

TEST_CASE("the schema is a struct of the columns with each type's format") {
  OwnedSchema schema;
  LAKE_REQUIRE_OK(ExportArrowSchema(SampleSchema(), &schema.s));
  CHECK(std::string_view(schema.s.format) == "+s");
  CHECK(std::string_view(schema.s.name).empty());
  CHECK(schema.s.metadata == nullptr);
  CHECK(schema.s.flags == 0);
  CHECK(schema.s.dictionary == nullptr);
  REQUIRE(schema.s.n_children == 7);
  const char* names[] = {"name", "count", "score", "flag", "blob", "taken_at", "video"};
  const char* formats[] = {"u", "l", "g", "b", "z", "tsu:UTC", "+s"};
  for (int i = 0; i < 7; ++i) {
    CAPTURE(i);
    const ArrowSchema& child = *schema.s.children[i];
    CHECK(std::string_view(child.name) == names[i]);
    CHECK(std::string_view(child.format) == formats[i]);
    CHECK(child.flags == ARROW_FLAG_NULLABLE);
    CHECK((child.release != nullptr));
    if (i != 6) {
      CHECK(child.n_children == 0);
      CHECK(child.metadata == nullptr);
    }
  }
}

TEST_CASE("a file column is the lake.file extension struct of four fields") {
  OwnedSchema schema;
  LAKE_REQUIRE_OK(ExportArrowSchema(SampleSchema(), &schema.s));
  const ArrowSchema& video = *schema.s.children[6];
  REQUIRE(video.metadata != nullptr);
  absl::StatusOr<size_t> extent = ArrowMetadataExtent(video.metadata);
  LAKE_REQUIRE_OK(extent);
  absl::StatusOr<ArrowMetadata> metadata =
      DecodeArrowMetadata(std::string_view(video.metadata, *extent));
  LAKE_REQUIRE_OK(metadata);
  CHECK(*metadata == ArrowMetadata{{"ARROW:extension:name", "lake.file"},
                                   {"ARROW:extension:metadata", ""}});
  REQUIRE(video.n_children == 4);
  const char* names[] = {"uri", "content_type", "size_bytes", "sha256"};
  const char* formats[] = {"u", "u", "l", "u"};
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(std::string_view(video.children[i]->name) == names[i]);
    CHECK(std::string_view(video.children[i]->format) == formats[i]);
    CHECK(video.children[i]->flags == ARROW_FLAG_NULLABLE);
    CHECK(video.children[i]->metadata == nullptr);
  }
}

TEST_CASE("an invalid schema is refused and the output left alone") {
  OwnedSchema schema;
  absl::Status status = ExportArrowSchema(table::Schema{{{"bad name", ColumnType::kUtf8}}},
                                          &schema.s);
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK((schema.s.release == nullptr));
}

// ---- arrays ----

TEST_CASE("every type round-trips through the exported array, nulls included") {
  ColumnBatch batch = SampleBatch(0, 37);
  ColumnBatch expected = batch;
  OwnedArray array;
  LAKE_REQUIRE_OK(ExportArrowArray(std::move(batch), &array.a));
  CHECK(array.a.length == 37);
  CHECK(array.a.null_count == 0);
  CHECK(array.a.offset == 0);
  REQUIRE(array.a.n_buffers == 1);
  CHECK(array.a.buffers[0] == nullptr);
  REQUIRE(array.a.n_children == 7);
  for (size_t c = 0; c < 7; ++c) {
    CAPTURE(c);
    const ArrowArray& column = *array.a.children[c];
    ColumnType type = expected.schema.columns[c].type;
    CHECK(column.length == 37);
    CHECK(column.offset == 0);
    CHECK(column.null_count == CountNulls(expected, c));
    CHECK(column.null_count > 0);
    CHECK(column.buffers[0] != nullptr);
    int64_t buffers = type == ColumnType::kUtf8 || type == ColumnType::kBinary ? 3
                      : type == ColumnType::kFile                              ? 1
                                                                               : 2;
    CHECK(column.n_buffers == buffers);
    CHECK(column.n_children == (type == ColumnType::kFile ? 4 : 0));
    for (int64_t row = 0; row < 37; ++row) {
      CAPTURE(row);
      CHECK(CellFromArrow(column, type, row) == expected.Cell(static_cast<size_t>(row), c));
    }
  }
}

TEST_CASE("bools and validity are packed least significant bit first") {
  ColumnBatch batch = OneColumn(ColumnType::kBool, {true, false, true, true, false, false,
                                                    std::monostate{}, false, true, true});
  OwnedArray array;
  LAKE_REQUIRE_OK(ExportArrowArray(std::move(batch), &array.a));
  const ArrowArray& column = *array.a.children[0];
  CHECK(column.null_count == 1);
  REQUIRE(column.buffers[0] != nullptr);
  const auto* validity = static_cast<const uint8_t*>(column.buffers[0]);
  const auto* values = static_cast<const uint8_t*>(column.buffers[1]);
  CHECK(validity[0] == 0xBF);  // row 6 null
  CHECK(validity[1] == 0x03);
  CHECK(values[0] == 0x0D);  // rows 0, 2, 3
  CHECK(values[1] == 0x03);  // rows 8, 9
}

TEST_CASE("strings are int32 offsets into one data buffer; a null adds an empty slot") {
  ColumnBatch batch = OneColumn(ColumnType::kUtf8, {std::string("a"), std::string(""),
                                                    std::string("ccc"), std::monostate{},
                                                    std::string("dd")});
  OwnedArray array;
  LAKE_REQUIRE_OK(ExportArrowArray(std::move(batch), &array.a));
  const ArrowArray& column = *array.a.children[0];
  const auto* offsets = static_cast<const int32_t*>(column.buffers[1]);
  std::vector<int32_t> got(offsets, offsets + 6);
  CHECK(got == std::vector<int32_t>{0, 1, 1, 4, 4, 6});
  CHECK(std::memcmp(column.buffers[2], "acccdd", 6) == 0);
  REQUIRE(column.buffers[0] != nullptr);
  CHECK(static_cast<const uint8_t*>(column.buffers[0])[0] == 0x17);  // 0b10111
}

TEST_CASE("a column without nulls has no validity buffer and null_count 0") {
  ColumnBatch batch = OneColumn(ColumnType::kInt64, {int64_t{5}, int64_t{-7}});
  OwnedArray array;
  LAKE_REQUIRE_OK(ExportArrowArray(std::move(batch), &array.a));
  const ArrowArray& column = *array.a.children[0];
  CHECK(column.null_count == 0);
  CHECK(column.buffers[0] == nullptr);
  CHECK(Int64At(column, 0) == 5);
  CHECK(Int64At(column, 1) == -7);
}

TEST_CASE("a null file cell is null in the struct and in all four fields") {
  ColumnBatch batch = SampleBatch(0, 3);  // row 2 has no video
  OwnedArray array;
  LAKE_REQUIRE_OK(ExportArrowArray(std::move(batch), &array.a));
  const ArrowArray& video = *array.a.children[6];
  CHECK(video.null_count == 1);
  CHECK_FALSE(ValidAt(video, 2));
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(video.children[i]->null_count == 1);
    CHECK(ValidAt(*video.children[i], 0));
    CHECK_FALSE(ValidAt(*video.children[i], 2));
  }
}

TEST_CASE("an empty batch has length 0 and non-NULL data buffers") {
  OwnedArray array;
  LAKE_REQUIRE_OK(ExportArrowArray(ColumnBatch::Empty(SampleSchema()), &array.a));
  CHECK(array.a.length == 0);
  for (int c = 0; c < 7; ++c) {
    CAPTURE(c);
    const ArrowArray& column = *array.a.children[c];
    CHECK(column.length == 0);
    CHECK(column.null_count == 0);
    for (int64_t b = 1; b < column.n_buffers; ++b) CHECK(column.buffers[b] != nullptr);
  }
  CHECK(static_cast<const int32_t*>(array.a.children[0]->buffers[1])[0] == 0);
}

TEST_CASE("a batch that breaks its invariants is refused and the output left alone") {
  ColumnBatch batch = SampleBatch(0, 4);
  batch.columns[1].int64s.pop_back();
  OwnedArray array;
  CHECK(ExportArrowArray(std::move(batch), &array.a).code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK((array.a.release == nullptr));
}

// ---- release rules ----

TEST_CASE("release clears the release callback") {
  ArrowArray array{};
  LAKE_REQUIRE_OK(ExportArrowArray(SampleBatch(0, 5), &array));
  array.release(&array);
  CHECK((array.release == nullptr));
  ArrowSchema schema{};
  LAKE_REQUIRE_OK(ExportArrowSchema(SampleSchema(), &schema));
  schema.release(&schema);
  CHECK((schema.release == nullptr));
}

TEST_CASE("children moved out outlive their released parent") {
  ColumnBatch batch = SampleBatch(0, 20);
  ColumnBatch expected = batch;
  ArrowArray parent{};
  LAKE_REQUIRE_OK(ExportArrowArray(std::move(batch), &parent));

  // Move out a column and a field of the file struct (a grandchild).
  OwnedArray name;
  name.a = *parent.children[0];
  parent.children[0]->release = nullptr;
  OwnedArray uri;
  uri.a = *parent.children[6]->children[0];
  parent.children[6]->children[0]->release = nullptr;
  parent.release(&parent);
  CHECK((parent.release == nullptr));

  for (int64_t row = 0; row < 20; ++row) {
    CAPTURE(row);
    CHECK(CellFromArrow(name.a, ColumnType::kUtf8, row) == expected.Cell(row, 0));
    if (!expected.columns[6].IsNull(row)) CHECK(StringAt(uri.a, row) == testing::SampleUri(row));
  }
}

TEST_CASE("schema children moved out outlive their released parent") {
  ArrowSchema parent{};
  LAKE_REQUIRE_OK(ExportArrowSchema(SampleSchema(), &parent));
  OwnedSchema video;
  video.s = *parent.children[6];
  parent.children[6]->release = nullptr;
  parent.release(&parent);
  CHECK(std::string_view(video.s.name) == "video");
  CHECK(std::string_view(video.s.children[3]->name) == "sha256");
  REQUIRE(video.s.metadata != nullptr);
}

TEST_CASE("a child released first is skipped by the parent's release") {
  ArrowArray parent{};
  LAKE_REQUIRE_OK(ExportArrowArray(SampleBatch(0, 6), &parent));
  ArrowArray moved = *parent.children[6];
  parent.children[6]->release = nullptr;
  moved.release(&moved);
  CHECK((moved.release == nullptr));
  parent.release(&parent);
  CHECK((parent.release == nullptr));
}

// ---- the stream ----

// A source over `batches`, then the end; counts its calls.
struct VectorSource {
  std::vector<ColumnBatch> batches;
  size_t next = 0;
};

BatchSource SourceOf(std::shared_ptr<VectorSource> state) {
  return [state]() -> absl::StatusOr<std::optional<ColumnBatch>> {
    if (state->next == state->batches.size()) return std::nullopt;
    return state->batches[state->next++];
  };
}

TEST_CASE("a stream yields its batches in order, then a released array, again and again") {
  auto source = std::make_shared<VectorSource>();
  source->batches = {SampleBatch(0, 10), SampleBatch(10, 0), SampleBatch(10, 7)};
  OwnedStream stream;
  stream.s = MakeArrowStream(SampleSchema(), SourceOf(source));
  CHECK(source.use_count() == 2);

  OwnedSchema schema;
  REQUIRE(stream.s.get_schema(&stream.s, &schema.s) == 0);
  CHECK(schema.s.n_children == 7);
  CHECK(std::string_view(schema.s.children[5]->format) == "tsu:UTC");

  int64_t first_row = 0;
  for (int64_t length : {10, 0, 7}) {
    OwnedArray batch;
    REQUIRE(stream.s.get_next(&stream.s, &batch.a) == 0);
    REQUIRE((batch.a.release != nullptr));
    CHECK(batch.a.length == length);
    if (length > 0) {
      CHECK(CellFromArrow(*batch.a.children[1], ColumnType::kInt64, 0) ==
            testing::SampleRow(first_row)[1]);
    }
    first_row += length;
  }
  for (int i = 0; i < 2; ++i) {
    ArrowArray end;
    std::memset(&end, 0xAB, sizeof(end));
    REQUIRE(stream.s.get_next(&stream.s, &end) == 0);
    CHECK((end.release == nullptr));
  }
  // The source is dropped at the end, before the stream is released.
  CHECK(source.use_count() == 1);
  stream.s.release(&stream.s);
  CHECK((stream.s.release == nullptr));
}

TEST_CASE("arrays and schemas from a stream outlive the stream") {
  auto source = std::make_shared<VectorSource>();
  source->batches = {SampleBatch(0, 4)};
  ArrowArrayStream stream = MakeArrowStream(SampleSchema(), SourceOf(source));
  OwnedSchema schema;
  OwnedArray batch;
  REQUIRE(stream.get_schema(&stream, &schema.s) == 0);
  REQUIRE(stream.get_next(&stream, &batch.a) == 0);
  stream.release(&stream);
  CHECK(std::string_view(schema.s.children[0]->name) == "name");
  CHECK(StringAt(*batch.a.children[0], 3) == "");  // row 3's name is null
  CHECK_FALSE(ValidAt(*batch.a.children[0], 3));
  CHECK(StringAt(*batch.a.children[0], 2) == "row-2");
}

TEST_CASE("a stream released before its end frees the batches it did not hand out") {
  auto source = std::make_shared<VectorSource>();
  source->batches = {SampleBatch(0, 4), SampleBatch(4, 4)};
  ArrowArrayStream stream = MakeArrowStream(SampleSchema(), SourceOf(source));
  OwnedArray batch;
  REQUIRE(stream.get_next(&stream, &batch.a) == 0);
  stream.release(&stream);
  CHECK(source.use_count() == 1);
  CHECK(batch.a.length == 4);
}

TEST_CASE("a failing source makes get_next return EINVAL, EBADMSG or EIO with its message, for good") {
  struct Case {
    absl::Status status;
    int code;
  };
  for (const Case& c : {Case{absl::InvalidArgumentError("bad predicate"), EINVAL},
                        Case{absl::DataLossError("fragment 7 is damaged"), EBADMSG},
                        Case{absl::UnavailableError("s3 went away"), EIO}}) {
    CAPTURE(c.status);
    int calls = 0;
    OwnedStream stream;
    stream.s = MakeArrowStream(SampleSchema(),
                               [&]() -> absl::StatusOr<std::optional<ColumnBatch>> {
                                 if (++calls == 1) return SampleBatch(0, 3);
                                 return c.status;
                               });
    OwnedArray first;
    REQUIRE(stream.s.get_next(&stream.s, &first.a) == 0);
    ArrowArray out{};
    CHECK(stream.s.get_next(&stream.s, &out) == c.code);
    CHECK((out.release == nullptr));
    REQUIRE(stream.s.get_last_error(&stream.s) != nullptr);
    CHECK(std::string(stream.s.get_last_error(&stream.s)) == std::string(c.status.message()));
    CHECK(stream.s.get_next(&stream.s, &out) == c.code);  // final: the source is not asked again
    CHECK(calls == 2);
    CHECK(std::string(stream.s.get_last_error(&stream.s)) == std::string(c.status.message()));
  }
}

TEST_CASE("a batch of another schema or a broken batch is EINVAL") {
  OwnedStream other;
  other.s = MakeArrowStream(SampleSchema(), []() -> absl::StatusOr<std::optional<ColumnBatch>> {
    return ColumnBatch::Empty(table::Schema{{{"x", ColumnType::kInt64}}});
  });
  ArrowArray out{};
  CHECK(other.s.get_next(&other.s, &out) == EINVAL);
  CHECK(std::string(other.s.get_last_error(&other.s)) ==
        "a batch's schema differs from the stream's schema");

  OwnedStream broken;
  broken.s = MakeArrowStream(SampleSchema(), []() -> absl::StatusOr<std::optional<ColumnBatch>> {
    ColumnBatch batch = SampleBatch(0, 2);
    batch.columns[0].valid.push_back(1);
    return batch;
  });
  CHECK(broken.s.get_next(&broken.s, &out) == EINVAL);
  CHECK(std::string(broken.s.get_last_error(&broken.s)) == "column 'name': row count differs");
  CHECK((out.release == nullptr));
}

TEST_CASE("get_last_error is NULL before any error; an invalid schema is EINVAL") {
  OwnedStream stream;
  stream.s = MakeArrowStream(table::Schema{}, []() -> absl::StatusOr<std::optional<ColumnBatch>> {
    return std::nullopt;
  });
  CHECK(stream.s.get_last_error(&stream.s) == nullptr);
  OwnedSchema schema;
  CHECK(stream.s.get_schema(&stream.s, &schema.s) == EINVAL);
  CHECK((schema.s.release == nullptr));
  CHECK(stream.s.get_last_error(&stream.s) != nullptr);
}

}  // namespace
}  // namespace lake::arrow
