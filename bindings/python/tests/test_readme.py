"""The README's vertical slice runs as pasted (S-001 … S-012 in one piece)."""
import re
import unittest

from support import BINDING, Scratch, run_python


class ReadmeTest(Scratch):
    def test_the_readme_slice_runs_as_pasted_in_a_directory_with_episode_mp4(self):
        readme = (BINDING / "README.md").read_text()
        snippet = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
        self.assertLessEqual(len(snippet.splitlines()), 40)
        child = run_python(f"import os\nos.chdir({str(self.dir)!r})\n" + snippet)
        self.assertEqual(child.returncode, 0, child.stderr)
        self.assertIn("completed p1", child.stdout)
        self.assertTrue((self.dir / "lake-data").is_dir())


if __name__ == "__main__":
    unittest.main()
