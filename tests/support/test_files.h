// Small helpers for tests: a scratch directory, deterministic bytes, and an
// independent SHA-256 (OpenSSL's one-shot call, not lake's hasher).
#ifndef LAKE_TESTS_SUPPORT_TEST_FILES_H_
#define LAKE_TESTS_SUPPORT_TEST_FILES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace lake::testing {

// A fresh directory under $LAKE_TEST_TMPDIR (default /tmp), removed with
// everything in it when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Join(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::vector<uint8_t> RandomBytes(size_t n, uint64_t seed);
std::string Sha256Hex(const std::vector<uint8_t>& bytes);
std::string Sha256Hex(const uint8_t* data, size_t len);

void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes);
std::vector<uint8_t> ReadFile(const std::string& path);
bool PathExists(const std::string& path);
// Regular files beneath `dir`, recursively, as paths relative to it,
// sorted; none when `dir` does not exist.
std::vector<std::string> FilesUnder(const std::string& dir);

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_TEST_FILES_H_
