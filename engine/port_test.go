package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
)

// An export imported into a second namespace of the same store: ids are
// unique per namespace, so the copies keep their ids (and the references
// between them), the originals are untouched, and importing again is
// idempotent in both namespaces.
func TestImportIntoAnotherNamespaceOfTheSameStore(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	base := f.remember(t, "a", mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "Use SQLite",
		Decision: &mnemo.Decision{Title: "store"}, At: at(f.now.Add(-3 * time.Hour))})[0]
	dep := f.remember(t, "a", mnemo.NewRecord{Kind: mnemo.KindDecision, Text: "Use WAL mode",
		Decision: &mnemo.Decision{Title: "journal", DependsOn: []string{base.ID, "elsewhere"}}})[0]
	old := f.remember(t, "a", mnemo.NewRecord{Text: "The relay limit is 150 W", At: at(f.now.Add(-2 * time.Hour))})[0]
	f.remember(t, "a", mnemo.NewRecord{Text: "The relay limit is 120 W", Supersedes: old.ID})
	f.remember(t, "a", mnemo.NewRecord{Text: "custom id", ID: "adr-0001"})
	var exp bytes.Buffer
	if n, err := f.svc.Export(mnemo.WithCallerIn(ctx, admin, "a"), &exp); err != nil || n != 5 {
		t.Fatalf("export: %d %v", n, err)
	}

	res, err := f.svc.Import(mnemo.WithCallerIn(ctx, admin, "b"), bytes.NewReader(exp.Bytes()), nil)
	if err != nil || res.Imported != 5 || res.Skipped != 0 {
		t.Fatalf("import into b: %+v %v", res, err)
	}
	list, err := f.svc.List(mnemo.WithCallerIn(ctx, admin, "b"), mnemo.ListOptions{IncludeHistory: true})
	if err != nil || len(list) != 5 {
		t.Fatalf("b holds %d records (%v), want 5", len(list), err)
	}
	byText := map[string]*mnemo.Record{}
	for _, r := range list {
		byText[r.Text] = r
	}
	if id := byText["Use SQLite"].ID; id != base.ID {
		t.Errorf("imported id %s, want %s kept", id, base.ID)
	}
	if got := byText["Use WAL mode"].Decision.DependsOn; !slices.Equal(got, []string{base.ID, "elsewhere"}) {
		t.Errorf("depends_on = %v", got)
	}
	if got := byText["The relay limit is 150 W"].SupersededBy; got != byText["The relay limit is 120 W"].ID {
		t.Errorf("superseded_by = %s, want the successor", got)
	}
	if got := byText["custom id"].ID; got != "adr-0001" {
		t.Errorf("custom id became %s", got)
	}
	// Each namespace has its own record under the shared id.
	edited := "Use SQLite, in WAL mode"
	if _, err := f.svc.Update(mnemo.WithCallerIn(ctx, admin, "b"), base.ID, mnemo.RecordPatch{Text: &edited}); err != nil {
		t.Fatal(err)
	}
	if r := get(t, f, "a", base.ID); r.Text != "Use SQLite" || r.Namespace != "a" {
		t.Errorf("the edit in b reached a: %+v", r)
	}
	if r := get(t, f, "a", dep.ID); r.Decision.DependsOn[0] != base.ID {
		t.Errorf("original changed: %v", r.Decision.DependsOn)
	}
	res, err = f.svc.Import(mnemo.WithCallerIn(ctx, admin, "b"), bytes.NewReader(exp.Bytes()), nil)
	if err != nil || res.Imported != 0 || res.Skipped != 5 {
		t.Fatalf("second import into b: %+v %v", res, err)
	}
	res, err = f.svc.Import(mnemo.WithCallerIn(ctx, admin, "a"), bytes.NewReader(exp.Bytes()), nil)
	if err != nil || res.Imported != 0 || res.Skipped != 5 {
		t.Fatalf("import back into a: %+v %v", res, err)
	}
}

// A caller-chosen id must be new to its namespace; another namespace may
// use it freely, and its answer does not depend on the first namespace.
func TestRememberWithTakenID(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	f.remember(t, "a", mnemo.NewRecord{Text: "first", ID: "rec-1"})
	_, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, "a"), []mnemo.NewRecord{{Text: "fresh"}, {Text: "second", ID: "rec-1"}}, mnemo.WriteOptions{})
	if mnemo.ErrorCode(err) != mnemo.ECONFLICT || !strings.Contains(err.Error(), "record 2") {
		t.Errorf("namespace a: %v, want %s for record 2", err, mnemo.ECONFLICT)
	}
	if n, _ := f.store.Count(ctx, "a"); n != 1 {
		t.Errorf("namespace a: %d records after a refused batch", n)
	}
	w, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, "b"), []mnemo.NewRecord{{Text: "fresh"}, {Text: "second", ID: "rec-1"}}, mnemo.WriteOptions{})
	if err != nil || w[1].ID != "rec-1" || w[1].Namespace != "b" {
		t.Errorf("namespace b: %+v %v, want rec-1 written in b", w, err)
	}
	_, err = f.svc.Remember(mnemo.WithCallerIn(ctx, admin, "b"), []mnemo.NewRecord{{Text: "x", ID: "twice"}, {Text: "y", ID: "twice"}}, mnemo.WriteOptions{})
	if mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("the same id twice in a batch: %v", err)
	}
	if r := get(t, f, "a", "rec-1"); r.Text != "first" {
		t.Errorf("record changed: %q", r.Text)
	}
	if r := get(t, f, "b", "rec-1"); r.Text != "second" {
		t.Errorf("record of b: %q", r.Text)
	}
}

// An imported line without importance or confidence gets the defaults a
// write through Remember gets (importance 0.5, confidence by source); a
// line that carries them, zero included, keeps them.
func TestImportDefaultsImportanceAndConfidence(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	in := strings.Join([]string{
		`{"id":"plain","text":"The relay limit is 120 W"}`,
		`{"id":"inferred","text":"The user prefers tabs","source":"llm"}`,
		`{"id":"zeroes","text":"A record rated zero","importance":0,"confidence":0}`,
		`{"id":"nulls","text":"A record with null ratings","importance":null,"confidence":null}`,
		`{"id":"rated","text":"A rated record","importance":0.9,"confidence":0.3}`,
	}, "\n")
	if _, err := f.svc.Import(mnemo.WithCallerIn(ctx, admin, "a"), strings.NewReader(in), nil); err != nil {
		t.Fatal(err)
	}
	want := f.remember(t, "b", mnemo.NewRecord{Text: "written through remember"})[0]
	wantLLM := f.remember(t, "b", mnemo.NewRecord{Text: "inferred through remember", Source: "llm"})[0]
	tests := []struct {
		id                     string
		importance, confidence float64
	}{
		{"plain", want.Importance, want.Confidence},
		{"inferred", wantLLM.Importance, wantLLM.Confidence},
		{"zeroes", 0, 0},
		{"nulls", want.Importance, want.Confidence},
		{"rated", 0.9, 0.3},
	}
	for _, tt := range tests {
		r := get(t, f, "a", tt.id)
		if r.Importance != tt.importance || r.Confidence != tt.confidence {
			t.Errorf("%s: importance %v confidence %v, want %v %v", tt.id, r.Importance, r.Confidence, tt.importance, tt.confidence)
		}
	}
	if want.Importance != 0.5 || want.Confidence != 1 || wantLLM.Confidence != 0.7 {
		t.Errorf("remember's defaults changed: %v %v %v", want.Importance, want.Confidence, wantLLM.Confidence)
	}
}

