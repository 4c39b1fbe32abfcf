package lake

// Handles (CONFORMANCE.md, H-001 … H-008).

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// closer is any handle of the binding.
type closer interface{ Close() error }

// family is one of each handle kind, all open, made under one root.
type family struct {
	s      *scratch
	db     *Db
	stage  *Stage
	loc    *Location
	token  *CancelToken
	opts   *UploadOptions
	stmt   *Statement
	result *QueryResult
	batch  *Batch
	reader *Reader
	writer *Writer
	log    *EventLog
	ew     *EventWriter
	item   *FoldedItem
	blob   *Reader
}

func newFamily(t *testing.T) *family {
	s := newScratch(t)
	f := &family{s: s, db: s.clipsRoot()}
	var err error
	f.stage, err = f.db.Stage()
	must(t, err)
	f.loc = s.locationOf(f.db, "a")
	f.token, err = NewCancelToken()
	must(t, err)
	f.opts, err = NewUploadOptions()
	must(t, err)
	f.stmt, err = f.db.Prepare("SELECT name, video FROM media.clips")
	must(t, err)
	f.result, err = f.stmt.Query()
	must(t, err)
	f.batch, err = f.result.Next()
	must(t, err)
	f.reader, err = f.stage.Open(f.loc)
	must(t, err)
	f.writer, err = f.stage.Create(nil)
	must(t, err)
	_, err = f.writer.Write([]byte("abc"))
	must(t, err)
	must(t, f.db.CreateExperiment("demo", "run-1"))
	f.log, err = f.db.OpenEventLog("demo", "run-1", true)
	must(t, err)
	w, err := f.log.OpenWriter("p1", "epoch-1", nil)
	must(t, err)
	must(t, w.SetField("frames", Blob(s.data[:100_000]), nil))
	must(t, w.Commit())
	must(t, w.Close())
	f.ew, err = f.log.OpenWriter("p2", "epoch-1", nil)
	must(t, err)
	f.item, err = f.log.Fold("p1")
	must(t, err)
	f.blob, err = f.item.OpenBlob("frames", 0)
	must(t, err)
	t.Cleanup(func() {
		for _, c := range f.all() {
			c.Close()
		}
	})
	return f
}

func (f *family) all() map[string]closer {
	return map[string]closer{
		"location": f.loc, "cancel token": f.token, "upload options": f.opts,
		"statement": f.stmt, "query result": f.result, "batch": f.batch, "reader": f.reader,
		"writer": f.writer, "event writer": f.ew, "blob reader": f.blob, "folded item": f.item,
		"event log": f.log, "stage": f.stage, "root": f.db,
	}
}

// use calls one method of each handle kind; the error each returned.
func (f *family) use() map[string]error {
	errs := map[string]error{}
	_, errs["location"] = f.loc.URI()
	_, errs["cancel token"] = f.token.Cancelled()
	errs["upload options"] = f.opts.SetContentType("video/mp4")
	_, errs["statement"] = f.stmt.ParameterCount()
	_, errs["query result"] = f.result.Next()
	_, errs["batch"] = f.batch.Rows()
	_, errs["reader"] = f.reader.Read(make([]byte, 10))
	_, errs["writer"] = f.writer.Write([]byte("x"))
	errs["event writer"] = f.ew.SetField("caption", "x", nil)
	_, errs["blob reader"] = f.blob.Read(make([]byte, 10))
	_, errs["folded item"] = f.item.Status()
	errs["event log"] = f.log.Refresh()
	_, errs["stage"] = f.stage.Descriptor()
	_, errs["root"] = f.db.Tables()
	return errs
}

