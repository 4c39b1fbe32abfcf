package lake

// Readers beyond the scenarios: io.Copy reads through WriterTo (lake's own
// buffers, lake_reader_read_view) with the same verification, and a
// reader closed while another goroutine reads it stays safe.

import (
	"bytes"
	"io"
	"sync"
	"testing"
)

func TestCopyingAReaderGivesTheObjectAndEndsVerified(t *testing.T) {
	s := newScratch(t)
	r := s.clipsReader()
	var buf bytes.Buffer
	n, err := io.Copy(&buf, r) // *Reader is an io.WriterTo
	must(t, err)
	verified, _ := r.Verified()
	if n != objectSize || !bytes.Equal(buf.Bytes(), s.data) || !verified {
		t.Fatalf("copied %d bytes, verified %v", n, verified)
	}
}

func TestCopyingATamperedObjectIsAnIntegrityError(t *testing.T) {
	_, db, loc := tampered(t)
	stage, err := db.Stage()
	must(t, err)
	r, err := stage.Open(loc)
	must(t, err)
	defer r.Close()
	_, err = io.Copy(io.Discard, r)
	if le := lakeError(t, err, Integrity); le.IntegrityKind != IntegrityDigestMismatch {
		t.Fatalf("kind %v", le.IntegrityKind)
	}
}

// T-003
func TestT003_ClosingAReaderWhileAnotherGoroutineReadsItIsSafe(t *testing.T) {
	r := newScratch(t).clipsReader()
	started := make(chan struct{})
	var wg sync.WaitGroup
	var lastErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]byte, 100)
		close(started)
		for {
			if _, lastErr = r.Read(buf); lastErr != nil {
				return
			}
		}
	}()
	<-started
	must(t, r.Close())
	wg.Wait()
	if lastErr != ErrClosed && lastErr != io.EOF {
		t.Fatalf("the reading goroutine ended with %v", lastErr)
	}
	if _, err := r.Read(make([]byte, 10)); err != ErrClosed {
		t.Fatalf("after close: %v", err)
	}
}
