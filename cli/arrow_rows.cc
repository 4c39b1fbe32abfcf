#include "cli/arrow_rows.h"

#include <cstring>
#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace lake::cli {
namespace {

using nlohmann::ordered_json;

bool IsValid(const ArrowArray& array, int64_t row) {
  if (array.null_count == 0 || array.buffers[0] == nullptr) return true;
  int64_t i = array.offset + row;
  const auto* bitmap = static_cast<const uint8_t*>(array.buffers[0]);
  return (bitmap[i / 8] >> (i % 8)) & 1;
}

std::string_view Utf8At(const ArrowArray& array, int64_t row) {
  const auto* offsets = static_cast<const int32_t*>(array.buffers[1]);
  const auto* data = static_cast<const char*>(array.buffers[2]);
  int64_t i = array.offset + row;
  return std::string_view(data + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
}

std::string IsoMicros(int64_t micros) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", absl::FromUnixMicros(micros),
                          absl::UTCTimeZone());
}

}  // namespace

absl::StatusOr<std::vector<ResultColumn>> ResultColumns(const ArrowSchema& schema) {
  if (std::strcmp(schema.format, "+s") != 0) {
    return absl::InvalidArgumentError("a result schema is a struct of columns");
  }
  std::vector<ResultColumn> columns;
  for (int64_t i = 0; i < schema.n_children; ++i) {
    const ArrowSchema* child = schema.children[i];
    columns.push_back({child->name != nullptr ? child->name : "", child->format});
  }
  return columns;
}

absl::StatusOr<std::vector<ordered_json>> ResultRow(const ArrowSchema& schema,
                                                    const ArrowArray& batch,
                                                    const std::vector<ResultColumn>& columns,
                                                    int64_t row) {
  std::vector<ordered_json> cells;
  for (size_t c = 0; c < columns.size(); ++c) {
    const ArrowArray& array = *batch.children[c];
    const std::string& format = columns[c].format;
    if (!IsValid(array, row)) {
      cells.emplace_back(nullptr);
      continue;
    }
    int64_t i = array.offset + row;
    if (format == "u") {
      cells.emplace_back(std::string(Utf8At(array, row)));
    } else if (format == "z") {
      cells.emplace_back(absl::Base64Escape(std::string(Utf8At(array, row))));
    } else if (format == "l") {
      cells.emplace_back(static_cast<const int64_t*>(array.buffers[1])[i]);
    } else if (format == "tsu:UTC") {
      cells.emplace_back(IsoMicros(static_cast<const int64_t*>(array.buffers[1])[i]));
    } else if (format == "g") {
      cells.emplace_back(static_cast<const double*>(array.buffers[1])[i]);
    } else if (format == "b") {
      const auto* bits = static_cast<const uint8_t*>(array.buffers[1]);
      cells.emplace_back(((bits[i / 8] >> (i % 8)) & 1) != 0);
    } else if (format == "+s") {
      lake_location* location = nullptr;
      lake_error* err = nullptr;
      if (lake_location_from_arrow(&schema, &batch, static_cast<int64_t>(c), row, &location,
                                   &err) != LAKE_OK) {
        std::string message = lake_error_message(err);
        lake_error_free(err);
        return absl::DataLossError(message);
      }
      cells.push_back(ordered_json::parse(lake_location_json(location)));
      lake_location_free(location);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unexpected result format ", format));
    }
  }
  return cells;
}

}  // namespace lake::cli
