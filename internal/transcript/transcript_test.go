package transcript_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/transcript"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestAnalyzeFixtures checks the metrics of the hand-written transcripts in
// testdata/projects against numbers worked out by hand:
//
// sess-a: first request msg_A1 (written as three lines, one repeated
// verbatim) = 3+12000+4000 = 16003. Reads: main.go, util.go (A1),
// main.go again (A2), README.md twice (A4) = 5; the Edit comes in A3, after
// 3 reads. Files: main.go (read again later, edited) used; util.go never
// used again (the sidechain read does not count); README.md read twice in
// the same step: unused. W = 2/3. Five requests.
//
// sess-b: the <synthetic> message is skipped, first request msg_B1 =
// 10+2000+30000 = 32010. Reads: new.go (B2), nb.ipynb (B3) = 2; the first
// tool call is a Write, so 0 reads before the first edit. new.go is
// MultiEdited later, nb.ipynb NotebookEdited later: W = 0.
//
// sess-c: the subagent's earlier, larger request is a sidechain; first
// request msg_C1 = 5+500+0 = 505. Reads: x.go and y.go in one line with two
// blocks, x.go again later = 3, no edit so 3 before the first edit. x.go
// used, y.go not: W = 1/2.
//
// sess-d has no request and the summary-only file no session: both are
// left out.
func TestAnalyzeFixtures(t *testing.T) {
	rep, err := transcript.Analyze(context.Background(), filepath.Join("testdata", "projects"))
	if err != nil {
		t.Fatal(err)
	}
	want := []transcript.Session{
		{SessionID: "sess-a", FirstRequestTokens: 16003, Reads: 5, ReadsBeforeFirstEdit: 3, Redundancy: 2.0 / 3, FilesRead: 3, RedundantFiles: 2, Requests: 5, ToolCalls: 6},
		{SessionID: "sess-b", FirstRequestTokens: 32010, Reads: 2, ReadsBeforeFirstEdit: 0, Redundancy: 0, FilesRead: 2, RedundantFiles: 0, Requests: 5, ToolCalls: 6},
		{SessionID: "sess-c", FirstRequestTokens: 505, Reads: 3, ReadsBeforeFirstEdit: 3, Redundancy: 0.5, FilesRead: 2, RedundantFiles: 1, Requests: 3, ToolCalls: 4},
	}
	if len(rep.Sessions) != len(want) {
		t.Fatalf("got %d sessions: %+v", len(rep.Sessions), rep.Sessions)
	}
	for i, w := range want {
		g := rep.Sessions[i]
		if g.SessionID != w.SessionID || g.FirstRequestTokens != w.FirstRequestTokens || g.Reads != w.Reads ||
			g.ReadsBeforeFirstEdit != w.ReadsBeforeFirstEdit || !near(g.Redundancy, w.Redundancy) ||
			g.FilesRead != w.FilesRead || g.RedundantFiles != w.RedundantFiles || g.Requests != w.Requests || g.ToolCalls != w.ToolCalls {
			t.Errorf("session %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	// Usage is counted once per (message id, request id): sess-a input is
	// A1..A5 = 16003 + 16104 + 16304 + 16604 + 16404.
	if got := rep.Sessions[0].InputTokens; got != 16003+16104+16304+16604+16404 {
		t.Errorf("sess-a input tokens = %d", got)
	}

	// Summary, T = [505, 16003, 32010], K = [2, 3, 5], W = [0, 1/2, 2/3].
	s := rep.Summary
	if s.Sessions != 3 {
		t.Errorf("summary sessions = %d", s.Sessions)
	}
	checks := []struct {
		name string
		got  transcript.Stats
		want transcript.Stats
	}{
		{"T", s.FirstRequestTokens, transcript.Stats{Median: 16003, Mean: 48518.0 / 3, P10: 3604.6, P90: 28808.6}},
		{"K", s.Reads, transcript.Stats{Median: 3, Mean: 10.0 / 3, P10: 2.2, P90: 4.6}},
		{"W", s.Redundancy, transcript.Stats{Median: 0.5, Mean: 7.0 / 18, P10: 0.1, P90: 0.5 + 0.8/6}},
	}
	for _, c := range checks {
		if !near(c.got.Median, c.want.Median) || !near(c.got.Mean, c.want.Mean) || !near(c.got.P10, c.want.P10) || !near(c.got.P90, c.want.P90) {
			t.Errorf("%s: got %+v, want %+v", c.name, c.got, c.want)
		}
	}

	// The JSON has exactly the documented keys.
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var shape struct {
		Sessions []map[string]any           `json:"sessions"`
		Summary  map[string]json.RawMessage `json:"summary"`
	}
	if err := json.Unmarshal(data, &shape); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]any) string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		return strings.Join(sorted(k), ",")
	}
	if got := keys(shape.Sessions[0]); got != "first_request_tokens,reads,reads_before_first_edit,redundancy,session_id" {
		t.Errorf("session keys = %s", got)
	}
	if strings.Contains(string(data), `"growth"`) {
		t.Error("growth present without --growth")
	}
	var t0 map[string]any
	json.Unmarshal(shape.Summary["first_request_tokens"], &t0)
	if got := keys(t0); got != "mean,median,p10,p90" {
		t.Errorf("stats keys = %s", got)
	}
}

