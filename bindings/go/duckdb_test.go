package lake

// S-013: DuckDB scans the Arrow C stream the binding exports.

import (
	"os"
	"testing"

	"lake/internal/duckdbtest"
)

// S-013
func TestS013_DuckDBScansTheExportedArrowStream(t *testing.T) {
	path := os.Getenv("LAKE_DUCKDB_LIB")
	if path == "" {
		if os.Getenv("LAKE_REQUIRE_DUCKDB") == "1" {
			t.Fatal("LAKE_REQUIRE_DUCKDB=1 and LAKE_DUCKDB_LIB is not set")
		}
		t.Skip("LAKE_DUCKDB_LIB is not set (scripts/fetch-duckdb)")
	}
	s := newScratch(t)
	db := s.clipsRoot()
	_, err := db.Insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "b", File{Path: s.episode})
	must(t, err)
	duck, err := duckdbtest.Open(path)
	must(t, err)
	defer duck.Close()
	result, err := db.Query("SELECT name, video FROM media.clips")
	must(t, err)
	stream := duck.NewStream()
	must(t, result.ExportArrowStream(stream))
	if _, err := result.Next(); err != ErrClosed {
		t.Fatalf("the exported result is still open: %v", err)
	}
	must(t, duck.Scan("clips_stream", stream))
	// A stream is read once: copy it.
	if _, err := duck.One("CREATE TABLE clips AS SELECT * FROM clips_stream"); err != nil {
		t.Fatal(err)
	}
	for sql, want := range map[string]string{
		"SELECT count(*) FROM clips":                            "2",
		"SELECT string_agg(name, ',' ORDER BY name) FROM clips": "a,b",
		"SELECT sum(video.size_bytes) FROM clips":               "600000",
	} {
		got, err := duck.One(sql)
		must(t, err)
		if got != want {
			t.Errorf("%s: %q, want %q", sql, got, want)
		}
	}
}
