package postgres_test

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/storetest"
	"github.com/oklog/ulid/v2"
)

var bg = context.Background()

// The test server: adminURL reaches a database from which fresh databases
// are created; skipReason is set when no PostgreSQL is available.
var (
	adminURL   string
	skipReason string
	dbCounter  atomic.Int64
)

// TestMain uses the server at MNEMO_TEST_POSTGRES (a URL of a role allowed
// to CREATE DATABASE) or else starts a throwaway server from the local
// PostgreSQL installation (/usr/lib/postgresql/*/bin), stopped and removed
// at the end. Without either, every test is skipped.
func TestMain(m *testing.M) {
	var stop func()
	if u := os.Getenv("MNEMO_TEST_POSTGRES"); u != "" {
		adminURL = u
	} else {
		var err error
		adminURL, stop, err = startServer()
		if err != nil {
			skipReason = err.Error()
		}
	}
	code := m.Run()
	if benchDB != "" {
		if benchStore != nil {
			benchStore.Close()
		}
		if err := dropDatabase(benchDB); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	if stop != nil {
		stop()
	}
	os.Exit(code)
}

// startServer runs initdb and pg_ctl start in a temporary directory, as the
// postgres user when running as root (PostgreSQL refuses to run as root).
func startServer() (string, func(), error) {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		return "", nil, fmt.Errorf("no PostgreSQL server found: set MNEMO_TEST_POSTGRES=postgres://... or install one (apt-get install postgresql)")
	}
	sort.Strings(bins)
	bin := filepath.Dir(bins[len(bins)-1])
	dir, err := os.MkdirTemp("", "mnemo-pg-")
	if err != nil {
		return "", nil, err
	}
	var prefix []string
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return "", nil, fmt.Errorf("running as root and no postgres user to run the test server: %v", err)
		}
		if out, err := exec.Command("chown", u.Username, dir).CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			return "", nil, fmt.Errorf("chown %s: %v: %s", dir, err, out)
		}
		prefix = []string{"runuser", "-u", "postgres", "--"}
	}
	run := func(args ...string) error {
		args = append(prefix, args...)
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	data := filepath.Join(dir, "data")
	if err := run(filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8",
		"--locale=C.UTF-8", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
		port, dir)
	if err := run(filepath.Join(bin, "pg_ctl"), "-w", "-D", data, "-l", filepath.Join(dir, "log"), "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("%v\n%s", err, log)
	}
	stop := func() {
		if err := run(filepath.Join(bin, "pg_ctl"), "-w", "-D", data, "-m", "immediate", "stop"); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.RemoveAll(dir)
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port), stop, nil
}

// newDatabase creates an empty database with the given options (default:
// UTF8 encoding) and returns its URL; it is dropped when the test ends.
func newDatabase(t testing.TB, extra string) string {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	name, u, err := createDatabase(extra)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := dropDatabase(name); err != nil {
			t.Error(err)
		}
	})
	return u
}

// createDatabase creates an empty database on the test server.
func createDatabase(extra string) (name, dbURL string, err error) {
	conn, err := pgx.Connect(bg, adminURL)
	if err != nil {
		return "", "", fmt.Errorf("connect to the test server: %w", err)
	}
	defer conn.Close(bg)
	name = fmt.Sprintf("mnemo_test_%d_%d", os.Getpid(), dbCounter.Add(1))
	if extra == "" {
		extra = "ENCODING 'UTF8'"
	}
	if _, err := conn.Exec(bg, `CREATE DATABASE `+name+` TEMPLATE template0 `+extra); err != nil {
		return "", "", fmt.Errorf("create database: %w", err)
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", "", err
	}
	u.Path = "/" + name
	return name, u.String(), nil
}

// dropDatabase drops a database created by createDatabase.
func dropDatabase(name string) error {
	conn, err := pgx.Connect(bg, adminURL)
	if err != nil {
		return fmt.Errorf("drop database: %w", err)
	}
	defer conn.Close(bg)
	if _, err := conn.Exec(bg, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
		return fmt.Errorf("drop database: %w", err)
	}
	return nil
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
	storetest.Run(t, func(t *testing.T) mnemo.Store { return openNew(t) })
}

