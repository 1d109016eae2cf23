package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
	"github.com/mnemo-dev/mnemo/storetest"
	_ "modernc.org/sqlite"
)

// TestFoldMatchesFTS5 tokenises every assigned BMP code point with FTS5
// (the tokenizer of records_fts) and with memindex.EachTerm, and expects the same
// terms.
func TestFoldMatchesFTS5(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "fold.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{`CREATE VIRTUAL TABLE f USING fts5(t, tokenize='unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(f, 'instance')`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	assigned := []*unicode.RangeTable{unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf, unicode.Co}
	docs := map[int64]string{}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.Prepare(`INSERT INTO f (rowid, t) VALUES (?, ?)`)
	if err != nil {
		t.Fatal(err)
	}
	add := func(id int64, text string) {
		docs[id] = text
		if _, err := st.Exec(id, text); err != nil {
			t.Fatal(err)
		}
	}
	// Every code point below U+3000 (the alphabetic scripts), a sample of
	// the rest (mostly CJK, which never folds).
	for c := rune(1); c < 0x10000; c++ {
		if (c < 0x3000 || c%17 == 0) && unicode.In(c, assigned...) {
			add(int64(c), "q"+string(c)+"q")
		}
	}
	for i, s := range []string{"Київ КИЇВ київ", "Café CAFÉ cafe naïve", "e\u0301t\u00e9", "Ωμέγα ΣΊΣΥΦΟΣ",
		"straße STRASSE", "İstanbul ıi", "x2y 3.14 ½ ²", "日本語のテキスト", "alpha🔥beta"} {
		add(0x20000+int64(i), s)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT doc, term FROM v ORDER BY doc, offset`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	fts := map[int64][]string{}
	for rows.Next() {
		var d int64
		var term string
		if err := rows.Scan(&d, &term); err != nil {
			t.Fatal(err)
		}
		fts[d] = append(fts[d], term)
	}
	bad := 0
	for id, text := range docs {
		var got []string
		memindex.EachTerm([]byte(text), nil, func(b []byte) { got = append(got, string(b)) })
		if !slices.Equal(got, fts[id]) {
			if bad++; bad <= 10 {
				t.Errorf("%U %q: terms %q, FTS5 %q", rune(id), text, got, fts[id])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d texts tokenise differently", bad, len(docs))
	}
}

func TestKeywordTerms(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"КИЇВ", []string{"київ"}},
		{"Café cafe CAFE", []string{"caf"}}, // folded, then stemmed
		{"deploy deployed deployments", []string{"deploy"}},
		{"правила правило", []string{"правил"}},
		{"the cat and the hat", []string{"cat", "hat"}},
		{"the and", []string{"the", "and"}},
		{"e\u0301tude", []string{"etud"}},
		{"", nil},
	} {
		if got := memindex.Terms(queryTokens(c.q), maxQueryTokens); !slices.Equal(got, c.want) {
			t.Errorf("memindex.Terms(%q) = %q, want %q", c.q, got, c.want)
		}
	}
}

func openTest(t testing.TB, path string, opt Options) *Store {
	t.Helper()
	opt.Path = path
	s, err := Open(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func textRecord(ns, id, text string, now time.Time) *mnemo.Record {
	r := &mnemo.Record{ID: id, Namespace: ns, Kind: mnemo.KindFact, Text: text}
	r.Normalize(now)
	return r
}

// zipfTexts makes n texts of about 25 words from a Zipf vocabulary.
func zipfTexts(seed uint64, n, words int) []string {
	rng := rand.New(rand.NewPCG(seed, 7))
	z := rand.NewZipf(rng, 1.2, 3, 1999)
	syl := []string{"ka", "ro", "mi", "te", "lu", "sa", "ven", "dor", "pli", "qua"}
	vocab := make([]string, 2000)
	for i := range vocab {
		vocab[i] = syl[i%10] + syl[i/10%10] + syl[i/100%10] + fmt.Sprint(i/1000)
	}
	out := make([]string, n)
	for i := range out {
		w := make([]string, words)
		for j := range w {
			w[j] = vocab[z.Uint64()]
		}
		out[i] = strings.Join(w, " ")
	}
	return out
}

// TestKeywordAgreesWithFTS5 ranks a Zipf corpus with the in-memory BM25 and
// with FTS5. With FTS5's idf the rankings must be identical; with ours
// (which differs for common terms, see bm25.go) the best hit must be the
// same for most queries and the top 10 mostly the same.
func TestKeywordAgreesWithFTS5(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agree.db")
	mem, fts := openTest(t, path, Options{}), openTest(t, path, Options{FTSKeyword: true})
	now := time.Now()
	var recs []*mnemo.Record
	for i, text := range zipfTexts(1, 500, 25) {
		recs = append(recs, textRecord("ag", fmt.Sprintf("r%04d", i), text, now))
	}
	if _, err := mem.Insert(ctx, recs, "", ""); err != nil {
		t.Fatal(err)
	}
	t.Run("fts5-idf", func(t *testing.T) {
		memindex.BM25FTS5IDF = true
		defer func() { memindex.BM25FTS5IDF = false }()
		testKeywordAgreement(t, mem, fts, 1, 1)
	})
	t.Run("bm25-idf", func(t *testing.T) { testKeywordAgreement(t, mem, fts, 0.8, 0.85) })
}

func testKeywordAgreement(t *testing.T, mem, fts *Store, minSameTop, minOverlap float64) {
	ctx := context.Background()
	queries := zipfTexts(2, 40, 4)
	for i := range 10 { // single rare-ish words
		queries = append(queries, strings.Fields(zipfTexts(uint64(10+i), 1, 30)[0])[20])
	}
	sc := mnemo.Scope{Namespace: "ag"}
	sameTop, overlap := 0, 0.0
	for _, q := range queries {
		a, err := mem.Keyword(ctx, sc, q, mnemo.Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		b, err := fts.Keyword(ctx, sc, q, mnemo.Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != len(b) {
			t.Errorf("%q: %d in-memory hits, %d FTS5 hits", q, len(a), len(b))
			continue
		}
		if len(a) == 0 {
			continue
		}
		if a[0].ID == b[0].ID || a[0].Score == a[min(1, len(a)-1)].Score {
			sameTop++
		}
		ids := map[string]bool{}
		for _, h := range b {
			ids[h.ID] = true
		}
		common := 0
		for _, h := range a {
			if ids[h.ID] {
				common++
			}
		}
		overlap += float64(common) / float64(len(a))
		for i := 1; i < len(a); i++ {
			if a[i].Score > a[i-1].Score || a[i].Score <= 0 {
				t.Errorf("%q: scores not positive and descending: %v", q, a)
			}
		}
	}
	overlap /= float64(len(queries))
	t.Logf("same best hit %d/%d, mean top-10 overlap %.3f", sameTop, len(queries), overlap)
	if float64(sameTop) < minSameTop*float64(len(queries)) || overlap < minOverlap {
		t.Errorf("in-memory BM25 and FTS5 disagree: same best hit %d/%d, mean top-10 overlap %.3f", sameTop, len(queries), overlap)
	}
}

// keywordIDs runs Keyword and returns the hit ids in rank order.
func keywordIDs(t *testing.T, s *Store, ns, q string) []string {
	t.Helper()
	hits, err := s.Keyword(context.Background(), mnemo.Scope{Namespace: ns, Clearance: 9}, q, mnemo.Filter{}, 50)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

// TestKeywordIncremental changes records through one store and another
// and checks that the incrementally maintained index answers like one
// built from scratch.
func TestKeywordIncremental(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "inc.db")
	a, b := openTest(t, path, Options{}), openTest(t, path, Options{})
	now := time.Now()
	var recs []*mnemo.Record
	for i, text := range zipfTexts(3, 200, 12) {
		recs = append(recs, textRecord("inc", fmt.Sprintf("r%03d", i), text, now))
	}
	recs = append(recs, textRecord("inc", "heron", "the grey heron fishes", now), textRecord("other", "o1", "heron elsewhere", now))
	if _, err := a.Insert(ctx, recs, "", ""); err != nil {
		t.Fatal(err)
	}
	queries := append(zipfTexts(4, 10, 3), "heron", "falcon", "grey", "Київ")
	defer func(m int) { pipelineMin = m }(pipelineMin)
	check := func(step string) {
		t.Helper()
		// a and b load sequentially (few rows) and then change
		// incrementally; the fresh store builds its index in the pipeline.
		pipelineMin = 1
		defer func() { pipelineMin = 2000 }()
		fresh := openTest(t, path, Options{})
		for _, q := range queries {
			want := keywordIDs(t, fresh, "inc", q)
			for name, s := range map[string]*Store{"a": a, "b": b} {
				if got := keywordIDs(t, s, "inc", q); !slices.Equal(got, want) {
					t.Errorf("%s: store %s Keyword(%q) = %v, fresh index says %v", step, name, q, got, want)
				}
			}
		}
	}
	check("insert")
	if got := keywordIDs(t, a, "inc", "heron"); !slices.Equal(got, []string{"heron"}) {
		t.Fatalf("heron = %v", got)
	}
	// Update the text through a: the old postings must go.
	h, err := a.Get(ctx, mnemo.Scope{Namespace: "inc"}, "heron")
	if err != nil {
		t.Fatal(err)
	}
	h.Text = "a peregrine falcon over Київ"
	if err := a.Update(ctx, h, "update", ""); err != nil {
		t.Fatal(err)
	}
	check("update text")
	if got := keywordIDs(t, b, "inc", "heron"); len(got) != 0 {
		t.Errorf("old text still matches in b: %v", got)
	}
	if got := keywordIDs(t, b, "inc", "КИЇВ"); !slices.Equal(got, []string{"heron"}) {
		t.Errorf("new text not found through b: %v", got)
	}
	// Forget and restore through b.
	h.DeletedAt = &now
	if err := b.Update(ctx, h, "forget", ""); err != nil {
		t.Fatal(err)
	}
	check("forget")
	if got := keywordIDs(t, a, "inc", "falcon"); len(got) != 0 {
		t.Errorf("forgotten record found: %v", got)
	}
	h.DeletedAt = nil
	if err := b.Update(ctx, h, "restore", ""); err != nil {
		t.Fatal(err)
	}
	check("restore")
	if got := keywordIDs(t, a, "inc", "falcon"); !slices.Equal(got, []string{"heron"}) {
		t.Errorf("restored record not found: %v", got)
	}
	// Many updates of one record, a touch, then a hard delete by another
	// connection.
	for i := range 5 {
		h.Text = fmt.Sprintf("%s round %d", recs[i].Text, i)
		if err := b.Update(ctx, h, "update", ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Touch(ctx, "inc", []string{"heron", "r001"}, now); err != nil {
		t.Fatal(err)
	}
	check("updates and touch")
	if _, err := b.wdb.ExecContext(ctx, `DELETE FROM records WHERE id IN ('r000', 'r005')`); err != nil {
		t.Fatal(err)
	}
	check("hard delete")
	for _, q := range queries {
		for _, id := range keywordIDs(t, a, "inc", q) {
			if id == "r000" || id == "r005" {
				t.Errorf("hard-deleted %s found for %q", id, q)
			}
		}
	}
}

// TestRecordCache checks that Get and GetMany serve copies and see every
// change: through the same store, through another store on the file, a
// touch, a hard delete; and that the cache stays within its budget.
func TestRecordCache(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.db")
	a, b := openTest(t, path, Options{}), openTest(t, path, Options{})
	now := time.Now().UTC()
	r := textRecord("c", "r1", "cached kestrel", now)
	r.Tags, r.Provenance, r.Embedding = []string{"bird"}, []string{"doc:a"}, []float32{1, 0, 0, 0}
	r.Decision = &mnemo.Decision{Title: "t", Alternatives: []mnemo.Alternative{{Option: "x"}}, DependsOn: []string{"d0"}}
	r.Kind = mnemo.KindDecision
	secret := textRecord("c", "r2", "secret kestrel", now)
	secret.AccessLevel = 3
	if _, err := a.Insert(ctx, []*mnemo.Record{r, secret}, "", ""); err != nil {
		t.Fatal(err)
	}
	sc := mnemo.Scope{Namespace: "c"}
	if _, err := a.Keyword(ctx, sc, "kestrel", mnemo.Filter{}, 10); err != nil { // load the index
		t.Fatal(err)
	}
	get := func(s *Store) *mnemo.Record {
		t.Helper()
		g, err := s.Get(ctx, sc, "r1")
		if err != nil {
			t.Fatal(err)
		}
		many, err := s.GetMany(ctx, sc, []string{"r1", "r2", "missing", "r1"})
		if err != nil {
			t.Fatal(err)
		}
		if len(many) != 1 || many[0].ID != "r1" || many[0].Text != g.Text || many[0].AccessCount != g.AccessCount {
			t.Fatalf("GetMany = %v, Get = %+v", many, g)
		}
		return g
	}
	g := get(a)
	if a.cache.len() == 0 {
		t.Fatal("nothing cached")
	}
	// Mutating what Get returned must not reach the cache.
	g.Tags[0], g.Provenance[0] = "x", "x" // (embeddings are read-only by contract)
	g.Decision.Alternatives[0].Option, g.Decision.DependsOn[0], g.Decision.Title = "x", "x", "x"
	g.Text = "x"
	if g2 := get(a); g2.Tags[0] != "bird" || g2.Provenance[0] != "doc:a" ||
		g2.Decision.Alternatives[0].Option != "x" && g2.Decision.Title != "t" || g2.Decision.DependsOn[0] != "d0" || g2.Text != "cached kestrel" {
		t.Errorf("a caller's edit reached the cache: %+v %+v", g2, g2.Decision)
	}
	if _, err := a.Get(ctx, sc, "r2"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("record above clearance: %v", err)
	}
	if got, err := a.Get(ctx, mnemo.Scope{Namespace: "c", Clearance: 3}, "r2"); err != nil || got.ID != "r2" {
		t.Errorf("record within clearance: %v, %v", got, err)
	}
	if _, err := a.Get(ctx, mnemo.Scope{Namespace: "other"}, "r1"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("record of another namespace: %v", err)
	}

	// Update through a.
	u := get(a)
	u.Text, u.Tags = "updated kestrel", []string{"raptor"}
	if err := a.Update(ctx, u, "update", ""); err != nil {
		t.Fatal(err)
	}
	if g := get(a); g.Text != "updated kestrel" || g.Tags[0] != "raptor" {
		t.Errorf("after Update through a: %q %v", g.Text, g.Tags)
	}
	// Writes through b: update, touch, forget.
	u.Importance = 0.77
	if err := b.Update(ctx, u, "update", ""); err != nil {
		t.Fatal(err)
	}
	if g := get(a); g.Importance != 0.77 {
		t.Errorf("a missed b's update: importance %v", g.Importance)
	}
	if err := b.Touch(ctx, "c", []string{"r1"}, now); err != nil {
		t.Fatal(err)
	}
	// Access counters are not versioned (see recordCache): b, which wrote
	// them, sees them at once; a's cached copy catches up with the next
	// change to the record (the update below).
	if g := get(b); g.AccessCount != 1 || g.LastAccessedAt == nil {
		t.Errorf("b missed its own touch: %d %v", g.AccessCount, g.LastAccessedAt)
	}
	u.DeletedAt = &now
	if err := b.Update(ctx, u, "forget", ""); err != nil {
		t.Fatal(err)
	}
	if g := get(a); g.DeletedAt == nil {
		t.Error("a missed b's forget")
	}
	// Hard delete by another connection.
	if _, err := b.wdb.ExecContext(ctx, `DELETE FROM records WHERE id = 'r1'`); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Get(ctx, sc, "r1"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("hard-deleted record: %v", err)
	}
	if many, err := a.GetMany(ctx, sc, []string{"r1"}); err != nil || len(many) != 0 {
		t.Errorf("hard-deleted record in GetMany: %v, %v", many, err)
	}

	// The budget bounds the cache.
	small := openTest(t, path, Options{CacheBytes: 8 << 10})
	var recs []*mnemo.Record
	var ids []string
	for i := range 100 {
		recs = append(recs, textRecord("c", fmt.Sprintf("s%03d", i), strings.Repeat("word ", 40), now))
		ids = append(ids, recs[i].ID)
	}
	if _, err := small.Insert(ctx, recs, "", ""); err != nil {
		t.Fatal(err)
	}
	small.Keyword(ctx, sc, "word", mnemo.Filter{}, 1)
	for range 2 {
		got, err := small.GetMany(ctx, sc, ids)
		if err != nil || len(got) != 100 {
			t.Fatalf("GetMany with a small cache: %d, %v", len(got), err)
		}
	}
	if n, size := small.cache.len(), small.cache.size; n == 0 || n >= 100 || size > 8<<10 {
		t.Errorf("small cache holds %d records, %d bytes", n, size)
	}
}

// TestClearanceStatisticsPipelined runs the clearance-statistics check with
// the namespace loaded by the pipelined loader, which indexes text without
// the records' access levels.
func TestClearanceStatisticsPipelined(t *testing.T) {
	defer func(m int) { pipelineMin = m }(pipelineMin)
	pipelineMin = 1
	dir := t.TempDir()
	a, err := Open(context.Background(), Options{Path: filepath.Join(dir, "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(context.Background(), Options{Path: filepath.Join(dir, "b.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	storetest.ClearanceStatistics(t, a, b)
}

// TestMigrationToNamespaceIDs upgrades a database of schema 5 (ids unique
// across the store) to per-namespace ids: its records, their full-text
// rows and their history come through, and the same id can then be written
// in another namespace.
func TestMigrationToNamespaceIDs(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	names, _ := fs.Glob(migrations, "migrations/*.sql")
	for _, n := range names {
		v, _ := strconv.Atoi(strings.SplitN(filepath.Base(n), "_", 2)[0])
		if v > 5 {
			continue
		}
		body, _ := migrations.ReadFile(n)
		if _, err := db.Exec(string(body)); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if _, err := db.Exec(`INSERT INTO schema_migrations VALUES (?, ?, 0)`, v, filepath.Base(n)); err != nil {
			t.Fatal(err)
		}
	}
	for i, text := range []string{"heron nesting report", "otter habitat survey"} {
		if _, err := db.Exec(`INSERT INTO records (id, namespace, layer, kind, scope, text, seq, created_at, valid_from, thread)
			VALUES (?, 'old', 'domain', 'fact', '/', ?, 1, 1, 1, '')`, fmt.Sprintf("rec-%d", i), text); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	for _, fts := range []bool{false, true} {
		s, err := Open(ctx, Options{Path: path, FTSKeyword: fts})
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := s.SchemaVersion(ctx); v < 6 {
			t.Fatalf("schema %d after opening", v)
		}
		sc := mnemo.Scope{Namespace: "old"}
		if hits, err := s.Keyword(ctx, sc, "otter", mnemo.Filter{}, 5); err != nil || len(hits) != 1 || hits[0].ID != "rec-1" {
			t.Errorf("keyword (fts %v) after the upgrade: %v %v", fts, hits, err)
		}
		if !fts {
			r := &mnemo.Record{ID: "rec-0", Namespace: "new", Kind: mnemo.KindFact, Text: "a new namespace's record"}
			r.Normalize(time.Now())
			if n, err := s.Insert(ctx, []*mnemo.Record{r}, "", "test"); err != nil || n != 0 {
				t.Errorf("the same id in another namespace: skipped %d, %v", n, err)
			}
			if got, err := s.Get(ctx, sc, "rec-0"); err != nil || got.Text != "heron nesting report" {
				t.Errorf("old record after the upgrade: %+v %v", got, err)
			}
		}
		s.Close()
	}
}
