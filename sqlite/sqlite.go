// Package sqlite implements mnemo.Store on an embedded SQLite database
// (modernc.org/sqlite, pure Go).
//
// Layout: one file in WAL mode. Table records holds every field of a record
// (times as unix nanoseconds, lists and bodies as JSON, the embedding as a
// little-endian float32 BLOB); records_fts is an FTS5 external-content index
// over the text (tokenizer unicode61 with remove_diacritics 2, so case and
// diacritics fold in every script); revisions is the audit history;
// retrievals is the retrieval log; meta holds the embedder and the change
// counter "seq". Schema changes are numbered SQL files embedded in the
// binary and applied in a transaction each; schema_migrations records them.
//
// Writes run in BEGIN IMMEDIATE transactions with a busy timeout, so several
// processes can write to one file. synchronous=NORMAL in WAL mode keeps
// committed transactions across a process crash (not across a power loss).
//
// Keyword and vector search use an in-memory index per namespace: the
// filter fields, the normalised vectors and a BM25 inverted index of the
// text (bm25.go; an FTS5 table, built on demand, serves Options.FTSKeyword
// and FloorQuery: fts.go). It is loaded on first use, in one scan, and brought up
// to date on every search by reading only the rows whose seq is newer than
// what the index has seen, so writes by other processes become visible too.
// Every write bumps seq and stamps the rows it changed, Touch included: a
// cache of decoded records (cache.go) serves Get and GetMany for loaded
// namespaces and is valid for a row only while the row's seq is unchanged.
//
// A process need not read every row to load a namespace: the index of a
// namespace of 500 records or more is kept in a snapshot file beside the
// database (<db>.index/, snapshot.go), which a process maps and brings up
// to date with the rows changed since, as it does with other processes'
// writes. A snapshot that is missing, stale, damaged or not the
// database's is not used; the namespace is then loaded from its rows and a
// new snapshot written when the store is closed (or, in a long-lived
// process, in the background).
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memindex"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// Options configures Open.
type Options struct {
	Path        string           // database file; its directory is created if missing
	BusyTimeout time.Duration    // how long a write waits for another writer; default 10s
	Now         func() time.Time // clock; default time.Now
	// CacheBytes bounds the decoded-record cache of Get and GetMany
	// (approximate bytes); 0 means 64 MiB, negative disables the cache.
	CacheBytes int64
	// FTSKeyword makes Keyword rank with SQLite FTS5 instead of the
	// in-memory BM25 index (for comparison; results differ slightly).
	// FTS5's statistics count every record of the store, other namespaces
	// and records above the caller's clearance included, so its scores
	// leak them: it is for benchmarks and tests, never for serving.
	FTSKeyword bool
	// NoIndexSnapshots loads every namespace's index from its rows and
	// writes no snapshot of it (see snapshot.go).
	NoIndexSnapshots bool
	// IndexMemory bounds the estimated bytes of the in-memory indexes:
	// past it the least recently read namespaces are dropped, and loaded
	// again on their next read (see evict.go). 0 means no bound; negative
	// is an error.
	IndexMemory int64
}

// Store is a mnemo.Store on a SQLite file. It is safe for concurrent use.
type Store struct {
	path string
	now  func() time.Time
	rdb  *sql.DB // readers
	wdb  *sql.DB // the single writer connection (BEGIN IMMEDIATE)
	// txSeqs are the change stamps the transaction on wdb has taken.
	txSeqs []int64

	stmts      stmtCache // prepared read statements
	wstmts     stmtCache // prepared write statements, on wdb (writeStmt)
	idx        *index
	cache      *recordCache // nil when disabled
	ftsKeyword bool
	ftsMu      sync.Mutex // ensureFTS
	ftsReady   bool       // records_fts is known to exist (fts.go)

	schema      int  // the highest migration applied
	noSnapshots bool // Options.NoIndexSnapshots
	opened      time.Time
	closing     context.Context // cancelled by Close: background snapshots stop
	stop        context.CancelFunc
	snapWG      sync.WaitGroup
	ckpt        chan struct{} // a commit asks the checkpointer to run
	ckptWG      sync.WaitGroup

	// Reads of the change stamp and filters compiled, for the tests that
	// check a read does each once.
	seqReads, compiles atomic.Int64
}

