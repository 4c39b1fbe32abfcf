package lake

// Errors and integrity (CONFORMANCE.md, E-001 … E-005, I-001 … I-004).

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func storedPath(t *testing.T, loc *Location) string {
	uri, err := loc.URI()
	must(t, err)
	return strings.TrimPrefix(uri, "file://")
}

// E-001
func TestE001_EachStatusIsItsOwnErrorSharingOneBaseType(t *testing.T) {
	seen := map[Status]bool{}
	for code := 1; code <= 8; code++ {
		err := error(errorOfCode(code))
		var le *Error
		if !errors.As(err, &le) || int(le.Code) != code || !errors.Is(err, Status(code)) {
			t.Fatalf("code %d gave %v", code, err)
		}
		for other := 1; other <= 8; other++ {
			if other != code && errors.Is(err, Status(other)) {
				t.Fatalf("code %d is also status %d", code, other)
			}
		}
		seen[le.Code] = true
	}
	if len(seen) != 8 {
		t.Fatalf("%d distinct statuses", len(seen))
	}
	unknown := errorOfCode(99)
	if unknown.Code != Internal || !errors.Is(unknown, Internal) {
		t.Fatalf("code 99 gave %v", unknown)
	}
}

// E-002
func TestE002_AnErrorCarriesLakesDetails(t *testing.T) {
	err := newScratch(t).truncatedRead(1000)
	le := lakeError(t, err, Integrity)
	if le.Message == "" || !strings.Contains(err.Error(), le.Message) {
		t.Fatalf("message %q in %q", le.Message, err.Error())
	}
	if le.IntegrityKind != IntegritySizeShort || le.Expected != objectSize || le.Observed != 1000 {
		t.Fatalf("kind %v expected %d observed %d", le.IntegrityKind, le.Expected, le.Observed)
	}
	if le.Retryable || le.PendingOperationID != "" {
		t.Fatalf("retryable %v pending %q", le.Retryable, le.PendingOperationID)
	}
}

// E-003
func TestE003_RealCallsReachGoAsTheirStatuses(t *testing.T) {
	s := newScratch(t)
	db := s.openRoot("root")
	must(t, db.CreateTable("media.clips", []string{"name:utf8", "video:file"}))
	_, err := ParseLocation(`{"uri":"file:///x"}`)
	if le := lakeError(t, err, InvalidArgument); le.IntegrityKind != IntegrityInvalidLocation {
		t.Fatalf("kind %v", le.IntegrityKind)
	}
	lakeError(t, db.CreateTable("media.clips", []string{"name:utf8"}), Conflict)
	_, err = db.DescribeTable("media.nothing")
	lakeError(t, err, NotFound)
	stage, err := db.Stage()
	must(t, err)
	before := countObjects(t, stage)
	token, err := NewCancelToken()
	must(t, err)
	defer token.Close()
	must(t, token.Cancel())
	opts := uploadOptions(t, token)
	_, err = stage.PutFile(s.episode, opts)
	lakeError(t, err, Cancelled)
	if after := countObjects(t, stage); after != before {
		t.Fatalf("a cancelled upload published: %d -> %d", before, after)
	}
	loc, err := stage.PutFile(s.episode, nil)
	must(t, err)
	defer loc.Close()
	_, err = stage.Presign(loc, 60)
	lakeError(t, err, Unsupported)
}

func init() {
	// A child inserting a row under LAKE_FAILPOINTS; prints the error as JSON.
	childActions["insert"] = func() error {
		db, err := Open(os.Getenv("LAKE_GO_ROOT"), nil)
		if err != nil {
			return err
		}
		defer db.Close()
		_, err = db.Insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "c", nil)
		var le *Error
		if !errors.As(err, &le) {
			return fmt.Errorf("want a lake error, got %v", err)
		}
		out, _ := json.Marshal(le)
		fmt.Printf("ERROR %s\n", out)
		return nil
	}
}

func insertUnderFailpoint(t *testing.T, failpoint string) (*scratch, *Error) {
	s := newScratch(t)
	db := s.clipsRoot()
	must(t, db.Close())
	out, err := child(t, "insert", "LAKE_GO_ROOT="+filepath.Join(s.dir, "root"), "LAKE_FAILPOINTS="+failpoint)
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	i := strings.Index(out, "ERROR ")
	if i < 0 {
		t.Fatalf("child printed no error:\n%s", out)
	}
	line := strings.SplitN(out[i+len("ERROR "):], "\n", 2)[0]
	var le Error
	must(t, json.Unmarshal([]byte(line), &le))
	return s, &le
}

// E-004
func TestE004_ATransientFailureIsRetryableWithoutPendingOperation(t *testing.T) {
	_, le := insertUnderFailpoint(t, "table_append.fragment_written=error")
	if le.Code != IO || !le.Retryable || le.PendingOperationID != "" {
		t.Fatalf("got %+v", le)
	}
}

// E-005
func TestE005_AFailureAfterTheCommitNamesItsPendingOperation(t *testing.T) {
	s, le := insertUnderFailpoint(t, "table_append.committed=error")
	if le.Code != IO || le.Retryable || len(le.PendingOperationID) != 36 {
		t.Fatalf("got %+v", le)
	}
	db := s.openRoot("root")
	pending, err := db.PendingAppends()
	must(t, err)
	if !strings.Contains(pending, `"operation_id":"`+le.PendingOperationID+`"`) {
		t.Fatalf("pending appends %s lack %s", pending, le.PendingOperationID)
	}
}

