// Package adr reads architecture decision records — Markdown files in the
// formats of Michael Nygard ("# 1. Title", "## Status", "## Context",
// "## Decision", "## Consequences") and MADR (front matter or "* Status:"
// lines, "## Context and Problem Statement", "## Decision Drivers",
// "## Considered Options", "## Decision Outcome" with "Chosen option: …",
// "## Pros and Cons of the Options") — into mnemo decision records: the
// decision with its context, the principle it rests on, and every
// considered option that was not chosen as a rejected alternative, with the
// "Bad, because …" points as its reason.
package adr

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
)

// ADR is one parsed decision record.
type ADR struct {
	Path         string              // slash-separated, relative to the directory read
	Number       int                 // from the title or the file name; 0 when none
	Title        string              // without its number
	Status       string              // lower-cased first word when it is a known status, else the line
	Date         time.Time           // zero when the record names none
	Context      string              // the problem
	Decision     string              // what was decided
	Consequences string              // what follows
	Drivers      []string            // decision drivers, in order
	Options      []string            // considered options, in order
	Chosen       string              // the chosen option, when named
	Rejected     []mnemo.Alternative // considered options not chosen, with the reasons against them
}

// MaxFileBytes bounds an ADR file.
const MaxFileBytes = 1 << 20

var (
	headingRE  = lazyRegexp(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	numberRE   = lazyRegexp(`^(?i)(?:adr[-_ ]?)?0*(\d+)\s*[.:)\-–—]\s*`)
	fileNumRE  = lazyRegexp(`^0*(\d+)[-_ .]`)
	metaRE     = lazyRegexp(`^(?:[*-]\s+)?(?i)(status|date|deciders|technical story)\s*:\s*(.*)$`)
	chosenRE   = lazyRegexp(`(?i)chosen option:?\s*(?:"([^"]+)"|“([^”]+)”|\[([^\]]+)\]|([^,.\n]+))`)
	linkRE     = lazyRegexp(`\[([^\]]*)\]\([^)]*\)`)
	knownState = []string{"proposed", "accepted", "rejected", "deprecated", "superseded", "draft"}
)

// Parse reads one ADR. It fails on invalid UTF-8, an oversized file, or a
// file that has no title or no decision content (no context, decision or
// considered options).
func Parse(filePath string, src []byte) (*ADR, error) {
	if len(src) > MaxFileBytes {
		return nil, fmt.Errorf("%s: %d bytes, over the limit of %d", filePath, len(src), MaxFileBytes)
	}
	if !utf8.Valid(src) {
		return nil, fmt.Errorf("%s: not valid UTF-8", filePath)
	}
	a := &ADR{Path: filePath}
	text := strings.ReplaceAll(strings.ReplaceAll(string(src), "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(text, "\n")
	meta := map[string]string{}
	// Front matter.
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		for i := 1; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == "---" {
				for _, l := range lines[1:i] {
					if k, v, ok := strings.Cut(l, ":"); ok {
						meta[strings.ToLower(strings.TrimSpace(k))] = unquote(strings.TrimSpace(v))
					}
				}
				lines = lines[i+1:]
				break
			}
		}
	}
	sections := map[string][]string{}
	sub := map[string][]string{} // "section/subsection" -> lines
	cur, curSub := "", ""
	fence := ""
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			add(sections, sub, cur, curSub, l)
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			add(sections, sub, cur, curSub, l)
			continue
		}
		if m := headingRE().FindStringSubmatch(t); m != nil {
			level, title := len(m[1]), strings.TrimSpace(linkRE().ReplaceAllString(m[2], "$1"))
			switch {
			case level == 1 && a.Title == "":
				a.Title = title
				cur, curSub = "", ""
			case level <= 2:
				cur, curSub = strings.ToLower(title), ""
			default:
				curSub = strings.ToLower(title)
			}
			continue
		}
		if cur == "" {
			if m := metaRE().FindStringSubmatch(t); m != nil {
				meta[strings.ToLower(m[1])] = strings.TrimSpace(m[2])
				continue
			}
		}
		add(sections, sub, cur, curSub, l)
	}
	if a.Title == "" {
		return nil, fmt.Errorf("%s: no title (a line starting with \"# \")", filePath)
	}
	if m := numberRE().FindStringSubmatch(a.Title); m != nil {
		if rest := strings.TrimSpace(a.Title[len(m[0]):]); rest != "" { // "# 7." alone stays the title
			a.Number, _ = strconv.Atoi(m[1])
			a.Title = rest
		}
	}
	if a.Number == 0 {
		if m := fileNumRE().FindStringSubmatch(path.Base(filePath)); m != nil {
			a.Number, _ = strconv.Atoi(m[1])
		}
	}

	// Status and date: a section, a metadata line or front matter.
	status := firstLine(sections["status"])
	if status == "" {
		status = meta["status"]
	}
	a.Status = normStatus(status)
	date := meta["date"]
	if date == "" {
		date = firstLine(sections["date"])
	}
	if t, err := time.Parse(time.DateOnly, strings.TrimSpace(strings.SplitN(date, " ", 2)[0])); err == nil {
		a.Date = t
	}

	a.Context = paragraphs(pick(sections, "context and problem statement", "context", "problem statement", "background", "problem"))
	outcome := pick(sections, "decision outcome", "decision", "resolution")
	a.Decision = paragraphs(outcome)
	a.Consequences = paragraphs(pick(sections, "consequences"))
	if a.Consequences == "" {
		for _, k := range []string{"decision outcome/consequences", "decision outcome/positive consequences",
			"decision outcome/negative consequences", "decision/consequences"} {
			if c := paragraphs(sub[k]); c != "" {
				a.Consequences = strings.TrimSpace(a.Consequences + " " + c)
			}
		}
	}
	a.Drivers = bullets(pick(sections, "decision drivers", "drivers"))
	a.Options = bullets(pick(sections, "considered options", "options", "alternatives", "options considered"))
	if m := chosenRE().FindStringSubmatch(a.Decision); m != nil {
		for _, g := range m[1:] {
			if g != "" {
				a.Chosen = strings.TrimSpace(g)
				break
			}
		}
	}
	// Without a named choice, no option is known to be rejected.
	if a.Chosen != "" {
		for _, o := range a.Options {
			if !sameOption(o, a.Chosen) {
				a.Rejected = append(a.Rejected, mnemo.Alternative{Option: o, Reason: reasonAgainst(sub, o)})
			}
		}
	}
	if a.Context == "" && a.Decision == "" && len(a.Options) == 0 {
		return nil, fmt.Errorf("%s: no context, decision or considered options", filePath)
	}
	return a, nil
}

