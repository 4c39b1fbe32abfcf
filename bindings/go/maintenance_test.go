package lake

// Garbage collection, table maintenance and resumable uploads through the
// binding: the callbacks (candidates, problems, phases) and JSON results.

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// gcFixture is a root with row "a", an unreferenced object and a plan
// (cutoff 0) whose candidate it is.
type gcFixture struct {
	s            *scratch
	db           *Db
	stage        *Stage
	unreferenced *Location
	opts         *GcOptions
	planID       string
}

func newGcFixture(t *testing.T) *gcFixture {
	s := newScratch(t)
	f := &gcFixture{s: s, db: s.clipsRoot()}
	var err error
	f.stage, err = f.db.Stage()
	must(t, err)
	f.unreferenced, err = f.stage.PutFile(s.episode, nil)
	must(t, err)
	t.Cleanup(func() { f.unreferenced.Close() })
	f.opts, err = NewGcOptions()
	must(t, err)
	t.Cleanup(func() { f.opts.Close() })
	must(t, f.opts.SetCutoffSeconds(0))
	must(t, f.opts.SetAllowShortCutoff(true))
	plan, err := f.db.GcPlan(f.opts)
	must(t, err)
	var summary struct {
		PlanID string `json:"plan_id"`
	}
	must(t, json.Unmarshal([]byte(plan), &summary))
	f.planID = summary.PlanID
	return f
}

func TestGcShowListsTheUnreferencedObjectOnly(t *testing.T) {
	f := newGcFixture(t)
	var uris []string
	status, err := f.db.GcShow(f.planID, func(c GcCandidate) bool {
		if c.Kind == "object" {
			uris = append(uris, c.URI)
		}
		return true
	})
	must(t, err)
	want, _ := f.unreferenced.URI()
	if len(uris) != 1 || uris[0] != want {
		t.Fatalf("candidates %v, want [%s]", uris, want)
	}
	var st struct{ State string }
	must(t, json.Unmarshal([]byte(status), &st))
	if st.State != "planned" {
		t.Fatalf("state %q", st.State)
	}
}

func TestGcShowOfAnUnknownPlanIsNotFound(t *testing.T) {
	f := newGcFixture(t)
	_, err := f.db.GcShow("00000000-0000-7000-8000-000000000000", func(GcCandidate) bool { return true })
	lakeError(t, err, NotFound)
}

func TestGcApplyDeletesThePlanAndKeepsTheReferencedObject(t *testing.T) {
	f := newGcFixture(t)
	phases := 0
	must(t, f.opts.SetProgress(func(phase string, done, total uint64) { phases++ }))
	status, err := f.db.GcApply(f.planID, f.opts)
	must(t, err)
	var st struct {
		State          string
		ObjectsDeleted int `json:"objects_deleted"`
	}
	must(t, json.Unmarshal([]byte(status), &st))
	if st.State != "done" || st.ObjectsDeleted != 1 || phases == 0 {
		t.Fatalf("status %s after %d progress calls", status, phases)
	}
	if _, err := os.Stat(storedPath(t, f.unreferenced)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the candidate is still stored: %v", err)
	}
	if got, verified := cat(t, f.stage, f.s.locationOf(f.db, "a")); len(got) != objectSize || !verified {
		t.Fatal("the referenced object was touched")
	}
}

func TestGcApplyReturnsWhatItsProgressFunctionPanicked(t *testing.T) {
	f := newGcFixture(t)
	must(t, f.opts.SetProgress(func(string, uint64, uint64) { panic("phase exploded") }))
	_, err := f.db.GcApply(f.planID, f.opts)
	var ce *CallbackError
	if !errors.As(err, &ce) || ce.Panic != "phase exploded" {
		t.Fatalf("want the progress panic, got %v", err)
	}
}

func TestGcApplyCancelledBeforeItStartsDeletesNothing(t *testing.T) {
	f := newGcFixture(t)
	token, err := NewCancelToken()
	must(t, err)
	defer token.Close()
	must(t, token.Cancel())
	must(t, f.opts.SetCancelToken(token))
	_, err = f.db.GcApply(f.planID, f.opts)
	lakeError(t, err, Cancelled)
	if _, err := os.Stat(storedPath(t, f.unreferenced)); err != nil {
		t.Fatalf("the candidate is gone: %v", err)
	}
}

func TestGcVerifyDeepNamesATamperedObjectAndItsReferrer(t *testing.T) {
	_, db, loc := tampered(t)
	uri, _ := loc.URI()
	var problems []GcProblem
	summary, err := db.GcVerify(true, nil, func(p GcProblem) bool {
		problems = append(problems, p)
		return true
	})
	must(t, err)
	if len(problems) != 1 || problems[0].URI != uri || problems[0].Problem != "digest-mismatch" {
		t.Fatalf("problems %+v (summary %s)", problems, summary)
	}
	if len(problems[0].Referrers) == 0 {
		t.Fatal("the problem names no referrer")
	}
}

func TestCompactionMakesANewVersionWithTheSameRows(t *testing.T) {
	s := newScratch(t)
	db := s.clipsRoot()
	_, err := db.Insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "b", nil)
	must(t, err)
	v, err := db.CompactTable("media.clips")
	must(t, err)
	if v != 3 || rowCount(t, db) != 2 {
		t.Fatalf("version %d, %d rows", v, rowCount(t, db))
	}
}

func TestATagTwiceIsAConflictAndAnAbsentUntagNotFound(t *testing.T) {
	s := newScratch(t)
	db := s.clipsRoot()
	must(t, db.TagTable("media.clips", "first", 1))
	lakeError(t, db.TagTable("media.clips", "first", 1), Conflict)
	must(t, db.UntagTable("media.clips", "first"))
	lakeError(t, db.UntagTable("media.clips", "first"), NotFound)
}

func TestExpiryRetiresOldVersionsButNotATaggedOne(t *testing.T) {
	s := newScratch(t)
	db := s.clipsRoot()
	for _, name := range []string{"b", "c"} {
		_, err := db.Insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", name, nil)
		must(t, err)
	}
	must(t, db.TagTable("media.clips", "keep", 1))
	report, err := db.ExpireTable("media.clips", 1, -1)
	must(t, err)
	var expired struct {
		Retired        []int `json:"retired"`
		CurrentVersion int   `json:"current_version"`
	}
	must(t, json.Unmarshal([]byte(report), &expired))
	if len(expired.Retired) != 1 || expired.Retired[0] != 2 || expired.CurrentVersion != 3 {
		t.Fatalf("expiry %s", report)
	}
	_, err = db.Query("SELECT name FROM media.clips AS OF VERSION 2")
	lakeError(t, err, NotFound)
}

func TestALocalRootHasNoUploadCheckpointsAndUnknownOnesAreNotFound(t *testing.T) {
	db := newScratch(t).openRoot("root")
	n := 0
	must(t, db.Uploads(func(UploadInfo) bool { n++; return true }))
	if n != 0 {
		t.Fatalf("%d checkpoints", n)
	}
	_, err := db.ResumeUpload("nothing", nil)
	lakeError(t, err, NotFound)
	lakeError(t, db.AbortUpload("nothing"), NotFound)
}
