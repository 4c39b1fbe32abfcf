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

// rootStage is a new root and its stage.
func (s *scratch) rootStage() (*Db, *Stage) {
	s.t.Helper()
	db := s.openRoot("root")
	stage, err := db.Stage()
	must(s.t, err)
	return db, stage
}

// localStage is a stage of its own in the scratch directory.
func (s *scratch) localStage() *Stage {
	s.t.Helper()
	opts, err := NewStageOptions()
	must(s.t, err)
	defer opts.Close()
	must(s.t, opts.SetLocalRoot(filepath.Join(s.dir, "stage")))
	stage, err := OpenStage(opts)
	must(s.t, err)
	s.t.Cleanup(func() { stage.Close() })
	return stage
}

// uploadOptions are options closed after the test, watching token if
// not nil.
func uploadOptions(t *testing.T, token *CancelToken) *UploadOptions {
	t.Helper()
	opts, err := NewUploadOptions()
	must(t, err)
	t.Cleanup(func() { opts.Close() })
	if token != nil {
		must(t, opts.SetCancelToken(token))
	}
	return opts
}

// rowCount is the number of rows of media.clips.
func rowCount(t *testing.T, db *Db) int64 {
	t.Helper()
	r, err := db.Query("SELECT count(*) FROM media.clips")
	must(t, err)
	defer r.Close()
	b, err := r.Next()
	must(t, err)
	n, err := b.Int64s("count")
	must(t, err)
	return n[0]
}

// truncatedRead reads row "a"'s object in full after truncating it to
// size bytes; the read's error.
func (s *scratch) truncatedRead(size int64) error {
	s.t.Helper()
	db := s.clipsRoot()
	loc := s.locationOf(db, "a")
	must(s.t, os.Truncate(storedPath(s.t, loc), size))
	stage, err := db.Stage()
	must(s.t, err)
	r, err := stage.Open(loc)
	must(s.t, err)
	defer r.Close()
	_, err = readAll(s.t, r)
	return err
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

// cat reads loc in full through stage (verified); its bytes and whether
// the reader reported verified.
func cat(t *testing.T, stage *Stage, loc *Location) ([]byte, bool) {
	t.Helper()
	r, err := stage.Open(loc)
	must(t, err)
	defer r.Close()
	got, err := readAll(t, r)
	must(t, err)
	verified, err := r.Verified()
	must(t, err)
	return got, verified
}

// readRange reads [start, end) of loc through stage.
func readRange(t *testing.T, stage *Stage, loc *Location, start, end uint64) []byte {
	t.Helper()
	r, err := stage.OpenRange(loc, start, end)
	must(t, err)
	defer r.Close()
	got, err := readAll(t, r)
	must(t, err)
	return got
}

// clipsReader is a root with row "a" and an open verified reader of its
// object (closed after the test).
func (s *scratch) clipsReader() *Reader {
	s.t.Helper()
	db := s.clipsRoot()
	stage, err := db.Stage()
	must(s.t, err)
	r, err := stage.Open(s.locationOf(db, "a"))
	must(s.t, err)
	s.t.Cleanup(func() { r.Close() })
	return r
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
