package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// analyzeFixtures are the hand-written transcripts of package transcript.
var analyzeFixtures = filepath.Join("..", "..", "internal", "transcript", "testdata", "projects")

func TestAnalyzeSessions(t *testing.T) {
	ctx := context.Background()
	// A file with three commits over two days.
	work := t.TempDir()
	git := func(date string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+work, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x", "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	md := filepath.Join(work, "CLAUDE.md")
	git("2025-01-01T00:00:00Z", "init", "-q")
	for i, date := range []string{"2025-01-01T00:00:00Z", "2025-01-02T00:00:00Z", "2025-01-03T00:00:00Z"} {
		os.WriteFile(md, []byte(strings.Repeat("x", 1000*(i+1))), 0o644)
		git(date, "add", "CLAUDE.md")
		git(date, "commit", "-q", "-m", "c")
	}

	var out, errb bytes.Buffer
	// Flags after the directory are accepted.
	if err := runAnalyze(ctx, []string{"sessions", analyzeFixtures, "--json", "--growth", md}, nil, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	var rep struct {
		Sessions []struct {
			SessionID          string  `json:"session_id"`
			FirstRequestTokens int     `json:"first_request_tokens"`
			Reads              int     `json:"reads"`
			ReadsBefore        int     `json:"reads_before_first_edit"`
			Redundancy         float64 `json:"redundancy"`
		} `json:"sessions"`
		Summary struct {
			Sessions           int                `json:"sessions"`
			FirstRequestTokens map[string]float64 `json:"first_request_tokens"`
		} `json:"summary"`
		Growth struct {
			CharsPerDay float64 `json:"chars_per_day"`
			R2          float64 `json:"r2"`
			Commits     int     `json:"commits"`
		} `json:"growth"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if rep.Summary.Sessions != 3 || len(rep.Sessions) != 3 || rep.Sessions[0].SessionID != "sess-a" || rep.Sessions[0].FirstRequestTokens != 16003 {
		t.Errorf("report = %+v", rep)
	}
	if rep.Summary.FirstRequestTokens["median"] != 16003 {
		t.Errorf("summary T = %v", rep.Summary.FirstRequestTokens)
	}
	if rep.Growth.Commits != 3 || rep.Growth.CharsPerDay != 1000 || rep.Growth.R2 != 1 {
		t.Errorf("growth = %+v", rep.Growth)
	}

	out.Reset()
	if err := runAnalyze(ctx, []string{"sessions", analyzeFixtures}, nil, &out, &errb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sess-a", "3 sessions", "T first request tokens", "16003"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestAnalyzeErrors(t *testing.T) {
	ctx := context.Background()
	var out, errb bytes.Buffer
	tests := []struct {
		args []string
		code string
	}{
		{nil, mnemo.EINVALID},
		{[]string{"prompts"}, mnemo.EINVALID},
		{[]string{"sessions", "a", "b"}, mnemo.EINVALID},
		{[]string{"sessions", filepath.Join(t.TempDir(), "missing")}, mnemo.ENOTFOUND},
		{[]string{"sessions", analyzeFixtures, "--growth", filepath.Join(t.TempDir(), "none.md")}, mnemo.ENOTFOUND},
		{[]string{"sessions", "--bogus"}, mnemo.EINVALID},
	}
	for _, tt := range tests {
		err := runAnalyze(ctx, tt.args, nil, &out, &errb)
		if mnemo.ErrorCode(err) != tt.code {
			t.Errorf("runAnalyze(%q) = %v, want %s", tt.args, err, tt.code)
		}
	}
}
