package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo/memindex"
)

// Index snapshots: how a process starts without reading every row.
//
// A namespace's in-memory index is written to a file beside the database,
// <db>.index/<hex of the namespace>.snap (memindex.WriteSnapshot: entries,
// vectors, sketches, postings, thread order, tables by key and id, CRC-32C
// checksums). A process that loads the namespace reads the snapshot in
// place (mapped copy-on-write; entries are decoded as they are first
// read) and applies only the rows changed since the change stamp
// (seq) it was taken at, as a running process applies other processes'
// writes, and the rows purged since, from deleted_rows.
//
// A file, not a table: it is tens to hundreds of megabytes, which in the
// database would pass through the WAL on every rewrite, hold the write
// lock while it is written, and have to be copied out of SQLite's pages
// before use, where a file is mapped as it lies.
//
// Which file belongs to the database, and to which state of it, is settled
// in the database: each write of a snapshot draws a random token, puts it
// in the file's label (with the namespace and the schema version) and,
// after the file is in place, in the meta row index:<namespace>. A reader
// takes the token from the same read transaction as the seq it brings the
// index to, and uses the file only if its label names that token and its
// seq is not newer. So a file of another database, of a database restored
// from a backup, of another schema or namespace, one being replaced, and
// one whose writer died before recording it, is refused; a file cut short
// or damaged fails its checksums. A refused or missing snapshot means a
// full load, never another answer.
//
// Writing: to a temporary file in the same directory, synced, renamed over
// the old one, the directory synced, then the token recorded; a crash at
// any point leaves the old file with its token (valid), or a file whose
// token is not recorded (refused), and at worst a temporary file that the
// next writer removes. A one-shot command writes when it closes the store,
// after its answer: after a full load, or once the rows it had to apply
// exceed a share of the namespace. A long-lived process writes in the
// background, under the read lock, at most every snapshotEvery.

// snapshotMin is the namespace size from which snapshots are written (a
// variable for tests). Below it a load from the rows is about as quick as
// one from a snapshot; at 1,000 records it was not: a one-shot digest on
// a store of 1,000 records took 119 ms from the rows and 79 ms from its
// snapshot (p50, whole process, on a virtual machine where page faults
// are dear).
var snapshotMin = 500

// snapshotEvery is the least time between two background snapshots of a
// namespace in a long-lived process, and snapshotAfter how long a process
// must have been open to count as long-lived (variables for tests).
var (
	snapshotEvery = 5 * time.Minute
	snapshotAfter = 30 * time.Second
)

// snapshotStage, when set (tests), is called at each stage of a snapshot
// write.
var snapshotStage func(stage string)

func stage(s string) {
	if snapshotStage != nil {
		snapshotStage(s)
	}
}

// nsSnap is what the index knows of a namespace's snapshot.
type nsSnap struct {
	seq     int64 // the snapshot's seq (loaded or written); 0 = none
	changed int   // rows applied since seq (an upper bound of what a reader replays)
	writing bool
	last    time.Time // last write
	bad     bool      // the snapshot proved damaged: load from the rows
}

// snapshotStale reports whether a namespace of size entries whose snapshot
// state is st is worth a new snapshot.
func snapshotStale(st *nsSnap, size int) bool {
	if size < snapshotMin || st.writing {
		return false
	}
	return st.seq == 0 || st.changed >= max(snapshotMinChanged, size/50)
}

// snapshotMinChanged is the least number of rows applied since a
// namespace's snapshot that makes it worth writing again (a variable for
// tests); above it, a fiftieth of the namespace.
var snapshotMinChanged = 500

func (s *Store) snapshotDir() string { return s.path + ".index" }

func (s *Store) snapshotPath(ns string) string {
	return filepath.Join(s.snapshotDir(), hex.EncodeToString([]byte(ns))+".snap")
}

func snapshotKey(ns string) string { return "index:" + ns }

func (s *Store) snapshotLabel(ns, token string) string {
	return "mnemo sqlite index\x00" + ns + "\x00" + token + "\x00" + strconv.Itoa(s.schema)
}