func sorted(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

func TestAnalyzeErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := transcript.Analyze(ctx, filepath.Join(t.TempDir(), "missing")); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("missing dir: %v", err)
	}
	f := filepath.Join(t.TempDir(), "f.jsonl")
	os.WriteFile(f, nil, 0o644)
	if _, err := transcript.Analyze(ctx, f); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("file: %v", err)
	}
	// An empty directory is an empty report.
	rep, err := transcript.Analyze(ctx, t.TempDir())
	if err != nil || len(rep.Sessions) != 0 || rep.Summary.Sessions != 0 {
		t.Errorf("empty dir: %+v, %v", rep, err)
	}
	data, _ := json.Marshal(rep)
	if !strings.Contains(string(data), `"sessions":[]`) {
		t.Errorf("empty report JSON = %s", data)
	}
}

func TestFit(t *testing.T) {
	tests := []struct {
		name                 string
		xs, ys               []float64
		slope, intercept, r2 float64
	}{
		{"exact", []float64{0, 1, 2}, []float64{1, 3, 5}, 2, 1, 1},
		{"flat", []float64{0, 5}, []float64{4, 4}, 0, 4, 1},
		{"one point", []float64{3}, []float64{9}, 0, 9, 0},
		{"same x", []float64{2, 2}, []float64{1, 3}, 0, 2, 0},
		// y = 0,2,1,3 on x = 0..3: slope 0.8, intercept 0.3, R² = 0.64.
		{"noisy", []float64{0, 1, 2, 3}, []float64{0, 2, 1, 3}, 0.8, 0.3, 0.64},
	}
	for _, tt := range tests {
		s, i, r := transcript.Fit(tt.xs, tt.ys)
		if !near(s, tt.slope) || !near(i, tt.intercept) || !near(r, tt.r2) {
			t.Errorf("%s: Fit = %v, %v, %v; want %v, %v, %v", tt.name, s, i, r, tt.slope, tt.intercept, tt.r2)
		}
	}
}

func TestFileGrowth(t *testing.T) {
	dir := t.TempDir()
	run := func(date string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir,
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
			"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, content string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("2025-01-01T00:00:00Z", "init", "-q", "-b", "main")
	// Day 0: 100 chars; day 1: 300; day 2: 200 (a non-ASCII rune counts
	// once); day 3: renamed to docs/CLAUDE.md with 400 chars; an unrelated
	// commit on day 4 does not count.
	write("CLAUDE.md", strings.Repeat("a", 100))
	run("2025-01-01T00:00:00Z", "add", ".")
	run("2025-01-01T00:00:00Z", "commit", "-q", "-m", "c1")
	write("CLAUDE.md", strings.Repeat("a", 300))
	run("2025-01-02T00:00:00Z", "commit", "-q", "-am", "c2")
	write("CLAUDE.md", strings.Repeat("é", 200))
	run("2025-01-03T00:00:00Z", "commit", "-q", "-am", "c3")
	run("2025-01-04T00:00:00Z", "mv", "CLAUDE.md", "docs-CLAUDE.md")
	run("2025-01-04T00:00:00Z", "commit", "-q", "-m", "rename")
	write("docs-CLAUDE.md", strings.Repeat("é", 200)+strings.Repeat("b", 200))
	run("2025-01-04T00:00:00Z", "commit", "-q", "-am", "c4")
	write("other.txt", "x")
	run("2025-01-05T00:00:00Z", "add", "other.txt")
	run("2025-01-05T00:00:00Z", "commit", "-q", "-m", "other")

	g, err := transcript.FileGrowth(context.Background(), filepath.Join(dir, "docs-CLAUDE.md"))
	if err != nil {
		t.Fatal(err)
	}
	var chars []int
	for _, p := range g.Points {
		chars = append(chars, p.Chars)
	}
	// The rename commit (day 3, 200 chars) and c4 (day 3, 400 chars).
	if g.Commits != 5 || len(g.Points) != 5 {
		t.Fatalf("commits = %d, points %v", g.Commits, chars)
	}
	wantChars := []int{100, 300, 200, 200, 400}
	for i, c := range wantChars {
		if chars[i] != c {
			t.Fatalf("chars = %v, want %v", chars, wantChars)
		}
	}
	// Least squares on x = 0,1,2,3,3 and y = 100,300,200,200,400:
	// mean x 1.8, mean y 240, Sxx 6.8, Sxy 340, Syy 52000 → slope 50,
	// intercept 150, SSres = Syy − slope·Sxy = 35000, R² = 17/52.
	wantSlope := 50.0
	wantR2 := 17.0 / 52
	if !near(g.CharsPerDay, wantSlope) || !near(g.Intercept, 240-wantSlope*1.8) || !near(g.R2, wantR2) {
		t.Errorf("fit = %v/day + %v, R² %v; want %v, %v", g.CharsPerDay, g.Intercept, g.R2, wantSlope, wantR2)
	}
	if g.Days != 3 || g.FirstChars != 100 || g.LastChars != 400 || g.File != "docs-CLAUDE.md" {
		t.Errorf("growth = %+v", g)
	}

	if _, err := transcript.FileGrowth(context.Background(), filepath.Join(dir, "nope.md")); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("missing file: %v", err)
	}
	write("untracked.md", "x")
	if _, err := transcript.FileGrowth(context.Background(), filepath.Join(dir, "untracked.md")); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("untracked file: %v", err)
	}
	outside := filepath.Join(t.TempDir(), "f.md")
	os.WriteFile(outside, []byte("x"), 0o644)
	if _, err := transcript.FileGrowth(context.Background(), outside); err == nil {
		t.Error("file outside a work tree: no error")
	}
}
