package lake

// Callbacks (CONFORMANCE.md, C-001 … C-007).

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

func tableVersion(t *testing.T, db *Db) string {
	v, err := db.TableVersions("media.clips")
	must(t, err)
	return v
}

// C-001
func TestC001_AReadSourceSurvivesForcedCollectionsWhileLakeHoldsIt(t *testing.T) {
	s := newScratch(t)
	db := s.openRoot("root")
	must(t, db.CreateTable("media.clips", []string{"name:utf8", "video:file"}))
	collections := 0
	src := &chunked{data: s.data, each: func() { runtime.GC(); collections++ }}
	_, err := db.Insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "a", Stream{Reader: src})
	must(t, err)
	if collections < 2 {
		t.Fatalf("%d collections inside the source", collections)
	}
	sha, err := s.locationOf(db, "a").SHA256()
	must(t, err)
	if sha != hexSHA(s.data) {
		t.Fatal("the insert stored other bytes")
	}
}

// C-002
func TestC002_AProgressCallbackSurvivesCollectionAndEndsAtTheSize(t *testing.T) {
	s := newScratch(t)
	_, stage := s.rootStage()
	opts := uploadOptions(t, nil)
	var seen []uint64
	must(t, opts.SetProgress(func(done, total uint64) {
		runtime.GC()
		seen = append(seen, done)
	}))
	runtime.GC()
	loc, err := stage.Put(&chunked{data: s.data}, opts)
	must(t, err)
	defer loc.Close()
	if len(seen) == 0 || seen[len(seen)-1] != objectSize {
		t.Fatalf("progress %v", seen)
	}
	if !sort.SliceIsSorted(seen, func(i, j int) bool { return seen[i] < seen[j] }) {
		t.Fatalf("progress went back: %v", seen)
	}
}

// dirStore is a host store in Go keeping objects as files under dir.
type dirStore struct {
	dir     string
	uploads int
	panicOn string // a method that panics
	mu      sync.Mutex
}

func (d *dirStore) RootURI() string { return "file://" + d.dir }

func (d *dirStore) path(uri string) string { return strings.TrimPrefix(uri, "file://") }

