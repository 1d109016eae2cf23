package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/episodes"
)

// low is a caller of clearance 0.
var low = mnemo.Caller{Name: "reader", Clearance: 0, Role: mnemo.RoleAdmin}

// TestHistoryRedactsRevisionsAboveClearance: lowering a level-3 record to
// level 0 does not show a clearance-0 caller the text it had at level 3.
func TestHistoryRedactsRevisionsAboveClearance(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	r := f.remember(t, "", mnemo.NewRecord{Text: "The vault PIN is 4711", AccessLevel: 3})[0]
	text, level := "The vault has a PIN", 0
	if _, err := f.svc.Update(mnemo.WithCallerIn(ctx, admin, ""), r.ID, mnemo.RecordPatch{Text: &text, AccessLevel: &level}); err != nil {
		t.Fatal(err)
	}
	revs, err := f.svc.History(mnemo.WithCallerIn(ctx, low, ""), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != 2 || !revs[0].Redacted || revs[0].Record != nil || revs[0].Action != "create" || revs[0].Actor != "test" ||
		revs[1].Redacted || revs[1].Record.Text != text {
		t.Fatalf("history at clearance 0 = %+v", revs)
	}
	// The secret's words, not its digits alone: a revision's nanoseconds or
	// an id may hold "4711" by chance.
	if b, _ := json.Marshal(revs); strings.Contains(string(b), "PIN is 4711") {
		t.Errorf("history at clearance 0 carries the level-3 text: %s", b)
	}
	if all, err := f.svc.History(mnemo.WithCallerIn(ctx, admin, ""), r.ID); err != nil || all[0].Redacted || !strings.Contains(all[0].Record.Text, "4711") {
		t.Errorf("history at full clearance = %+v %v", all, err)
	}
}

// TestEpisodeHistoryRedactsForgottenSecret: an episode that summarised a
// level-3 turn is level 3; once the turn is forgotten and the thread is
// summarised again, the episode drops to level 0, and its earlier
// revision, which quoted the secret, stays hidden from clearance 0.
func TestEpisodeHistoryRedactsForgottenSecret(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	start := f.now.Add(-time.Hour)
	turns := []mnemo.NewRecord{
		{Text: "Anna: The relay station lost power during the night pass.", Thread: "t", At: at(start)},
		{Text: "Ben: The override code for the relay cabinet is kestrel-9921.", Thread: "t", At: at(start.Add(time.Minute)), AccessLevel: 3},
		{Text: "Anna: Power came back after the generator started again.", Thread: "t", At: at(start.Add(2 * time.Minute))},
	}
	w := f.remember(t, "ops", turns...)
	ep, err := f.svc.Summarize(mnemo.WithCallerIn(ctx, admin, "ops"), "t", 400)
	if err != nil {
		t.Fatal(err)
	}
	if ep.Record.AccessLevel != 3 || !strings.Contains(ep.Record.Text, "kestrel-9921") {
		t.Fatalf("first episode: level %d, %q", ep.Record.AccessLevel, ep.Record.Text)
	}
	if _, err := f.svc.Forget(mnemo.WithCallerIn(ctx, admin, "ops"), w[1].ID); err != nil {
		t.Fatal(err)
	}
	ep, err = f.svc.Summarize(mnemo.WithCallerIn(ctx, admin, "ops"), "t", 400)
	if err != nil {
		t.Fatal(err)
	}
	if ep.Record.AccessLevel != 0 || strings.Contains(ep.Record.Text, "kestrel") {
		t.Fatalf("second episode: level %d, %q", ep.Record.AccessLevel, ep.Record.Text)
	}
	revs, err := f.svc.History(mnemo.WithCallerIn(ctx, low, "ops"), ep.Record.ID)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(revs); strings.Contains(string(b), "kestrel") {
		t.Errorf("episode history at clearance 0 carries the forgotten secret: %s", b)
	}
	if len(revs) < 2 || !revs[0].Redacted || revs[len(revs)-1].Redacted {
		t.Errorf("episode history at clearance 0 = %+v, want the level-3 revision redacted and the last one whole", revs)
	}
}

// TestRecallScoresIgnoreHiddenRecords: a clearance-0 caller's recall (hits,
// scores, every factor, thread included) is exactly what it gets from a
// store that holds only the level-0 records, so hidden words cannot be
// recovered by watching scores move.
func TestRecallScoresIgnoreHiddenRecords(t *testing.T) {
	a, b := open(t, "", nil), open(t, "", nil)
	ctx := context.Background()
	start := a.now.Add(-48 * time.Hour)
	recs := []mnemo.NewRecord{
		{Text: "The vault access procedure needs two officers", Scope: "/rules"},
		{Text: "Vault PIN 4711 opens the inner door", AccessLevel: 3},
		{Text: "PIN rotation happens every quarter", Thread: "shift", AccessLevel: 3},
		{Text: "Anna: the vault inspection went fine", Thread: "shift"},
		{Text: "Ben: the vault door hinge squeaks, PIN pad is fine", Thread: "shift"},
		{Text: "vault vault vault audit log entries", AccessLevel: 3},
		{Text: "Quarterly report on relay uptime", Importance: fp(0.8)},
	}
	for i := range recs {
		recs[i].ID = fmt.Sprintf("01JD%021d%c", 0, 'A'+i)
		recs[i].At = at(start.Add(time.Duration(i) * time.Hour))
	}
	for _, r := range recs {
		a.remember(t, "ns", r)
		if r.AccessLevel == 0 {
			b.remember(t, "ns", r)
		}
	}
	for _, q := range []string{"vault PIN", "what is the vault pin", "quarterly rotation", "4711", "vault inspection shift"} {
		var got [2]*mnemo.RecallResult
		for i, f := range []*fixture{a, b} {
			res, err := f.svc.Recall(mnemo.WithCallerIn(ctx, low, "ns"), mnemo.RecallRequest{Query: q, K: 10})
			if err != nil {
				t.Fatal(err)
			}
			if err := f.svc.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			res.RetrievalID = ""
			got[i] = res
		}
		if !reflect.DeepEqual(got[0], got[1]) {
			ja, _ := json.Marshal(got[0])
			jb, _ := json.Marshal(got[1])
			t.Errorf("recall %q at clearance 0:\n got %s\nwant %s (a store holding only the level-0 records)", q, ja, jb)
		}
	}
}

// TestPurgeRespectsClearance: a purge by a caller of clearance 0 leaves a
// forgotten level-3 record alone, and its count does not include it.
func TestPurgeRespectsClearance(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	w := f.remember(t, "", mnemo.NewRecord{Text: "public note to drop"}, mnemo.NewRecord{Text: "secret note to keep", AccessLevel: 3})
	for _, r := range w {
		if _, err := f.svc.Forget(mnemo.WithCallerIn(ctx, admin, ""), r.ID); err != nil {
			t.Fatal(err)
		}
	}
	f.now = f.now.Add(30 * 24 * time.Hour)
	n, err := f.svc.Purge(mnemo.WithCallerIn(ctx, low, ""), 7*24*time.Hour)
	if err != nil || n != 1 {
		t.Fatalf("purge at clearance 0 = %d %v, want 1", n, err)
	}
	if _, err := f.svc.Get(mnemo.WithCallerIn(ctx, admin, ""), w[1].ID); err != nil {
		t.Errorf("the level-3 record was purged: %v", err)
	}
}

// TestIDsValidated: a malformed or oversized id is EINVALID on write and
// on every lookup, and the error does not echo it.
func TestIDsValidated(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	huge := strings.Repeat("x", 1<<20)
	for _, id := range []string{huge, "a b", "a\x1b[2J", "a\nb", "../x?y#z"} {
		_, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, ""), []mnemo.NewRecord{{ID: id, Text: "a note"}}, mnemo.WriteOptions{})
		if mnemo.ErrorCode(err) != mnemo.EINVALID || strings.Contains(mnemo.ErrorMessage(err), id) {
			t.Errorf("remember with id %.20q: %v, want EINVALID without the id", id, err)
		}
		if _, err := f.svc.Get(mnemo.WithCallerIn(ctx, admin, ""), id); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("get %.20q: %v, want EINVALID", id, err)
		}
		if _, err := f.svc.History(mnemo.WithCallerIn(ctx, admin, ""), id); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("history %.20q: %v, want EINVALID", id, err)
		}
		if _, err := f.svc.Forget(mnemo.WithCallerIn(ctx, admin, ""), id); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("forget %.20q: %v, want EINVALID", id, err)
		}
		if _, err := f.svc.Update(mnemo.WithCallerIn(ctx, admin, ""), id, mnemo.RecordPatch{Importance: fp(0.5)}); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("update %.20q: %v, want EINVALID", id, err)
		}
	}
	if _, err := f.svc.Import(mnemo.WithCallerIn(ctx, admin, ""), strings.NewReader(`{"id":"a b","text":"x"}`+"\n"), nil); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("import of a malformed id: %v, want EINVALID", err)
	}
	if w := f.remember(t, "", mnemo.NewRecord{ID: "adr:0001/use-sqlite_v2.md", Text: "a note"}); w[0].ID != "adr:0001/use-sqlite_v2.md" {
		t.Errorf("a well-formed id was changed: %s", w[0].ID)
	}
}

