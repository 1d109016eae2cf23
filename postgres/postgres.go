// Package postgres implements mnemo.Store on PostgreSQL (github.com/jackc/pgx/v5),
// for a memory shared by several machines.
//
// Layout: table records holds every field of a record (times as bigint unix
// nanoseconds, lists and bodies as jsonb, the embedding as a little-endian
// float32 bytea) and fts, a tsvector with a GIN index; revisions is the
// audit history; retrievals is the retrieval log; meta holds the embedder;
// api_keys holds the server's API keys. Schema changes are numbered SQL
// files embedded in the binary, applied in a transaction each under a
// session advisory lock, so several processes may start at once;
// schema_migrations records them.
//
// Keyword search: mnemo extracts the word tokens of a record's text itself
// (lower-cased runs of Unicode letters, digits and marks, as the sqlite
// store does) and indexes them through the text search configuration
// "mnemo": the simple configuration (no stemming, no stopwords) behind the
// unaccent dictionary, so "cafe" finds "café" and "КИЇВ" finds "Київ".
// Without the unaccent extension on the server, diacritics are not folded.
// A query is turned into word tokens in Go, each token is normalised by
// plainto_tsquery as a separate parameter and the results are OR-ed: user
// text is never parsed as query syntax nor spliced into SQL. Hits are
// ranked by ts_rank_cd with normalisation 32 (rank/(rank+1)). As in the
// sqlite store, the most common query terms are dropped when their
// estimated document frequencies (from the planner statistics of fts, read
// at most once a minute) sum to more than 5,000 rows.
//
// Vector search uses an in-process index per namespace (Debian's PostgreSQL
// has no pgvector), loaded on first use and brought up to date on every
// search by reading only the rows whose seq is newer than what the index has
// seen: every write draws seq from a sequence under a transaction-level
// advisory lock, so seq order is commit order and writes by other processes
// become visible too.
//
// The database should use the UTF8 encoding; Open refuses any other.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mnemo-dev/mnemo"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Advisory lock keys ("mnemo" in ASCII, then a number).
const (
	migrateLock = 0x6d6e656d6f_01 // session lock held while migrating
	writeLock   = 0x6d6e656d6f_02 // transaction lock held by every seq-stamping write
)

// Options configures Open.
type Options struct {
	URL string           // postgres://user:pass@host:port/db?sslmode=... (or a key=value DSN)
	Now func() time.Time // clock; default time.Now
	// IndexMemory bounds the estimated bytes of the in-memory indexes:
	// past it the least recently read namespaces are dropped, and loaded
	// again on their next read (see evict.go). 0 means no bound; negative
	// is an error.
	IndexMemory int64
}

// Store is a mnemo.Store on a PostgreSQL database. It is safe for
// concurrent use.
type Store struct {
	pool *pgxpool.Pool
	now  func() time.Time
	idx  *index
	df   dfCache // recent document frequencies of query tokens (prune)
}

// The optional capabilities the store declares (mnemo.Capabilities): short
// references and warming. It keeps no document frequencies, PostgreSQL
// ranking keywords itself, so it has no IDF and takes no pre-cut terms
// (see capability.go at the root).
var (
	_ mnemo.Store       = (*Store)(nil)
	_ mnemo.KeyStore    = (*Store)(nil)
	_ mnemo.RefResolver = (*Store)(nil)
	_ mnemo.Warmer      = (*Store)(nil)
)

// Open connects to the database at opt.URL and migrates it to the current
// schema.
func Open(ctx context.Context, opt Options) (*Store, error) {
	if strings.TrimSpace(opt.URL) == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "postgres: database URL is empty")
	}
	if err := checkIndexMemory(opt.IndexMemory); err != nil {
		return nil, err
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	cfg, err := pgxpool.ParseConfig(opt.URL)
	if err != nil {
		// The parse error may quote the URL, password included: keep it out.
		return nil, mnemo.Errorf(mnemo.EINVALID, "postgres: malformed database URL")
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	s := &Store{pool: pool, now: opt.Now, idx: newIndex()}
	s.idx.budget = newBudget(opt.IndexMemory)
	var enc string
	if err := pool.QueryRow(ctx, `SELECT pg_encoding_to_char(encoding) FROM pg_database WHERE datname = current_database()`).Scan(&enc); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if enc != "UTF8" {
		pool.Close()
		return nil, mnemo.Errorf(mnemo.EINVALID, "postgres: database encoding is %s: mnemo needs UTF8 (CREATE DATABASE ... ENCODING 'UTF8' TEMPLATE template0)", enc)
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// Close releases the connection pool.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// migrate applies the embedded migrations that the database lacks, each in
// its own transaction, under a session advisory lock.
func (s *Store) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	type mig struct {
		version int
		name    string
	}
	var ms []mig
	for _, n := range names {
		num, _, _ := strings.Cut(path.Base(n), "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			return fmt.Errorf("postgres: migrate: bad migration name %q", path.Base(n))
		}
		ms = append(ms, mig{v, n})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return fmt.Errorf("postgres: migrate: two migrations numbered %d", ms[i].version)
		}
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrateLock)); err != nil {
		return fmt.Errorf("postgres: migrate: lock: %w", err)
	}
	defer func() {
		// A fresh context: the lock must go even when ctx is cancelled.
		uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, `SELECT pg_advisory_unlock($1)`, int64(migrateLock)); err != nil {
			conn.Conn().Close(uctx) // closing the session releases the lock
		}
	}()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`); err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	for _, m := range ms {
		body, err := migrations.ReadFile(m.name)
		if err != nil {
			return fmt.Errorf("postgres: migrate: %w", err)
		}
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM schema_migrations WHERE version = $1`, m.version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			// No arguments: the simple protocol runs every statement of the file.
			if _, err := tx.Exec(ctx, string(body), pgx.QueryExecModeSimpleProtocol); err != nil {
				return fmt.Errorf("%s: %w", path.Base(m.name), err)
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
				m.version, path.Base(m.name), s.now().UnixNano())
			return err
		})
		if err != nil {
			return fmt.Errorf("postgres: migrate: %w", err)
		}
	}
	return nil
}

// SchemaVersion returns the highest applied migration number.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v *int
	if err := s.pool.QueryRow(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("postgres: schema version: %w", err)
	}
	if v == nil {
		return 0, nil
	}
	return *v, nil
}

// write runs fn in a transaction that holds the write lock and returns the
// seq value the transaction stamps on the rows it changes.
func (s *Store) write(ctx context.Context, fn func(tx pgx.Tx, seq int64) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(writeLock)); err != nil {
			return fmt.Errorf("write lock: %w", err)
		}
		var seq int64
		if err := tx.QueryRow(ctx, `SELECT nextval('change_seq')`).Scan(&seq); err != nil {
			return fmt.Errorf("next seq: %w", err)
		}
		return fn(tx, seq)
	})
}

// isNoRows reports whether err means "no row".
func isNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }
