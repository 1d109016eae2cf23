package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFileArgumentsReadRegularFilesOnly: `mnemo adr` reads only the
// regular files of its folder (a link out of it to /etc/passwd, a link to
// /dev/zero, a FIFO and an oversized file are skipped and reported, and
// nothing blocks), and `orchestrate --tasks` and `import` refuse a FIFO or
// a device instead of waiting on it or reading it forever.
func TestFileArgumentsReadRegularFilesOnly(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	dir := t.TempDir()
	b, err := os.ReadFile("../../internal/adr/testdata/decisions/0002-use-sqlite.md")
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "0002-use-sqlite.md"), b, 0o644))
	must(os.WriteFile(filepath.Join(dir, "0003-huge.md"), append([]byte("# 3. Huge\n\n## Status\n\nAccepted\n\n## Decision\n\n"),
		strings.Repeat("word ", 1<<20)...), 0o644))
	must(os.Symlink("/etc/passwd", filepath.Join(dir, "0004-passwd.md")))
	must(os.Symlink("/dev/zero", filepath.Join(dir, "0005-zero.md")))
	fifo := filepath.Join(dir, "0006-fifo.md")
	must(syscall.Mkfifo(fifo, 0o644))
	out := mustCLI(t, db, "", "adr", dir)
	if !strings.HasPrefix(out, "ADRs into default: 1 added") {
		t.Fatalf("adr import:\n%s", out)
	}
	for _, name := range []string{"0003-huge.md", "0004-passwd.md", "0005-zero.md", "0006-fifo.md"} {
		if !strings.Contains(out, "skipped "+name) {
			t.Errorf("%s not reported as skipped:\n%s", name, out)
		}
	}
	if list := mustCLI(t, db, "", "--json", "list", "--all"); strings.Contains(list, "root:") {
		t.Errorf("a file outside the folder was imported:\n%s", list)
	}
	for _, args := range [][]string{
		{"orchestrate", "--tasks", fifo, "--once"},
		{"orchestrate", "--tasks", filepath.Join(dir, "0005-zero.md"), "--once"},
		{"import", fifo},
		{"import", "/dev/zero"},
	} {
		if _, errs, code := cli(t, db, "", args...); code == 0 || !strings.Contains(errs, "not a regular file") {
			t.Errorf("mnemo %v: exit %d, %q; want a refusal", args, code, errs)
		}
	}
}