// The optional capabilities the store declares (mnemo.Capabilities): all
// of them, from its in-memory BM25 index (see capability.go at the root).
var (
	_ mnemo.Store         = (*Store)(nil)
	_ mnemo.KeyStore      = (*Store)(nil)
	_ mnemo.IDFSource     = (*Store)(nil)
	_ mnemo.TermIDFSource = (*Store)(nil)
	_ mnemo.TermKeyworder = (*Store)(nil)
	_ mnemo.RefResolver   = (*Store)(nil)
	_ mnemo.Warmer        = (*Store)(nil)
)

// Open opens (creating if needed) the database at opt.Path and migrates it
// to the current schema.
func Open(ctx context.Context, opt Options) (*Store, error) {
	if strings.TrimSpace(opt.Path) == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "sqlite: database path is empty")
	}
	if err := checkIndexMemory(opt.IndexMemory); err != nil {
		return nil, err
	}
	if opt.BusyTimeout <= 0 {
		opt.BusyTimeout = 10 * time.Second
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if dir := filepath.Dir(opt.Path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: open: %w", err)
		}
	}
	dsn := func(txlock string) string {
		q := url.Values{}
		q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", opt.BusyTimeout.Milliseconds()))
		// The driver runs _pragma values in lexical order, then the
		// journal mode: the page size comes first, while a new file is
		// still empty (it holds from then on; an existing file keeps its
		// own).
		q.Add("_pragma", "page_size(8192)")
		q.Set("_journal_mode", "WAL")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", "foreign_keys(1)")
		if txlock == "immediate" {
			// The writer: a batch's pages stay in its cache until the
			// commit instead of spilling to the WAL midway, and the leaves
			// of the indexes it inserts into stay cached between batches.
			// It checkpoints only as a last resort: the background
			// checkpointer (checkpoint.go) keeps the WAL short.
			q.Add("_pragma", fmt.Sprintf("cache_size(%d)", -writerCacheKiB))
			q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", walLastResort))
		} else {
			q.Add("_pragma", fmt.Sprintf("cache_size(%d)", -readerCacheKiB))
		}
		q.Set("_txlock", txlock)
		return "file:" + (&url.URL{Path: opt.Path}).EscapedPath() + "?" + q.Encode()
	}
	wdb, err := sql.Open("sqlite", dsn("immediate"))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxIdleTime(0)
	wdb.SetConnMaxLifetime(0)
	s := &Store{path: opt.Path, now: opt.Now, wdb: wdb, ftsKeyword: opt.FTSKeyword,
		noSnapshots: opt.NoIndexSnapshots, opened: time.Now()}
	s.closing, s.stop = context.WithCancel(context.Background())
	switch {
	case opt.CacheBytes == 0:
		s.cache = newRecordCache(64 << 20)
	case opt.CacheBytes > 0:
		s.cache = newRecordCache(opt.CacheBytes)
	}
	if err := s.migrate(ctx); err != nil {
		wdb.Close()
		return nil, err
	}
	if opt.FTSKeyword {
		if err := s.ensureFTS(ctx); err != nil {
			wdb.Close()
			return nil, err
		}
	}
	rdb, err := sql.Open("sqlite", dsn("deferred"))
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	rdb.SetMaxOpenConns(8)
	rdb.SetMaxIdleConns(8)
	rdb.SetConnMaxIdleTime(0)
	rdb.SetConnMaxLifetime(0)
	s.rdb = rdb
	s.idx = newIndex()
	s.idx.budget = memindex.NewBudget(opt.IndexMemory)
	s.startCheckpointer()
	return s, nil
}

