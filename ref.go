package mnemo

import "context"

// RefLen is the length of a record's short reference: the last characters
// of a ULID id, its random part. Digests and briefs print references
// instead of whole ids, because a 26-character ULID costs an agent about
// twenty tokens on every line and the reference five; every operation that
// takes a record id also takes a reference (see the engine's id
// resolution), as git takes an abbreviated hash.
const RefLen = 8

// ShortRef returns the reference a digest prints for a record id: the
// last RefLen characters of a ULID, any other id whole (ids chosen by
// users are short and meaningful).
func ShortRef(id string) string {
	if isULID(id) {
		return id[len(id)-RefLen:]
	}
	return id
}

// IsRef reports whether s has the shape of a short reference.
func IsRef(s string) bool {
	if len(s) != RefLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isCrockford(s[i]) {
			return false
		}
	}
	return true
}

func isULID(id string) bool {
	if len(id) != 26 || id[0] > '7' { // the first character holds 3 bits
		return false
	}
	for i := 0; i < len(id); i++ {
		if !isCrockford(id[i]) {
			return false
		}
	}
	return true
}

// isCrockford reports whether c is an upper-case character of Crockford's
// base32 alphabet, which ULIDs are written in.
func isCrockford(c byte) bool {
	switch {
	case c >= '0' && c <= '9':
		return true
	case c >= 'A' && c <= 'Z':
		return c != 'I' && c != 'L' && c != 'O' && c != 'U'
	}
	return false
}

// RefResolver is implemented by stores that can find records by the end
// of their id: both stores shipped with mnemo (capability refs, see
// capability.go).
type RefResolver interface {
	// IDsEndingWith returns up to limit ids of sc's namespace, visible to
	// sc (forgotten ones included), that end with suffix.
	IDsEndingWith(ctx context.Context, sc Scope, suffix string, limit int) ([]string, error)
}
