// Reading the rows of a lake query result from its Arrow C stream, for the
// CLI's output. Only the formats lake produces are understood (utf8 "u",
// int64 "l", float64 "g", bool "b", binary "z", timestamp "tsu:UTC", and
// the lake.file struct "+s"); the CLI renders cells as CLI.md says.
#ifndef LAKE_CLI_ARROW_ROWS_H_
#define LAKE_CLI_ARROW_ROWS_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "lake.h"

namespace lake::cli {

struct ResultColumn {
  std::string name;
  std::string format;
};

// The top-level columns of a result schema (a struct of columns).
absl::StatusOr<std::vector<ResultColumn>> ResultColumns(const ArrowSchema& schema);

// Row `row` of `batch` as one JSON value per column (CLI.md "JSON output":
// numbers, bools, strings, ISO-8601 timestamps, base64 binary, FILE as the
// DataLocation object with its keys in DATALOCATION.md's order, null).
// Ordered JSON keeps the keys of objects in the order they were added.
absl::StatusOr<std::vector<nlohmann::ordered_json>> ResultRow(const ArrowSchema& schema,
                                                      const ArrowArray& batch,
                                                      const std::vector<ResultColumn>& columns,
                                                      int64_t row);

}  // namespace lake::cli

#endif  // LAKE_CLI_ARROW_ROWS_H_
