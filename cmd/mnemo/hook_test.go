package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestHookSessionStart(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	work := filepath.Join(dir, "sentinel")
	if out, err := exec.Command("git", "init", "-q", "-b", "night-pass", work).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	mustCLI(t, db, "", "remember", "--kind", "decision", "Night passes go through Svalbard with the backup link pre-armed")
	for i := 0; i < 200; i++ {
		mustCLI(t, db, "", "remember", "--no-dedup", strings.Repeat("Observation about the night pass relay link margin and station weather. ", 3)+string(rune('a'+i%26)))
	}
	// Records about nothing the session is about never fill its context.
	for i := 0; i < 20; i++ {
		mustCLI(t, db, "", "remember", "--no-dedup", "The catering invoice for the quarterly offsite was paid twice "+string(rune('a'+i)))
	}
	in := `{"session_id":"s1","transcript_path":"/tmp/x.jsonl","cwd":"` + work + `","hook_event_name":"SessionStart","source":"startup","extra":1}`
	out, errs, code := cli(t, db, in, "hook", "session-start", "--max-chars", "2000")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var res hookOutput
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("output is not hook JSON: %v\n%s", err, out)
	}
	ctx := res.HookSpecificOutput.AdditionalContext
	if res.HookSpecificOutput.HookEventName != "SessionStart" || !strings.Contains(ctx, "sentinel") || !strings.Contains(ctx, "night-pass") {
		t.Fatalf("unexpected context: %+v", res)
	}
	if n := len([]rune(ctx)); n > 2000 || n < 500 {
		t.Fatalf("context has %d characters, want 500..2000", n)
	}
	if strings.Contains(ctx, "catering") {
		t.Fatalf("an unrelated record entered the session context:\n%s", ctx)
	}

	// Prompt hook with capture in one call.
	prompts := filepath.Join(dir, "prompts.git")
	in = `{"session_id":"s1","cwd":"` + work + `","hook_event_name":"UserPromptSubmit","prompt":"why do night passes go through Svalbard?","permission_mode":"default"}`
	out, errs, code = cli(t, db, in, "hook", "prompt", "--capture", prompts)
	if code != 0 || errs != "" {
		t.Fatalf("prompt hook: exit %d, stderr %q", code, errs)
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || !strings.Contains(res.HookSpecificOutput.AdditionalContext, "Svalbard") {
		t.Fatalf("prompt hook output: %v %s", err, out)
	}
	if out, err := exec.Command("git", "--git-dir", prompts, "fsck", "--strict").CombinedOutput(); err != nil {
		t.Fatalf("git fsck: %v %s", err, out)
	}

	// Failures never block: one stderr line, nothing on stdout, exit 0.
	for _, bad := range []string{"", "not json", `{"cwd": 5}`} {
		out, errs, code := cli(t, db, bad, "hook", "session-start")
		if code != 0 || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("input %q: exit %d, stdout %q, stderr %q", bad, code, out, errs)
		}
	}
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o500)
	out, errs, code = cli(t, filepath.Join(ro, "sub", "m.db"), in, "hook", "session-start")
	if os.Getuid() != 0 && (code != 0 || out != "" || errs == "") {
		t.Errorf("unwritable db: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
