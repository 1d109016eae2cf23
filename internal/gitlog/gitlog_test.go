package gitlog_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/gitlog"
)

// repo makes a real repository with three commits (and a merge).
func repo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run := func(env []string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), append([]string{"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=Kim Lee", "GIT_AUTHOR_EMAIL=kim@example.org", "GIT_COMMITTER_NAME=Kim Lee",
			"GIT_COMMITTER_EMAIL=kim@example.org"}, env...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := func(d string) []string { return []string{"GIT_AUTHOR_DATE=" + d, "GIT_COMMITTER_DATE=" + d} }
	run(nil, "init", "-q", "-b", "main")
	write("README.md", "hello\n")
	run(at("2026-01-05T10:00:00Z"), "add", ".")
	run(at("2026-01-05T10:00:00Z"), "commit", "-q", "-m", "Initial commit")
	write("engine/thread/chain.go", "package thread\n")
	write("engine/thread/lock.go", "package thread\n")
	write("engine/recall.go", "package engine\n")
	run(at("2026-02-10T09:30:00+02:00"), "add", ".")
	run(at("2026-02-10T09:30:00+02:00"), "commit", "-q", "-m", "Thread context for conversations",
		"-m", "A record carries a fading trace\nof the turns before it.")
	run(nil, "checkout", "-q", "-b", "side")
	write("docs/API.md", "# API\n")
	run(at("2026-03-01T12:00:00Z"), "add", ".")
	run(at("2026-03-01T12:00:00Z"), "commit", "-q", "-m", "Document the thread field")
	run(nil, "checkout", "-q", "main")
	write("sqlite/x.go", "package sqlite\n")
	run(at("2026-03-02T12:00:00Z"), "add", ".")
	run(at("2026-03-02T12:00:00Z"), "commit", "-q", "-m", "Store threads")
	run(at("2026-03-03T12:00:00Z"), "merge", "-q", "--no-edit", "side")
	return dir
}

func TestRead(t *testing.T) {
	dir := repo(t)
	ctx := context.Background()
	commits, err := gitlog.Read(ctx, dir, gitlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, c := range commits {
		subjects = append(subjects, c.Subject)
	}
	slices.Sort(subjects)
	if !slices.Equal(subjects, []string{"Document the thread field", "Initial commit", "Store threads", "Thread context for conversations"}) {
		t.Fatalf("subjects %v (the merge is left out)", subjects)
	}
	var tc gitlog.Commit
	for _, c := range commits {
		if c.Subject == "Thread context for conversations" {
			tc = c
		}
	}
	if tc.Author != "Kim Lee" || !tc.At.Equal(time.Date(2026, 2, 10, 7, 30, 0, 0, time.UTC)) || len(tc.Hash) != 40 ||
		tc.Body != "A record carries a fading trace\nof the turns before it." || len(tc.Files) != 3 || tc.Component() != "engine" {
		t.Errorf("commit %+v, component %q", tc, tc.Component())
	}
	r := tc.Record("team", dir)
	if r.Kind != mnemo.KindEvent || r.Layer != mnemo.LayerWorkflow || r.Scope != "/git/"+filepath.Base(dir) ||
		r.Text != "Thread context for conversations — A record carries a fading trace of the turns before it." ||
		!slices.Equal(r.Provenance, []string{"commit:" + tc.Hash, "author:Kim Lee"}) || !r.CreatedAt.Equal(tc.At) ||
		r.ID != tc.ID("team") || r.ID == tc.ID("other") || r.ID[:10] != ulidTime(tc.At) {
		t.Errorf("record %+v", r)
	}
	if err := r.Validate(mnemo.DefaultLimits); err != nil {
		t.Errorf("record does not validate: %v", err)
	}

	since, err := gitlog.Read(ctx, dir, gitlog.Options{Since: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Max: 10})
	if err != nil || len(since) != 2 {
		t.Errorf("since March: %d commits, %v", len(since), err)
	}
	if one, err := gitlog.Read(ctx, dir, gitlog.Options{Max: 1}); err != nil || len(one) != 1 {
		t.Errorf("max 1: %d, %v", len(one), err)
	}
	if _, err := gitlog.Read(ctx, t.TempDir(), gitlog.Options{}); mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(err.Error(), "git log") {
		t.Errorf("not a repository: %v", err)
	}
	if _, err := gitlog.Read(ctx, dir, gitlog.Options{Rev: "--output=/tmp/x"}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("an option as revision: %v", err)
	}
	if _, err := gitlog.Read(ctx, dir, gitlog.Options{Rev: "no-such-branch"}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("unknown revision: %v", err)
	}
}

func ulidTime(t time.Time) string {
	c := gitlog.Commit{Hash: "abcdef1", At: t}
	return c.ID("x")[:10]
}

func TestComponent(t *testing.T) {
	for files, want := range map[string]string{
		"README.md":                           "",
		"a/x.go":                              "a",
		"a/b/x.go a/b/y.go":                   "a/b",
		"a/b/x.go a/c/y.go":                   "a",
		"a/b/x.go b/y.go b/z.go":              "b",
		"docs/API.md engine/a.go engine/b.go": "engine",
	} {
		if got := (gitlog.Commit{Files: strings.Fields(files)}).Component(); got != want {
			t.Errorf("%q: %q, want %q", files, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for name, out := range map[string]string{
		"few fields": "\x1eabc1234\x1f2026-01-01T00:00:00Z\x1f",
		"bad hash":   "\x1enot-a-hash\x1f2026-01-01T00:00:00Z\x1fa\x1fs\x1fb\x1f\n",
		"bad date":   "\x1eabc1234\x1fyesterday\x1fa\x1fs\x1fb\x1f\n",
	} {
		if _, err := gitlog.Parse([]byte(out)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	if cs, err := gitlog.Parse(nil); err != nil || len(cs) != 0 {
		t.Errorf("empty output: %v %v", cs, err)
	}
}

// FuzzParse: any output parses or fails cleanly; parsed commits make valid
// records.
func FuzzParse(f *testing.F) {
	f.Add([]byte("\x1eabc1234\x1f2026-01-01T00:00:00Z\x1fKim\x1fsubject\x1fbody\x1f\nsrc/a.go\n"))
	f.Add([]byte("\x1e0123456789abcdef0123456789abcdef01234567\x1f2026-02-10T09:30:00+02:00\x1f\x1f\x1f\x1f\n\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		cs, err := gitlog.Parse(out)
		if err != nil {
			return
		}
		for _, c := range cs {
			r := c.Record("ns", "/tmp/repo")
			r.Normalize(time.Now())
			if err := r.Validate(mnemo.DefaultLimits); err != nil {
				t.Fatalf("commit %+v gives an invalid record: %v", c, err)
			}
		}
	})
}
