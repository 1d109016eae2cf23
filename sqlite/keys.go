package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-dev/mnemo"
)

var _ mnemo.KeyStore = (*Store)(nil)

// CreateKey stores a new API key. Its Hash must be set; CreatedAt defaults to now.
func (s *Store) CreateKey(ctx context.Context, k *mnemo.APIKey) error {
	if err := k.Validate(); err != nil {
		return fmt.Errorf("sqlite: create key: %w", err)
	}
	if k.ID == "" || len(k.Hash) != 64 {
		return fmt.Errorf("sqlite: create key: %w", mnemo.Errorf(mnemo.EINVALID, "a key needs an id and a SHA-256 hash"))
	}
	if k.CreatedAt.IsZero() {
		k.CreatedAt = s.now().UTC()
	}
	ns, _ := json.Marshal(k.Namespaces)
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO api_keys (id, name, hash, namespaces, role, clearance, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, k.ID, k.Name, k.Hash, string(ns), string(k.Role), k.Clearance, k.CreatedAt.UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: create key: %w", err)
	}
	return nil
}

// ListKeys returns every key, revoked ones included, oldest first.
func (s *Store) ListKeys(ctx context.Context) ([]*mnemo.APIKey, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, name, hash, namespaces, role, clearance, created_at, revoked_at
		FROM api_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list keys: %w", err)
	}
	defer rows.Close()
	var out []*mnemo.APIKey
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list keys: %w", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list keys: %w", err)
	}
	return out, nil
}

// RevokeKey revokes a key by id. ENOTFOUND if no key has the id.
func (s *Store) RevokeKey(ctx context.Context, id string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?`,
			s.now().UTC().UnixNano(), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return mnemo.Errorf(mnemo.ENOTFOUND, "no API key %q", id)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: revoke key: %w", err)
	}
	return nil
}

// LookupKey returns the active key with the given hash, or ENOTFOUND.
func (s *Store) LookupKey(ctx context.Context, hash string) (*mnemo.APIKey, error) {
	row := s.rdb.QueryRowContext(ctx, `SELECT id, name, hash, namespaces, role, clearance, created_at, revoked_at
		FROM api_keys WHERE hash = ? AND revoked_at IS NULL`, hash)
	k, err := scanKey(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "unknown or revoked API key")
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: lookup key: %w", err)
	}
	if !mnemo.EqualHash(k.Hash, hash) {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "unknown or revoked API key")
	}
	return k, nil
}

// ActiveKeys returns the number of keys that are not revoked.
func (s *Store) ActiveKeys(ctx context.Context) (int, error) {
	var n int
	if err := s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM api_keys WHERE revoked_at IS NULL`).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: active keys: %w", err)
	}
	return n, nil
}

type keyRowScanner interface{ Scan(...any) error }

func scanKey(sc keyRowScanner) (*mnemo.APIKey, error) {
	var k mnemo.APIKey
	var ns, role string
	var created int64
	var revoked sql.NullInt64
	if err := sc.Scan(&k.ID, &k.Name, &k.Hash, &ns, &role, &k.Clearance, &created, &revoked); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(ns), &k.Namespaces); err != nil {
		return nil, fmt.Errorf("decode namespaces: %w", err)
	}
	k.Role = mnemo.Role(role)
	k.CreatedAt = time.Unix(0, created).UTC()
	if revoked.Valid {
		t := time.Unix(0, revoked.Int64).UTC()
		k.RevokedAt = &t
	}
	return &k, nil
}
