package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/internal/stats"
)

// percentiles returns p50 and p95 of ds in milliseconds.
func percentiles(ds []time.Duration) (p50, p95 float64) {
	slices.Sort(ds)
	at := func(p float64) float64 { return float64(stats.Percentile(ds, p).Microseconds()) / 1000 }
	return at(0.50), at(0.95)
}

// runProcess times n whole runs of the real mnemo binary with the given stdin.
func runProcess(b *testing.B, n int, stdin func(i int) string, args ...string) []time.Duration {
	ds := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		cmd := exec.Command(mnemoBin, args...)
		cmd.Stdin = strings.NewReader(stdin(i))
		start := time.Now()
		out, err := cmd.CombinedOutput()
		ds = append(ds, time.Since(start))
		if err != nil {
			b.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	return ds
}

// BenchmarkProcessCapture times the whole `mnemo capture` process (start to
// exit) per prompt, p50 and p95 over 200 prompts:
//
//	go test -run '^$' -bench ProcessCapture -benchtime 1x ./cmd/mnemo/
func BenchmarkProcessCapture(b *testing.B) {
	for b.Loop() {
		repo := filepath.Join(b.TempDir(), "prompts.git")
		ds := runProcess(b, 200, func(i int) string {
			return fmt.Sprintf(`{"session_id":"bench-%d","cwd":"/tmp","hook_event_name":"UserPromptSubmit","prompt":"fix the flaky test number %d","permission_mode":"default"}`, i%4, i)
		}, "capture", "--repo", repo)
		p50, p95 := percentiles(ds)
		b.ReportMetric(p50, "p50-ms")
		b.ReportMetric(p95, "p95-ms")
	}
}

// BenchmarkProcessSessionStart times the whole `mnemo hook session-start`
// process over a store of 10,000 records, p50 and p95 over 50 runs:
//
//	go test -run '^$' -bench ProcessSessionStart -benchtime 1x ./cmd/mnemo/
func BenchmarkProcessSessionStart(b *testing.B) {
	dir := b.TempDir()
	db := filepath.Join(dir, "m.db")
	in := filepath.Join(dir, "10k.jsonl")
	writeJSONLB(b, in, 10000)
	if out, err := exec.Command(mnemoBin, "--db", db, "import", in).CombinedOutput(); err != nil {
		b.Fatalf("import: %v\n%s", err, out)
	}
	hookIn := `{"session_id":"s","cwd":"` + dir + `","hook_event_name":"SessionStart","source":"startup"}`
	for b.Loop() {
		ds := runProcess(b, 50, func(int) string { return hookIn }, "--db", db, "hook", "session-start")
		p50, p95 := percentiles(ds)
		b.ReportMetric(p50, "p50-ms")
		b.ReportMetric(p95, "p95-ms")
	}
}

func writeJSONLB(b *testing.B, path string, n int) {
	t := &testing.T{}
	writeJSONL(t, path, "B", n)
	if t.Failed() {
		b.Fatal("writing fixture failed")
	}
}

// BenchmarkProcessCaptureVsGit times, in one run, the whole `mnemo capture`
// process and the git subprocess pipeline that writes the same commit
// (hash-object -w, mktree, commit-tree, update-ref, as capture's
// BenchmarkGitPipeline does), one after the other for 200 prompts, so that
// both see the same load of the machine; it reports the p50 and p95 of each
// and the ratio of the medians:
//
//	go test ./cmd/mnemo -run '^$' -bench ProcessCaptureVsGit -benchtime 1x
func BenchmarkProcessCaptureVsGit(b *testing.B) {
	const n = 200
	for b.Loop() {
		dir := b.TempDir()
		repo, gitRepo := filepath.Join(dir, "prompts.git"), filepath.Join(dir, "git.git")
		if out, err := exec.Command("git", "init", "-q", "--bare", gitRepo).CombinedOutput(); err != nil {
			b.Fatalf("git init: %v\n%s", err, out)
		}
		var mnemoDs, gitDs []time.Duration
		for i := range n {
			prompt := fmt.Sprintf("fix the flaky test number %d", i)
			cmd := exec.Command(mnemoBin, "capture", "--repo", repo)
			cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":"bench-%d","cwd":"/tmp","hook_event_name":"UserPromptSubmit","prompt":%q,"permission_mode":"default"}`, i%4, prompt))
			start := time.Now()
			out, err := cmd.CombinedOutput()
			mnemoDs = append(mnemoDs, time.Since(start))
			if err != nil || len(out) > 0 {
				b.Fatalf("mnemo capture: %v\n%s", err, out)
			}
			start = time.Now()
			if err := gitCapture(gitRepo, prompt, i); err != nil {
				b.Fatal(err)
			}
			gitDs = append(gitDs, time.Since(start))
		}
		m50, m95 := percentiles(mnemoDs)
		g50, g95 := percentiles(gitDs)
		b.ReportMetric(m50, "capture-p50-ms")
		b.ReportMetric(m95, "capture-p95-ms")
		b.ReportMetric(g50, "git-p50-ms")
		b.ReportMetric(g95, "git-p95-ms")
		b.ReportMetric(m50/g50, "ratio-p50")
	}
}

// gitCapture writes prompt as capture does, with git subprocesses.
func gitCapture(repo, prompt string, i int) error {
	now := time.Now()
	run := func(stdin string, args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"--git-dir", repo}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		date := fmt.Sprintf("%d +0000", now.Unix())
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=mnemo", "GIT_AUTHOR_EMAIL=mnemo@localhost",
			"GIT_COMMITTER_NAME=mnemo", "GIT_COMMITTER_EMAIL=mnemo@localhost",
			"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	body := fmt.Sprintf(`{"prompt":%q,"timestamp":%q,"session_id":"bench"}`+"\n", prompt, now.Format(time.RFC3339Nano))
	blob, err := run(body, "hash-object", "-w", "--stdin")
	if err != nil {
		return fmt.Errorf("git hash-object: %w", err)
	}
	tree, err := run("100644 blob "+blob+"\tprompt.json\n", "mktree")
	if err != nil {
		return fmt.Errorf("git mktree: %w", err)
	}
	commit, err := run("prompt: "+prompt+"\n", "commit-tree", tree)
	if err != nil {
		return fmt.Errorf("git commit-tree: %w", err)
	}
	if _, err := run("", "update-ref", fmt.Sprintf("refs/prompts/bench/%019d-%d", now.UnixNano(), i), commit); err != nil {
		return fmt.Errorf("git update-ref: %w", err)
	}
	return nil
}
