package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/postgres/pgtest"
	"github.com/mnemo-dev/mnemo/storetest"
	"github.com/oklog/ulid/v2"
)

var bg = context.Background()

// The test server: adminURL reaches a database from which fresh databases
// are created; startErr says why no PostgreSQL is available.
var (
	adminURL string
	startErr error
)

// TestMain uses the server at MNEMO_TEST_POSTGRES (a URL of a role allowed
// to CREATE DATABASE) or else starts a throwaway server from the local
// PostgreSQL installation (/usr/lib/postgresql/*/bin), stopped and removed
// at the end. Without either, every test is skipped (fails with
// MNEMO_REQUIRE_POSTGRES set).
func TestMain(m *testing.M) {
	var stop func()
	adminURL, stop, startErr = pgtest.Start()
	code := m.Run()
	if benchDB != "" {
		if benchStore != nil {
			benchStore.Close()
		}
		if err := pgtest.DropDatabase(bg, adminURL, benchDB); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	if stop != nil {
		stop()
	}
	os.Exit(code)
}

// newDatabase creates an empty database with the given options (default:
// UTF8 encoding) and returns its URL; it is dropped when the test ends.
func newDatabase(t testing.TB, extra string) string {
	t.Helper()
	pgtest.SkipIf(t, startErr)
	return pgtest.NewDatabaseWith(t, adminURL, extra)
}

func openURL(t testing.TB, u string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(bg, postgres.Options{URL: u})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

// openNew opens a store on a fresh database; the caller closes it.
func openNew(t testing.TB) *postgres.Store { return openURL(t, newDatabase(t, "")) }

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) mnemo.Store { return openNew(t) }, mnemo.CapNextTurn, mnemo.CapRefs, mnemo.CapWarm)
}

// TestCLocale runs the keyword checks on a database with the C locale:
// case folding is done by mnemo, so it must not depend on LC_CTYPE.
func TestCLocale(t *testing.T) {
	s := openURL(t, newDatabase(t, "ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"))
	defer s.Close()
	ua, fr := storetest.NewRecord("c", "Столиця України — Київ", nil), storetest.NewRecord("c", "Un CAFÉ crème", nil)
	if _, err := s.Insert(bg, []*mnemo.Record{ua, fr}, "", ""); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{"КИЇВ": ua.ID, "україни": ua.ID, "cafe": fr.ID, "Crème": fr.ID} {
		hits, err := s.Keyword(bg, mnemo.Scope{Namespace: "c"}, q, mnemo.Filter{}, 10)
		if err != nil || len(hits) != 1 || hits[0].ID != want {
			t.Errorf("Keyword(%q) = %v, %v; want %s", q, hits, err, want)
		}
	}
}

func TestOpenInvalid(t *testing.T) {
	for _, u := range []string{"", "  ", "postgres://user:secret@host:notaport/db"} {
		_, err := postgres.Open(bg, postgres.Options{URL: u})
		if mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("Open(%q): %v, want %s", u, err, mnemo.EINVALID)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%q) error shows the password: %v", u, err)
		}
	}
}

func TestOpenNotUTF8(t *testing.T) {
	u := newDatabase(t, "ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C'")
	_, err := postgres.Open(bg, postgres.Options{URL: u})
	if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(err.Error(), "UTF8") {
		t.Errorf("open of a SQL_ASCII database: %v", err)
	}
}

// TestMigrationsConcurrent starts several stores at once on a new database
// (as several processes would) and reopens it: migrations run once.
func TestMigrationsConcurrent(t *testing.T) {
	u := newDatabase(t, "")
	var wg sync.WaitGroup
	stores := make([]*postgres.Store, 4)
	errs := make([]error, len(stores))
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = postgres.Open(bg, postgres.Options{URL: u})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("concurrent open %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	v1, err := stores[0].SchemaVersion(bg)
	if err != nil || v1 < 2 {
		t.Fatalf("schema version = %d, %v", v1, err)
	}
	if _, err := stores[1].Insert(bg, []*mnemo.Record{storetest.NewRecord("m", "kept across reopen", nil)}, "", ""); err != nil {
		t.Fatal(err)
	}
	s := openURL(t, u)
	defer s.Close()
	if v2, err := s.SchemaVersion(bg); err != nil || v2 != v1 {
		t.Errorf("schema version after reopen = %d, %v; want %d", v2, err, v1)
	}
	if n, _ := s.Count(bg, "m"); n != 1 {
		t.Errorf("count after reopen = %d", n)
	}
}

// TestTwoStores: two Store instances on one database, as two machines
// would have.
func TestTwoStores(t *testing.T) {
	u := newDatabase(t, "")
	a, b := openURL(t, u), openURL(t, u)
	defer a.Close()
	defer b.Close()
	storetest.TwoInstances(t, a, b)
}

func TestFloorQuery(t *testing.T) {
	s := openNew(t)
	defer s.Close()
	storetest.Floor(t, s, s.FloorQuery)
}

// TestNUL checks that text PostgreSQL cannot hold is refused with a clear
// code, not an internal error, and that lookups with it find nothing.
func TestNUL(t *testing.T) {
	s := openNew(t)
	defer s.Close()
	bad := storetest.NewRecord("n", "has a \x00 inside", nil)
	if _, err := s.Insert(bg, []*mnemo.Record{bad}, "", ""); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("insert with NUL: %v", err)
	}
	tag := storetest.NewRecord("n", "fine", nil)
	tag.Tags = []string{"a\x00b"}
	if _, err := s.Insert(bg, []*mnemo.Record{tag}, "", ""); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("insert with NUL tag: %v", err)
	}
	lit := storetest.NewRecord("n", `a literal \u0000 is fine`, nil)
	if _, err := s.Insert(bg, []*mnemo.Record{lit}, "", ""); err != nil {
		t.Errorf("insert with a literal backslash-u0000: %v", err)
	}
	if _, err := s.Get(bg, mnemo.Scope{Namespace: "n"}, "x\x00\xff"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("get with NUL id: %v", err)
	}
	if got, err := s.GetMany(bg, mnemo.Scope{Namespace: "n"}, []string{"x\x00", lit.ID}); err != nil || len(got) != 1 {
		t.Errorf("get many with a NUL id: %d, %v", len(got), err)
	}
	l := mnemo.RetrievalLog{ID: ulid.Make().String(), Namespace: "n", Operation: "recall", Query: "q\x00\xff", Caller: "c\x00"}
	if err := s.LogRetrieval(bg, l); err != nil {
		t.Errorf("log retrieval of a hostile query: %v", err)
	}
}

