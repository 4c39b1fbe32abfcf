package lake

// The vertical slice (CONFORMANCE.md, S-001 … S-012).

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// S-001
func TestS001_OpeningANewDirectoryCreatesARootThatKeepsItsTables(t *testing.T) {
	s := newScratch(t)
	dir := filepath.Join(s.dir, "new-root")
	db, err := Open(dir, nil)
	must(t, err)
	must(t, db.CreateTable("media.clips", []string{"name:utf8", "video:file"}))
	must(t, db.Close())
	again, err := Open(dir, nil)
	must(t, err)
	defer again.Close()
	tables, err := again.Tables()
	must(t, err)
	if !strings.Contains(tables, `"media.clips"`) {
		t.Fatalf("tables after reopening: %s", tables)
	}
}

// S-002
func TestS002_CreatingATableTwiceIsAConflict(t *testing.T) {
	s := newScratch(t)
	db := s.openRoot("root")
	cols := []string{"name:utf8", "video:file"}
	must(t, db.CreateTable("media.clips", cols))
	err := db.CreateTable("media.clips", cols)
	lakeError(t, err, Conflict)
	if !errors.Is(err, Conflict) {
		t.Fatal("errors.Is(err, Conflict) is false")
	}
}

// S-003
func TestS003_InsertingAFilePathReturnsVersion1AndAddsARow(t *testing.T) {
	s := newScratch(t)
	db := s.openRoot("root")
	must(t, db.CreateTable("media.clips", []string{"name:utf8", "video:file"}))
	v, err := db.Insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "a", File{Path: s.episode})
	must(t, err)
	if v != 1 {
		t.Fatalf("version %d, want 1", v)
	}
	if n := rowCount(t, db); n != 1 {
		t.Fatalf("%d rows, want 1", n)
	}
}

// chunked yields data in small reads, so lake pulls it in several calls.
type chunked struct {
	data  []byte
	calls int
	each  func()
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	if c.each != nil {
		c.each()
	}
	c.calls++
	n := copy(p[:min(len(p), 7000)], c.data)
	c.data = c.data[n:]
	return n, nil
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// S-004
func TestS004_InsertingAStreamStoresItsBytes(t *testing.T) {
	s := newScratch(t)
	db := s.openRoot("root")
	must(t, db.CreateTable("media.clips", []string{"name:utf8", "video:file"}))
	src := &chunked{data: s.data}
	_, err := db.Insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "a", Stream{Reader: src, ContentType: "video/mp4"})
	must(t, err)
	if src.calls < 2 {
		t.Fatalf("lake read the stream in %d calls", src.calls)
	}
	loc := s.locationOf(db, "a")
	size, err := loc.SizeBytes()
	must(t, err)
	sha, err := loc.SHA256()
	must(t, err)
	if size != objectSize || sha != hexSHA(s.data) {
		t.Fatalf("stored %d bytes %s", size, sha)
	}
}

// S-005
func TestS005_AQueryGivesNamesInOrderAndOneFileCellPerRow(t *testing.T) {
	s := newScratch(t)
	db := s.clipsRoot()
	for _, name := range []string{"c", "b"} {
		_, err := db.Insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", name, File{Path: s.episode})
		must(t, err)
	}
	r, err := db.Query("SELECT name, video FROM media.clips ORDER BY name")
	must(t, err)
	defer r.Close()
	var names []string
	cells := 0
	for {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		must(t, err)
		n, err := b.Strings("name")
		must(t, err)
		names = append(names, n...)
		for row := range n {
			loc, err := b.Location("video", row)
			must(t, err)
			loc.Close()
			cells++
		}
	}
	if strings.Join(names, ",") != "a,b,c" || cells != 3 {
		t.Fatalf("names %v, %d file cells", names, cells)
	}
}

// S-006
func TestS006_ALocationHasTheObjectsFieldsAndANullCellIsNotFound(t *testing.T) {
	s := newScratch(t)
	db := s.clipsRoot()
	loc := s.locationOf(db, "a")
	uri, _ := loc.URI()
	ct, _ := loc.ContentType()
	size, _ := loc.SizeBytes()
	sha, _ := loc.SHA256()
	if !strings.HasPrefix(uri, "file://") || ct != "application/octet-stream" || size != objectSize || sha != hexSHA(s.data) {
		t.Fatalf("location %s %s %d %s", uri, ct, size, sha)
	}
	_, err := db.Insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "n", nil)
	must(t, err)
	r, err := db.Query("SELECT video FROM media.clips WHERE name = ?", "n")
	must(t, err)
	defer r.Close()
	b, err := r.Next()
	must(t, err)
	_, err = b.Location("video", 0)
	lakeError(t, err, NotFound)
}

// S-007
func TestS007_AVerifiedFullReadReturnsTheObjectAndReportsVerified(t *testing.T) {
	s := newScratch(t)
	r := s.clipsReader()
	got, err := readAll(t, r)
	must(t, err)
	verified, err := r.Verified()
	must(t, err)
	if !bytes.Equal(got, s.data) || !verified {
		t.Fatalf("read %d bytes, verified %v", len(got), verified)
	}
}

// S-008
func TestS008_ARangeReadReturnsItsBytesAndBadRangesAreInvalid(t *testing.T) {
	s := newScratch(t)
	db := s.clipsRoot()
	stage, err := db.Stage()
	must(t, err)
	loc := s.locationOf(db, "a")
	if got := readRange(t, stage, loc, 1000, 2000); !bytes.Equal(got, s.data[1000:2000]) {
		t.Fatalf("range gave %d bytes", len(got))
	}
	for _, bad := range [][2]uint64{{5, 5}, {10, 5}, {0, objectSize + 1}} {
		_, err := stage.OpenRange(loc, bad[0], bad[1])
		lakeError(t, err, InvalidArgument)
	}
}

