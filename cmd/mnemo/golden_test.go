package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

var (
	ulidRE = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`)
	// refRE finds the short references of digest entries and their links.
	refRE  = regexp.MustCompile(`(\[|, |: )([0-9A-HJKMNP-TV-Z]{8})\b`)
	timeRE = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?`)
	// Token counts include the record's id, whose random part tokenizes
	// to a varying number of tokens.
	tokensRE = regexp.MustCompile(`\b\d+( tokens\b|/\d+ tokens\b| of \d+ tokens\b)|(?m)^tokens +\d+$`)
	digitsRE = regexp.MustCompile(`\d+`)
	dateRE   = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)
	// API keys: a random id and secret each.
	keyIDRE  = regexp.MustCompile(`\bkey_[0-9a-f]{12}\b`)
	secretRE = regexp.MustCompile(regexp.QuoteMeta(mnemo.APIKeyPrefix) + `[A-Za-z0-9_-]{43}`)
	demoRE   = regexp.MustCompile(`[^\s()]*mnemo-demo-\d+/demo\.db`) // demo's temporary store
)

// normaliser replaces what changes from run to run: ids become <ID1>,
// <ID2>, ... in order of first appearance, the same id the same name in
// every output of a test, and API key ids <KEY1>, ...; times become
// <TIME>, dates <DATE>, key secrets <SECRET>, and the token counts of
// records (which count their ids) <N>.
type normaliser struct {
	ids, keys map[string]string
	paths     map[string]string // temporary paths, by the name shown instead
}

func newNormaliser() *normaliser {
	return &normaliser{ids: map[string]string{}, keys: map[string]string{}, paths: map[string]string{}}
}

func (n *normaliser) apply(s string) string {
	for path, name := range n.paths {
		s = strings.ReplaceAll(s, path, name)
	}
	s = demoRE.ReplaceAllString(s, "<TMP>/demo.db")
	name := func(id string) string {
		key := mnemo.ShortRef(id) // an id and its short reference are one
		if _, ok := n.ids[key]; !ok {
			n.ids[key] = fmt.Sprintf("<ID%d>", len(n.ids)+1)
		}
		return n.ids[key]
	}
	s = ulidRE.ReplaceAllStringFunc(s, name)
	s = refRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := refRE.FindStringSubmatch(m)
		return sub[1] + name(sub[2])
	})
	s = timeRE.ReplaceAllString(s, "<TIME>")
	s = dateRE.ReplaceAllString(s, "<DATE>")
	s = secretRE.ReplaceAllString(s, "<SECRET>")
	s = keyIDRE.ReplaceAllStringFunc(s, func(id string) string {
		if _, ok := n.keys[id]; !ok {
			n.keys[id] = fmt.Sprintf("<KEY%d>", len(n.keys)+1)
		}
		return n.keys[id]
	})
	return tokensRE.ReplaceAllStringFunc(s, func(m string) string {
		loc := digitsRE.FindStringIndex(m) // the count, not a budget after it
		return m[:loc[0]] + "<N>" + m[loc[1]:]
	})
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from what the command printed (go test -run %s -update rewrites it):\n--- want\n%s\n--- got\n%s", path, t.Name(), want, got)
	}
}

// step runs mnemo with args on db and stdin and compares what it printed,
// normalised, with the golden file; it returns the standard output.
func (n *normaliser) step(t *testing.T, db, stdin, file string, args ...string) string {
	t.Helper()
	out, errs, code := cli(t, db, stdin, args...)
	got := n.apply(out)
	if errs != "" {
		got += "--- stderr\n" + n.apply(errs)
	}
	if code != 0 {
		got += fmt.Sprintf("--- exit %d\n", code)
	}
	golden(t, file, got)
	return out
}

// goldenEnv clears the environment that changes what commands print.
func goldenEnv(t *testing.T) {
	for k, v := range map[string]string{"MNEMO_THESAURUS": "off", "MNEMO_EMBEDDER": "", "MNEMO_PRESET": "",
		"MNEMO_TOKENIZER": "", "MNEMO_OPERATOR": "", "MNEMO_SESSION": "", "MNEMO_NAMESPACE": "", "MNEMO_SERVER": ""} {
		t.Setenv(k, v)
	}
}