// H-001
func TestH001_ClosingAnyHandleTwiceIsANoOp(t *testing.T) {
	f := newFamily(t)
	before := OpenHandles()
	kinds := f.all()
	// Children before parents, so each Close is the handle's own.
	order := []string{"location", "upload options", "cancel token", "batch", "query result",
		"statement", "reader", "writer", "blob reader", "folded item", "event writer",
		"event log", "stage", "root"}
	for _, kind := range order {
		if err := kinds[kind].Close(); err != nil {
			t.Fatalf("first close of the %s: %v", kind, err)
		}
		if err := kinds[kind].Close(); err != nil {
			t.Fatalf("second close of the %s: %v", kind, err)
		}
	}
	if n := OpenHandles(); n != before-int64(len(order)) {
		t.Fatalf("open handles %d -> %d, want -%d", before, n, len(order))
	}
}

// H-002
func TestH002_AClosedHandleIsErrClosedWithoutCallingLake(t *testing.T) {
	f := newFamily(t)
	for _, c := range f.all() {
		c.Close()
	}
	entries := nativeEntries.Load()
	for kind, err := range f.use() {
		if err != ErrClosed {
			t.Errorf("the closed %s gave %v", kind, err)
		}
	}
	if n := nativeEntries.Load() - entries; n != 0 {
		t.Fatalf("closed handles entered lake %d times", n)
	}
}

// H-003
func TestH003_ClosingARootClosesItsChildrenFirst(t *testing.T) {
	f := newFamily(t)
	must(t, f.db.Close())
	for kind, err := range f.use() {
		independent := kind == "location" || kind == "cancel token" || kind == "upload options"
		if independent && err == ErrClosed {
			t.Errorf("the %s, no child of the root, was closed", kind)
		}
		if !independent && err != ErrClosed {
			t.Errorf("the root's %s gave %v after the root closed", kind, err)
		}
	}
}

// H-004
func TestH004_ClosingAnEventLogClosesItsWritersItemsAndBlobReaders(t *testing.T) {
	f := newFamily(t)
	must(t, f.log.Close())
	if err := f.ew.Commit(); err != ErrClosed {
		t.Errorf("event writer: %v", err)
	}
	if _, err := f.item.Status(); err != ErrClosed {
		t.Errorf("folded item: %v", err)
	}
	if _, err := f.blob.Read(make([]byte, 10)); err != ErrClosed {
		t.Errorf("blob reader: %v", err)
	}
	if _, err := f.db.Tables(); err != nil {
		t.Errorf("the root: %v", err)
	}
}

// H-005
func TestH005_ClosingAStatementReleasesItsStreamsAndKeepsItsResults(t *testing.T) {
	s := newScratch(t)
	db := s.clipsRoot()
	ins, err := db.Prepare("INSERT INTO media.clips (name, video) VALUES (?, ?)")
	must(t, err)
	must(t, ins.BindAll("b", Stream{Reader: bytes.NewReader(s.data)}))
	src := ins.sources[2]
	if src == nil || src.refs.Load() != 1 {
		t.Fatal("the bound stream is not kept")
	}
	must(t, ins.Close())
	if len(ins.sources) != 0 || src.refs.Load() != 0 {
		t.Fatal("closing the statement kept its stream")
	}
	sel, err := db.Prepare("SELECT name FROM media.clips")
	must(t, err)
	result, err := sel.Query()
	must(t, err)
	must(t, sel.Close())
	b, err := result.Next()
	must(t, err)
	names, err := b.Strings("name")
	must(t, err)
	if len(names) != 1 || names[0] != "a" {
		t.Fatalf("names %v", names)
	}
	must(t, db.Close())
	if _, err := b.Rows(); err != ErrClosed {
		t.Fatalf("after the root closed: %v", err)
	}
}

func init() {
	// A child opening the root, creating a table with a busy timeout of 0,
	// and printing its pid and the writer lock's text.
	childActions["writer"] = func() error {
		root := os.Getenv("LAKE_GO_ROOT")
		db, err := Open(root, nil)
		if err != nil {
			return err
		}
		defer db.Close()
		if err := db.SetBusyTimeout(0); err != nil {
			return err
		}
		if err := db.CreateTable("media.second", []string{"name:utf8"}); err != nil {
			return err
		}
		lock, err := os.ReadFile(filepath.Join(root, "writer.lock"))
		if err != nil {
			return err
		}
		fmt.Printf("PID %d LOCK %s\n", os.Getpid(), strings.TrimSpace(string(lock)))
		return nil
	}
}

