// Files `lake` reads whole as command input: a location's @PATH, an
// `events append` FILE.jsonl.
#ifndef LAKE_CLI_INPUT_FILE_H_
#define LAKE_CLI_INPUT_FILE_H_

#include <string>

namespace lake::cli {

// The whole of the file at `path` ("-": standard input) into *out. False
// with errno set when it cannot be read; a directory is EISDIR.
bool ReadInputFile(const std::string& path, std::string* out);

// Prints "lake: cannot read <what> <path>: <why>" for the errno of a failed
// ReadInputFile and returns its exit code: 6 when there is no such file, 2
// when the path names a directory or runs through a file, else 5.
int ReportUnreadableInput(const std::string& what, const std::string& path, int error);

}  // namespace lake::cli

#endif  // LAKE_CLI_INPUT_FILE_H_