// TestPruneClearance: which query tokens the keyword search drops as too
// common counts only the records the caller sees, so a flood of hidden
// records holding a word changes nothing for a caller of lower clearance:
// its hits equal those of a store holding only the records it sees.
func TestPruneClearance(t *testing.T) {
	defer postgres.SetPruneBudget(3)()
	a, b := openNew(t), openNew(t)
	defer a.Close()
	defer b.Close()
	visible := []*mnemo.Record{storetest.NewRecord("p", "alpha field note", nil), storetest.NewRecord("p", "beta gamma report", nil)}
	for _, r := range visible {
		c := *r
		for _, s := range []*postgres.Store{a, b} {
			r := c
			if _, err := s.Insert(bg, []*mnemo.Record{&r}, "create", "test"); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range 40 {
		r := storetest.NewRecord("p", fmt.Sprintf("beta secret %d", i), nil)
		r.AccessLevel = 3
		if _, err := a.Insert(bg, []*mnemo.Record{r}, "create", "test"); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []*postgres.Store{a, b} {
		if err := s.Exec(bg, "ANALYZE records"); err != nil {
			t.Fatal(err)
		}
	}
	sc := mnemo.Scope{Namespace: "p"}
	got, err := a.Keyword(bg, sc, "alpha beta", mnemo.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	want, err := b.Keyword(bg, sc, "alpha beta", mnemo.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(want) != 2 {
		t.Errorf("keyword hits at clearance 0 = %v, want %v (both visible records)", got, want)
	}
}

// TestMigrationToNamespaceIDs takes a store back to schema 4 (ids unique
// across the store), fills it, and opens it again: migration 5 keys
// records on namespace and id, the records come through, and the same id
// can then be written in another namespace.
func TestMigrationToNamespaceIDs(t *testing.T) {
	u := newDatabase(t, "")
	s := openURL(t, u)
	old := storetest.NewRecord("old", "heron nesting report", nil)
	if _, err := s.Insert(bg, []*mnemo.Record{old}, "create", "test"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`ALTER TABLE records DROP CONSTRAINT records_pkey`,
		`ALTER TABLE records ADD PRIMARY KEY (id)`,
		`DROP INDEX records_id`,
		`CREATE INDEX records_namespace_id ON records (namespace, id)`,
		`DELETE FROM schema_migrations WHERE version = 5`,
	} {
		if err := s.Exec(bg, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := s.Exec(bg, `INSERT INTO records (id, namespace, layer, kind, scope, text, fts, seq)
		SELECT id, 'new', layer, kind, scope, text, fts, seq FROM records`); err == nil {
		t.Fatal("schema 4 took the same id in two namespaces: the test did not go back")
	}
	s.Close()
	s = openURL(t, u)
	defer s.Close()
	if v, err := s.SchemaVersion(bg); err != nil || v < 5 {
		t.Fatalf("schema %d %v after opening", v, err)
	}
	if got, err := s.Get(bg, mnemo.Scope{Namespace: "old"}, old.ID); err != nil || got.Text != old.Text {
		t.Errorf("old record after the upgrade: %+v %v", got, err)
	}
	dup := storetest.NewRecord("new", "a new namespace's record", nil)
	dup.ID = old.ID
	if n, err := s.Insert(bg, []*mnemo.Record{dup}, "create", "test"); err != nil || n != 0 {
		t.Errorf("the same id in another namespace after the upgrade: skipped %d, %v", n, err)
	}
}