func (d *dirStore) Upload(uri, contentType string, body io.Reader) error {
	if d.panicOn == "Upload" {
		panic("host upload exploded")
	}
	d.mu.Lock()
	d.uploads++
	d.mu.Unlock()
	runtime.GC()
	data, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	runtime.GC()
	p := d.path(uri)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

func (d *dirStore) Open(uri string, start uint64) (io.ReadCloser, error) {
	if d.panicOn == "Open" {
		panic("host open exploded")
	}
	f, err := os.Open(d.path(uri))
	if errors.Is(err, os.ErrNotExist) {
		return nil, NotFound
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(int64(start), io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func (d *dirStore) List(prefix string, emit func(ListEntry) bool) error {
	return filepath.Walk(d.dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		uri := "file://" + p
		if strings.HasPrefix(uri, prefix) {
			emit(ListEntry{URI: uri, SizeBytes: uint64(info.Size()), ModifiedMicros: info.ModTime().UnixMicro()})
		}
		return nil
	})
}

func (d *dirStore) Remove(uri string) error {
	err := os.Remove(d.path(uri))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

func hostStage(t *testing.T, store *dirStore) *Stage {
	opts, err := NewStageOptions()
	must(t, err)
	defer opts.Close()
	must(t, opts.SetHostStore(store))
	stage, err := OpenStage(opts)
	must(t, err)
	t.Cleanup(func() { stage.Close() })
	return stage
}

// C-003
func TestC003_AHostStoreInGoServesAStage(t *testing.T) {
	s := newScratch(t)
	store := &dirStore{dir: filepath.Join(s.dir, "host")}
	stage := hostStage(t, store)
	if b, _ := stage.IOBackend(); b != "host" {
		t.Fatalf("backend %q", b)
	}
	loc, err := stage.PutFile(s.episode, nil)
	must(t, err)
	defer loc.Close()
	if store.uploads != 1 {
		t.Fatalf("%d uploads reached the store", store.uploads)
	}
	if got, verified := cat(t, stage, loc); !bytes.Equal(got, s.data) || !verified {
		t.Fatalf("cat %d bytes verified %v", len(got), verified)
	}
	if got := readRange(t, stage, loc, 1000, 2000); !bytes.Equal(got, s.data[1000:2000]) {
		t.Fatal("range read")
	}
	uri, _ := loc.URI()
	var listed []string
	must(t, stage.List(func(e ListEntry) bool { listed = append(listed, e.URI); return true }))
	if len(listed) != 1 || listed[0] != uri {
		t.Fatalf("listed %v, want %s", listed, uri)
	}
	must(t, stage.Delete(loc))
	if n := countObjects(t, stage); n != 0 {
		t.Fatalf("%d objects after delete", n)
	}
}

// C-004
func TestC004_APanickingReadSourceIsTheInsertsErrorAndPublishesNothing(t *testing.T) {
	s := newScratch(t)
	db := s.clipsRoot()
	stage, err := db.Stage()
	must(t, err)
	before, objects := tableVersion(t, db), countObjects(t, stage)
	calls := 0
	src := &chunked{data: s.data, each: func() {
		calls++
		if calls == 3 {
			panic("source exploded")
		}
	}}
	_, err = db.Insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "b", Stream{Reader: src})
	var ce *CallbackError
	if !errors.As(err, &ce) || fmt.Sprint(ce.Panic) != "source exploded" {
		t.Fatalf("want the source's panic, got %v", err)
	}
	var le *Error
	if !errors.As(err, &le) {
		t.Fatalf("lake's error is not attached: %v", err)
	}
	if tableVersion(t, db) != before || countObjects(t, stage) != objects {
		t.Fatal("a failed insert published")
	}
}

// C-005
func TestC005_APanickingProgressCallbackIsTheCallsError(t *testing.T) {
	s := newScratch(t)
	_, stage := s.rootStage()
	opts := uploadOptions(t, nil)
	must(t, opts.SetProgress(func(done, total uint64) { panic("progress exploded") }))
	loc, err := stage.PutFile(s.episode, opts)
	var ce *CallbackError
	if loc != nil || !errors.As(err, &ce) || fmt.Sprint(ce.Panic) != "progress exploded" {
		t.Fatalf("want the progress panic, got %v", err)
	}
}

// C-006
func TestC006_APanickingHostStoreIsTheErrorOfTheCallThatInvokedIt(t *testing.T) {
	s := newScratch(t)
	store := &dirStore{dir: filepath.Join(s.dir, "host")}
	stage := hostStage(t, store)
	loc, err := stage.PutFile(s.episode, nil)
	must(t, err)
	defer loc.Close()
	store.panicOn = "Upload"
	_, err = stage.PutFile(s.episode, nil)
	var ce *CallbackError
	if !errors.As(err, &ce) || fmt.Sprint(ce.Panic) != "host upload exploded" {
		t.Fatalf("put: want the store's panic, got %v", err)
	}
	store.panicOn = "Open"
	_, err = stage.Open(loc)
	if err == nil {
		var r *Reader
		r, _ = stage.Open(loc)
		_, err = readAll(t, r)
		r.Close()
	}
	if !errors.As(err, &ce) || fmt.Sprint(ce.Panic) != "host open exploded" {
		t.Fatalf("open: want the store's panic, got %v", err)
	}
}

// C-007
func TestC007_ATokenCancelledFromProgressStopsTheUpload(t *testing.T) {
	s := newScratch(t)
	_, stage := s.rootStage()
	before := countObjects(t, stage)
	token, err := NewCancelToken()
	must(t, err)
	defer token.Close()
	opts := uploadOptions(t, token)
	calls := 0
	must(t, opts.SetProgress(func(done, total uint64) {
		calls++
		token.Cancel()
	}))
	large := make([]byte, 8<<20) // progress comes every MiB
	_, err = stage.Put(bytes.NewReader(large), opts)
	lakeError(t, err, Cancelled)
	if calls == 0 {
		t.Fatal("progress was never called")
	}
	if after := countObjects(t, stage); after != before {
		t.Fatalf("objects %d -> %d", before, after)
	}
}
