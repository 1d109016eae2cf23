package capture_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/capture"
)

// childEnv switches the test binary into a capture child process: it reads
// hook JSON from stdin and captures it into the repository named by the
// variable, like `mnemo capture --repo PATH` does.
const childEnv = "MNEMO_CAPTURE_TEST_CHILD_REPO"

func TestMain(m *testing.M) {
	if repo := os.Getenv(childEnv); repo != "" {
		os.Exit(runChild(repo))
	}
	os.Exit(m.Run())
}

func runChild(repo string) int {
	ctx := context.Background()
	h, err := capture.ReadHook(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 0
	}
	n := 1
	if s := os.Getenv("MNEMO_CAPTURE_TEST_CHILD_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	r, err := capture.OpenOrInit(ctx, repo)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 0
	}
	for i := 0; i < n; i++ {
		p := capture.FromHook(h, time.Now())
		p.Prompt = fmt.Sprintf("%s #%d", h.Prompt, i)
		if _, err := r.Capture(ctx, p); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 0
		}
	}
	return 0
}

func gitCmd(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// checkRepo runs git fsck --strict and git log on the bare repository and
// returns the prompt refs.
func checkRepo(t *testing.T, repo string) []string {
	t.Helper()
	out := gitCmd(t, repo, nil, "--git-dir", repo, "fsck", "--strict", "--no-dangling")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		// "notice: HEAD points to an unborn branch" is expected: prompts
		// live under refs/prompts/, never on a branch.
		if line != "" && !strings.HasPrefix(line, "notice: HEAD points to an unborn branch") {
			t.Fatalf("git fsck output:\n%s", out)
		}
	}
	gitCmd(t, repo, nil, "--git-dir", repo, "log", "--all", "--format=%H %s")
	refs := strings.Fields(gitCmd(t, repo, nil, "--git-dir", repo, "for-each-ref", "--format=%(refname)", "refs/prompts/"))
	return refs
}

