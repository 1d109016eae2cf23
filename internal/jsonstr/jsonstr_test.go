package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
)

// check fails unless Append writes what encoding/json writes for s.
func check(t *testing.T, s string) {
	t.Helper()
	for _, html := range []bool{false, true} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(html)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := string(Append(nil, s, html)) + "\n"; got != want.String() {
			t.Fatalf("Append(%q, escapeHTML %v) = %s, encoding/json %s", s, html, got, want.String())
		}
	}
}

var cases = []string{"", "plain", `quote " backslash \ slash /`, "<html> & </html>", "\b\f\n\r\t\x00\x01\x1f\x7f",
	"é 😀 \u2028 \u2029 и", "\xff\xfe invalid", "\xed\xa0\x80 surrogate half", "tail \xe2\x82"}

func TestAppend(t *testing.T) {
	for _, s := range cases {
		check(t, s)
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range cases {
		f.Add(s)
	}
	f.Fuzz(check)
}
