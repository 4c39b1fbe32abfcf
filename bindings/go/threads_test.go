package lake

// Threads (CONFORMANCE.md, T-001 … T-003).

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// T-001
func TestT001_ThreadSafeHandlesServeFourGoroutinesAtOnce(t *testing.T) {
	s := newScratch(t)
	db := s.clipsRoot()
	stage, err := db.Stage()
	must(t, err)
	loc := s.locationOf(db, "a")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 4; g++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			r, err := stage.Open(loc)
			if err != nil {
				errs <- err
				return
			}
			defer r.Close()
			var buf bytes.Buffer
			if _, err := io.Copy(&buf, struct{ io.Reader }{r}); err != nil {
				errs <- err
				return
			}
			if v, _ := r.Verified(); !v || !bytes.Equal(buf.Bytes(), s.data) {
				errs <- fmt.Errorf("a concurrent read was not the verified object")
			}
		}()
		go func(g int) {
			defer wg.Done()
			if _, err := db.Insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", fmt.Sprint("g", g), loc); err != nil {
				errs <- err
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := rowCount(t, db); n != 5 {
		t.Fatalf("%d rows, want 5", n)
	}
}

// T-002
func TestT002_AReaderUsedFromTwoGoroutinesIsSerialised(t *testing.T) {
	r := newScratch(t).clipsReader()
	var total atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 4096)
			for {
				n, err := r.Read(buf)
				total.Add(int64(n))
				if err == io.EOF {
					return
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if v, _ := r.Verified(); total.Load() != objectSize || !v {
		t.Fatalf("read %d bytes, verified %v", total.Load(), v)
	}
}

// T-003
func TestT003_ClosingAHandleWaitsForTheCallInsideIt(t *testing.T) {
	s := newScratch(t)
	stage := s.localStage()
	inside := make(chan struct{})
	// Set as the upload's first read returns, inside the call: a Close that
	// waits for the call returns after it (the handle's lock orders them).
	var firstReadDone atomic.Bool
	var putErr error
	var loc *Location
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		first := true
		src := &chunked{data: s.data, each: func() {
			if first {
				first = false
				close(inside)
				time.Sleep(300 * time.Millisecond)
				firstReadDone.Store(true)
			}
		}}
		loc, putErr = stage.Put(src, nil)
	}()
	<-inside
	must(t, stage.Close())
	closedAfterTheCall := firstReadDone.Load()
	wg.Wait()
	must(t, putErr)
	defer loc.Close()
	if !closedAfterTheCall {
		t.Fatal("Close returned while the upload was inside lake")
	}
	if _, err := stage.Descriptor(); err != ErrClosed {
		t.Fatalf("after close: %v", err)
	}
}
