package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func captureCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runCapture(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func captureGit(t *testing.T, repo string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir", repo}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// captureFsck fails the test unless git fsck --strict is clean, and returns
// the number of prompt refs.
func captureFsck(t *testing.T, repo string) int {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(captureGit(t, repo, "fsck", "--strict", "--no-dangling")), "\n") {
		if line != "" && !strings.HasPrefix(line, "notice: HEAD points to an unborn branch") {
			t.Fatalf("git fsck: %s", line)
		}
	}
	captureGit(t, repo, "log", "--all", "--oneline")
	return len(strings.Fields(captureGit(t, repo, "for-each-ref", "--format=%(refname)", "refs/prompts/")))
}

func TestCaptureHook(t *testing.T) {
	work := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", "-b", "feature", work).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	repo := filepath.Join(t.TempDir(), "prompts.git")
	hook := fmt.Sprintf(`{"session_id":"abc-123","transcript_path":"/x.jsonl","cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":"fix the failing test","permission_mode":"default","new_field":true}`, work)
	out, errs, code := captureCLI(t, hook, "--repo", repo)
	if code != 0 || out != "" || errs != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if n := captureFsck(t, repo); n != 1 {
		t.Fatalf("%d refs", n)
	}
	log := captureGit(t, repo, "log", "--all", "--format=%s%n%(trailers:only,unfold)")
	for _, want := range []string{"prompt: fix the failing test", "Session: abc-123", "Repository: " + work, "Branch: feature", "Permission-Mode: default"} {
		if !strings.Contains(log, want) {
			t.Errorf("git log lacks %q:\n%s", want, log)
		}
	}

	// The default repository comes from MNEMO_PROMPTS_REPO.
	envRepo := filepath.Join(t.TempDir(), "env.git")
	t.Setenv("MNEMO_PROMPTS_REPO", envRepo)
	if _, errs, code := captureCLI(t, hook); code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if n := captureFsck(t, envRepo); n != 1 {
		t.Fatalf("%d refs in the env repository", n)
	}
}

func TestCaptureFailuresExitZero(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	repo := filepath.Join(t.TempDir(), "p.git")
	tests := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"empty stdin", "", []string{"--repo", repo}, "empty hook input"},
		{"bad json", "{oops", []string{"--repo", repo}, "not a JSON object"},
		{"no prompt", `{"session_id":"s"}`, []string{"--repo", repo}, "no prompt"},
		{"unwritable repo", `{"prompt":"hi"}`, []string{"--repo", filepath.Join(file, "p.git")}, "init"},
		{"bad flag", `{"prompt":"hi"}`, []string{"--nope"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := captureCLI(t, tt.stdin, tt.args...)
			if code != 0 || out != "" {
				t.Errorf("exit %d, stdout %q", code, out)
			}
			if strings.Count(errs, "\n") != 1 || !strings.HasSuffix(errs, "\n") || !strings.Contains(errs, tt.want) {
				t.Errorf("stderr = %q, want one line with %q", errs, tt.want)
			}
		})
	}
}

// TestCaptureProcesses runs several `mnemo capture` processes at once
// against a repository that does not exist yet.
func TestCaptureProcesses(t *testing.T) {
	if _, ok := commands["capture"]; !ok {
		t.Skip("capture is not wired into the command table yet")
	}
	repo := filepath.Join(t.TempDir(), "prompts.git")
	const procs = 6
	var wg sync.WaitGroup
	errs := make([]error, procs)
	for i := 0; i < procs; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(mnemoBin, "capture", "--repo", repo)
			cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":"s%d","prompt":"prompt %d","cwd":"/tmp"}`, i%2, i))
			var out, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &stderr
			err := cmd.Run()
			if err == nil && (out.Len() > 0 || stderr.Len() > 0) {
				err = fmt.Errorf("stdout %q, stderr %q", out.String(), stderr.String())
			}
			errs[i] = err
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := captureFsck(t, repo); n != procs {
		t.Fatalf("%d refs, want %d", n, procs)
	}
}

// TestCaptureRunsBeforeHeavyPackages checks that `mnemo capture` runs and
// exits from capturecli's init, before the heavy packages of the binary
// initialise (GODEBUG=inittrace=1 prints a line for each package as it
// initialises), while `mnemo --version`, which goes through main,
// initialises every one of them: the names below are real.
func TestCaptureRunsBeforeHeavyPackages(t *testing.T) {
	heavy := []string{
		"github.com/mnemo-dev/mnemo",
		"github.com/modelcontextprotocol/go-sdk/mcp",
		"github.com/google/jsonschema-go/jsonschema",
		"modernc.org/libc",
		"modernc.org/sqlite",
		"github.com/jackc/pgx/v5",
		"github.com/tiktoken-go/tokenizer/codec",
		"net/http",
		"reflect",
		"encoding/gob",
		"encoding/json",
		"github.com/dlclark/regexp2/v2/syntax",
	}
	if runtime.GOOS != "windows" {
		heavy = append(heavy, "path/filepath") // see capture/paths_unix.go
	}
	inits := func(stderr string) (map[string]bool, string) {
		seen := map[string]bool{}
		var rest []string
		for _, line := range strings.Split(stderr, "\n") {
			if f := strings.Fields(line); len(f) > 2 && f[0] == "init" && strings.HasPrefix(f[2], "@") {
				seen[f[1]] = true
			} else if line != "" {
				rest = append(rest, line)
			}
		}
		return seen, strings.Join(rest, "\n")
	}
	traced := func(stdin string, args ...string) (map[string]bool, string) {
		cmd := exec.Command(mnemoBin, args...)
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		cmd.Stdin = strings.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("mnemo %v: %v\n%s", args, err, stderr.String())
		}
		return inits(stderr.String())
	}

	repo := filepath.Join(t.TempDir(), "prompts.git")
	seen, rest := traced(`{"session_id":"s","prompt":"fix the flaky test","cwd":"/tmp"}`, "capture", "--repo", repo)
	if rest != "" {
		t.Fatalf("capture wrote %q on stderr", rest)
	}
	if !seen["runtime"] || !seen["os"] {
		t.Fatalf("no init trace from the capture (GODEBUG ignored?): %v", seen)
	}
	for _, p := range heavy {
		if seen[p] {
			t.Errorf("%s was initialised before the capture ended", p)
		}
	}
	if n := captureFsck(t, repo); n != 1 {
		t.Fatalf("%d refs, want 1", n)
	}

	all, _ := traced("", "--version")
	for _, p := range heavy {
		if !all[p] {
			t.Errorf("mnemo --version did not initialise %s: the list names a package the binary does not have", p)
		}
	}
}

// TestCaptureArgumentForms runs the binary with the forms capturecli's init
// takes and with ones it leaves to main's flag parse: each stores its prompt.
func TestCaptureArgumentForms(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "prompts.git")
	forms := [][]string{
		{"--repo", repo},      // the init
		{"--repo=" + repo},    // the init
		{"-repo", repo, "--"}, // main
		{"--repo", repo, "x"}, // main: extra arguments are ignored, as before
	}
	for i, args := range forms {
		cmd := exec.Command(mnemoBin, append([]string{"capture"}, args...)...)
		cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":"s","prompt":"form %d","cwd":"/tmp"}`, i))
		out, err := cmd.CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Fatalf("mnemo capture %q: %v %q", args, err, out)
		}
	}
	if n := captureFsck(t, repo); n != len(forms) {
		t.Fatalf("%d refs, want %d", n, len(forms))
	}
}
