package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/capture"
)

func TestPromptsStats(t *testing.T) {
	ctx := context.Background()
	repo := filepath.Join(t.TempDir(), "prompts.git")
	r, err := capture.OpenOrInit(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 2, 3, 10, 0, 0, 0, time.UTC)
	for i, p := range []capture.Prompt{
		{Prompt: "fix the secret flaky parser", Repository: "/src/a", SessionID: "s1"},
		{Prompt: "add parser flag", Repository: "/src/a", SessionID: "s1"},
		{Prompt: "deploy the server", Repository: "/src/b", SessionID: "s2"},
	} {
		p.Timestamp = t0.Add(time.Duration(i) * time.Minute)
		if _, err := r.Capture(ctx, p); err != nil {
			t.Fatal(err)
		}
	}

	var out, errb bytes.Buffer
	if err := runPrompts(ctx, []string{"stats", "--repo", repo, "--json"}, nil, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	var st struct {
		Prompts       int            `json:"prompts"`
		CodingIntents map[string]int `json:"coding_intents"`
		Switching     struct {
			Switches    int                       `json:"switches"`
			Transitions map[string]map[string]int `json:"transitions"`
		} `json:"switching"`
	}
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if st.Prompts != 3 || st.CodingIntents["fix"] != 1 || st.CodingIntents["ops"] != 1 || st.Switching.Switches != 1 || st.Switching.Transitions["/src/a"]["/src/b"] != 1 {
		t.Errorf("stats = %+v", st)
	}
	if strings.Contains(out.String(), "secret flaky") {
		t.Error("JSON leaks prompt text")
	}

	out.Reset()
	if err := runPrompts(ctx, []string{"stats", "--repo", repo}, nil, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "prompts 3, sessions 2, repositories 2") || !strings.Contains(out.String(), "parser(2)") {
		t.Errorf("text output:\n%s", out.String())
	}
}

func TestPromptsErrors(t *testing.T) {
	ctx := context.Background()
	var out, errb bytes.Buffer
	tests := []struct {
		args []string
		code string
	}{
		{nil, mnemo.EINVALID},
		{[]string{"top"}, mnemo.EINVALID},
		{[]string{"stats", "--repo", filepath.Join(t.TempDir(), "none.git")}, mnemo.ENOTFOUND},
		{[]string{"stats", "--top", "0", "--repo", "x"}, mnemo.EINVALID},
		{[]string{"stats", "--bogus"}, mnemo.EINVALID},
	}
	for _, tt := range tests {
		err := runPrompts(ctx, tt.args, nil, &out, &errb)
		if mnemo.ErrorCode(err) != tt.code {
			t.Errorf("runPrompts(%q) = %v, want %s", tt.args, err, tt.code)
		}
	}
}
