// What every fuzz target (fuzz/*_fuzzer.cc) checks its properties with.
#ifndef LAKE_FUZZ_PROPERTY_CHECK_H_
#define LAKE_FUZZ_PROPERTY_CHECK_H_

#include <string_view>

namespace lake::fuzz {

// A property that does not hold traps, so libFuzzer reports the input as a
// crash and keeps it.
inline void Check(bool property) {
  if (!property) __builtin_trap();
}

// Relative, and no segment that is empty, "." or "..": a path a decoder
// hands out may never leave the directory it is relative to. Written apart
// from the decoders' own check, so the two are compared.
inline bool IsSafeRelativePath(std::string_view path) {
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    std::string_view segment = path.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}

}  // namespace lake::fuzz

#endif  // LAKE_FUZZ_PROPERTY_CHECK_H_