// TestEpisodeJobGoesOnAfterAFailingNamespace: a thread that cannot be
// summarised in one namespace does not stop the background episode job
// for the namespaces after it; the failure is reported with its name.
func TestEpisodeJobGoesOnAfterAFailingNamespace(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	start := f.now.Add(-3 * time.Hour)
	long := strings.Repeat("telemetry frame sequence ", 200) // one sentence over any episode budget
	var bad, good []mnemo.NewRecord
	for i := range 4 {
		bad = append(bad, mnemo.NewRecord{Text: fmt.Sprintf("Anna: %d %s", i, long), Thread: "t", At: at(start.Add(time.Duration(i) * time.Minute))})
		good = append(good, mnemo.NewRecord{Text: fmt.Sprintf("Ben: pass %d went through Svalbard without a gap.", i), Thread: "t",
			At: at(start.Add(time.Duration(i) * time.Minute))})
	}
	f.remember(t, "a-first", bad...)
	f.remember(t, "b-second", good...)
	n, err := episodes.SummarizeIdle(ctx, f.svc, f.svc.Store(), f.svc.Now(), time.Hour, 4)
	if err == nil || !strings.Contains(err.Error(), "a-first") {
		t.Errorf("the failing namespace was not reported: %v", err)
	}
	if n["b-second"] != 1 {
		t.Errorf("episodes written %v: the namespace after the failing one was skipped", n)
	}
}

