package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// The FTS5 table on demand.
//
// records_fts, its vocabulary and the triggers that keep it current exist
// only in a store that asked for them: one opened with
// Options.FTSKeyword, or whose FloorQuery (the benchmarks' baseline) ran.
// ensureFTS builds them from the rows in one transaction of the writer,
// so a crash leaves either no table or a complete one; from then on the
// triggers keep it current, in every process that writes the store.

const ftsSchema = `
CREATE VIRTUAL TABLE records_fts USING fts5 (
	text,
	content = 'records',
	content_rowid = 'rowid',
	tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE records_fts_vocab USING fts5vocab (records_fts, 'row');
CREATE TRIGGER records_fts_insert AFTER INSERT ON records BEGIN
	INSERT INTO records_fts (rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER records_fts_delete AFTER DELETE ON records BEGIN
	INSERT INTO records_fts (records_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
CREATE TRIGGER records_fts_update AFTER UPDATE OF text ON records BEGIN
	INSERT INTO records_fts (records_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
	INSERT INTO records_fts (rowid, text) VALUES (new.rowid, new.text);
END;
INSERT INTO records_fts (records_fts) VALUES ('rebuild');
`

// ensureFTS builds the FTS5 table, its vocabulary and its triggers when
// the store has none yet.
func (s *Store) ensureFTS(ctx context.Context) error {
	s.ftsMu.Lock()
	defer s.ftsMu.Unlock()
	if s.ftsReady {
		return nil
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'records_fts'`).Scan(&n); err != nil || n > 0 {
			return err
		}
		_, err := tx.ExecContext(ctx, ftsSchema)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: full-text index: %w", err)
	}
	s.ftsReady = true
	return nil
}

// BuildFTS builds the FTS5 table now when the store has none (see
// above): for a caller that wants the build outside what it times.
func (s *Store) BuildFTS(ctx context.Context) error { return s.ensureFTS(ctx) }

// DropFTS removes the FTS5 table, its vocabulary and its triggers, so
// that writes stop maintaining it. A store opened with FTSKeyword keeps
// it.
func (s *Store) DropFTS(ctx context.Context) error {
	if s.ftsKeyword {
		return nil
	}
	s.ftsMu.Lock()
	defer s.ftsMu.Unlock()
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DROP TRIGGER IF EXISTS records_fts_insert;
			DROP TRIGGER IF EXISTS records_fts_delete;
			DROP TRIGGER IF EXISTS records_fts_update;
			DROP TABLE IF EXISTS records_fts_vocab;
			DROP TABLE IF EXISTS records_fts;`)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: full-text index: %w", err)
	}
	s.ftsReady = false
	return nil
}
