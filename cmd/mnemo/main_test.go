package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// mnemoBin is a real mnemo binary built once for the process tests.
var mnemoBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mnemo-bin-")
	if err != nil {
		panic(err)
	}
	mnemoBin = filepath.Join(dir, "mnemo")
	cmd := exec.Command("go", "build", "-o", mnemoBin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building mnemo: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cli runs mnemo in-process against db and returns stdout, stderr and the exit code.
func cli(t *testing.T, db, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	full := append([]string{"--db", db}, args...)
	code := run(context.Background(), full, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func mustCLI(t *testing.T, db, stdin string, args ...string) string {
	t.Helper()
	out, errs, code := cli(t, db, stdin, args...)
	if code != 0 {
		t.Fatalf("mnemo %v: exit %d\n%s", args, code, errs)
	}
	return out
}

func TestRememberRecallDigestJSON(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	out := mustCLI(t, db, "", "--json", "remember", "--kind", "decision", "--scope", "/cases/passes", "--importance", "0.8",
		"--ref", "issue:OPS-412", "--tag", "night", "--body", `{"title":"Route via Svalbard","alternatives":[{"option":"Wait","reason":"too slow"}]}`,
		"Night passes go through Svalbard")
	var rec map[string]any
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("remember --json: %v\n%s", err, out)
	}
	id, _ := rec["id"].(string)
	if id == "" || rec["layer"] != "workflow" || rec["tokens"].(float64) <= 0 {
		t.Fatalf("remember --json: %v", rec)
	}
	mustCLI(t, db, "Svalbard uplink is limited to 150 W at night\n", "remember", "--scope", "/rules/safety", "-")

	var recall struct {
		Intent  string             `json:"intent"`
		Weights map[string]float64 `json:"weights"`
		Hits    []map[string]any   `json:"hits"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, db, "", "recall", "Svalbard night pass", "--json", "--k", "5")), &recall); err != nil {
		t.Fatal(err)
	}
	if recall.Intent == "" || len(recall.Weights) < 6 || len(recall.Hits) != 2 {
		t.Fatalf("recall --json: %+v", recall)
	}
	for _, k := range []string{"id", "score", "factors", "text", "layer", "kind", "provenance"} {
		if _, ok := recall.Hits[0][k]; !ok {
			t.Errorf("recall hit lacks %q", k)
		}
	}

	var d map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, db, "", "--json", "digest", "plan the Svalbard pass", "--budget", "300", "--scope", "all", "--filter", "layer=workflow")), &d); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"task", "intent", "weights", "budget", "used_tokens", "entries", "omitted", "markdown"} {
		if _, ok := d[k]; !ok {
			t.Errorf("digest --json lacks %q", k)
		}
	}
	entries := d["entries"].([]any)
	if len(entries) != 1 {
		t.Fatalf("filter layer=workflow: %d entries", len(entries))
	}
	e := entries[0].(map[string]any)
	for _, k := range []string{"id", "layer", "kind", "score", "factors", "text", "provenance", "tokens"} {
		if _, ok := e[k]; !ok {
			t.Errorf("digest entry lacks %q", k)
		}
	}
	if d["used_tokens"].(float64) > 300 {
		t.Errorf("used %v tokens of 300", d["used_tokens"])
	}
	md := mustCLI(t, db, "", "digest", "plan the Svalbard pass")
	if !strings.Contains(md, "rejected: Wait (too slow)") {
		t.Errorf("markdown digest lacks the rejected alternative:\n%s", md)
	}

	// Edit, forget, restore, history, show, list.
	checkLifecycle(t, func(args ...string) string { return mustCLI(t, db, "", args...) }, id)
}

// checkLifecycle edits, forgets, lists, restores and shows the record id
// and reads its history through run (one CLI command, its output), as the
// CLI must do on every store.
func checkLifecycle(t *testing.T, run func(args ...string) string, id string) {
	t.Helper()
	run("edit", id, "--importance", "0.9", "--tag", "critical")
	run("forget", id)
	if strings.Contains(run("list"), id) {
		t.Error("forgotten record listed")
	}
	if !strings.Contains(run("list", "--all"), id) {
		t.Error("list --all misses the forgotten record")
	}
	run("restore", id)
	hist := run("history", id)
	for _, a := range []string{"create", "update", "forget", "restore"} {
		if !strings.Contains(hist, a) {
			t.Errorf("history lacks %s:\n%s", a, hist)
		}
	}
	if show := run("show", id); !strings.Contains(show, "0.9") || !strings.Contains(show, "critical") {
		t.Errorf("show after edit:\n%s", show)
	}
}

func TestErrorsGoToStderr(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	cases := [][]string{
		{"remember", "--layer", "semantic", "x"},
		{"remember", "--importance", "2", "x"},
		{"remember", ""},
		{"recall"},
		{"digest", "x", "--scope", "everything"},
		{"digest", "x", "--filter", "nope=1"},
		{"show", "01NOTTHERE"},
		{"halflife", "no-slash"},
		{"score", "--preset", "nope"},
		{"nosuchcommand"},
	}
	for _, args := range cases {
		out, errs, code := cli(t, db, "", args...)
		if code == 0 || out != "" || !strings.HasPrefix(errs, "mnemo") {
			t.Errorf("mnemo %v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

func TestScoreAndHalflifeMatchGolden(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	golden, err := os.ReadFile("../../testdata/golden/aura_compute_score.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out := mustCLI(t, db, string(golden), "score", "--preset", "aura")
	want := strings.Split(strings.TrimSpace(string(golden)), "\n")
	got := strings.Split(strings.TrimSpace(out), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d outputs for %d inputs", len(got), len(want))
	}
	for i := range want {
		var w, g struct{ Score float64 }
		json.Unmarshal([]byte(want[i]), &w)
		if err := json.Unmarshal([]byte(got[i]), &g); err != nil {
			t.Fatalf("line %d: %q", i+1, got[i])
		}
		if w.Score != g.Score {
			t.Errorf("line %d: score %v, want %v", i+1, g.Score, w.Score)
		}
	}
	hl, err := os.ReadFile("../../testdata/golden/aura_resolve_halflife.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(hl)), "\n") {
		var row struct {
			Scope    string  `json:"scope"`
			HalfLife float64 `json:"half_life"`
		}
		json.Unmarshal([]byte(line), &row)
		out, errs, code := cli(t, db, "", "halflife", "--preset", "aura", row.Scope)
		if code != 0 {
			// The reference resolves any string; mnemo rejects malformed scopes.
			if mnemo.ValidateScope(row.Scope) == nil {
				t.Errorf("halflife %q: %s", row.Scope, errs)
			}
			continue
		}
		if strings.TrimSpace(out) != strconv.FormatFloat(row.HalfLife, 'f', -1, 64) {
			t.Errorf("halflife %q = %s, want %v", row.Scope, out, row.HalfLife)
		}
	}
	if _, _, code := cli(t, db, "{\"semantic\": \"x\"}\n", "score"); code == 0 {
		t.Error("bad score row accepted")
	}
}

func TestDemo(t *testing.T) {
	out := mustCLI(t, filepath.Join(t.TempDir(), "unused.db"), "", "demo")
	for _, want := range []string{"## Core", "## Workflow", "rejected: Wait for Inuvik", "of 1200 tokens"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// writeJSONL writes n records with fixed ids for import tests.
func writeJSONL(t *testing.T, path, prefix string, n int) []string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	ids := make([]string, n)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		ids[i] = fmt.Sprintf("%s%08d", prefix, i)
		rec := mnemo.Record{ID: ids[i], Layer: mnemo.LayerDomain, Kind: mnemo.KindFact, Scope: "/ops",
			Text:       fmt.Sprintf("Observation %d from %s: relay link margin %d dB at station %d", i, prefix, i%40, i%7),
			Importance: 0.5, Confidence: 1, CreatedAt: base.Add(time.Duration(i) * time.Second)}
		b, _ := json.Marshal(rec)
		w.Write(append(b, '\n'))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestKillDuringImportLosesNoAcknowledgedRecord(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	in := filepath.Join(dir, "big.jsonl")
	ids := writeJSONL(t, in, "KILL", 60000)
	cmd := exec.Command(mnemoBin, "--db", db, "import", in)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	acked, lines := 0, 0
	for sc.Scan() {
		// "written: N/M" is printed after each committed batch.
		var n, m int
		if _, err := fmt.Sscanf(sc.Text(), "written: %d/%d", &n, &m); err == nil {
			acked, lines = n, lines+1
			if lines == 5 {
				cmd.Process.Kill() // SIGKILL
				break
			}
		}
	}
	cmd.Wait()
	if lines < 5 {
		t.Fatalf("import finished or failed before the kill (%d progress lines)", lines)
	}
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: db})
	if err != nil {
		t.Fatalf("reopening after kill -9: %v", err)
	}
	defer st.Close()
	sc2 := mnemo.Scope{Namespace: mnemo.DefaultNamespace, Clearance: mnemo.MaxAccessLevel}
	got, err := st.GetMany(context.Background(), sc2, ids[:acked])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != acked {
		t.Fatalf("%d of %d acknowledged records survived kill -9", len(got), acked)
	}
	n, _ := st.Count(context.Background(), mnemo.DefaultNamespace)
	t.Logf("killed after %d acknowledged records; %d present", acked, n)
	// The import can be resumed: it is idempotent.
	out := mustCLI(t, db, "", "import", in)
	if !strings.Contains(out, "imported") {
		t.Fatalf("resume: %s", out)
	}
	if n, _ := st.Count(context.Background(), mnemo.DefaultNamespace); n != len(ids) {
		t.Fatalf("after resuming: %d records, want %d", n, len(ids))
	}
}

func TestTwoProcessesWriteAtOnce(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	// Create the database first so both processes race on writes, not on set-up.
	mustCLI(t, db, "", "remember", "seed record")
	var files [2]string
	for i := range files {
		files[i] = filepath.Join(dir, fmt.Sprintf("in%d.jsonl", i))
		writeJSONL(t, files[i], fmt.Sprintf("P%d", i), 4000)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	outs := make([][]byte, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var cmd *exec.Cmd
			if i < 2 {
				cmd = exec.Command(mnemoBin, "--db", db, "import", files[i])
			} else {
				// Single remembers interleaved with the imports.
				cmd = exec.Command("sh", "-c", fmt.Sprintf(`for n in 1 2 3 4 5 6 7 8 9 10; do %s --db %s remember --no-dedup "process %d note $n" || exit 1; done`, mnemoBin, db, i))
			}
			outs[i], errs[i] = cmd.CombinedOutput()
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n, _ := st.Count(context.Background(), mnemo.DefaultNamespace)
	if want := 1 + 2*4000 + 2*10; n != want {
		t.Fatalf("%d records, want %d: a write was lost", n, want)
	}
}

// An export imported into a second namespace of the same database keeps
// its ids (they are unique per namespace); threads and their filter work
// from the CLI.
func TestCopyNamespaceAndThreads(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	mustCLI(t, db, "", "remember", "--thread", "shift-7", "Anna: did the Svalbard pass restore the uplink?")
	mustCLI(t, db, "", "remember", "--thread", "shift-7", "Ben: yes, green since 14:05")
	mustCLI(t, db, "", "remember", "unrelated note about the canteen")
	if out := mustCLI(t, db, "", "list", "--filter", "thread=shift-7"); strings.Count(out, "\n") != 2 || strings.Contains(out, "canteen") {
		t.Fatalf("list thread=shift-7:\n%s", out)
	}
	if out := mustCLI(t, db, "", "episode", "shift-7"); !strings.HasPrefix(out, "wrote episode ") || !strings.Contains(out, "Episode of shift-7") {
		t.Fatalf("episode:\n%s", out)
	}
	if out := mustCLI(t, db, "", "episode", "--budget", "300", "shift-7"); !strings.HasPrefix(out, "updated episode ") {
		t.Fatalf("episode again:\n%s", out)
	}
	if out := mustCLI(t, db, "", "recall", "Svalbard pass uplink", "--k", "3"); !strings.Contains(out, "thread=1.000") || !strings.Contains(out, "thread=0.100") {
		t.Errorf("recall does not explain the thread factor:\n%s", out)
	}
	exp := mustCLI(t, db, "", "export")
	out := mustCLI(t, db, exp, "--namespace", "copy", "import", "-")
	if !strings.Contains(out, "imported 4 records into copy (0 already present)") {
		t.Fatalf("import into copy:\n%s", out)
	}
	if out := mustCLI(t, db, exp, "--namespace", "copy", "import", "-"); !strings.Contains(out, "imported 0 records into copy (4 already present)") || strings.Contains(out, "new ids") {
		t.Fatalf("second import into copy:\n%s", out)
	}
	if out := mustCLI(t, db, "", "--namespace", "copy", "list", "--filter", "thread=shift-7"); strings.Count(out, "\n") != 2 {
		t.Fatalf("the copy lost its thread:\n%s", out)
	}
}

// An ADR folder imports as decisions, a second run changes nothing, an
// edited ADR updates its record (keeping the old version in its history).
func TestADRImportAndSync(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	dir := t.TempDir()
	copyFile := func(name string) {
		b, err := os.ReadFile(filepath.Join("../../internal/adr/testdata/decisions", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("0001-record-architecture-decisions.md")
	copyFile("0002-use-sqlite.md")
	copyFile("notes.md")
	if out := mustCLI(t, db, "", "adr", dir); !strings.HasPrefix(out, "ADRs into default: 2 added, 0 updated, 0 unchanged") ||
		!strings.Contains(out, "skipped notes.md") {
		t.Fatalf("first import:\n%s", out)
	}
	if out := mustCLI(t, db, "", "adr", dir); !strings.HasPrefix(out, "ADRs into default: 0 added, 0 updated, 2 unchanged") {
		t.Fatalf("second import:\n%s", out)
	}
	md := filepath.Join(dir, "0002-use-sqlite.md")
	b, _ := os.ReadFile(md)
	if err := os.WriteFile(md, []byte(strings.Replace(string(b), "* Bad, because it needs a server.", "* Bad, because it needs a server and a DBA.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustCLI(t, db, "", "--json", "adr", "--dry-run", dir)
	if !strings.Contains(out, `"updated": [`) || !strings.Contains(out, `"0002-use-sqlite.md"`) || !strings.Contains(out, `"dry_run": true`) {
		t.Fatalf("dry run:\n%s", out)
	}
	if out := mustCLI(t, db, "", "adr", dir); !strings.HasPrefix(out, "ADRs into default: 0 added, 1 updated, 1 unchanged") {
		t.Fatalf("after the edit:\n%s", out)
	}
	digest := mustCLI(t, db, "", "digest", "--budget", "600", "why not PostgreSQL only for the store")
	if !strings.Contains(digest, "rejected: PostgreSQL only (it needs a server and a DBA)") || !strings.Contains(digest, "doc:0002-use-sqlite.md") {
		t.Errorf("digest:\n%s", digest)
	}
	if _, errs, code := cli(t, db, "", "adr", filepath.Join(dir, "nope")); code == 0 || !strings.Contains(errs, "not a folder") {
		t.Errorf("missing folder: %d %q", code, errs)
	}
}

// A repository's history imports as workflow events; again, only new
// commits are added.
func TestGitHistoryImport(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	db := filepath.Join(t.TempDir(), "m.db")
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Kim",
			"GIT_AUTHOR_EMAIL=kim@example.org", "GIT_COMMITTER_NAME=Kim", "GIT_COMMITTER_EMAIL=kim@example.org")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	for i, msg := range []string{"Route night passes via Svalbard", "Raise the uplink power limit to 120 W"} {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte(msg), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", ".")
		git("commit", "-q", "-m", msg)
	}
	if out := mustCLI(t, db, "", "git", "--repo", dir); !strings.Contains(out, "read 2 commits") || !strings.Contains(out, ": 2 imported into default, 0 already present") {
		t.Fatalf("first import: %s", out)
	}
	if err := os.WriteFile(filepath.Join(dir, "f2.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "Document the Svalbard routing")
	if out := mustCLI(t, db, "", "git", "--repo", dir); !strings.Contains(out, ": 1 imported into default, 2 already present") {
		t.Fatalf("second import: %s", out)
	}
	if out := mustCLI(t, db, "", "recall", "uplink power limit", "--k", "1"); !strings.Contains(out, "workflow/event  Raise the uplink power limit to 120 W") {
		t.Errorf("recall:\n%s", out)
	}
	if _, errs, code := cli(t, db, "", "git", "--repo", t.TempDir()); code == 0 || !strings.Contains(errs, "git log") {
		t.Errorf("not a repository: %d %q", code, errs)
	}
}

// Push mode from the command line: one cycle refreshes a never-refreshed
// LONG-TERM task, a second is not due, bad trackers fail clearly.
func TestOrchestrateOnce(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	mustCLI(t, db, "", "remember", "--kind", "decision", "--body", `{"title":"routing"}`, "Night pass routing goes via Svalbard")
	tasks := filepath.Join(t.TempDir(), "tasks.json")
	if err := os.WriteFile(tasks, []byte(`{"tasks":[{"id":"OPS-412","title":"Night pass routing","labels":["LONG-TERM"]},`+
		`{"id":"OPS-7","title":"Billing","labels":["bug"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := mustCLI(t, db, "", "orchestrate", "--tasks", tasks, "--once"); !strings.HasPrefix(out, "OPS-412  priority") ||
		!strings.Contains(out, "refreshed (2 records): never refreshed") || strings.Contains(out, "OPS-7") {
		t.Fatalf("first cycle:\n%s", out)
	}
	if out := mustCLI(t, db, "", "orchestrate", "--tasks", tasks, "--once", "--dry-run"); !strings.Contains(out, "not due: refreshed") {
		t.Fatalf("second cycle:\n%s", out)
	}
	if out := mustCLI(t, db, "", "list", "--kind", "refresh"); strings.Count(out, "\n") != 2 || !strings.Contains(out, "What changed for OPS-412") {
		t.Fatalf("refresh records:\n%s", out)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"tasks":[{"title":"no id"}]}`), 0o644)
	if _, errs, code := cli(t, db, "", "orchestrate", "--tasks", bad, "--once"); code != 1 || !strings.Contains(errs, "id and title are required") {
		t.Errorf("bad tracker: %d %q", code, errs)
	}
	if _, _, code := cli(t, db, "", "orchestrate", "--once"); code != 2 {
		t.Errorf("no --tasks: exit %d, want 2", code)
	}
}

// TestRelevanceFloorCLI: an off-topic query finds nothing and says so,
// --min-relevance 0 turns the floor off, a hit says why it passed, and a
// bad --min-relevance is refused.
func TestRelevanceFloorCLI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	mustCLI(t, db, "", "remember", "Night passes go through Svalbard")
	mustCLI(t, db, "", "remember", "Uplink power above 200 W requires the RF safety officer")
	if out := mustCLI(t, db, "", "recall", "Fix the flaky test in engine/recall_test.go"); !strings.Contains(out, "nothing in memory is relevant") {
		t.Fatalf("off-topic recall:\n%s", out)
	}
	if out := mustCLI(t, db, "", "recall", "--min-relevance", "0", "Fix the flaky test in engine/recall_test.go"); !strings.Contains(out, "Svalbard") {
		t.Fatalf("floor off:\n%s", out)
	}
	out := mustCLI(t, db, "", "recall", "Svalbard night pass")
	if !strings.Contains(out, "why: keyword") || !strings.Contains(out, "matched svalbard") {
		t.Fatalf("no why line:\n%s", out)
	}
	if d := mustCLI(t, db, "", "digest", "refactor the React component tree"); !strings.Contains(d, "Nothing in memory is relevant") || strings.Contains(d, "Svalbard") {
		t.Fatalf("off-topic digest:\n%s", d)
	}
	if _, errs, code := cli(t, db, "", "recall", "--min-relevance", "2", "x"); code == 0 || !strings.Contains(errs, "0..1") {
		t.Fatalf("bad --min-relevance: exit %d, %s", code, errs)
	}
}

// TestShortCollector: a short command's collector is off until the
// timer turns it back on, and GOGC, when set, wins.
func TestShortCollector(t *testing.T) {
	defer debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	shortCollector()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("GC percent after shortCollector = %d, want -1 (off)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != shortHeapLimit {
		t.Fatalf("memory limit = %d, want %d", got, shortHeapLimit)
	}
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) != math.MaxInt64 { // the timer's last step
		if time.Now().After(deadline) {
			t.Fatal("the memory limit was not lifted")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GC percent after the first second = %d, want 100", got)
	}
	t.Setenv("GOGC", "50")
	shortCollector()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("with GOGC set, GC percent = %d, want it left alone (100)", got)
	}
}
