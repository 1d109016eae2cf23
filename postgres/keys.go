package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mnemo-dev/mnemo"
)

// CreateKey stores a new API key. Its Hash must be set; CreatedAt defaults
// to now. A key whose id or hash exists already is ECONFLICT.
func (s *Store) CreateKey(ctx context.Context, k *mnemo.APIKey) error {
	if err := k.Validate(); err != nil {
		return fmt.Errorf("postgres: create key: %w", err)
	}
	if k.ID == "" || len(k.Hash) != 64 || !textOK(k.ID) || !textOK(k.Name) || !textOK(k.Hash) {
		return fmt.Errorf("postgres: create key: %w", mnemo.Errorf(mnemo.EINVALID, "a key needs an id and a SHA-256 hash"))
	}
	if k.CreatedAt.IsZero() {
		k.CreatedAt = s.now().UTC()
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO api_keys (id, name, hash, namespaces, role, clearance, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, k.ID, k.Name, k.Hash, k.Namespaces, string(k.Role), k.Clearance, k.CreatedAt.UnixNano())
	if pe, ok := err.(*pgconn.PgError); ok && pe.Code == "23505" { // unique_violation
		return fmt.Errorf("postgres: create key: %w", mnemo.Errorf(mnemo.ECONFLICT, "an API key with this id or secret exists"))
	}
	if err != nil {
		return fmt.Errorf("postgres: create key: %w", err)
	}
	return nil
}

// keyColumns are the columns scanKey reads.
const keyColumns = `id, name, hash, namespaces, role, clearance, created_at, revoked_at`

// ListKeys returns every key, revoked ones included, oldest first.
func (s *Store) ListKeys(ctx context.Context) ([]*mnemo.APIKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: list keys: %w", err)
	}
	defer rows.Close()
	var out []*mnemo.APIKey
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: list keys: %w", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: list keys: %w", err)
	}
	return out, nil
}

// RevokeKey revokes a key by id. ENOTFOUND if no key has the id; revoking
// twice keeps the first revocation time.
func (s *Store) RevokeKey(ctx context.Context, id string) error {
	if !textOK(id) {
		return fmt.Errorf("postgres: revoke key: %w", mnemo.Errorf(mnemo.ENOTFOUND, "no API key %q", id))
	}
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2`,
		s.now().UTC().UnixNano(), id)
	if err != nil {
		return fmt.Errorf("postgres: revoke key: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: revoke key: %w", mnemo.Errorf(mnemo.ENOTFOUND, "no API key %q", id))
	}
	return nil
}

// LookupKey returns the active key with the given hash, or ENOTFOUND.
func (s *Store) LookupKey(ctx context.Context, hash string) (*mnemo.APIKey, error) {
	if !textOK(hash) {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "unknown or revoked API key")
	}
	k, err := scanKey(s.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE hash = $1 AND revoked_at IS NULL`, hash))
	if isNoRows(err) {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "unknown or revoked API key")
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: lookup key: %w", err)
	}
	if !mnemo.EqualHash(k.Hash, hash) {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "unknown or revoked API key")
	}
	return k, nil
}

// ActiveKeys returns the number of keys that are not revoked.
func (s *Store) ActiveKeys(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM api_keys WHERE revoked_at IS NULL`).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: active keys: %w", err)
	}
	return n, nil
}

func scanKey(row pgx.Row) (*mnemo.APIKey, error) {
	var k mnemo.APIKey
	var role string
	var created int64
	var revoked *int64
	if err := row.Scan(&k.ID, &k.Name, &k.Hash, &k.Namespaces, &role, &k.Clearance, &created, &revoked); err != nil {
		return nil, err
	}
	k.Role = mnemo.Role(role)
	k.CreatedAt = time.Unix(0, created).UTC()
	if revoked != nil {
		t := time.Unix(0, *revoked).UTC()
		k.RevokedAt = &t
	}
	return &k, nil
}
