package sqlite

import (
	"time"
)

// writerCacheKiB is the page cache of the writer connection (SQLite's
// default is 2,000 KiB): a batch of 500 records dirties more pages than
// that, which SQLite then spills to the WAL before the commit and writes
// again at it, and reads the leaves of the indexes back from the file at
// every batch. Readers keep the default.
const writerCacheKiB = 32 << 10

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