// Path returns the database file path.
func (s *Store) Path() string { return s.path }

// Close releases the database handles, first writing the index snapshots
// this process should leave behind (see snapshot.go).
func (s *Store) Close() error {
	s.stop()
	s.snapWG.Wait()
	s.ckptWG.Wait()
	s.snapshotOnClose(context.Background())
	s.stmts.close()
	s.wstmts.close()
	err := s.rdb.Close()
	if werr := s.wdb.Close(); err == nil {
		err = werr
	}
	if err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}

// migrate applies the embedded migrations that the database lacks, each in
// its own write transaction.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.wdb.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("sqlite: migrate: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("sqlite: migrate: %w", err)
	}
	type mig struct {
		version int
		name    string
	}
	var ms []mig
	for _, n := range names {
		base := filepath.Base(n)
		num, _, _ := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			return fmt.Errorf("sqlite: migrate: bad migration name %q", base)
		}
		ms = append(ms, mig{v, n})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return fmt.Errorf("sqlite: migrate: two migrations numbered %d: %s and %s",
				ms[i].version, filepath.Base(ms[i-1].name), filepath.Base(ms[i].name))
		}
	}
	if len(ms) > 0 {
		s.schema = ms[len(ms)-1].version
	}
	for _, m := range ms {
		body, err := migrations.ReadFile(m.name)
		if err != nil {
			return fmt.Errorf("sqlite: migrate: %w", err)
		}
		err = s.write(ctx, func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("%s: %w", filepath.Base(m.name), err)
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.version, filepath.Base(m.name), s.now().UnixNano())
			return err
		})
		if err != nil {
			return fmt.Errorf("sqlite: migrate: %w", err)
		}
	}
	return nil
}

// SchemaVersion returns the highest applied migration number.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v sql.NullInt64
	if err := s.rdb.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("sqlite: schema version: %w", err)
	}
	return int(v.Int64), nil
}

// write runs fn in a BEGIN IMMEDIATE transaction on the writer connection.
//
// A write that moved the change stamp (bumpSeq) brings the loaded indexes
// up to date before it returns (publish), so that every read after it sees
// it and no read has to wait for it.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.writePrepared(ctx, nil, fn)
}

// writePrepared is write, whose publish applies the rows pre prepared
// (see indexPrep; nil for none) from what it prepared.
func (s *Store) writePrepared(ctx context.Context, pre *indexPrep, fn func(tx *sql.Tx) error) error {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	// The single writer connection makes txSeqs this transaction's alone
	// until Commit or Rollback returns it to the pool.
	s.txSeqs = s.txSeqs[:0]
	err = fn(tx)
	seqs := slices.Clone(s.txSeqs)
	if err != nil {
		rerr := tx.Rollback()
		s.idx.local.remove(seqs)
		if errors.Is(err, errInsertOne) {
			rerr = nil // SQLite rolled the transaction back already (insertMany)
		}
		if rerr != nil && !errors.Is(rerr, sql.ErrTxDone) {
			return errors.Join(err, rerr)
		}
		return err
	}
	if err := tx.Commit(); err != nil {
		s.idx.local.remove(seqs)
		return err
	}
	s.checkpointSoon()
	if len(seqs) > 0 {
		if afterCommit != nil {
			afterCommit(s)
		}
		s.publish(ctx, seqs, pre)
	}
	return nil
}

// afterCommit, when set (tests), runs between a write's commit and its
// publish.
var afterCommit func(*Store)

// bumpSeq increments the change counter inside tx and returns the new
// value, which readers of this process may pass by until the write has
// published it (see withIndex).
func (s *Store) bumpSeq(ctx context.Context, tx *sql.Tx) (int64, error) {
	var seq int64
	err := tx.QueryRowContext(ctx,
		`UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'seq' RETURNING CAST(value AS INTEGER)`).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("bump seq: %w", err)
	}
	s.txSeqs = append(s.txSeqs, seq)
	s.idx.local.add(seq)
	return seq, nil
}
