package lake

// What the tests share: scratch roots holding the test object, a root with
// media.clips, and child processes (the test binary run again with
// LAKE_GO_CHILD naming what it does).

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

const objectSize = 300_000

type scratch struct {
	t       *testing.T
	dir     string
	data    []byte
	episode string
}

// newScratch is a fresh directory holding episode.mp4 (objectSize random
// bytes), removed after the test.
func newScratch(t *testing.T) *scratch {
	t.Helper()
	dir := t.TempDir()
	data := make([]byte, objectSize)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	episode := filepath.Join(dir, "episode.mp4")
	if err := os.WriteFile(episode, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return &scratch{t: t, dir: dir, data: data, episode: episode}
}

func (s *scratch) openRoot(name string) *Db {
	s.t.Helper()
	db, err := Open(filepath.Join(s.dir, name), nil)
	must(s.t, err)
	s.t.Cleanup(func() { db.Close() })
	return db
}

// clipsRoot is a root with media.clips (name utf8, video file) holding row "a".
func (s *scratch) clipsRoot() *Db {
	s.t.Helper()
	db := s.openRoot("root")
	must(s.t, db.CreateTable("media.clips", []string{"name:utf8", "video:file"}))
	_, err := db.Insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "a", File{Path: s.episode})
	must(s.t, err)
	return db
}

// locationOf is the location of row name's video.
func (s *scratch) locationOf(db *Db, name string) *Location {
	s.t.Helper()
	r, err := db.Query("SELECT video FROM media.clips WHERE name = ?", name)
	must(s.t, err)
	defer r.Close()
	b, err := r.Next()
	must(s.t, err)
	loc, err := b.Location("video", 0)
	must(s.t, err)
	s.t.Cleanup(func() { loc.Close() })
	return loc
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func hexSHA(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// readAll reads r to its end and closes it.
func readAll(t *testing.T, r *Reader) ([]byte, error) {
	t.Helper()
	var buf bytes.Buffer
	_, err := io.Copy(&buf, struct{ io.Reader }{r})
	return buf.Bytes(), err
}

// lakeError is err's *Error, failing the test when it has none.
func lakeError(t *testing.T, err error, code Status) *Error {
	t.Helper()
	var le *Error
	if !errors.As(err, &le) {
		t.Fatalf("want a lake %s error, got %v", code.Name(), err)
	}
	if le.Code != code {
		t.Fatalf("want %s, got %v", code.Name(), le)
	}
	return le
}

// child runs the test binary again as a child doing what, with env.
func child(t *testing.T, what string, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildProcess$", "-test.v")
	cmd.Env = append(append(os.Environ(), "LAKE_GO_CHILD="+what), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
