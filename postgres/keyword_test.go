package postgres

import (
	"github.com/mnemo-dev/mnemo/memindex"
	"strings"
	"testing"
)

func TestQueryTokens(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"", ""},
		{`"" ** ()`, ""},
		{"Hello, World!", "hello world"},
		{`text:foo NEAR(bar`, "text foo near bar"},
		{"the cat and the hat", "cat hat"},
		{"the and", "the and"},
		{"Київ і Москва", "киів москв"},
		{"café\xffbar", "caf bar"},
		{"dup DUP Dup", "dup"},
		{"alpha🔥beta", "alpha beta"},
		{"a\x00b", "b"},
		{strings.Repeat("x", 100) + " ok", "ok"},
	}
	for _, tt := range tests {
		if got := strings.Join(queryTokens(tt.in), " "); got != tt.want {
			t.Errorf("queryTokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	var many []string
	for i := range 100 {
		many = append(many, "w"+strings.Repeat("q", i%50)+string(rune('a'+i%26)))
	}
	if n := len(queryTokens(strings.Join(many, " "))); n != memindex.MaxQueryTokens {
		t.Errorf("kept %d tokens, want %d", n, memindex.MaxQueryTokens)
	}
}

func TestDocWords(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Hello, World! hello", "hello world hello"},
		{"see host.example.com/path and user@mail.org", "see host exampl com path and user mail org"},
		{"v1.2.3 a-b-c", "v1 2 3 a b c"},
		{strings.Repeat("y", 65) + " kept", "kept"},
	}
	for _, tt := range tests {
		if got := docWords(tt.in); got != tt.want {
			t.Errorf("docWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := docWords(strings.Repeat("word ", maxDocWords)); len(got) > maxDocWords {
		t.Errorf("docWords kept %d bytes, over %d", len(got), maxDocWords)
	}
}

func TestJSONHasNUL(t *testing.T) {
	for in, want := range map[string]bool{
		`"a\u0000b"`: true, `"a\\u0000b"`: false, `"a\\\u0000"`: true, `"plain"`: false, `"\u00001"`: true,
	} {
		if got := jsonHasNUL([]byte(in)); got != want {
			t.Errorf("jsonHasNUL(%s) = %v, want %v", in, got, want)
		}
	}
}

func TestPruneTokens(t *testing.T) {
	df := map[string]float64{"common": 4000, "usual": 2000, "rare": 10}
	tests := []struct {
		in     string
		budget float64
		want   string
	}{
		{"common usual rare", 10000, "common usual rare"},
		{"common usual rare", 5000, "rare usual"},
		{"common usual rare unseen", 100, "unseen rare"}, // unseen terms count as rare
		{"common usual", 0, "usual"},                     // the rarest is always kept
	}
	for _, tt := range tests {
		if got := strings.Join(pruneTokens(strings.Fields(tt.in), df, tt.budget), " "); got != tt.want {
			t.Errorf("pruneTokens(%q, %v) = %q, want %q", tt.in, tt.budget, got, tt.want)
		}
	}
}
