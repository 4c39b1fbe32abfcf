// Command benchlane is bench/bindings' Go lane: bench/bindings_bench.c's
// `read` and `calls` through the Go binding, timing the same span.
//
//	benchlane read ROOT LOCATION_FILE BUF    one verified full read
//	benchlane calls ROOT LOCATION_FILE N     N reads of CancelToken.Cancelled
//
// Prints "seconds=S bytes=B verified=1" or "seconds=S calls=N".
package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"lake"
)

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "go lane: %s: %v\n", what, err)
	os.Exit(1)
}

func read(db *lake.Db, loc *lake.Location, bufBytes int) {
	stage, err := db.Stage()
	if err != nil {
		fail("stage", err)
	}
	buf := make([]byte, bufBytes)
	var total uint64
	began := time.Now()
	r, err := stage.Open(loc)
	if err != nil {
		fail("open reader", err)
	}
	for {
		n, err := r.Read(buf)
		total += uint64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			fail("read", err)
		}
	}
	verified, err := r.Verified()
	if err != nil {
		fail("verified", err)
	}
	if err := r.Close(); err != nil {
		fail("close reader", err)
	}
	seconds := time.Since(began).Seconds()
	if size, _ := loc.SizeBytes(); !verified || total != size {
		fail("read", fmt.Errorf("%d bytes, verified=%v", total, verified))
	}
	fmt.Printf("seconds=%.6f bytes=%d verified=1\n", seconds, total)
}

func calls(n int) {
	token, err := lake.NewCancelToken()
	if err != nil {
		fail("token", err)
	}
	defer token.Close()
	sink := 0
	began := time.Now()
	for i := 0; i < n; i++ {
		if c, _ := token.Cancelled(); c {
			sink++
		}
	}
	seconds := time.Since(began).Seconds()
	if sink != 0 {
		fail("calls", fmt.Errorf("a fresh token reads cancelled"))
	}
	fmt.Printf("seconds=%.6f calls=%d\n", seconds, n)
}

func main() {
	if len(os.Args) != 5 || (os.Args[1] != "read" && os.Args[1] != "calls") {
		fmt.Fprintln(os.Stderr, "usage: benchlane read|calls ROOT LOCATION_FILE BUF|N")
		os.Exit(2)
	}
	count, err := strconv.Atoi(os.Args[4])
	if err != nil {
		fail("count", err)
	}
	db, err := lake.Open(os.Args[2], nil)
	if err != nil {
		fail("open root", err)
	}
	defer db.Close()
	text, err := os.ReadFile(os.Args[3])
	if err != nil {
		fail("location file", err)
	}
	loc, err := lake.ParseLocation(strings.TrimSpace(string(text)))
	if err != nil {
		fail("location", err)
	}
	defer loc.Close()
	if os.Args[1] == "read" {
		read(db, loc, count)
	} else {
		calls(count)
	}
}
