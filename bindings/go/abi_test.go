package lake

// The ABI (CONFORMANCE.md, A-001, A-002).

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const stubSource = `#include <stdint.h>
uint32_t lake_abi_version(void) { return %d; }
const char* lake_version_string(void) { return "stub"; }
`

func init() {
	// A child whose lake_abi_version is the stub's (LD_PRELOAD): the first
	// constructor must refuse the library before any handle exists.
	childActions["abi"] = func() error {
		_, err := NewLocation("file:///x", "a/b", 1, strings.Repeat("0", 64))
		var abi *ABIError
		if !errors.As(err, &abi) {
			return fmt.Errorf("want an *ABIError, got %v", err)
		}
		fmt.Printf("REFUSED %s\nHANDLES %d\n", err, OpenHandles())
		return nil
	}
}

//
func TestA001_AnABIVersionMismatchIsRefusedAtLoad(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatalf("the real library: %v", err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "stub.c")
	must(t, os.WriteFile(src, []byte(fmt.Sprintf(stubSource, ABIVersion+1)), 0o644))
	stub := filepath.Join(dir, "liblake_stub.so")
	if out, err := exec.Command("cc", "-shared", "-fPIC", "-o", stub, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	out, err := child(t, "abi", "LD_PRELOAD="+stub)
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(out, fmt.Sprintf("implements lake ABI %d", ABIVersion+1)) || !strings.Contains(out, "HANDLES 0\n") {
		t.Fatalf("child printed:\n%s", out)
	}
}

//
func TestA002_EveryLakeAPIFunctionIsDeclared(t *testing.T) {
	header, err := os.ReadFile(filepath.Join("..", "..", "include", "lake.h"))
	must(t, err)
	text := regexp.MustCompile(`(?s)/\*.*?\*/`).ReplaceAllString(string(header), "")
	text = regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(text, "")
	var functions []string
	for _, m := range regexp.MustCompile(`LAKE_API\b[^;(]*?\b(lake_\w+)\s*\(`).FindAllStringSubmatch(text, -1) {
		functions = append(functions, m[1])
	}
	if len(functions) < 150 {
		t.Fatalf("found only %d LAKE_API functions", len(functions))
	}
	sources, err := filepath.Glob("*.go")
	must(t, err)
	declared := map[string]bool{}
	word := regexp.MustCompile(`\blake_\w+\b`)
	for _, path := range sources {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		b, err := os.ReadFile(path)
		must(t, err)
		for _, w := range word.FindAllString(string(b), -1) {
			declared[w] = true
		}
	}
	var missing []string
	for _, f := range functions {
		if !declared[f] {
			missing = append(missing, f)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("%d lake.h functions the binding does not call: %v", len(missing), missing)
	}
}
