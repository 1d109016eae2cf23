package mnemo

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"
)

// Role says what an API key may do inside its namespaces.
type Role string

// The roles, from least to most powerful; RoleMetrics stands apart.
const (
	RoleRead  Role = "read"  // recall, digest, list, show, history, export
	RoleWrite Role = "write" // read plus remember, update, forget, restore, import
	RoleAdmin Role = "admin" // write plus administration (and /metrics)
	// RoleMetrics may read the server's /metrics and nothing else: no
	// record of any namespace.
	RoleMetrics Role = "metrics"
)

// Valid reports whether r is a known role.
func (r Role) Valid() bool {
	return r == RoleRead || r == RoleWrite || r == RoleAdmin || r == RoleMetrics
}

// CanReadMetrics reports whether r may read the server's metrics.
func (r Role) CanReadMetrics() bool { return r == RoleAdmin || r == RoleMetrics }

// CanWrite reports whether r may change records.
func (r Role) CanWrite() bool { return r == RoleWrite || r == RoleAdmin }

// APIKey is a credential for the server: bound to namespaces, with a role
// and a clearance. Only the SHA-256 hash of the secret is stored.
type APIKey struct {
	ID         string     `json:"id"`
	Name       string     `json:"name,omitempty"`
	Hash       string     `json:"-"` // hex SHA-256 of the secret
	Namespaces []string   `json:"namespaces"`
	Role       Role       `json:"role"`
	Clearance  int        `json:"clearance"`
	CreatedAt  time.Time  `json:"created_at"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
}

// Allows reports whether the key is bound to namespace ns.
func (k *APIKey) Allows(ns string) bool {
	for _, n := range k.Namespaces {
		if n == ns {
			return true
		}
	}
	return false
}

// ResolveNamespace picks the namespace of a request made with the key: the
// requested one (it must be bound to the key: EFORBIDDEN otherwise), else the
// key's only namespace, else the default namespace.
func (k *APIKey) ResolveNamespace(requested string) (string, error) {
	if requested == "" {
		if len(k.Namespaces) == 1 {
			return k.Namespaces[0], nil
		}
		requested = DefaultNamespace
	}
	if err := ValidateNamespace(requested); err != nil {
		return "", err
	}
	if !k.Allows(requested) {
		return "", Errorf(EFORBIDDEN, "this API key is not bound to namespace %q", requested)
	}
	return requested, nil
}

// Validate checks a key before it is stored.
func (k *APIKey) Validate() error {
	if !k.Role.Valid() {
		return Errorf(EINVALID, "unknown role %q (want read, write, admin or metrics)", k.Role)
	}
	if len(k.Namespaces) == 0 && k.Role != RoleMetrics {
		return Errorf(EINVALID, "a key needs at least one namespace")
	}
	for _, ns := range k.Namespaces {
		if ns == "" {
			return Errorf(EINVALID, "empty namespace in the key's list")
		}
		if err := ValidateNamespace(ns); err != nil {
			return err
		}
	}
	if k.Clearance < 0 || k.Clearance > MaxAccessLevel {
		return Errorf(EINVALID, "clearance %d is outside 0..%d", k.Clearance, MaxAccessLevel)
	}
	if len(k.Name) > 200 {
		return Errorf(EINVALID, "key name is longer than 200 bytes")
	}
	return nil
}

// APIKeyPrefix starts every API key secret, so leaked keys are easy to spot.
const APIKeyPrefix = "mnemo_"

// NewAPIKeySecret returns a fresh random key secret (32 random bytes) and
// its hash, and a short random id for the key.
func NewAPIKeySecret() (id, secret, hash string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	secret = APIKeyPrefix + base64.RawURLEncoding.EncodeToString(b)
	idb := make([]byte, 6)
	_, _ = rand.Read(idb)
	return "key_" + hex.EncodeToString(idb), secret, HashAPIKey(secret)
}

// HashAPIKey returns the hex SHA-256 of a key secret, as stored.
func HashAPIKey(secret string) string {
	sum := sha256.Sum256([]byte(strings.TrimSpace(secret)))
	return hex.EncodeToString(sum[:])
}

// EqualHash compares two key hashes in constant time.
func EqualHash(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// KeyStore persists API keys.
//
// Errors: ENOTFOUND when a key does not exist (or is revoked, for LookupKey);
// EINVALID for a bad key.
type KeyStore interface {
	// CreateKey stores a new key (its Hash must be set).
	CreateKey(ctx context.Context, k *APIKey) error
	// ListKeys returns every key, revoked ones included, oldest first.
	ListKeys(ctx context.Context) ([]*APIKey, error)
	// RevokeKey revokes a key by id; revoking twice is not an error.
	RevokeKey(ctx context.Context, id string) error
	// LookupKey returns the active key with the given hash.
	LookupKey(ctx context.Context, hash string) (*APIKey, error)
	// ActiveKeys returns the number of keys that are not revoked.
	ActiveKeys(ctx context.Context) (int, error)
}

// Principal is an authenticated caller of a request, bound to one namespace.
type Principal struct {
	Caller
	Namespace string
	KeyID     string // "" for the local user (no keys configured, or stdio)
}
