package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
)

func formatFactors(m map[string]float64) string {
	keys := []string{mnemo.FactorSemantic, mnemo.FactorKeyword, mnemo.FactorRecency, mnemo.FactorImportance,
		mnemo.FactorConfidence, mnemo.FactorFrequency, mnemo.FactorCriticality, mnemo.FactorThread, "gate", "kind_boost"}
	var rest []string
	for k := range m {
		if !slices.Contains(keys, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	var parts []string
	for _, k := range append(keys, rest...) {
		if v, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%.3f", k, v))
		}
	}
	return strings.Join(parts, " ")
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// shown returns s as it may be written to the standard output: on a
// terminal, control characters other than newline and tab (escape
// sequences, carriage returns, C1 controls) and bidirectional overrides
// are escaped, so that stored text cannot move the cursor, rewrite the
// screen or the title, or hide what it says. Elsewhere (a pipe, a file)
// s is written as it is.
func (a *app) shown(s string) string {
	if !isTerminal(a.stdout) {
		return s
	}
	return escapeControls(s)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// escapeControls escapes every control character of s but newline and
// tab, every bidirectional formatting character and every invalid UTF-8
// byte, as \xHH or \uHHHH.
func escapeControls(s string) string {
	clean := true
	for _, r := range s {
		if needsEscape(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case needsEscape(r) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// writeJSON writes v to w as indented JSON, with <, > and & as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printJSON writes v as indented JSON.
func (a *app) printJSON(v any) error {
	if !isTerminal(a.stdout) {
		return writeJSON(a.stdout, v)
	}
	// On a terminal, also escape what encoding/json passes through and a
	// terminal may act on: C1 controls and bidirectional overrides.
	var b bytes.Buffer
	if err := writeJSON(&b, v); err != nil {
		return err
	}
	var out strings.Builder
	for _, r := range b.String() {
		if (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f {
			fmt.Fprintf(&out, "\\u%04x", r)
			continue
		}
		out.WriteRune(r)
	}
	_, err := io.WriteString(a.stdout, out.String())
	return err
}