func add(sections, sub map[string][]string, cur, curSub, line string) {
	if cur == "" {
		return
	}
	if curSub != "" {
		sub[cur+"/"+curSub] = append(sub[cur+"/"+curSub], line)
		return
	}
	sections[cur] = append(sections[cur], line)
}

func pick(sections map[string][]string, names ...string) []string {
	for _, n := range names {
		if s, ok := sections[n]; ok {
			return s
		}
	}
	return nil
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// firstLine returns the first non-empty line without list markers.
func firstLine(lines []string) string {
	for _, l := range lines {
		if t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "*-+ ")); t != "" {
			return linkRE().ReplaceAllString(t, "$1")
		}
	}
	return ""
}

func normStatus(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	first := strings.ToLower(strings.Trim(strings.Fields(s)[0], ".,:;*_"))
	if slices.Contains(knownState, first) {
		return first
	}
	return s
}

// prose returns the trimmed lines outside code fences.
func prose(lines []string) []string {
	var out []string
	fence := ""
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
		default:
			out = append(out, t)
		}
	}
	return out
}

// paragraphs joins the prose of lines into one line, links reduced to
// their text, blank lines and code blocks dropped.
func paragraphs(lines []string) string {
	var parts []string
	for _, t := range prose(lines) {
		if len(t) > 1 && (t[0] == '*' || t[0] == '-' || t[0] == '+') && t[1] == ' ' {
			t = strings.TrimSpace(t[2:]) // a list item reads as a sentence
		}
		if t != "" {
			parts = append(parts, linkRE().ReplaceAllString(t, "$1"))
		}
	}
	return strings.Join(parts, " ")
}

// bullets returns the items of a Markdown list (continuation lines joined,
// code blocks dropped).
func bullets(lines []string) []string {
	var out []string
	for _, t := range prose(lines) {
		if t == "" {
			continue
		}
		if len(t) > 1 && (t[0] == '*' || t[0] == '-' || t[0] == '+') && t[1] == ' ' {
			out = append(out, cleanOption(t[2:]))
			continue
		}
		if len(out) > 0 {
			out[len(out)-1] += " " + t
		}
	}
	return out
}