// loadSnapshot returns the namespace ns read from its snapshot and brought
// up to cur with the rows of tx (the refresh's transaction), or nil when
// there is no usable snapshot. It runs under the write lock.
func (s *Store) loadSnapshot(ctx context.Context, tx *sql.Tx, ns string, cur int64) (*memindex.Namespace[int64], int64, error) {
	if s.noSnapshots || s.idx.snap(ns).bad {
		return nil, 0, nil
	}
	var token string
	err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, snapshotKey(ns)).Scan(&token)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	f, err := os.Open(s.snapshotPath(ns))
	if err != nil {
		return nil, 0, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() <= 0 || fi.Size() != int64(int(fi.Size())) {
		return nil, 0, nil
	}
	data, grow, release, err := s.snapshotData(f, int(fi.Size()))
	if err != nil {
		return nil, 0, nil
	}
	h, err := memindex.PeekSnapshot(data)
	if err != nil || h.Label != s.snapshotLabel(ns, token) || h.Seq > cur {
		release()
		return nil, 0, nil
	}
	// Everything the decoding allocates stays live: collecting meanwhile
	// is wasted work (a tenth of a one-shot command's CPU at 100,000
	// records).
	resume := pauseGC()
	n, _, err := memindex.ReadSnapshot(data, func(k uint64) int64 { return int64(k) }, func(k int64) uint64 { return uint64(k) }, grow)
	resume()
	if err != nil {
		release()
		return nil, 0, nil
	}
	// From here on n points into the mapping: it is never released.
	changed, err := s.replay(ctx, tx, ns, n, h.Seq, cur)
	if err != nil {
		return nil, 0, err
	}
	st := s.idx.snap(ns)
	st.seq, st.changed = h.Seq, changed
	return n, h.Seq, nil
}

// gcPause counts the snapshots being decoded, across stores.
var gcPause struct {
	sync.Mutex
	n     int
	saved int
}

// pauseGC turns the garbage collector off until the returned function is
// called (by every caller that turned it off).
func pauseGC() (resume func()) {
	gcPause.Lock()
	if gcPause.n == 0 {
		gcPause.saved = debug.SetGCPercent(-1)
	}
	gcPause.n++
	gcPause.Unlock()
	return func() {
		gcPause.Lock()
		if gcPause.n--; gcPause.n == 0 {
			debug.SetGCPercent(gcPause.saved)
		}
		gcPause.Unlock()
	}
}

// replay applies to n the rows of namespace ns changed after seq from and
// up to seq to: the purged ones first, since a new row may take a purged
// row's rowid. It returns how many rows it applied.
func (s *Store) replay(ctx context.Context, tx *sql.Tx, ns string, n *memindex.Namespace[int64], from, to int64) (int, error) {
	changed := 0
	rows, err := tx.QueryContext(ctx, `SELECT rowid_ FROM deleted_rows WHERE seq > ? AND seq <= ? AND namespace = ?`, from, to, ns)
	if err != nil {
		return 0, err
	}
	for rows.Next() {
		var rowid int64
		if err := rows.Scan(&rowid); err != nil {
			rows.Close()
			return 0, err
		}
		n.Remove(rowid)
		changed++
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return 0, err
	}
	rows, err = tx.QueryContext(ctx, `SELECT `+indexColumns+` FROM records INDEXED BY records_seq WHERE seq > ? AND seq <= ? AND namespace = ?`, from, to, ns)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var e memindex.Entry
	var rowid int64
	var space string
	var emb, text sql.RawBytes
	for rows.Next() {
		e = memindex.Entry{}
		if err := scanEntry(rows, &rowid, &e, &space, &emb, &text); err != nil {
			return 0, err
		}
		n.Put(rowid, e, emb, text)
		changed++
	}
	return changed, rows.Err()
}

// writeSnapshotFile writes n, which reflects the database up to seq, as
// the snapshot of namespace ns and returns its token, which
// recordSnapshot then records. The caller holds at least the read lock,
// or owns n.
func (s *Store) writeSnapshotFile(ns string, n *memindex.Namespace[int64], seq int64) (token string, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("sqlite: write index snapshot: %w", err)
		}
	}()
	dir := s.snapshotDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	final := s.snapshotPath(ns)
	// Temporary files of writers that died.
	if old, _ := filepath.Glob(final + ".tmp-*"); len(old) > 0 {
		for _, p := range old {
			if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > time.Minute {
				os.Remove(p)
			}
		}
	}
	var rnd [16]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	token = hex.EncodeToString(rnd[:])
	f, err := os.CreateTemp(dir, filepath.Base(final)+".tmp-*")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	stage("created")
	if err := n.WriteSnapshot(&stagedWriter{f: f}, s.snapshotLabel(ns, token), seq, func(k int64) uint64 { return uint64(k) }); err != nil {
		return "", err
	}
	stage("written")
	if err := f.Sync(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	stage("synced")
	if err := os.Rename(tmp, final); err != nil {
		return "", err
	}
	stage("renamed")
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	stage("dir-synced")
	return token, nil
}