// tampered is a root whose row "a" object has one byte flipped in place.
func tampered(t *testing.T) (*scratch, *Db, *Location) {
	s := newScratch(t)
	db := s.clipsRoot()
	loc := s.locationOf(db, "a")
	f, err := os.OpenFile(storedPath(t, loc), os.O_RDWR, 0)
	must(t, err)
	defer f.Close()
	b := make([]byte, 1)
	_, err = f.ReadAt(b, objectSize/2)
	must(t, err)
	b[0] ^= 0xFF
	_, err = f.WriteAt(b, objectSize/2)
	must(t, err)
	return s, db, loc
}

// I-001
func TestI001_ATamperedObjectFailsAtTheEndOfAFullRead(t *testing.T) {
	_, db, loc := tampered(t)
	stage, err := db.Stage()
	must(t, err)
	r, err := stage.Open(loc)
	must(t, err)
	defer r.Close()
	delivered := 0
	buf := make([]byte, 65536)
	for {
		n, err := r.Read(buf)
		delivered += n
		if err == io.EOF {
			t.Fatal("a tampered object reached a successful end")
		}
		if err != nil {
			le := lakeError(t, err, Integrity)
			if le.IntegrityKind != IntegrityDigestMismatch {
				t.Fatalf("kind %v", le.IntegrityKind)
			}
			break
		}
	}
	if delivered != objectSize {
		t.Fatalf("delivered %d bytes before the failure", delivered)
	}
	if v, _ := r.Verified(); v {
		t.Fatal("verified after a failure")
	}
}

// I-002
func TestI002_ATruncatedObjectIsSizeShortWithItsCounts(t *testing.T) {
	le := lakeError(t, newScratch(t).truncatedRead(123_456), Integrity)
	if le.IntegrityKind != IntegritySizeShort || le.Expected != objectSize || le.Observed != 123_456 {
		t.Fatalf("got %+v", le)
	}
}

// I-003
func TestI003_AnEarlyCloseClaimsNothing(t *testing.T) {
	_, db, loc := tampered(t)
	stage, err := db.Stage()
	must(t, err)
	r, err := stage.Open(loc)
	must(t, err)
	buf := make([]byte, 1000)
	n, err := io.ReadFull(r, buf)
	must(t, err)
	if n != 1000 {
		t.Fatalf("read %d", n)
	}
	if v, _ := r.Verified(); v {
		t.Fatal("verified after 1000 bytes")
	}
	must(t, r.Close())
	if _, err := r.Verified(); err != ErrClosed {
		t.Fatalf("after close: %v", err)
	}
}

// Where a fragment's bytes lie: a file, or the payload of a record in a
// table log segment.
type fragmentBytes struct {
	path         string
	offset, size int
}

// The table's fragments: every data/*.frag file, and every fragment record
// of its log. The log's layout (engine/table/table_log_format.h): a 32-byte
// segment header, then records, each a 32-byte header (magic "LKTR", the
// kind at byte 4 — 2 is a fragment —, the payload bytes as a little-endian
// u64 at byte 16) and its payload.
func fragmentsOf(t *testing.T, tableDir string) []fragmentBytes {
	var found []fragmentBytes
	files, err := filepath.Glob(filepath.Join(tableDir, "data", "*.frag"))
	must(t, err)
	for _, f := range files {
		info, err := os.Stat(f)
		must(t, err)
		found = append(found, fragmentBytes{f, 0, int(info.Size())})
	}
	segments, err := filepath.Glob(filepath.Join(tableDir, "_log", "*.seg"))
	must(t, err)
	for _, seg := range segments {
		data, err := os.ReadFile(seg)
		must(t, err)
		for at := 32; at+32 <= len(data) && string(data[at:at+4]) == "LKTR"; {
			size := int(binary.LittleEndian.Uint64(data[at+16 : at+24]))
			if data[at+4] == 2 {
				found = append(found, fragmentBytes{seg, at + 32, size})
			}
			at += 32 + size
		}
	}
	return found
}

// I-004
func TestI004_AQueryOverADamagedFragmentIsAnIntegrityError(t *testing.T) {
	s := newScratch(t)
	db := s.clipsRoot()
	frags := fragmentsOf(t, filepath.Join(s.dir, "root", "tables", "media", "clips"))
	if len(frags) != 1 {
		t.Fatalf("%d fragments, not one", len(frags))
	}
	data, err := os.ReadFile(frags[0].path)
	must(t, err)
	data[frags[0].offset+frags[0].size/2] ^= 0xFF
	must(t, os.WriteFile(frags[0].path, data, 0o644))
	r, err := db.Query("SELECT name, video FROM media.clips")
	must(t, err)
	defer r.Close()
	for {
		b, err := r.Next()
		if err == io.EOF {
			t.Fatal("a damaged fragment was read to the end")
		}
		if err != nil {
			lakeError(t, err, Integrity)
			return
		}
		if _, err := b.Strings("name"); err != nil {
			t.Fatal(err)
		}
	}
}
