// From an Arrow lake.file cell back to a DataLocation: every valid cell,
// sliced batches, nulls, and every way a batch can be malformed.
#include "engine/arrow/arrow_location.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/arrow/arrow_export.h"
#include "engine/arrow/arrow_metadata.h"
#include "tests/support/sample_batch.h"
#include "tests/support/status_checks.h"

namespace lake::arrow {
namespace {

using table::ColumnBatch;
using testing::SampleBatch;
using testing::SampleSchema;

constexpr int64_t kVideo = 6;

// An exported sample batch with its schema, released at scope exit.
struct Exported {
  ArrowSchema schema{};
  ArrowArray array{};
  ColumnBatch expected;

  explicit Exported(ColumnBatch batch) : expected(batch) {
    REQUIRE(ExportArrowSchema(batch.schema, &schema).ok());
    REQUIRE(ExportArrowArray(std::move(batch), &array).ok());
  }
  ~Exported() {
    schema.release(&schema);
    array.release(&array);
  }
  ArrowArray& video() { return *array.children[kVideo]; }
  ArrowSchema& video_schema() { return *schema.children[kVideo]; }
};

absl::StatusCode CodeAt(const Exported& e, int64_t column, int64_t row) {
  return DataLocationFromArrow(e.schema, e.array, column, row).status().code();
}

TEST_CASE("every non-null file cell becomes its DataLocation; a null one is NotFound") {
  Exported e(SampleBatch(0, 30));
  for (int64_t row = 0; row < 30; ++row) {
    CAPTURE(row);
    absl::StatusOr<DataLocation> location = DataLocationFromArrow(e.schema, e.array, kVideo, row);
    if (row % 3 == 2) {
      CHECK(location.status().code() == absl::StatusCode::kNotFound);
    } else {
      LAKE_REQUIRE_OK(location);
      CHECK(*location == std::get<DataLocation>(e.expected.Cell(row, kVideo)));
      CHECK(location->uri == testing::SampleUri(row));
      CHECK(location->size_bytes == static_cast<uint64_t>(1000 + row));
    }
  }
}

TEST_CASE("offsets of the batch, the column and the fields all count") {
  Exported e(SampleBatch(0, 30));
  ArrowArray sliced = e.array;  // a non-owning view, slicing rows 4..13
  sliced.offset = 4;
  sliced.length = 10;
  absl::StatusOr<DataLocation> location = DataLocationFromArrow(e.schema, sliced, kVideo, 3);
  LAKE_REQUIRE_OK(location);
  CHECK(location->uri == testing::SampleUri(7));
  CHECK(DataLocationFromArrow(e.schema, sliced, kVideo, 10).status().code() ==
        absl::StatusCode::kInvalidArgument);

  // The column sliced by 2 more (its length shortened to match): row 0 of
  // the view is struct row 4 + 2 = 6; view row 2 is struct row 8, null.
  e.video().offset = 2;
  e.video().length = 28;
  location = DataLocationFromArrow(e.schema, sliced, kVideo, 0);
  LAKE_REQUIRE_OK(location);
  CHECK(location->uri == testing::SampleUri(6));
  CHECK(location->sha256 == testing::SampleSha256(6));
  CHECK(DataLocationFromArrow(e.schema, sliced, kVideo, 2).status().code() ==
        absl::StatusCode::kNotFound);

  // One field sliced by 1 more: only that field moves to row 7.
  ArrowArray& uri = *e.video().children[0];
  uri.offset = 1;
  uri.length = 29;
  location = DataLocationFromArrow(e.schema, sliced, kVideo, 0);
  LAKE_REQUIRE_OK(location);
  CHECK(location->uri == testing::SampleUri(7));
  CHECK(location->sha256 == testing::SampleSha256(6));
  uri.offset = 0;
  uri.length = 30;
  e.video().offset = 0;
  e.video().length = 30;
}

TEST_CASE("out-of-range columns and rows are InvalidArgument") {
  Exported e(SampleBatch(0, 5));
  CHECK(CodeAt(e, kVideo, -1) == absl::StatusCode::kInvalidArgument);
  CHECK(CodeAt(e, kVideo, 5) == absl::StatusCode::kInvalidArgument);
  CHECK(CodeAt(e, -1, 0) == absl::StatusCode::kInvalidArgument);
  CHECK(CodeAt(e, 7, 0) == absl::StatusCode::kInvalidArgument);
  CHECK(CodeAt(e, kVideo, 0) == absl::StatusCode::kOk);
}

TEST_CASE("a column that is not lake.file is InvalidArgument, even a look-alike struct") {
  Exported e(SampleBatch(0, 5));
  for (int64_t column = 0; column < kVideo; ++column) {
    CAPTURE(column);
    CHECK(CodeAt(e, column, 0) == absl::StatusCode::kInvalidArgument);
  }
  const char* metadata = e.video_schema().metadata;
  e.video_schema().metadata = nullptr;
  CHECK(CodeAt(e, kVideo, 0) == absl::StatusCode::kInvalidArgument);
  std::string other = EncodeArrowMetadata({{"ARROW:extension:name", "lake.other"}});
  e.video_schema().metadata = other.data();
  CHECK(CodeAt(e, kVideo, 0) == absl::StatusCode::kInvalidArgument);
  e.video_schema().metadata = metadata;
}

TEST_CASE("a missing field or a field of the wrong format is InvalidArgument") {
  Exported e(SampleBatch(0, 5));
  ArrowSchema& size_field = *e.video_schema().children[2];
  size_field.format = "u";
  CHECK(CodeAt(e, kVideo, 0) == absl::StatusCode::kInvalidArgument);
  size_field.format = "l";
  size_field.name = "size";
  CHECK(CodeAt(e, kVideo, 0) == absl::StatusCode::kInvalidArgument);
  size_field.name = "size_bytes";
  CHECK(CodeAt(e, kVideo, 0) == absl::StatusCode::kOk);
}

TEST_CASE("a field that is null, short or negative where the struct holds a file is InvalidArgument") {
  Exported e(SampleBatch(0, 5));
  ArrowArray& sha = *e.video().children[3];
  const void* validity = sha.buffers[0];
  const int64_t null_count = sha.null_count;
  const uint8_t none_valid[1] = {0};
  sha.buffers[0] = none_valid;
  sha.null_count = 5;
  CHECK(CodeAt(e, kVideo, 0) == absl::StatusCode::kInvalidArgument);
  sha.buffers[0] = validity;
  sha.null_count = null_count;

  ArrowArray& uri = *e.video().children[0];
  uri.length = 3;
  CHECK(CodeAt(e, kVideo, 4) == absl::StatusCode::kInvalidArgument);
  CHECK(CodeAt(e, kVideo, 1) == absl::StatusCode::kOk);
  uri.length = 5;

  ArrowArray& size = *e.video().children[2];
  const void* sizes = size.buffers[1];
  const int64_t negative[5] = {-1, -1, -1, -1, -1};
  size.buffers[1] = negative;
  CHECK(CodeAt(e, kVideo, 0) == absl::StatusCode::kInvalidArgument);
  size.buffers[1] = sizes;
}

TEST_CASE("a cell MakeDataLocation refuses is InvalidArgument with kInvalidLocation") {
  Exported e(SampleBatch(0, 2));
  ArrowArray& uri = *e.video().children[0];
  const void* data = uri.buffers[2];
  std::string replaced(static_cast<const char*>(data),
                       static_cast<size_t>(static_cast<const int32_t*>(uri.buffers[1])[2]));
  replaced.replace(0, 7, "http://");  // row 0's uri, now of another scheme
  uri.buffers[2] = replaced.data();
  absl::StatusOr<DataLocation> location = DataLocationFromArrow(e.schema, e.array, kVideo, 0);
  CHECK(location.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(testing::KindOf(location.status()) == IntegrityKind::kInvalidLocation);
  uri.buffers[2] = data;
}

TEST_CASE("released structs and a non-struct schema are InvalidArgument") {
  Exported e(SampleBatch(0, 2));
  ArrowArray released = e.array;
  released.release = nullptr;
  CHECK(DataLocationFromArrow(e.schema, released, kVideo, 0).status().code() ==
        absl::StatusCode::kInvalidArgument);
  ArrowSchema flat = e.schema;
  flat.format = "l";
  CHECK(DataLocationFromArrow(flat, e.array, kVideo, 0).status().code() ==
        absl::StatusCode::kInvalidArgument);
  ArrowSchema fewer = e.schema;
  fewer.n_children = 3;
  CHECK(DataLocationFromArrow(fewer, e.array, 1, 0).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace lake::arrow