func TestCaptureRoundTrip(t *testing.T) {
	ctx := context.Background()
	repo := filepath.Join(t.TempDir(), "nested", "prompts.git")
	r, err := capture.OpenOrInit(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2025, 3, 4, 5, 6, 7, 123456789, time.UTC)
	prompts := []capture.Prompt{
		{Prompt: "fix the flaky test in store_test.go", Timestamp: ts, SessionID: "0b5c-77/../x y", Repository: "/src/mnemo", Branch: "main", PermissionMode: "default", Cwd: "/src/mnemo/sqlite", HookEventName: "UserPromptSubmit"},
		{Prompt: "Почему падает сборка?\nвторая строка", Timestamp: ts.Add(time.Second), SessionID: "s2", Repository: "/src/other", PermissionMode: "plan"},
		{Prompt: strings.Repeat("long ", 40), Timestamp: ts.Add(2 * time.Second).In(time.FixedZone("x", -(3*3600 + 1800))), SessionID: "", Repository: "/src/mnemo"},
	}
	var got []capture.Captured
	for _, p := range prompts {
		c, err := r.Capture(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	refs := checkRepo(t, repo)
	if len(refs) != len(prompts) {
		t.Fatalf("got %d refs, want %d: %v", len(refs), len(prompts), refs)
	}
	// The commit is an orphan with the trailers.
	c0 := got[0]
	if !strings.HasPrefix(c0.Ref, "refs/prompts/0b5c-77_._x_y/") {
		t.Errorf("ref = %q", c0.Ref)
	}
	parents := strings.TrimSpace(gitCmd(t, repo, nil, "--git-dir", repo, "log", "-1", "--format=%P", c0.Commit))
	if parents != "" {
		t.Errorf("commit has parents %q", parents)
	}
	trailers := gitCmd(t, repo, nil, "--git-dir", repo, "log", "-1", "--format=%(trailers:only,unfold)", c0.Commit)
	for _, want := range []string{"Session: 0b5c-77/../x y", "Repository: /src/mnemo", "Branch: main", "Permission-Mode: default", "Timestamp: 2025-03-04T05:06:07.123456789Z"} {
		if !strings.Contains(trailers, want) {
			t.Errorf("trailers %q lack %q", trailers, want)
		}
	}
	subject := strings.TrimSpace(gitCmd(t, repo, nil, "--git-dir", repo, "log", "-1", "--format=%s", got[2].Commit))
	if subject != "prompt: "+strings.TrimSpace(strings.Repeat("long ", 12))+"..." {
		t.Errorf("subject = %q", subject)
	}
	if date := strings.TrimSpace(gitCmd(t, repo, nil, "--git-dir", repo, "log", "-1", "--format=%ci", got[2].Commit)); date != "2025-03-04 01:36:09 -0330" {
		t.Errorf("committer date = %q", date)
	}
	subject = strings.TrimSpace(gitCmd(t, repo, nil, "--git-dir", repo, "log", "-1", "--format=%s", got[1].Commit))
	if subject != "prompt: Почему падает сборка?" {
		t.Errorf("subject = %q", subject)
	}
	show := gitCmd(t, repo, nil, "--git-dir", repo, "show", got[1].Commit+":prompt.json")
	if !strings.Contains(show, `"timestamp": "2025-03-04T05:06:08.123456789Z"`) || !strings.Contains(show, `"permission_mode": "plan"`) {
		t.Errorf("prompt.json = %s", show)
	}

	// List reads everything back.
	r2, err := capture.Open(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	list, err := r2.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(prompts) {
		t.Fatalf("List returned %d prompts", len(list))
	}
	byCommit := map[string]capture.Prompt{}
	for _, c := range list {
		byCommit[c.Commit] = c.Prompt
	}
	for i, c := range got {
		p, ok := byCommit[c.Commit]
		if !ok {
			t.Fatalf("commit %s missing from List", c.Commit)
		}
		if !p.Timestamp.Equal(prompts[i].Timestamp) || p.Prompt != prompts[i].Prompt || p.SessionID != prompts[i].SessionID || p.Repository != prompts[i].Repository {
			t.Errorf("prompt %d = %+v, want %+v", i, p, prompts[i])
		}
	}

	// Packed refs are still listed.
	gitCmd(t, repo, nil, "--git-dir", repo, "pack-refs", "--all")
	list, err = r2.List(ctx)
	if err != nil || len(list) != len(prompts) {
		t.Fatalf("after pack-refs: %d prompts, %v", len(list), err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := capture.Open(ctx, filepath.Join(t.TempDir(), "missing.git")); !errors.Is(err, capture.ErrNotFound) {
		t.Errorf("Open(missing) = %v, want ErrNotFound", err)
	}
	if _, err := capture.OpenOrInit(ctx, ""); !errors.Is(err, capture.ErrInvalid) {
		t.Errorf("OpenOrInit(\"\") = %v, want ErrInvalid", err)
	}
	// A path below a regular file cannot be created.
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	if _, err := capture.OpenOrInit(ctx, filepath.Join(file, "repo.git")); err == nil {
		t.Error("OpenOrInit below a file succeeded")
	}
	// An existing empty directory is initialised in place.
	empty := t.TempDir()
	r, err := capture.OpenOrInit(ctx, empty)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Capture(ctx, capture.Prompt{Prompt: "x", Timestamp: time.Now()}); err != nil {
		t.Fatal(err)
	}
	checkRepo(t, empty)
	if _, err := r.Capture(ctx, capture.Prompt{Prompt: "x"}); !errors.Is(err, capture.ErrInvalid) {
		t.Errorf("Capture without timestamp = %v, want ErrInvalid", err)
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	ctx := context.Background()
	repo := filepath.Join(t.TempDir(), "prompts.git")
	const n = 20
	ts := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	results := make([]capture.Captured, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Concurrent first use: every goroutine opens (and maybe creates)
			// the repository itself. Half share a session and a timestamp.
			r, err := capture.OpenOrInit(ctx, repo)
			if err != nil {
				errs[i] = err
				return
			}
			p := capture.Prompt{Prompt: fmt.Sprintf("prompt %d", i), Timestamp: ts, SessionID: "shared"}
			if i%2 == 1 {
				p.SessionID = fmt.Sprintf("s%d", i)
				p.Timestamp = ts.Add(time.Duration(i) * time.Millisecond)
			}
			results[i], errs[i] = r.Capture(ctx, p)
		}(i)
	}
	wg.Wait()
	refs, commits := map[string]bool{}, map[string]bool{}
	for i := range results {
		if errs[i] != nil {
			t.Fatalf("capture %d: %v", i, errs[i])
		}
		refs[results[i].Ref] = true
		commits[results[i].Commit] = true
	}
	if len(refs) != n || len(commits) != n {
		t.Fatalf("got %d refs and %d commits, want %d", len(refs), len(commits), n)
	}
	if got := checkRepo(t, repo); len(got) != n {
		t.Fatalf("git sees %d refs, want %d", len(got), n)
	}
}

func TestConcurrentProcesses(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "prompts.git")
	const procs, each = 4, 5
	var wg sync.WaitGroup
	errs := make([]error, procs)
	for i := 0; i < procs; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), childEnv+"="+repo, "MNEMO_CAPTURE_TEST_CHILD_N="+strconv.Itoa(each))
			cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":"proc-%d","prompt":"hello from %d","cwd":%q,"hook_event_name":"UserPromptSubmit","extra":{"x":1}}`, i%2, i, t.TempDir()))
			out, err := cmd.CombinedOutput()
			if err == nil && len(out) > 0 {
				err = fmt.Errorf("child wrote %q", out)
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
	if got := checkRepo(t, repo); len(got) != procs*each {
		t.Fatalf("git sees %d refs, want %d", len(got), procs*each)
	}
	r, err := capture.Open(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	list, err := r.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	commits := map[string]bool{}
	for _, c := range list {
		commits[c.Commit] = true
	}
	if len(commits) != procs*each {
		t.Fatalf("%d distinct commits, want %d", len(commits), procs*each)
	}
}

func TestReadHook(t *testing.T) {
	tests := []struct {
		name, in string
		kind     error
		want     capture.HookInput
	}{
		{"empty", "", capture.ErrInvalid, capture.HookInput{}},
		{"blank", " \n\t", capture.ErrInvalid, capture.HookInput{}},
		{"bad json", "{not json", capture.ErrInvalid, capture.HookInput{}},
		{"array", "[1,2]", capture.ErrInvalid, capture.HookInput{}},
		{"no prompt", `{"session_id":"s"}`, capture.ErrInvalid, capture.HookInput{}},
		{"too large", `{"prompt":"` + strings.Repeat("x", capture.MaxHookInput) + `"}`, capture.ErrTooLarge, capture.HookInput{}},
		{"full", `{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"hi","permission_mode":"acceptEdits","unknown":[1,{"a":2}]}`, nil,
			capture.HookInput{SessionID: "s", TranscriptPath: "/t.jsonl", Cwd: "/w", HookEventName: "UserPromptSubmit", Prompt: "hi", PermissionMode: "acceptEdits"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := capture.ReadHook(strings.NewReader(tt.in))
			if (err == nil) != (tt.kind == nil) || (tt.kind != nil && !errors.Is(err, tt.kind)) {
				t.Fatalf("err = %v, want one of kind %v", err, tt.kind)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSanitizeSession(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "unknown"},
		{"5f0e8a8c-1b2d-4c3e-9f00-123456789abc", "5f0e8a8c-1b2d-4c3e-9f00-123456789abc"},
		{"a/b c", "a_b_c"},
		{"..hidden", "hidden"},
		{"a..b", "a.b"},
		{"name.lock", "name"},
		{"x.lock.lock.", "x"},
		{"~^:?*[\\", "_______"},
		{"сессия", "______"},
		{strings.Repeat("a", 300), strings.Repeat("a", 128)},
	}
	for _, tt := range tests {
		if got := capture.SanitizeSession(tt.in); got != tt.want {
			t.Errorf("SanitizeSession(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// git agrees that the result is a valid ref component.
		cmd := exec.Command("git", "check-ref-format", "refs/prompts/"+capture.SanitizeSession(tt.in)+"/1")
		if err := cmd.Run(); err != nil {
			t.Errorf("git check-ref-format rejects %q", capture.SanitizeSession(tt.in))
		}
	}
}

func TestLocate(t *testing.T) {
	root := t.TempDir()
	main := filepath.Join(root, "main")
	os.MkdirAll(filepath.Join(main, "pkg", "deep"), 0o755)
	gitCmd(t, main, nil, "init", "-q", "-b", "trunk")
	os.WriteFile(filepath.Join(main, "f.txt"), []byte("x"), 0o644)
	gitCmd(t, main, nil, "add", "f.txt")
	gitCmd(t, main, nil, "commit", "-q", "-m", "first")
	sha := strings.TrimSpace(gitCmd(t, main, nil, "rev-parse", "HEAD"))
	wt := filepath.Join(root, "wt")
	gitCmd(t, main, nil, "worktree", "add", "-q", "-b", "feature/x", wt)
	os.MkdirAll(filepath.Join(wt, "sub"), 0o755)

	detached := filepath.Join(root, "detached")
	gitCmd(t, root, nil, "clone", "-q", main, detached)
	gitCmd(t, detached, nil, "checkout", "-q", "--detach", sha)

	// A .git file with a relative gitdir, as submodules write.
	sub := filepath.Join(root, "submod")
	os.MkdirAll(filepath.Join(root, "modules", "m"), 0o755)
	os.WriteFile(filepath.Join(root, "modules", "m", "HEAD"), []byte("ref: refs/heads/sub-branch\n"), 0o644)
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, ".git"), []byte("gitdir: ../modules/m\n"), 0o644)

	plain := filepath.Join(root, "plain")
	os.MkdirAll(plain, 0o755)

	tests := []struct {
		name, cwd, repo, branch string
	}{
		{"top", main, main, "trunk"},
		{"walk up", filepath.Join(main, "pkg", "deep"), main, "trunk"},
		{"worktree", filepath.Join(wt, "sub"), wt, "feature/x"},
		{"detached", detached, detached, sha},
		{"gitdir file", sub, sub, "sub-branch"},
		{"empty", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo, branch := capture.Locate(tt.cwd)
			if repo != tt.repo || branch != tt.branch {
				t.Errorf("Locate(%q) = %q, %q; want %q, %q", tt.cwd, repo, branch, tt.repo, tt.branch)
			}
		})
	}
	// Outside any work tree (t.TempDir is not inside a repository unless
	// TMPDIR is): repository falls back to cwd.
	if repo, _ := capture.Locate(plain); repo != plain && !strings.HasPrefix(plain, repo) {
		t.Errorf("Locate(plain) repo = %q", repo)
	}
}

func TestFromHook(t *testing.T) {
	dir := t.TempDir()
	gitCmd(t, dir, nil, "init", "-q", "-b", "dev")
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	p := capture.FromHook(capture.HookInput{SessionID: "s", Cwd: dir, Prompt: "p", PermissionMode: "plan", HookEventName: "UserPromptSubmit"}, now)
	want := capture.Prompt{Prompt: "p", Timestamp: now, SessionID: "s", Repository: dir, Branch: "dev", PermissionMode: "plan", Cwd: dir, HookEventName: "UserPromptSubmit"}
	if p != want {
		t.Errorf("FromHook = %+v, want %+v", p, want)
	}
}

// TestListPacked reads prompts back after git packs the repository, with
// deltas against offsets and against object names, and with prompts both
// small (stored uncompressed) and large (compressed).
func TestListPacked(t *testing.T) {
	for _, ofs := range []string{"true", "false"} {
		t.Run("useDeltaBaseOffset="+ofs, func(t *testing.T) {
			ctx := context.Background()
			repo := filepath.Join(t.TempDir(), "prompts.git")
			r, err := capture.OpenOrInit(ctx, repo)
			if err != nil {
				t.Fatal(err)
			}
			ts := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
			want := map[string]string{}
			for i := range 40 {
				text := fmt.Sprintf("step %d: refactor the recall path so that the digest stays under budget", i)
				if i%5 == 0 {
					text += "\n" + strings.Repeat(fmt.Sprintf("a long pasted log line %d of the failing test\n", i), 200)
				}
				c, err := r.Capture(ctx, capture.Prompt{Prompt: text, Timestamp: ts.Add(time.Duration(i) * time.Second), SessionID: "s", Repository: "/src/mnemo"})
				if err != nil {
					t.Fatal(err)
				}
				want[c.Commit] = text
			}
			checkRepo(t, repo)
			gitCmd(t, repo, nil, "--git-dir", repo, "-c", "repack.useDeltaBaseOffset="+ofs, "repack", "-a", "-d", "-f", "--window=50", "--depth=50")
			loose, _ := filepath.Glob(filepath.Join(repo, "objects", "??", "*"))
			if len(loose) != 0 {
				t.Fatalf("%d loose objects left after repack", len(loose))
			}
			packs, _ := filepath.Glob(filepath.Join(repo, "objects", "pack", "pack-*.idx"))
			if len(packs) != 1 {
				t.Fatalf("packs: %v", packs)
			}
			// The pack holds deltas, so List goes through them.
			verify := gitCmd(t, repo, nil, "--git-dir", repo, "verify-pack", "-v", packs[0])
			if !strings.Contains(verify, "chain length = ") {
				t.Fatalf("no deltas in the pack:\n%s", verify)
			}
			list, err := capture.Open(ctx, repo)
			if err != nil {
				t.Fatal(err)
			}
			got, err := list.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("List returned %d prompts, want %d", len(got), len(want))
			}
			for _, c := range got {
				if c.Prompt.Prompt != want[c.Commit] {
					t.Fatalf("commit %s: prompt %.40q, want %.40q", c.Commit, c.Prompt.Prompt, want[c.Commit])
				}
			}
		})
	}
}
