// The main of every doctest suite. Besides doctest's own flags it reads
// LAKE_TEST_EXCLUDE, a comma-separated list of test-case name patterns to
// skip (doctest's --test-case-exclude), so a run under `meson test` can
// leave out whole families of cases (LAKE_TEST_EXCLUDE='S3*') without
// passing flags to every test program.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  doctest::Context context;
  if (const char* exclude = std::getenv("LAKE_TEST_EXCLUDE"); exclude != nullptr && *exclude) {
    context.addFilter("test-case-exclude", exclude);
  }
  context.applyCommandLine(argc, argv);
  return context.run();
}