// TestCLocale runs the keyword checks on a database with the C locale:
// case folding is done by mnemo, so it must not depend on LC_CTYPE.
func TestCLocale(t *testing.T) {
	s := openURL(t, newDatabase(t, "ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"))
	defer s.Close()
	ua, fr := newRecord("c", "Столиця України — Київ", nil), newRecord("c", "Un CAFÉ crème", nil)
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

func newRecord(ns, text string, v []float32) *mnemo.Record {
	r := &mnemo.Record{ID: ulid.Make().String(), Namespace: ns, Kind: mnemo.KindFact, Text: text, Embedding: v}
	r.Normalize(time.Now())
	return r
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
	if _, err := stores[1].Insert(bg, []*mnemo.Record{newRecord("m", "kept across reopen", nil)}, "", ""); err != nil {
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

// TestTwoStores checks that two Store instances on one database (as two
// machines would have) see each other's writes in Vector and Keyword, and
// can write concurrently.
func TestTwoStores(t *testing.T) {
	u := newDatabase(t, "")
	a, b := openURL(t, u), openURL(t, u)
	defer a.Close()
	defer b.Close()
	sc := mnemo.Scope{Namespace: "two"}
	v := []float32{1, 0, 0, 0}
	first := newRecord("two", "first heron", v)
	if _, err := a.Insert(bg, []*mnemo.Record{first}, "", ""); err != nil {
		t.Fatal(err)
	}
	if hits, err := b.Vector(bg, sc, v, mnemo.Filter{}, 10); err != nil || len(hits) != 1 {
		t.Fatalf("b sees %v, %v", hits, err)
	}
	second := newRecord("two", "second heron", []float32{0.9, 0.1, 0, 0})
	if _, err := a.Insert(bg, []*mnemo.Record{second}, "", ""); err != nil {
		t.Fatal(err)
	}
	if hits, err := b.Vector(bg, sc, v, mnemo.Filter{}, 10); err != nil || len(hits) != 2 {
		t.Fatalf("after a's insert b sees %v, %v", hits, err)
	}
	first.DeletedAt = &first.CreatedAt
	if err := a.Update(bg, first, "forget", ""); err != nil {
		t.Fatal(err)
	}
	if hits, _ := b.Vector(bg, sc, v, mnemo.Filter{}, 10); len(hits) != 1 || hits[0].ID != second.ID {
		t.Errorf("after a's forget b sees %v", hits)
	}
	if kw, _ := b.Keyword(bg, sc, "heron", mnemo.Filter{}, 10); len(kw) != 1 {
		t.Errorf("keyword through b sees %v", kw)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i, s := range []*postgres.Store{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				r := newRecord("two", fmt.Sprintf("writer %d record %d", i, j), []float32{0, 1, 0, 0})
				if _, err := s.Insert(bg, []*mnemo.Record{r}, "", ""); err != nil {
					errs <- err
				}
				if _, err := s.Vector(bg, sc, []float32{0, 1, 0, 0}, mnemo.Filter{}, 5); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, s := range []*postgres.Store{a, b} {
		if hits, _ := s.Vector(bg, sc, []float32{0, 1, 0, 0}, mnemo.Filter{}, 100); len(hits) != 41 {
			t.Errorf("a store sees %d vectors, want 41", len(hits))
		}
	}
}

func TestFloorQuery(t *testing.T) {
	s := openNew(t)
	defer s.Close()
	recs := []*mnemo.Record{newRecord("f", "kestrel kestrel", nil), newRecord("f", "a kestrel and more words", nil),
		newRecord("g", "kestrel elsewhere", nil)}
	if _, err := s.Insert(bg, recs, "", ""); err != nil {
		t.Fatal(err)
	}
	hits, err := s.FloorQuery(bg, "f", `"kestrel" NEAR(`, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].ID != recs[0].ID || hits[0].Score <= hits[1].Score {
		t.Errorf("floor hits = %v", hits)
	}
}

// TestNUL checks that text PostgreSQL cannot hold is refused with a clear
// code, not an internal error, and that lookups with it find nothing.
func TestNUL(t *testing.T) {
	s := openNew(t)
	defer s.Close()
	bad := newRecord("n", "has a \x00 inside", nil)
	if _, err := s.Insert(bg, []*mnemo.Record{bad}, "", ""); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("insert with NUL: %v", err)
	}
	tag := newRecord("n", "fine", nil)
	tag.Tags = []string{"a\x00b"}
	if _, err := s.Insert(bg, []*mnemo.Record{tag}, "", ""); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("insert with NUL tag: %v", err)
	}
	lit := newRecord("n", `a literal \u0000 is fine`, nil)
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