// TestGoldenText: the text the main commands print, ids and times normalised.
func TestGoldenText(t *testing.T) {
	goldenEnv(t)
	db := filepath.Join(t.TempDir(), "m.db")
	n := newNormaliser()
	step := func(file string, args ...string) string {
		t.Helper()
		return n.step(t, db, "", file, args...)
	}
	step("remember.txt", "remember", "--scope", "/rules/safety", "--importance", "0.9",
		"Uplink power above 200 W requires the RF safety officer on the loop")
	out := step("remember_decision.txt", "remember", "--kind", "decision", "--ref", "issue:OPS-412", "--body",
		`{"title":"Route night passes via Svalbard","context":"Inuvik is in maintenance",`+
			`"alternatives":[{"option":"Wait for Inuvik","reason":"misses three days of telemetry"}],`+
			`"principle":"Never plan a pass with a single point of failure"}`,
		"Night passes go through Svalbard")
	decision := ulidRE.FindString(out)
	step("recall.txt", "recall", "uplink power limits", "--k", "5")
	step("digest.txt", "digest", "plan the Svalbard uplink pass", "--budget", "2000")
	step("list.txt", "list")
	step("show.txt", "show", decision)
	step("version.txt", "version")
	step("version_flag.txt", "--version")
	step("help.txt", "help")
	step("help_digest.txt", "help", "digest")
	step("keys_help.txt", "keys", "--help")

	// The other commands' text, in the order an operator might use them.
	step("edit.txt", "edit", decision, "--importance", "0.7", "--tag", "night")
	step("history.txt", "history", decision)
	step("forget.txt", "forget", decision)
	step("list_all.txt", "list", "--all")
	step("restore.txt", "restore", decision)
	step("halflife.txt", "halflife", "/rules/safety")
	step("remember_thread.txt", "remember", "--thread", "pass-3", "--scope", "/session/pass-3",
		"Pass 3 lost lock for 40 s at 23:12 UTC and recovered on the backup link")
	step("threads.txt", "threads")
	step("principles.txt", "principles")
	export := filepath.Join(t.TempDir(), "export.jsonl")
	step("export.txt", "export", export)
	step("import.txt", "--namespace", "copy", "import", export)
	step("import_again.txt", "--namespace", "copy", "import", export)
	step("expire.txt", "expire", "--dry-run")
	step("consolidate.txt", "consolidate", "--dry-run")
	step("purge.txt", "purge", "--older-than", "365d")
	step("corrections.txt", "corrections", "--since", "2026-01-05", "--until", "2026-01-19")
	step("handoff.txt", "handoff")
	step("config_show.txt", "config", "show")
	step("config_history.txt", "config", "history")
	step("tune.txt", "tune", "--dry-run")
	step("tune_history.txt", "tune", "history")
	step("loop_status.txt", "loop", "status")
	step("keys_list_none.txt", "keys", "list")
	step("keys_create.txt", "keys", "create", "--namespaces", "default,copy", "--role", "read", "--name", "dashboard")
	key := keyIDRE.FindString(mustCLI(t, db, "", "--json", "keys", "list"))
	step("keys_list.txt", "keys", "list")
	step("keys_revoke.txt", "keys", "revoke", key)
	step("config_rollback.txt", "config", "rollback", "0")
	step("tune_rollback.txt", "tune", "rollback", "0")
	step("loop_revert.txt", "loop", "revert")
	step("reembed.txt", "reembed")
}

// TestGoldenTextInputs: the text of the commands that read stdin, a
// directory or a repository, and of the demo.
func TestGoldenTextInputs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	goldenEnv(t)
	db := filepath.Join(t.TempDir(), "m.db")
	n := newNormaliser()
	step := func(file, stdin string, args ...string) string {
		t.Helper()
		return n.step(t, db, stdin, file, args...)
	}
	step("score.txt", `{"semantic":0.8,"days":3,"importance":0.5}`+"\n"+`{"semantic":0.2,"days":400,"importance":0.9,"scope":"/rules/safety"}`+"\n",
		"score", "--preset", "aura")

	// Records dated now, so that no score changes with the day the test runs.
	adr := t.TempDir()
	n.paths[adr] = "<ADR>"
	if err := os.WriteFile(filepath.Join(adr, "0001-use-postgresql.md"), []byte("# 1. Use PostgreSQL for the shared store\n\n"+
		"## Status\n\nAccepted\n\n## Context\n\nSeveral servers share one memory.\n\n"+
		"## Decision\n\nWe use PostgreSQL when more than one server writes.\n\n## Consequences\n\nOperators run a database.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step("adr.txt", "", "adr", adr)
	step("adr_again.txt", "", "adr", adr)

	repo := t.TempDir()
	n.paths[repo] = "<REPO>"
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Kim",
			"GIT_AUTHOR_EMAIL=kim@example.org", "GIT_COMMITTER_NAME=Kim", "GIT_COMMITTER_EMAIL=kim@example.org")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "Route night passes via Svalbard")
	step("git.txt", "", "git", "--repo", repo)
	step("git_again.txt", "", "git", "--repo", repo)

	step("remember_thread_1.txt", "", "remember", "--thread", "pass-3", "Pass 3 lost lock for 40 s at 23:12 UTC")
	step("remember_thread_2.txt", "", "remember", "--thread", "pass-3", "Recovered on the backup link after 40 s; no data lost")
	step("episode.txt", "", "episode", "pass-3")
	step("hook_session_start.txt", `{"session_id":"s1","cwd":"/nonexistent/ground-station","source":"startup"}`, "hook", "session-start")
	step("hook_prompt.txt", `{"session_id":"s1","cwd":"/nonexistent/ground-station","prompt":"which store do several servers share?"}`,
		"hook", "prompt")
	step("config_diff.txt", "", "config", "diff", "0", "0")
	step("demo.txt", "", "demo")
}

// TestGoldenHelp: the help of every command and subcommand.
func TestGoldenHelp(t *testing.T) {
	t.Setenv("HOME", "/home/operator") // the defaults some flags print
	for _, k := range []string{"MNEMO_PROMPTS_REPO", "MNEMO_LOCOMO", "XDG_DATA_HOME"} {
		t.Setenv(k, "")
	}
	db := filepath.Join(t.TempDir(), "m.db")
	var calls [][]string
	for _, name := range slices.Sorted(maps.Keys(commands)) {
		calls = append(calls, []string{name, "--help"})
	}
	for _, sub := range []string{"analyze sessions", "bench locomo", "bench peer", "bench perf", "bench writes", "config show",
		"hook prompt", "hook session-start", "keys create", "keys list", "keys revoke", "loop status", "prompts stats",
		"tune history", "tune rollback"} {
		calls = append(calls, append(strings.Fields(sub), "--help"))
	}
	var b strings.Builder
	for _, args := range calls {
		out, errs, code := cli(t, db, "", args...)
		fmt.Fprintf(&b, "$ mnemo %s\n%s", strings.Join(args, " "), out)
		if errs != "" {
			fmt.Fprintf(&b, "--- stderr\n%s", errs)
		}
		if code != 0 {
			fmt.Fprintf(&b, "--- exit %d\n", code)
		}
		b.WriteString("\n")
	}
	golden(t, "help_commands.txt", b.String())
}