func cleanOption(s string) string {
	s = linkRE().ReplaceAllString(strings.TrimSpace(s), "$1")
	return strings.Trim(s, "\"“”`* ")
}

func sameOption(a, b string) bool {
	norm := func(s string) string { return strings.ToLower(cleanOption(s)) }
	x, y := norm(a), norm(b)
	return x == y || strings.HasPrefix(x, y+" ") || strings.HasPrefix(y, x+" ")
}

// reasonAgainst gathers the "Bad, because …" points of an option from the
// "Pros and Cons of the Options" section.
func reasonAgainst(sub map[string][]string, option string) string {
	for _, sec := range []string{"pros and cons of the options", "pros and cons"} {
		for key, lines := range sub {
			name, ok := strings.CutPrefix(key, sec+"/")
			if !ok || !sameOption(name, option) {
				continue
			}
			var bad []string
			for _, b := range bullets(lines) {
				if r, ok := cutPrefixFold(b, "bad, because"); ok {
					bad = append(bad, strings.TrimRight(strings.TrimSpace(r), "."))
				} else if r, ok := cutPrefixFold(b, "bad:"); ok {
					bad = append(bad, strings.TrimRight(strings.TrimSpace(r), "."))
				}
			}
			return strings.Join(bad, "; ")
		}
	}
	return ""
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return "", false
}

// ID is the record id of an ADR imported into namespace ns: a ULID whose
// time is the ADR's date (the Unix epoch when it has none) and whose
// entropy comes from SHA-256 of the namespace and the path, so importing
// the same directory again finds the same records.
func (a *ADR) ID(ns string) string {
	return mnemo.DerivedID(a.Date, "adr", ns, a.Path)
}

// Record returns the decision record of the ADR: kind decision, the given
// scope, its date as the record time, "doc:<path>" as provenance, the
// drivers as the principle and the options not chosen as rejected
// alternatives.
func (a *ADR) Record(ns, scope string) mnemo.NewRecord {
	title := a.Title
	if a.Number > 0 {
		title = fmt.Sprintf("ADR %d: %s", a.Number, a.Title)
	}
	text := title
	if s := firstSentence(a.Decision); s != "" {
		text += " — " + s
	}
	r := mnemo.NewRecord{
		ID: a.ID(ns), Kind: mnemo.KindDecision, Scope: scope, Text: text, Source: "import:adr",
		Provenance: []string{"doc:" + a.Path},
		Decision: &mnemo.Decision{Title: title, Context: a.Context, Decision: a.Decision, Consequences: a.Consequences,
			Principle: strings.Join(a.Drivers, "; "), Status: a.Status, Alternatives: a.Rejected},
	}
	if !a.Date.IsZero() {
		d := a.Date
		r.At = &d
	}
	return r
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 && i < 300 {
		return s[:i+1]
	}
	if len(s) > 300 {
		cut := 300
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return s[:cut] + "…"
	}
	return s
}

// Skipped is a file of the directory that is not an ADR, with the reason.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ReadDir parses every Markdown file under root in fsys (in path order),
// skipping README, index and template files and the files that are not
// ADRs, which it reports. Only regular files are read: a symbolic link, a
// FIFO or a device named like an ADR is reported as skipped, and so is a
// file the folder refuses to read (over its size limit, see safefile).
func ReadDir(fsys fs.FS) ([]*ADR, []Skipped, error) {
	var out []*ADR
	var skipped []Skipped
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		name := strings.ToLower(d.Name())
		if !strings.HasSuffix(name, ".md") && !strings.HasSuffix(name, ".markdown") {
			return nil
		}
		base := strings.TrimSuffix(strings.TrimSuffix(name, ".md"), ".markdown")
		if base == "readme" || base == "index" || strings.Contains(base, "template") {
			return nil
		}
		if !d.Type().IsRegular() {
			skipped = append(skipped, Skipped{Path: p, Reason: p + ": not a regular file"})
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if mnemo.ErrorCode(err) == mnemo.ETOOLARGE || mnemo.ErrorCode(err) == mnemo.EINVALID {
			skipped = append(skipped, Skipped{Path: p, Reason: mnemo.ErrorMessage(err)})
			return nil
		}
		if err != nil {
			return err
		}
		a, perr := Parse(p, src)
		if perr != nil {
			skipped = append(skipped, Skipped{Path: p, Reason: perr.Error()})
			return nil
		}
		out = append(out, a)
		return nil
	})
	return out, skipped, err
}

// lazyRegexp compiles expr on first use, not when the program starts.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
