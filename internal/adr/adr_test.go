package adr_test

import (
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/adr"
)

func TestReadDir(t *testing.T) {
	adrs, skipped, err := adr.ReadDir(os.DirFS("testdata/decisions"))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, a := range adrs {
		paths = append(paths, a.Path)
	}
	if !slices.Equal(paths, []string{"0001-record-architecture-decisions.md", "0002-use-sqlite.md", "sub/ADR-0003-keys.md"}) {
		t.Fatalf("parsed %v", paths)
	}
	var why []string
	for _, s := range skipped {
		why = append(why, s.Path+": "+s.Reason)
	}
	if len(skipped) != 2 || !strings.Contains(why[0], "notes.md: ") || !strings.Contains(why[1], "untitled.md: ") || !strings.Contains(why[1], "no title") {
		t.Errorf("skipped %v (template.md is left out silently)", why)
	}

	nygard := adrs[0]
	if nygard.Number != 1 || nygard.Title != "Record architecture decisions" || nygard.Status != "accepted" ||
		!nygard.Date.Equal(time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)) ||
		nygard.Context != "We need to record the architectural decisions made on this project." ||
		!strings.HasPrefix(nygard.Decision, "We will use Architecture Decision Records, as described by Michael Nygard. They live") ||
		nygard.Consequences != "See Michael Nygard's article, linked above." || len(nygard.Rejected) != 0 {
		t.Errorf("nygard: %+v", nygard)
	}

	madr := adrs[1]
	if madr.Number != 2 || madr.Title != "Use SQLite as the embedded store" || madr.Status != "accepted" ||
		!madr.Date.Equal(time.Date(2025, 1, 20, 0, 0, 0, 0, time.UTC)) || madr.Chosen != "SQLite (modernc, pure Go)" ||
		!slices.Equal(madr.Drivers, []string{"no server to install", "pure Go build"}) ||
		!slices.Equal(madr.Options, []string{"SQLite (modernc, pure Go)", "bbolt", "PostgreSQL only"}) {
		t.Errorf("madr: %+v", madr)
	}
	wantRejected := []mnemo.Alternative{
		{Option: "bbolt", Reason: "it has no SQL and no full-text search; every index is hand-written"},
		{Option: "PostgreSQL only", Reason: "it needs a server"},
	}
	if !slices.Equal(madr.Rejected, wantRejected) {
		t.Errorf("rejected %+v\nwant %+v", madr.Rejected, wantRejected)
	}
	if madr.Consequences != "Good, because one file holds everything. Bad, because writes are serialised." || strings.Contains(madr.Decision+madr.Consequences, "Not a heading") {
		t.Errorf("decision %q, consequences %q (a fenced block is neither)", madr.Decision, madr.Consequences)
	}

	keys := adrs[2]
	if keys.Number != 3 || keys.Title != "Hash API keys" || keys.Status != "superseded" ||
		!keys.Date.Equal(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)) || keys.Decision != "Store only SHA-256 of each key's secret." {
		t.Errorf("keys: %+v", keys)
	}

	// The record: a decision with provenance, date and a stable id.
	r := madr.Record("team", "/adr")
	if r.Kind != mnemo.KindDecision || r.Scope != "/adr" || r.Source != "import:adr" ||
		!slices.Equal(r.Provenance, []string{"doc:0002-use-sqlite.md"}) || r.At == nil || !r.At.Equal(madr.Date) ||
		!strings.HasPrefix(r.Text, "ADR 2: Use SQLite as the embedded store — Chosen option") ||
		r.Decision.Principle != "no server to install; pure Go build" || len(r.Decision.Alternatives) != 2 {
		t.Errorf("record %+v", r)
	}
	if r.ID != madr.ID("team") || r.ID == madr.ID("other") || r.ID == nygard.ID("team") || len(r.ID) != 26 {
		t.Errorf("ids: %s %s %s", r.ID, madr.ID("other"), nygard.ID("team"))
	}
	rec := r.Record()
	rec.Namespace = "team"
	rec.Normalize(time.Now())
	if err := rec.Validate(mnemo.DefaultLimits); err != nil {
		t.Errorf("record does not validate: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for name, src := range map[string]string{
		"invalid UTF-8": "# T\n## Context\n\xff\xfe\n",
		"no title":      "## Context\nx\n",
		"no content":    "# Title\n\nJust prose.\n",
		"huge":          "# T\n## Context\n" + strings.Repeat("x", adr.MaxFileBytes),
	} {
		if _, err := adr.Parse(name+".md", []byte(src)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// FuzzParse: any input parses or fails cleanly, and a parsed ADR gives a
// record of valid UTF-8 that names its file.
func FuzzParse(f *testing.F) {
	for _, p := range []string{"0001-record-architecture-decisions.md", "0002-use-sqlite.md", "sub/ADR-0003-keys.md"} {
		b, err := os.ReadFile("testdata/decisions/" + p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("---\nstatus: \"accepted\"\n---\n# 12) X\n## Considered Options\n* [a](b)\n* c\n## Decision Outcome\nChosen option: [a](b)\n"))
	f.Add([]byte("# x\n```\n## Decision\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		a, err := adr.Parse("f.md", src)
		if err != nil {
			return
		}
		r := a.Record("ns", "/adr")
		for _, s := range []string{r.Text, r.Decision.Context, r.Decision.Decision, r.Decision.Principle} {
			if !utf8Valid(s) {
				t.Fatalf("invalid UTF-8 in %q", s)
			}
		}
		if r.Provenance[0] != "doc:f.md" || a.Title == "" {
			t.Fatalf("record %+v", r)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "") == s }

// TestReadDirSkipsWhatIsNotARegularFile: a link, a FIFO or a device named
// like an ADR is reported as skipped and never read.
func TestReadDirSkipsWhatIsNotARegularFile(t *testing.T) {
	fsys := fstest.MapFS{
		"0001-ok.md":     {Data: []byte("# 1. Use SQLite\n\n## Status\n\nAccepted\n\n## Decision\n\nWe use SQLite.\n")},
		"0002-link.md":   {Data: []byte("/etc/passwd"), Mode: fs.ModeSymlink},
		"0003-fifo.md":   {Mode: fs.ModeNamedPipe},
		"0004-device.md": {Mode: fs.ModeDevice | fs.ModeCharDevice},
	}
	adrs, skipped, err := adr.ReadDir(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(adrs) != 1 || len(skipped) != 3 {
		t.Fatalf("read %d ADRs, skipped %v", len(adrs), skipped)
	}
	for _, s := range skipped {
		if !strings.HasSuffix(s.Reason, "not a regular file") {
			t.Errorf("skipped %s: %s", s.Path, s.Reason)
		}
	}
}
