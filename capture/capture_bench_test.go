package capture_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/capture"
	"github.com/mnemo-dev/mnemo/internal/stats"
)

func benchPrompt(i int) capture.Prompt {
	return capture.Prompt{
		Prompt:         fmt.Sprintf("refactor the recall path so that the digest stays under budget, step %d", i),
		Timestamp:      time.Now(),
		SessionID:      "bench-session",
		Repository:     "/src/mnemo",
		Branch:         "main",
		PermissionMode: "default",
		Cwd:            "/src/mnemo",
		HookEventName:  "UserPromptSubmit",
	}
}

// BenchmarkCapture measures one in-process capture (blob, tree, commit,
// ref) into an open repository.
func BenchmarkCapture(b *testing.B) {
	ctx := context.Background()
	r, err := capture.OpenOrInit(ctx, filepath.Join(b.TempDir(), "p.git"))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := r.Capture(ctx, benchPrompt(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGitPipeline measures the same capture done with git
// subprocesses: hash-object -w, mktree, commit-tree, update-ref.
func BenchmarkGitPipeline(b *testing.B) {
	repo := filepath.Join(b.TempDir(), "p.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", repo).CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := gitPipeline(repo, benchPrompt(i), i); err != nil {
			b.Fatal(err)
		}
	}
}

func gitPipeline(repo string, p capture.Prompt, i int) error {
	run := func(stdin string, args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"--git-dir", repo}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		date := fmt.Sprintf("%d +0000", p.Timestamp.Unix())
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=mnemo", "GIT_AUTHOR_EMAIL=mnemo@localhost",
			"GIT_COMMITTER_NAME=mnemo", "GIT_COMMITTER_EMAIL=mnemo@localhost",
			"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	body := fmt.Sprintf(`{"prompt":%q,"timestamp":%q,"session_id":%q}`+"\n", p.Prompt, p.Timestamp.Format(time.RFC3339Nano), p.SessionID)
	blob, err := run(body, "hash-object", "-w", "--stdin")
	if err != nil {
		return err
	}
	tree, err := run("100644 blob "+blob+"\tprompt.json\n", "mktree")
	if err != nil {
		return err
	}
	commit, err := run(capture.Message(p), "commit-tree", tree)
	if err != nil {
		return err
	}
	_, err = run("", "update-ref", fmt.Sprintf("refs/prompts/%s/%019d-%d", p.SessionID, p.Timestamp.UnixNano(), i), commit)
	return err
}

// BenchmarkCaptureLatency captures 200 prompts each way and reports the
// p50 and p95 latency per prompt, in milliseconds, of: the in-process
// capture, the git subprocess pipeline, and a whole capture process (this
// test binary re-executed as a hook child: start, read stdin, open the
// repository, capture, exit). Run with
//
//	go test -run '^$' -bench CaptureLatency -benchtime 1x ./capture/
func BenchmarkCaptureLatency(b *testing.B) {
	const n = 200
	ctx := context.Background()
	for b.Loop() {
		dir := b.TempDir()
		r, err := capture.OpenOrInit(ctx, filepath.Join(dir, "inproc.git"))
		if err != nil {
			b.Fatal(err)
		}
		inproc := measure(b, n, func(i int) error {
			_, err := r.Capture(ctx, benchPrompt(i))
			return err
		})

		gitRepo := filepath.Join(dir, "git.git")
		if out, err := exec.Command("git", "init", "-q", "--bare", gitRepo).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		pipeline := measure(b, n, func(i int) error { return gitPipeline(gitRepo, benchPrompt(i), i) })

		procRepo := filepath.Join(dir, "proc.git")
		hook := `{"session_id":"bench","prompt":"refactor the recall path","cwd":"/src/mnemo","hook_event_name":"UserPromptSubmit","permission_mode":"default"}`
		process := measure(b, n, func(i int) error {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), childEnv+"="+procRepo)
			cmd.Stdin = strings.NewReader(hook)
			out, err := cmd.CombinedOutput()
			if err == nil && len(out) > 0 {
				err = fmt.Errorf("child wrote %q", out)
			}
			return err
		})

		for _, m := range []struct {
			name string
			d    []time.Duration
		}{{"inproc", inproc}, {"gitpipe", pipeline}, {"process", process}} {
			p50, p95 := stats.Percentile(m.d, 0.50), stats.Percentile(m.d, 0.95)
			b.ReportMetric(ms(p50), m.name+"-p50-ms")
			b.ReportMetric(ms(p95), m.name+"-p95-ms")
			b.Logf("%-8s p50 %.3f ms  p95 %.3f ms  (n=%d)", m.name, ms(p50), ms(p95), n)
		}
	}
}

func measure(b *testing.B, n int, f func(i int) error) []time.Duration {
	d := make([]time.Duration, n)
	for i := range d {
		start := time.Now()
		if err := f(i); err != nil {
			b.Fatal(err)
		}
		d[i] = time.Since(start)
	}
	slices.Sort(d)
	return d
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
