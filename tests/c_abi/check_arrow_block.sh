#!/usr/bin/env bash
# Fails if the Arrow C data and stream interface declarations in
# include/lake.h and engine/arrow/arrow_c_data.h differ: the public header
# carries a copy of the block the library is built against, and a change
# to one without the other would break every consumer of lake's Arrow
# exports at run time, not at compile time.
set -euo pipefail
public_header=$1
internal_header=$2
block() {
  sed -n '/^#ifndef ARROW_C_DATA_INTERFACE$/,/^#endif \/\* ARROW_C_STREAM_INTERFACE \*\/$/p' "$1"
}
public=$(block "$public_header")
internal=$(block "$internal_header")
if [ -z "$public" ] || [ -z "$internal" ]; then
  echo "the Arrow C interface block was not found in both headers"
  exit 1
fi
if [ "$public" != "$internal" ]; then
  echo "the Arrow C interface blocks differ ($public_header vs $internal_header):"
  diff <(printf '%s\n' "$public") <(printf '%s\n' "$internal") | head -40
  exit 1
fi
echo "arrow_block: ok ($(printf '%s\n' "$public" | wc -l) lines identical)"