// TestIDsAreNamespaceScoped: a caller of one namespace cannot squat the
// derived id of another namespace's episode (the victim's episode is still
// written), and nothing it is told depends on the other namespace's ids:
// writing or importing an id the other namespace holds succeeds as it
// would in an empty store.
func TestIDsAreNamespaceScoped(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	start := f.now.Add(-2 * time.Hour)
	squat := episodes.EpisodeID("victim", "t")
	f.remember(t, "attacker", mnemo.NewRecord{ID: squat, Text: "squatted"})
	var turns []mnemo.NewRecord
	for i := range 4 {
		turns = append(turns, mnemo.NewRecord{Text: fmt.Sprintf("Anna: pass %d went through Svalbard without a gap.", i), Thread: "t",
			At: at(start.Add(time.Duration(i) * time.Minute))})
	}
	w := f.remember(t, "victim", turns...)
	ep, err := f.svc.Summarize(mnemo.WithCallerIn(ctx, admin, "victim"), "t", 200)
	if err != nil || ep.Record.ID != squat || ep.Record.Namespace != "victim" {
		t.Fatalf("the victim's episode: %+v %v", ep, err)
	}
	if n, err := episodes.SummarizeIdle(ctx, f.svc, f.svc.Store(), f.svc.Now(), time.Minute, 4); err != nil {
		t.Errorf("background episodes: %v %v", n, err)
	}
	// The attacker learns nothing of the victim's ids.
	if _, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, "attacker"), []mnemo.NewRecord{{ID: w[0].ID, Text: "probe"}}, mnemo.WriteOptions{}); err != nil {
		t.Errorf("writing an id another namespace holds: %v", err)
	}
	line := fmt.Sprintf(`{"id":%q,"text":"probe"}`+"\n", w[1].ID)
	if res, err := f.svc.Import(mnemo.WithCallerIn(ctx, admin, "attacker"), strings.NewReader(line), nil); err != nil || res.Imported != 1 {
		t.Errorf("importing an id another namespace holds: %+v %v", res, err)
	}
	if r, err := f.svc.Get(mnemo.WithCallerIn(ctx, admin, "victim"), w[0].ID); err != nil || r.Text != turns[0].Text {
		t.Errorf("the victim's record after the probes: %+v %v", r, err)
	}
}
