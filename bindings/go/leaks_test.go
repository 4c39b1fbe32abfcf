package lake

// Leaks (CONFORMANCE.md, L-001, L-002).

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// residentBytes is the process's resident memory after a full collection.
func residentBytes(t *testing.T) int64 {
	runtime.GC()
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/statm")
	must(t, err)
	pages, err := strconv.ParseInt(strings.Fields(string(b))[1], 10, 64)
	must(t, err)
	return pages * int64(os.Getpagesize())
}

func openFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	must(t, err)
	return len(entries)
}

// skipUnderRace skips a leak test in the race detector's pass:
// scripts/lib/test-go-binding runs the leak tests again without it.
func skipUnderRace(t *testing.T) {
	if raceDetector {
		t.Skip("measured by the pass without the race detector, whose shadow memory grows with every allocation")
	}
}

func threads(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	must(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "Threads:") {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Threads:")))
			must(t, err)
			return n
		}
	}
	t.Fatal("no Threads line")
	return 0
}

// L-001
func TestL001_CheapHandleLoopsLeakNothing(t *testing.T) {
	skipUnderRace(t)
	s := newScratch(t)
	db := s.clipsRoot()
	sha := hexSHA(s.data)
	loop := func(n int) {
		for i := 0; i < n; i++ {
			loc, err := NewLocation("file:///x/y", "video/mp4", objectSize, sha)
			must(t, err)
			token, err := NewCancelToken()
			must(t, err)
			opts, err := NewUploadOptions()
			must(t, err)
			must(t, opts.SetCancelToken(token))
			stmt, err := db.Prepare("SELECT name FROM media.clips WHERE name = ?")
			must(t, err)
			must(t, stmt.Bind(1, "a"))
			must(t, stmt.Close())
			must(t, opts.Close())
			must(t, token.Close())
			must(t, loc.Close())
		}
	}
	loop(1000)
	handles, rss := OpenHandles(), residentBytes(t)
	loop(10_000)
	grown := residentBytes(t) - rss
	if OpenHandles() != handles {
		t.Fatalf("open handles %d -> %d", handles, OpenHandles())
	}
	if grown >= 2<<20 {
		t.Fatalf("resident memory grew by %d bytes", grown)
	}
	t.Logf("resident memory grew by %d bytes over 10,000 loops", grown)
}

// L-002
func TestL002_RootLoopsLeakNothing(t *testing.T) {
	skipUnderRace(t)
	s := newScratch(t)
	loop := func(from, n int) {
		for i := from; i < from+n; i++ {
			db, err := Open(filepath.Join(s.dir, "root-"+strconv.Itoa(i)), nil)
			must(t, err)
			must(t, db.CreateTable("media.clips", []string{"name:utf8", "video:file"}))
			r, err := db.Query("SELECT name FROM media.clips")
			must(t, err)
			for {
				b, err := r.Next()
				if err != nil {
					break
				}
				b.Close()
			}
			must(t, r.Close())
			must(t, db.Close())
		}
	}
	loop(0, 10) // warm-up: the runtime's and lake's threads and pools
	handles, fds, nthreads, rss := OpenHandles(), openFDs(t), threads(t), residentBytes(t)
	loop(10, 100)
	grown := residentBytes(t) - rss
	if OpenHandles() != handles {
		t.Fatalf("open handles %d -> %d", handles, OpenHandles())
	}
	if n := openFDs(t); n != fds {
		t.Fatalf("open descriptors %d -> %d", fds, n)
	}
	if n := threads(t); n != nthreads {
		t.Fatalf("threads %d -> %d", nthreads, n)
	}
	if grown >= 16<<20 {
		t.Fatalf("resident memory grew by %d bytes", grown)
	}
	t.Logf("resident memory grew by %d bytes over 100 roots", grown)
}

// A finalizer only reports a handle dropped without Close: it counts it
// and frees nothing (the handle stays open).
func TestAFinalizerOnlyReportsALeakedHandle(t *testing.T) {
	leaked, open := LeakedHandles(), OpenHandles()
	func() {
		_, err := NewCancelToken()
		must(t, err)
	}()
	for i := 0; i < 50 && LeakedHandles() == leaked; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if LeakedHandles() != leaked+1 {
		t.Fatalf("leaked handles %d -> %d", leaked, LeakedHandles())
	}
	if OpenHandles() != open+1 {
		t.Fatalf("the finalizer closed the handle: open %d -> %d", open, OpenHandles())
	}
	openHandles.Add(-1) // the test's own leak, so later counts start even
}