// recordSnapshot makes the snapshot file of ns with token the one readers
// use. It takes the writer connection: the caller must not hold the index
// lock (a write in flight may wait for it).
func (s *Store) recordSnapshot(ctx context.Context, ns, token string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
			snapshotKey(ns), token)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: record index snapshot: %w", err)
	}
	stage("recorded")
	return nil
}

// stagedWriter reports the middle of a snapshot's first write as a stage.
type stagedWriter struct {
	f    *os.File
	half bool
}

func (w *stagedWriter) Write(p []byte) (int, error) {
	if w.half || snapshotStage == nil {
		return w.f.Write(p)
	}
	w.half = true
	n, err := w.f.Write(p[:len(p)/2])
	if err != nil {
		return n, err
	}
	stage("partly-written")
	m, err := w.f.Write(p[len(p)/2:])
	return n + m, err
}

// snap returns the snapshot state of namespace ns (under the write lock).
func (x *index) snap(ns string) *nsSnap {
	if x.snaps == nil {
		x.snaps = map[string]*nsSnap{}
	}
	st := x.snaps[ns]
	if st == nil {
		st = &nsSnap{}
		x.snaps[ns] = st
	}
	return st
}

// maybeSnapshot starts a background snapshot of the loaded namespaces that
// need one, in a process that has been open long enough to be a server.
// It runs under the write lock, after a refresh.
func (s *Store) maybeSnapshot() {
	if s.noSnapshots || time.Since(s.opened) < snapshotAfter {
		return
	}
	for ns, n := range s.idx.ns {
		st := s.idx.snap(ns)
		if !snapshotStale(st, n.Len()) || time.Since(st.last) < snapshotEvery {
			continue
		}
		st.writing = true
		s.snapWG.Add(1)
		go func() {
			defer s.snapWG.Done()
			s.idx.mu.RLock()
			seq := s.idx.seq
			token, err := s.writeSnapshotFile(ns, n, seq)
			s.idx.mu.RUnlock()
			if err == nil {
				err = s.recordSnapshot(s.closing, ns, token)
			}
			s.idx.mu.Lock()
			st.writing, st.last = false, time.Now()
			if err == nil {
				st.seq, st.changed = seq, 0
			}
			s.idx.mu.Unlock()
		}()
	}
}

// snapshotOnClose writes the snapshots a closing process should leave
// behind: those of the namespaces it loaded that had none or whose
// snapshot lags too far.
func (s *Store) snapshotOnClose(ctx context.Context) {
	if s.noSnapshots || s.idx == nil {
		return
	}
	type written struct{ ns, token string }
	var ws []written
	s.idx.mu.Lock()
	for ns, n := range s.idx.ns {
		st := s.idx.snap(ns)
		if !snapshotStale(st, n.Len()) {
			continue
		}
		if !n.Sketching() && n.Len() >= memindex.SketchAsyncMin {
			n.BuildSketches() // a process that reads the snapshot searches with them at once
		}
		if token, err := s.writeSnapshotFile(ns, n, s.idx.seq); err == nil {
			ws = append(ws, written{ns, token})
		}
	}
	s.idx.mu.Unlock()
	for _, w := range ws {
		s.recordSnapshot(ctx, w.ns, w.token)
	}
}

// dropSnapshotIndex forgets the index of namespace ns, n, read from a
// snapshot found damaged, so that the next search loads it from its rows
// (and a new snapshot is written).
func (s *Store) dropSnapshotIndex(ns string, n *memindex.Namespace[int64]) {
	s.idx.refreshing.Lock()
	defer s.idx.refreshing.Unlock()
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	if s.idx.ns[ns] == n {
		delete(s.idx.ns, ns)
		n.Evicted()
		st := s.idx.snap(ns)
		st.bad, st.seq = true, 0
	}
}
