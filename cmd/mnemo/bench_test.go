package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestBenchCommand(t *testing.T) {
	run1 := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	if code, _, _ := run1("bench"); code != 2 {
		t.Errorf("bench without subcommand: exit %d, want 2", code)
	}
	if code, _, stderr := run1("bench", "nope"); code != 2 || !strings.Contains(stderr, "unknown bench") {
		t.Errorf("unknown bench: exit %d %q", code, stderr)
	}
	if code, _, stderr := run1("bench", "locomo", "--data", "../../internal/bench/testdata/locomo-tiny.json", "--k", "x"); code != 2 || !strings.Contains(stderr, "--k") {
		t.Errorf("bad --k: exit %d %q", code, stderr)
	}
	code, out, stderr := run1("bench", "locomo", "--data", "../../internal/bench/testdata/locomo-tiny.json", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Questions int `json:"questions"`
		Methods   []struct {
			Name   string                     `json:"name"`
			Halves map[string]json.RawMessage `json:"halves"`
		} `json:"methods"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Questions != 4 || len(rep.Methods) != 5 ||
		rep.Methods[2].Name != "bm25-thread" || len(rep.Methods[0].Halves) != 2 {
		t.Errorf("json %v: %s", err, out)
	}
	if !strings.Contains(stderr, "locomo questions: 6/6") {
		t.Errorf("no progress on stderr: %q", stderr)
	}
	// The single-write check's verdict is a timing (a ratio of two
	// latencies), which a loaded machine can push over its limit: this test
	// checks what the command prints, and takes that verdict as an answer.
	code, out, stderr = run1("bench", "perf", "--sizes", "50,100", "--queries", "3", "--check-sizes", "50,200", "--check-writes", "20")
	if timing := code != 0 && strings.Contains(stderr, "over the limit of"); code != 0 && !timing || !strings.Contains(out, "| 100 |") || !strings.Contains(out, "Single writes") {
		t.Errorf("perf: exit %d %s %s", code, out, stderr)
	}
	// --records N is one size: the and the docs' spelling of it.
	code, out, stderr = run1("bench", "perf", "--records", "60", "--queries", "2", "--check-sizes", "50,200", "--check-writes", "20")
	if timing := code != 0 && strings.Contains(stderr, "over the limit of"); code != 0 && !timing || !strings.Contains(out, "| 60 |") || strings.Contains(out, "| 1,000 |") {
		t.Errorf("perf --records: exit %d %s %s", code, out, stderr)
	}
	for _, args := range [][]string{{"--records", "60", "--sizes", "60"}, {"--records", "-5"}} {
		if code, _, stderr := run1(append([]string{"bench", "perf"}, args...)...); code != 2 || !strings.Contains(stderr, "--records") {
			t.Errorf("perf %v: exit %d, %q; want a usage error naming --records", args, code, stderr)
		}
	}
}
