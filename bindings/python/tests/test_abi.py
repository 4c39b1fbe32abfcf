"""The ABI (CONFORMANCE.md, A-001, A-002)."""
import pathlib
import re
import subprocess
import tempfile
import unittest

from support import BINDING, lake, run_python
from lake import _native

STUB = """
#include <stdint.h>
uint32_t lake_abi_version(void) { return %d; }
const char* lake_version_string(void) { return "stub"; }
"""


class AbiTest(unittest.TestCase):
    def test_A001_an_abi_version_mismatch_is_refused_at_load(self):
        self.assertEqual(lake.load().lake_abi_version(), lake.ABI_VERSION)
        with tempfile.TemporaryDirectory() as scratch:
            source = pathlib.Path(scratch) / "stub.c"
            source.write_text(STUB % (lake.ABI_VERSION + 1))
            stub = pathlib.Path(scratch) / "liblake_stub.so"
            subprocess.run(["cc", "-shared", "-fPIC", "-o", str(stub), str(source)], check=True)
            # A fresh process: loading is what is refused, before any handle.
            child = run_python(
                "import lake\n"
                "try:\n"
                "    lake.Location.new('file:///x', 'a/b', 1, '0' * 64)\n"
                "except lake.AbiVersionError as e:\n"
                "    print('refused:', e)\n"
                "    print('handles:', lake._handle.open_handles())\n",
                env={"LAKE_LIBRARY": str(stub)})
        self.assertEqual(child.returncode, 0, child.stderr)
        self.assertIn(f"implements lake ABI {lake.ABI_VERSION + 1}", child.stdout)
        self.assertIn("handles: 0", child.stdout)

    def test_A002_every_lake_api_function_is_declared(self):
        header = BINDING.parents[1] / "include" / "lake.h"
        text = re.sub(r"/\*.*?\*/", "", header.read_text(), flags=re.S)
        text = re.sub(r"^\s*#.*$", "", text, flags=re.M)
        in_header = set(re.findall(r"LAKE_API\b[^;(]*?\b(lake_\w+)\s*\(", text))
        declared = {name for name, _, _ in _native.FUNCTIONS}
        self.assertEqual(sorted(in_header - declared), [])
        self.assertEqual(sorted(declared - in_header), [])
        library = lake.load()
        self.assertTrue(all(callable(getattr(library, name)) for name in declared))


if __name__ == "__main__":
    unittest.main()
