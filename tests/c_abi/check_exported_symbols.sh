#!/usr/bin/env bash
# Fails if liblake.so exports any symbol other than lake_* (and the version
# node), i.e. if the version script or hidden visibility stopped working.
set -euo pipefail
lib="$1"
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u)
others=$(printf '%s\n' "$exported" | grep -v -E '^(lake_[a-z0-9_]+|LAKE_1)$' || true)
count=$(printf '%s\n' "$exported" | grep -c '^lake_' || true)
if [ -n "$others" ]; then
  echo "liblake exports symbols outside the lake_ prefix:"
  printf '%s\n' "$others" | head -20
  exit 1
fi
if [ "$count" -lt 40 ]; then
  echo "only $count lake_ symbols exported; expected the whole ABI"
  exit 1
fi
echo "exported_symbols: ok ($count lake_* symbols, nothing else)"
