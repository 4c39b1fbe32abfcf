package lake

// Roots and stages through the binding beyond the slice: pins, followers,
// descriptors, tenants and staging leftovers.

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestAPinnedObjectCanBeUnpinnedOnceOnly(t *testing.T) {
	s := newScratch(t)
	db, stage := s.rootStage()
	loc, err := stage.PutFile(s.episode, nil)
	must(t, err)
	defer loc.Close()
	must(t, db.Pin(loc))
	must(t, db.Pin(loc))
	must(t, db.Unpin(loc))
	lakeError(t, db.Unpin(loc), NotFound)
}

func TestAFollowerReadsTheWritersRowsAndCannotWrite(t *testing.T) {
	s := newScratch(t)
	s.clipsRoot()
	follower, err := OpenFollower(filepath.Join(s.dir, "root"), 0)
	must(t, err)
	defer follower.Close()
	if n := rowCount(t, follower); n != 1 {
		t.Fatalf("the follower sees %d rows", n)
	}
	age, err := follower.ViewAgeMicros()
	must(t, err)
	if age < 0 {
		t.Fatalf("view age %d after a read", age)
	}
	_, err = follower.Insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "b", nil)
	lakeError(t, err, InvalidArgument)
}

func TestALocalStageDescribesItselfAndHasNoStagingLeftovers(t *testing.T) {
	stage := newScratch(t).localStage()
	descriptor, err := stage.Descriptor()
	must(t, err)
	backend, err := stage.IOBackend()
	must(t, err)
	removed, err := stage.CleanStaging()
	must(t, err)
	if descriptor != `{"version":1,"kind":"local"}` || (backend != "io_uring" && backend != "sync") || removed != 0 {
		t.Fatalf("descriptor %s, backend %s, %d removed", descriptor, backend, removed)
	}
}

func TestATenantStageStoresUnderTheTenantsPrefix(t *testing.T) {
	s := newScratch(t)
	opts, err := NewStageOptions()
	must(t, err)
	defer opts.Close()
	must(t, opts.SetLocalRoot(filepath.Join(s.dir, "stage")))
	must(t, opts.SetTenant("acme"))
	lakeError(t, opts.SetTenant("a/b"), InvalidArgument)
	stage, err := OpenStage(opts)
	must(t, err)
	defer stage.Close()
	loc, err := stage.PutFile(s.episode, nil)
	must(t, err)
	defer loc.Close()
	if uri, _ := loc.URI(); !strings.Contains(uri, "/acme/") {
		t.Fatalf("uri %s is not under the tenant", uri)
	}
}

func TestAStatementTellsItsParametersAndChanges(t *testing.T) {
	s := newScratch(t)
	db := s.clipsRoot()
	stmt, err := db.Prepare("DELETE FROM media.clips WHERE name = ?")
	must(t, err)
	defer stmt.Close()
	n, err := stmt.ParameterCount()
	must(t, err)
	must(t, stmt.Bind(1, Text("a")))
	version, rows, err := stmt.Execute()
	must(t, err)
	deleted, inserted, err := stmt.Changes()
	must(t, err)
	if n != 1 || version != 2 || rows != 1 || deleted != 1 || inserted != 0 {
		t.Fatalf("%d parameters, version %d, %d rows, changes %d/%d", n, version, rows, deleted, inserted)
	}
}