// S-009
func TestS009_ABatchOfRangesReadsEachAndReportsTheBadOne(t *testing.T) {
	s := newScratch(t)
	db := s.clipsRoot()
	stage, err := db.Stage()
	must(t, err)
	other, err := stage.Put(bytes.NewReader(s.data[:5000]), nil)
	must(t, err)
	defer other.Close()
	loc := s.locationOf(db, "a")
	results, err := stage.ReadRanges([]Range{{loc, 0, 10}, {other, 100, 200}, {loc, 299_990, 300_000}})
	must(t, err)
	want := [][]byte{s.data[0:10], s.data[100:200], s.data[299_990:]}
	for i, r := range results {
		if r.Err != nil || !bytes.Equal(r.Data, want[i]) {
			t.Fatalf("range %d: %v", i, r.Err)
		}
	}
	results, err = stage.ReadRanges([]Range{{loc, 0, 10}, {other, 4000, 6000}})
	lakeError(t, err, InvalidArgument)
	lakeError(t, results[1].Err, InvalidArgument)
	if results[0].Err != nil || !bytes.Equal(results[0].Data, s.data[:10]) {
		t.Fatalf("the good range failed: %v", results[0].Err)
	}
}

func countObjects(t *testing.T, stage *Stage) int {
	n := 0
	must(t, stage.List(func(ListEntry) bool { n++; return true }))
	return n
}

// S-010
func TestS010_PutAndWriterObjectsComeBackVerifiedAndAnUnpublishedWriterPublishesNothing(t *testing.T) {
	s := newScratch(t)
	_, stage := s.rootStage()
	opts := uploadOptions(t, nil)
	must(t, opts.SetContentType("video/mp4"))
	put, err := stage.PutFile(s.episode, opts)
	must(t, err)
	defer put.Close()
	w, err := stage.Create(opts)
	must(t, err)
	for i := 0; i < len(s.data); i += 100_000 {
		_, err := w.Write(s.data[i : i+100_000])
		must(t, err)
	}
	pushed, err := w.Publish()
	must(t, err)
	defer pushed.Close()
	for _, loc := range []*Location{put, pushed} {
		got, verified := cat(t, stage, loc)
		ct, _ := loc.ContentType()
		if !bytes.Equal(got, s.data) || !verified || ct != "video/mp4" {
			t.Fatalf("cat gave %d bytes, verified %v, %s", len(got), verified, ct)
		}
	}
	before := countObjects(t, stage)
	w, err = stage.Create(nil)
	must(t, err)
	_, err = w.Write([]byte("never published"))
	must(t, err)
	must(t, w.Close())
	if after := countObjects(t, stage); after != before {
		t.Fatalf("objects %d -> %d", before, after)
	}
}

// S-011
func TestS011_AnEventLogItemFoldsAndItsBlobReadsVerified(t *testing.T) {
	s := newScratch(t)
	db := s.openRoot("root")
	must(t, db.CreateExperiment("demo", "run-1"))
	log, err := db.OpenEventLog("demo", "run-1", true)
	must(t, err)
	defer log.Close()
	w, err := log.OpenWriter("p1", "epoch-1", nil)
	must(t, err)
	blob := s.data[:100_000]
	must(t, w.SetField("caption", "a clip", nil))
	must(t, w.SetField("frames", Blob(blob), nil))
	must(t, w.Terminal(false, nil))
	must(t, w.Commit())
	must(t, w.Close())
	item, err := log.Fold("p1")
	must(t, err)
	defer item.Close()
	status, _ := item.Status()
	caption, err := item.Value("caption", 0)
	must(t, err)
	if status != "completed" || caption != "a clip" {
		t.Fatalf("folded %s %v", status, caption)
	}
	tree, err := log.Tree("p1")
	must(t, err)
	if !strings.Contains(tree, `"item_id":"p1"`) {
		t.Fatalf("tree %s", tree)
	}
	r, err := item.OpenBlob("frames", 0)
	must(t, err)
	defer r.Close()
	got, err := readAll(t, r)
	must(t, err)
	verified, _ := r.Verified()
	if !bytes.Equal(got, blob) || !verified {
		t.Fatalf("blob %d bytes verified %v", len(got), verified)
	}
}

// S-012
func TestS012_AGcDryRunCountsAnUnreferencedObjectAndDeletesNothing(t *testing.T) {
	s := newScratch(t)
	db := s.clipsRoot()
	stage, err := db.Stage()
	must(t, err)
	loc, err := stage.PutFile(s.episode, nil)
	must(t, err)
	defer loc.Close()
	opts, err := NewGcOptions()
	must(t, err)
	defer opts.Close()
	must(t, opts.SetCutoffSeconds(0))
	must(t, opts.SetAllowShortCutoff(true))
	plan, err := db.GcPlan(opts)
	must(t, err)
	if !strings.Contains(plan, `"objects":1,`) {
		t.Fatalf("plan %s", plan)
	}
	r, err := stage.Open(loc)
	must(t, err)
	defer r.Close()
	got, err := readAll(t, r)
	must(t, err)
	if !bytes.Equal(got, s.data) {
		t.Fatal("the object changed")
	}
}
