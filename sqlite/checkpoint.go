package sqlite

import (
	"context"
	"fmt"
	"time"
)

// writerCacheKiB is the page cache of the writer connection (SQLite's
// default is 2,000 KiB): a batch of 500 records dirties more pages than
// that, which SQLite then spills to the WAL before the commit and writes
// again at it, and reads the leaves of the indexes back from the file at
// every batch.
const writerCacheKiB = 32 << 10

// readerCacheKiB is the page cache of each reader connection. In WAL mode
// every commit empties the cache of every other connection at its next
// read, so what a reader caches lives until the next write — with the
// access counters written once a second, about a second on a server that
// only answers. SQLite's default of 2,000 KiB a reader made each of those
// resets free up to 2 MiB of pages (8 readers: 16 MiB, as 16 KiB slots of
// the C allocator), well past the 4 MiB the allocator keeps committed, so
// it handed the pages back to the kernel and the next reads faulted them
// in again: the slow tail of digests (bench perf at 100,000 records, p95
// 23.0 and 22.8 ms against 18.1 and 17.7 with 256 KiB, and 15.3 and 17.4
// with no writes at all). What a reader reads again is in the OS's page
// cache, and what a digest needs most — postings, vectors, rank fields —
// is in the in-memory index, not in SQLite's pages: 8 readers × 32 pages
// of 8 KiB (16 KiB slots) stay within the allocator's committed 4 MiB.
const readerCacheKiB = 256

// walLastResort is the WAL size, in pages, at which a commit checkpoints
// the WAL itself: 64 MB of the 8 KiB pages of a store created now (32 MB
// in one created with SQLite's 4 KiB pages). SQLite's default of 1,000
// pages made about every batched write copy the WAL into the database and
// sync both before it returned; the background checkpointer does that
// now, after the commit, and a writer checkpoints only when it falls this
// far behind.
const walLastResort = 8000

// ckptEvery is the shortest interval between two background checkpoints:
// a burst of small writes is copied into the database once, not once per
// commit.
const ckptEvery = 50 * time.Millisecond

// startCheckpointer starts the goroutine that copies the WAL into the
// database after commits (PRAGMA wal_checkpoint(PASSIVE), on a reader
// connection: it waits for no one and blocks no one, writers included, and
// copies what no reader still needs). Close stops it.
func (s *Store) startCheckpointer() {
	s.ckpt = make(chan struct{}, 1)
	s.ckptWG.Add(1)
	go func() {
		defer s.ckptWG.Done()
		for {
			select {
			case <-s.closing.Done():
				return
			case <-s.ckpt:
			}
			_, _ = s.rdb.ExecContext(s.closing, `PRAGMA wal_checkpoint(PASSIVE)`)
			select {
			case <-s.closing.Done():
				return
			case <-time.After(ckptEvery):
			}
		}
	}()
}

// checkpointSoon asks the checkpointer to run; it never waits.
func (s *Store) checkpointSoon() {
	select {
	case s.ckpt <- struct{}{}:
	default:
	}
}

// Checkpoint copies the whole WAL into the database and empties it,
// waiting for the writers and readers of the moment to let it (PRAGMA
// wal_checkpoint(TRUNCATE)). The background checkpointer copies after
// commits without waiting for anyone; this is for a caller that wants the
// store settled before what comes next, such as a benchmark before its
// timed part. While another checkpoint runs (the background one) SQLite
// answers busy at once; Checkpoint then tries again, for up to a minute.
func (s *Store) Checkpoint(ctx context.Context) error {
	deadline := time.Now().Add(time.Minute)
	for {
		var busy, logPages, copied int
		if err := s.wdb.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logPages, &copied); err != nil {
			return fmt.Errorf("sqlite: checkpoint: %w", err)
		}
		if busy == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sqlite: checkpoint: the database stayed busy for a minute")
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("sqlite: checkpoint: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