// H-006
func TestH006_ClosingARootReleasesItsWriterLockAtOnce(t *testing.T) {
	s := newScratch(t)
	root := filepath.Join(s.dir, "root")
	db, err := Open(root, nil)
	must(t, err)
	must(t, db.CreateTable("media.first", []string{"name:utf8"}))
	lock, err := os.ReadFile(filepath.Join(root, "writer.lock"))
	must(t, err)
	if !strings.Contains(string(lock), strconv.Itoa(os.Getpid())) {
		t.Fatalf("writer.lock %q does not name this process", lock)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	must(t, db.Close())
	started := time.Now()
	out, err := child(t, "writer", "LAKE_GO_ROOT="+root)
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var pid int
	var lockText string
	i := strings.Index(out, "PID ")
	if i < 0 {
		t.Fatalf("child printed:\n%s", out)
	}
	fmt.Sscanf(out[i:], "PID %d LOCK %s", &pid, &lockText)
	if !strings.Contains(lockText, strconv.Itoa(pid)) {
		t.Fatalf("the lock %q does not name the child %d", lockText, pid)
	}
	if time.Since(started) > 10*time.Second {
		t.Fatal("the child waited for the lock")
	}
}

// H-007
func TestH007_ClosingAStandaloneStageClosesItsReadersAndWriters(t *testing.T) {
	s := newScratch(t)
	stage := s.localStage()
	loc, err := stage.PutFile(s.episode, nil)
	must(t, err)
	defer loc.Close()
	r, err := stage.Open(loc)
	must(t, err)
	w, err := stage.Create(nil)
	must(t, err)
	_, err = w.Write([]byte("abc"))
	must(t, err)
	must(t, stage.Close())
	if _, err := r.Read(make([]byte, 10)); err != ErrClosed {
		t.Errorf("reader: %v", err)
	}
	if _, err := w.Write([]byte("x")); err != ErrClosed {
		t.Errorf("writer: %v", err)
	}
	if _, err := loc.URI(); err != nil {
		t.Errorf("the location, no child of the stage: %v", err)
	}
}

// H-008
func TestH008_ClosingACancelTokenClosesTheOptionsAndWritersBorrowingIt(t *testing.T) {
	s := newScratch(t)
	_, stage := s.rootStage()
	token, err := NewCancelToken()
	must(t, err)
	opts, err := NewUploadOptions()
	must(t, err)
	must(t, opts.SetCancelToken(token))
	w, err := stage.Create(opts)
	must(t, err)
	_, err = w.Write([]byte("abc"))
	must(t, err)
	other, err := stage.Create(nil)
	must(t, err)
	defer other.Close()
	must(t, token.Close())
	if err := opts.SetContentType("video/mp4"); err != ErrClosed {
		t.Errorf("options: %v", err)
	}
	if _, err := w.Write([]byte("x")); err != ErrClosed {
		t.Errorf("writer: %v", err)
	}
	if _, err := other.Write([]byte("x")); err != nil {
		t.Errorf("a writer without the token: %v", err)
	}
}

// Options given a second token borrow only it: closing the first leaves
// them open, closing the second closes them.
func TestOptionsGivenASecondTokenAreClosedOnlyByIt(t *testing.T) {
	first, err := NewCancelToken()
	must(t, err)
	second, err := NewCancelToken()
	must(t, err)
	opts := uploadOptions(t, first)
	must(t, opts.SetCancelToken(second))
	must(t, first.Close())
	must(t, opts.SetContentType("video/mp4"))
	must(t, second.Close())
	if err := opts.SetContentType("video/mp4"); err != ErrClosed {
		t.Fatalf("after the second token closed: %v", err)
	}
}
