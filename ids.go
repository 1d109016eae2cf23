package mnemo

import (
	"crypto/sha256"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// DerivedID returns a ULID that is the same whenever the same time and key
// are given: its time is at in milliseconds (the Unix epoch when at is
// before it, the largest ULID time when beyond), its entropy the first 80
// bits of SHA-256 of the key's parts joined by NUL bytes. Importers and
// derived records use it so that doing the same work twice finds the same
// records instead of adding copies.
func DerivedID(at time.Time, key ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(key, "\x00")))
	ms := uint64(0)
	if at.After(time.Unix(0, 0)) {
		ms = min(uint64(at.UnixMilli()), ulid.MaxTime())
	}
	var id ulid.ULID
	_ = id.SetTime(ms) // in range by construction
	copy(id[6:], sum[:10])
	return id.String()
}
