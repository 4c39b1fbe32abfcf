package lake

// Event logs through the binding beyond the slice: steps, failures,
// resumed attempts, raw JSONL and experiment maintenance.

import (
	"strings"
	"testing"
)

func demoLog(t *testing.T) (*Db, *EventLog) {
	db := newScratch(t).openRoot("root")
	must(t, db.CreateExperiment("demo", "run-1"))
	log, err := db.OpenEventLog("demo", "run-1", true)
	must(t, err)
	t.Cleanup(func() { log.Close() })
	return db, log
}

func TestAFailedItemResumesInANewAttemptAndIsListedAmongFailures(t *testing.T) {
	_, log := demoLog(t)
	step := Step{Name: "decode", Kind: "Leaf", Index: -1}
	w, err := log.OpenWriter("p1", "epoch-1", nil)
	must(t, err)
	must(t, w.AppendField("tags", "a", &step))
	must(t, w.AppendField("tags", "b", &step))
	must(t, w.Failed("ValueError", "bad frame", "trace", &step))
	must(t, w.Commit())
	must(t, w.Close())
	failures, err := log.Failures()
	must(t, err)
	if !strings.Contains(failures, `"error_type":"ValueError"`) {
		t.Fatalf("failures %s", failures)
	}
	w, err = log.ResumeWriter("p1", "epoch-2")
	must(t, err)
	defer w.Close()
	attempt, err := w.Attempt()
	must(t, err)
	must(t, w.Terminal(false, nil))
	must(t, w.Commit())
	item, err := log.Fold("p1")
	must(t, err)
	defer item.Close()
	status, _ := item.Status()
	last, _ := item.LastAttempt()
	tags, _ := item.ValueCount("tags")
	if attempt != 1 || last != 1 || status != "completed" || tags != 2 {
		t.Fatalf("attempt %d, last %d, %s, %d tags", attempt, last, status, tags)
	}
}

func TestAnUnknownItemFoldsToNothing(t *testing.T) {
	_, log := demoLog(t)
	item, err := log.Fold("nobody")
	must(t, err)
	if item != nil {
		t.Fatal("an unknown item folded to an item")
	}
}

func TestRawEventsAppendedAgainAreAbsorbedAsDuplicates(t *testing.T) {
	_, log := demoLog(t)
	w, err := log.OpenWriter("p1", "epoch-1", nil)
	must(t, err)
	must(t, w.SetField("n", 7, nil))
	must(t, w.Commit())
	must(t, w.Close())
	events, err := log.Events("p1")
	must(t, err)
	lines := strings.Count(strings.TrimSpace(events), "\n") + 1
	appended, duplicates, err := log.AppendJSONL(events)
	must(t, err)
	if appended != 0 || duplicates != uint64(lines) {
		t.Fatalf("appended %d, duplicates %d of %d events", appended, duplicates, lines)
	}
	roots, err := log.Roots()
	must(t, err)
	if !strings.Contains(roots, `"item_id":"p1"`) {
		t.Fatalf("roots %s", roots)
	}
}

func TestAnExperimentIsListedDescribedCompactedAndDeleted(t *testing.T) {
	db, log := demoLog(t)
	w, err := log.OpenWriter("p1", "epoch-1", nil)
	must(t, err)
	must(t, w.SetField("n", 7, nil))
	must(t, w.Commit())
	must(t, w.Close())
	must(t, log.Close())
	list, err := db.Experiments("")
	must(t, err)
	described, err := db.DescribeExperiment("demo", "run-1")
	must(t, err)
	if !strings.Contains(list, `"experiment":"run-1"`) || !strings.Contains(described, `"items":1`) {
		t.Fatalf("list %s, describe %s", list, described)
	}
	_, err = db.CompactExperiment("demo", "run-1")
	must(t, err)
	must(t, db.DeleteExperiment("demo", "run-1"))
	lakeError(t, db.DeleteExperiment("demo", "run-1"), NotFound)
}
