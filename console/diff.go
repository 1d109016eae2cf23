package console

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

// seg is one piece of a word diff: kept, added (+1) or removed (-1).
type seg struct {
	Op   int
	Text string
}

// maxDiffWords bounds the word diff; longer texts are shown whole.
const maxDiffWords = 3000

// wordDiff diffs two texts word by word (longest common subsequence).
func wordDiff(a, b string) []seg {
	aw, bw := splitWords(a), splitWords(b)
	if len(aw) > maxDiffWords || len(bw) > maxDiffWords {
		return []seg{{-1, a}, {1, b}}
	}
	n, m := len(aw), len(bw)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if aw[i] == bw[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []seg
	push := func(op int, s string) {
		if k := len(out); k > 0 && out[k-1].Op == op {
			out[k-1].Text += s
			return
		}
		out = append(out, seg{op, s})
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case aw[i] == bw[j]:
			push(0, aw[i])
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			push(-1, aw[i])
			i++
		default:
			push(1, bw[j])
			j++
		}
	}
	for ; i < n; i++ {
		push(-1, aw[i])
	}
	for ; j < m; j++ {
		push(1, bw[j])
	}
	return out
}

// splitWords splits text into words and the runs of spaces between them.
func splitWords(s string) []string {
	var out []string
	start := 0
	for i := 1; i <= len(s); i++ {
		if i == len(s) || isSpace(s[i]) != isSpace(s[i-1]) {
			out = append(out, s[start:i])
			start = i
		}
	}
	return out
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

// change is one field that differs between two revisions.
type change struct {
	Field, From, To string
}

// revisionView is one revision of a record's history as the page shows it.
type revisionView struct {
	mnemo.Revision
	Text    []seg    // the text diff against the previous visible revision
	Changes []change // other fields that changed
	First   bool     // the first revision shown in full
	Gap     bool     // the previous revision is hidden: no diff is shown
}

// historyViews diffs each visible revision against the one before it.
// A redacted revision shows only its time, action and actor; the next
// visible one is not diffed against anything hidden.
func historyViews(revs []mnemo.Revision) []revisionView {
	out := make([]revisionView, len(revs))
	var prev *mnemo.Record
	for i, rv := range revs {
		out[i].Revision = rv
		if rv.Redacted || rv.Record == nil {
			prev = nil
			continue
		}
		switch {
		case prev == nil && i > 0:
			out[i].Gap = true
		case prev == nil:
			out[i].First = true
		default:
			if prev.Text != rv.Record.Text {
				out[i].Text = wordDiff(prev.Text, rv.Record.Text)
			}
			out[i].Changes = fieldChanges(prev, rv.Record)
		}
		prev = rv.Record
	}
	return out
}

// fieldChanges lists the fields (but text and bookkeeping) that differ.
func fieldChanges(a, b *mnemo.Record) []change {
	var out []change
	add := func(field, x, y string) {
		if x != y {
			out = append(out, change{field, x, y})
		}
	}
	add("layer", string(a.Layer), string(b.Layer))
	add("kind", string(a.Kind), string(b.Kind))
	add("scope", a.Scope, b.Scope)
	add("importance", fmt.Sprintf("%.2f", a.Importance), fmt.Sprintf("%.2f", b.Importance))
	add("confidence", fmt.Sprintf("%.2f", a.Confidence), fmt.Sprintf("%.2f", b.Confidence))
	add("criticality", fmt.Sprintf("%.2f", a.Criticality), fmt.Sprintf("%.2f", b.Criticality))
	add("access level", fmt.Sprint(a.AccessLevel), fmt.Sprint(b.AccessLevel))
	add("source", a.Source, b.Source)
	add("component", a.Component, b.Component)
	add("mission", a.Mission, b.Mission)
	add("thread", a.Thread, b.Thread)
	add("tags", strings.Join(a.Tags, ", "), strings.Join(b.Tags, ", "))
	add("provenance", strings.Join(a.Provenance, ", "), strings.Join(b.Provenance, ", "))
	add("superseded by", a.SupersededBy, b.SupersededBy)
	add("forgotten", fmt.Sprint(a.DeletedAt != nil), fmt.Sprint(b.DeletedAt != nil))
	add("decision", jsonOf(a.Decision), jsonOf(b.Decision))
	add("correction", jsonOf(a.Correction), jsonOf(b.Correction))
	return out
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	if string(b) == "null" {
		return ""
	}
	return string(b)
}

// factor is one named score factor.
type factor struct {
	Name   string
	Value  float64
	Weight float64
}

// sortedFactors lists a hit's factors in a fixed order, with the weights.
func sortedFactors(f mnemo.Factors, weights map[string]float64) []factor {
	out := make([]factor, 0, len(f))
	for k, v := range f {
		out = append(out, factor{k, v, weights[k]})
	}
	order := []string{"semantic", "keyword", "recency", "importance", "confidence", "frequency", "thread"}
	slices.SortFunc(out, func(a, b factor) int {
		ia, ib := slices.Index(order, a.Name), slices.Index(order, b.Name)
		if ia < 0 {
			ia = len(order)
		}
		if ib < 0 {
			ib = len(order)
		}
		if ia != ib {
			return ia - ib
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// ref is a provenance reference as a page shows it: a link when it names
// a record or thread of the console, plain text otherwise.
type ref struct {
	Kind, Value, Href string
}

// provenanceRef reads a provenance reference ("commit:sha", "record:id",
// "thread:name", "doc:path", ...). Only console links are made: a
// reference is never followed to another site.
func provenanceRef(p string) ref {
	k, v, ok := strings.Cut(p, ":")
	if !ok {
		return ref{Value: p}
	}
	r := ref{Kind: k, Value: v}
	switch k {
	case "record", "caused-by", "supersedes":
		if mnemo.ValidateID(v) == nil {
			r.Href = "/record/" + pathEscape(v)
		}
	case "thread", "session":
		r.Href = "/thread/" + pathEscape(v)
	}
	return r
}