// onlyReader hides every method of its reader but Read: an input that
// cannot seek, as standard input from a pipe or a request body.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// Import reads its input twice, checking every line before it writes one:
// an input that cannot seek is copied to a temporary file (removed after),
// one that can is read again from where it started; both write the same
// records, in batches, with progress to the total.
func TestImportTwoPasses(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var in strings.Builder
	const n = 1234 // more than two batches
	for i := range n {
		fmt.Fprintf(&in, `{"id":"r%04d","text":"record number %d about the relay","thread":"t%d"}`+"\n", i, i, i%7)
		if i%100 == 0 {
			in.WriteString("\n  \n") // blank lines are skipped
		}
	}
	ctx := context.Background()
	f := open(t, "", nil)
	var calls []int
	res, err := f.svc.Import(mnemo.WithCallerIn(ctx, admin, "pipe"), onlyReader{strings.NewReader(in.String())},
		func(done, total int) {
			if total != n {
				t.Errorf("progress total %d, want %d", total, n)
			}
			calls = append(calls, done)
		})
	if err != nil || res.Read != n || res.Imported != n || res.Skipped != 0 {
		t.Fatalf("import from a pipe: %+v %v", res, err)
	}
	if !slices.Equal(calls, []int{500, 1000, n}) {
		t.Errorf("progress %v, want after each batch", calls)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the temporary copy was left behind: %v", left)
	}
	// A seekable input read from an offset: what precedes it is not read.
	rd := strings.NewReader("not a record\n" + in.String())
	if _, err := rd.Seek(int64(len("not a record\n")), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if res, err := f.svc.Import(mnemo.WithCallerIn(ctx, admin, "file"), rd, nil); err != nil || res.Imported != n {
		t.Fatalf("import from a seekable input: %+v %v", res, err)
	}
	for _, ns := range []string{"pipe", "file"} {
		list, err := f.svc.List(mnemo.WithCallerIn(ctx, admin, ns), mnemo.ListOptions{Limit: 2 * n})
		if err != nil || len(list) != n {
			t.Fatalf("%s holds %d records (%v), want %d", ns, len(list), err, n)
		}
		if r, err := f.svc.Get(mnemo.WithCallerIn(ctx, admin, ns), "r1233"); err != nil || r.Thread != "t1" || !strings.Contains(r.Text, "1233") {
			t.Errorf("%s: r1233 = %+v, %v", ns, r, err)
		}
	}
}

// A bad line or an id given twice, however far into the input, refuses the
// whole import before anything is written, from a pipe as from a file; ids
// are compared by hash, and equal hashes of different ids are no error.
func TestImportRefusesBeforeWriting(t *testing.T) {
	ctx := context.Background()
	f := open(t, "", nil)
	var good strings.Builder
	for i := range 700 {
		fmt.Fprintf(&good, `{"id":"g%d","text":"record %d"}`+"\n", i, i)
	}
	cases := map[string]struct{ in, want string }{
		"bad line":  {good.String() + "{\"id\":\"x\",\"text\":\n", "line 701: not a record"},
		"unknown":   {good.String() + `{"id":"x","text":"t","colour":"red"}` + "\n", "line 701"},
		"duplicate": {good.String() + `{"id":"g3","text":"again"}` + "\n", "record 701: id g3 appears twice"},
	}
	for name, tc := range cases {
		for _, pipe := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tc.in)
			if pipe {
				r = onlyReader{r}
			}
			_, err := f.svc.Import(mnemo.WithCallerIn(ctx, admin, "a"), r, nil)
			if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s (pipe %v): %v, want EINVALID %q", name, pipe, err, tc.want)
			}
			if list, _ := f.svc.List(mnemo.WithCallerIn(ctx, admin, "a"), mnemo.ListOptions{}); len(list) != 0 {
				t.Fatalf("%s: %d records written", name, len(list))
			}
		}
	}
	// Every id hashes alike: the distinct ones import, the repeated one is
	// still found.
	defer engine.SetImportIDHash(func(string) uint64 { return 7 })()
	res, err := f.svc.Import(mnemo.WithCallerIn(ctx, admin, "a"), onlyReader{strings.NewReader(good.String())}, nil)
	if err != nil || res.Imported != 700 {
		t.Fatalf("ids with equal hashes: %+v %v", res, err)
	}
	_, err = f.svc.Import(mnemo.WithCallerIn(ctx, admin, "b"), strings.NewReader(cases["duplicate"].in), nil)
	if err == nil || !strings.Contains(err.Error(), "record 701: id g3 appears twice") {
		t.Errorf("duplicate among equal hashes: %v", err)
	}
}

// growing is an input that grows once it has been read to the end, as a
// file another process appends to: Seek back to the start finds a line
// the first pass did not see.
type growing struct {
	*strings.Reader
	rest string
}

func (g *growing) Seek(off int64, whence int) (int64, error) {
	if g.rest != "" && whence == io.SeekStart {
		pos, _ := g.Reader.Seek(0, io.SeekCurrent)
		all := make([]byte, g.Reader.Size())
		g.Reader.ReadAt(all, 0)
		g.Reader = strings.NewReader(string(all) + g.rest)
		g.rest = ""
		g.Reader.Seek(pos, io.SeekStart)
	}
	return g.Reader.Seek(off, whence)
}

// The second pass reads no more than the first checked.
func TestImportReadsNoMoreThanItChecked(t *testing.T) {
	ctx := context.Background()
	f := open(t, "", nil)
	in := &growing{Reader: strings.NewReader(`{"id":"a","text":"first"}` + "\n" + `{"id":"b","text":"second"}` + "\n"),
		rest: `{"id":"c","text":"appended later"}` + "\n"}
	res, err := f.svc.Import(mnemo.WithCallerIn(ctx, admin, "a"), in, nil)
	if err != nil || res.Read != 2 || res.Imported != 2 {
		t.Fatalf("import: %+v %v", res, err)
	}
	if _, err := f.svc.Get(mnemo.WithCallerIn(ctx, admin, "a"), "c"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("the line appended after the check was imported: %v", err)
	}
}
