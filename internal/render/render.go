// Package render writes records as the text lines of mnemo's briefs: a
// digest entry's body, one-line folding and short references. The engine's
// digest and the features built beside it (handoff, corrections, episodes)
// render with it, so a record reads the same everywhere.
package render

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
)

// Entry renders the part of a digest entry that depends only on the
// record — "- (0.42) text [ref]" for a domain fact, "- (0.42) decision
// /api — text … [ref; provenance]" for others —; its token count is stored with the record at write time. It starts
// with a space and ends with exactly one newline, so that its tokens add up
// exactly with the score prefix before it and the next line after it.
func Entry(r *mnemo.Record) string {
	var b strings.Builder
	b.Grow(len(r.Text) + len(r.Scope) + 48) // most entries in one allocation
	// A fact, the most common kind, goes unnamed; other kinds and a scope
	// other than the root lead the line.
	lead := false
	if r.Kind != mnemo.KindFact {
		b.WriteString(" ")
		b.WriteString(string(r.Kind))
		lead = true
	}
	if r.Scope != "" && r.Scope != "/" {
		b.WriteString(" ")
		b.WriteString(r.Scope)
		lead = true
	}
	if lead {
		b.WriteString(" —")
	}
	b.WriteString(" ")
	b.WriteString(OneLine(r.Text))
	if d := r.Decision; d != nil {
		if d.Title != "" {
			b.WriteString("\n  - title: " + OneLine(d.Title))
		}
		if d.Decision != "" {
			b.WriteString("\n  - decision: " + OneLine(d.Decision))
		}
		if d.Context != "" {
			b.WriteString("\n  - why: " + OneLine(d.Context))
		}
		if d.Principle != "" {
			b.WriteString("\n  - principle: " + OneLine(d.Principle))
		}
		for _, a := range d.Alternatives {
			b.WriteString("\n  - rejected: " + OneLine(a.Option))
			if a.Reason != "" {
				b.WriteString(" (" + OneLine(a.Reason) + ")")
			}
		}
		if d.Consequences != "" {
			b.WriteString("\n  - consequences: " + OneLine(d.Consequences))
		}
		if d.Status != "" {
			b.WriteString("\n  - status: " + OneLine(d.Status))
		}
		if len(d.DependsOn) > 0 {
			b.WriteString("\n  - depends on: " + OneLine(JoinRefs(d.DependsOn)))
		}
		if len(d.Constrains) > 0 {
			b.WriteString("\n  - constrains: " + OneLine(JoinRefs(d.Constrains)))
		}
		if len(d.Principles) > 0 {
			b.WriteString("\n  - applies: " + OneLine(JoinRefs(d.Principles)))
		}
	}
	if c := r.Correction; c != nil {
		var parts []string
		for _, kv := range [][2]string{{"class", c.Class}, {"category", c.Category}, {"component", c.Component}, {"outcome", c.Outcome}} {
			if kv[1] != "" {
				parts = append(parts, kv[0]+": "+OneLine(kv[1]))
			}
		}
		if c.MissingContext {
			parts = append(parts, "missing context")
		}
		if len(parts) > 0 {
			b.WriteString("\n  - " + strings.Join(parts, "; "))
		}
		if c.Summary != "" && c.Summary != r.Text {
			b.WriteString("\n  - summary: " + OneLine(c.Summary))
		}
	}
	b.WriteString(" [")
	b.WriteString(mnemo.ShortRef(r.ID))
	// The reference leads to a record's provenance (mnemo get REF); the
	// line itself spells it out only for the workflow and practitioner
	// layers — decisions, procedures, corrections — where where-from is
	// what the entry is for. A domain fact's sources cost an agent tokens
	// on every line and are one lookup away.
	if r.Layer == mnemo.LayerDomain {
		// the reference alone
	} else if len(r.Provenance) > 0 {
		b.WriteString("; ")
		b.WriteString(OneLine(strings.Join(r.Provenance, ", ")))
	} else if r.Source != "" {
		b.WriteString("; source: ")
		b.WriteString(OneLine(r.Source))
	}
	b.WriteString("]\n")
	return b.String()
}

// OneLine folds whitespace runs (newlines included) into single spaces
// and trims the ends, as strings.Fields and Join would; a text that is one
// line already (most are) is returned as it is, without a copy.
func OneLine(s string) string {
	prevSpace := true // a leading space needs folding
	for i, r := range s {
		if r < utf8.RuneSelf && s[i] > ' ' { // ASCII and not a space
			prevSpace = false
			continue
		}
		if !unicode.IsSpace(r) {
			prevSpace = false
			continue
		}
		if r != ' ' || prevSpace {
			return strings.Join(strings.Fields(s), " ")
		}
		prevSpace = true
	}
	if prevSpace && s != "" { // a trailing space
		return strings.Join(strings.Fields(s), " ")
	}
	return s
}

// JoinRefs lists the short references of record ids.
func JoinRefs(ids []string) string {
	refs := make([]string, len(ids))
	for i, id := range ids {
		refs[i] = mnemo.ShortRef(id)
	}
	return strings.Join(refs, ", ")
}

// ClipRunes shortens s to at most n runes, the last an ellipsis.
func ClipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Bounds of a chat model call's material and answer, shared by the
// background paths that ask one (extraction, episodes).
const (
	MessageRunes  = 2_000  // each message, clipped
	MaterialRunes = 24_000 // all messages of one call
	ItemRunes     = 500    // each memory or episode item
)

// Numbered renders messages as "[N] text" lines, each folded to one line
// and clipped to MessageRunes, while they fit MaterialRunes; it returns
// the text and how many fitted.
func Numbered(texts []string) (string, int) {
	var b strings.Builder
	used := 0
	for i, t := range texts {
		line := "[" + strconv.Itoa(i+1) + "] " + ClipRunes(OneLine(t), MessageRunes) + "\n"
		n := len([]rune(line))
		if used+n > MaterialRunes {
			return b.String(), i
		}
		used += n
		b.WriteString(line)
	}
	return b.String(), len(texts)
}
