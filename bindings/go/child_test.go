package lake

import (
	"os"
	"testing"
)

// TestChildProcess is what a child process runs (see child); it does
// nothing in the parent.
func TestChildProcess(t *testing.T) {
	what := os.Getenv("LAKE_GO_CHILD")
	if what == "" {
		t.Skip("only runs as a child process")
	}
	if err := childActions[what](); err != nil {
		t.Fatal(err)
	}
}

var childActions = map[string]func() error{}
