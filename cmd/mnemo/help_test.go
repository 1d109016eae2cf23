package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryCommandHasHelp: `mnemo CMD --help`, `mnemo CMD -h` and `mnemo
// help CMD` print the command's usage on stdout and exit 0, and touch no
// database.
func TestEveryCommandHasHelp(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	for name := range commands {
		for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}} {
			out, errs, code := cli(t, db, "", args...)
			if code != 0 || !strings.HasPrefix(out, "usage: mnemo "+name) || errs != "" {
				t.Errorf("mnemo %v: exit %d, stdout %q, stderr %q", args, code, out, errs)
			}
		}
	}
	// A command's own flags are in its help; subcommands have theirs.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "digest"}, "-budget"},
		{[]string{"recall", "some query", "--help"}, "-min-relevance"},
		{[]string{"keys", "create", "--help"}, "-role"},
		{[]string{"tune", "--help"}, "-dry-run"},
		{[]string{"version", "--help"}, "-verbose"},
		{[]string{"serve", "--help"}, "-addr"},
		{[]string{"analyze", "sessions", "--help"}, "-growth"},
		{[]string{"prompts", "stats", "-h"}, "-top"},
		{[]string{"help", "analyze"}, "-growth"},
		{[]string{"prompts", "--help"}, "-top"},
	} {
		out, errs, code := cli(t, db, "", c.args...)
		if code != 0 || !strings.Contains(out, c.want) || errs != "" {
			t.Errorf("mnemo %v: exit %d, stdout %q, stderr %q (want %s)", c.args, code, out, errs, c.want)
		}
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		if out, _, code := cli(t, db, "", args...); code != 0 || !strings.Contains(out, "commands:") {
			t.Errorf("mnemo %v: exit %d, stdout %q", args, code, out)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("asking for help created the database")
	}
	// A bad flag is still an error, with the usage on stderr.
	if out, errs, code := cli(t, db, "", "digest", "x", "--no-such-flag"); code == 0 || out != "" || !strings.Contains(errs, "usage: mnemo digest") {
		t.Errorf("bad flag: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestVersionsAgree: mnemo version, mnemo --version and the MCP server
// report one version.
func TestVersionsAgree(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	a := mustCLI(t, db, "", "version")
	b := mustCLI(t, db, "", "--version")
	if a != b || a != "mnemo "+version+"\n" {
		t.Errorf("version %q, --version %q, want mnemo %s", a, b, version)
	}
	cmd := exec.Command(mnemoBin, "--db", db, "mcp")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	out, err := bufio.NewReader(stdout).ReadString('\n')
	stdin.Close()
	_ = cmd.Wait()
	if err != nil || !strings.Contains(out, `"version":"`+version+`"`) || !strings.Contains(out, `"serverInfo"`) {
		t.Errorf("MCP initialize: %s (%v)", out, err)
	}
	if bin, err := exec.Command(mnemoBin, "--version").Output(); err != nil || string(bin) != a {
		t.Errorf("the binary's --version: %q (%v), want %q", bin, err, a)
	}
}

// TestReadOnMissingDatabase: a read command or subcommand on a database
// file that does not exist says so and creates nothing, as does an unknown
// subcommand; a write creates it.
func TestReadOnMissingDatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "nothing-here", "m.db")
	for _, args := range [][]string{{"recall", "x"}, {"digest", "x"}, {"list"}, {"show", "01ARZ3NDEKTSV4RRFFQ69G5FAV"},
		{"history", "01ARZ3NDEKTSV4RRFFQ69G5FAV"}, {"export"}, {"corrections"}, {"threads"}, {"handoff"}, {"principles"},
		{"config", "show"}, {"config", "history"}, {"config", "diff", "1", "2"}, {"loop", "status"}, {"keys", "list"},
		{"tune", "history"}} {
		out, errs, code := cli(t, db, "", args...)
		if code != 1 || out != "" || !strings.Contains(errs, "no database at "+db) {
			t.Errorf("mnemo %v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	for _, args := range [][]string{{"config", "nosuch"}, {"loop", "nosuch"}, {"keys", "nosuch"}, {"tune", "nosuch"}} {
		out, errs, code := cli(t, db, "", args...)
		if code != 2 || out != "" || !strings.Contains(errs, "mnemo "+args[0]+": ") {
			t.Errorf("mnemo %v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Fatal("a read created the database")
	}
	mustCLI(t, db, "", "remember", "the first record")
	if out := mustCLI(t, db, "", "list"); !strings.Contains(out, "the first record") {
		t.Errorf("list after remember: %q", out)
	}
}
