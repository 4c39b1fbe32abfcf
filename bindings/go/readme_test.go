package lake

// The README's example runs as pasted from a scratch directory holding
// episode.mp4.

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestTheReadmeExampleRunsAsPasted(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	must(t, err)
	m := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("the README has no Go example")
	}
	s := newScratch(t)
	binding, err := filepath.Abs(".")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(s.dir, "main.go"), m[1], 0o644))
	gomod := "module demo\n\ngo 1.19\n\nrequire lake v0.0.0\n\nreplace lake => " + binding + "\n"
	must(t, os.WriteFile(filepath.Join(s.dir, "go.mod"), []byte(gomod), 0o644))
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	want := "version 1: episode, 300000 bytes verified, sha256 " + hexSHA(s.data)
	if strings.TrimSpace(string(out)) != want {
		t.Fatalf("printed %q, want %q", out, want)
	}
}
