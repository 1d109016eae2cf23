package mnemo_test

import (
	"testing"

	"github.com/mnemo-dev/mnemo"
)

func TestShortRef(t *testing.T) {
	for _, tt := range []struct{ id, want string }{
		{"01JD8Z5Q4V3XK7M2N9P0R6S8TW", "N9P0R6S8TW"[2:]},
		{"adr-0001", "adr-0001"},
		{"01jd8z5q4v3xk7m2n9p0r6s8tw", "01jd8z5q4v3xk7m2n9p0r6s8tw"}, // not as ULIDs are written
		{"81JD8Z5Q4V3XK7M2N9P0R6S8TW", "81JD8Z5Q4V3XK7M2N9P0R6S8TW"}, // beyond the ULID range
		{"01JD8Z5Q4V3XK7M2N9P0R6S8T", "01JD8Z5Q4V3XK7M2N9P0R6S8T"},   // 25 characters
	} {
		if got := mnemo.ShortRef(tt.id); got != tt.want {
			t.Errorf("ShortRef(%s) = %s, want %s", tt.id, got, tt.want)
		}
	}
	for s, want := range map[string]bool{"P0R6S8TW": true, "P0R6S8T": false, "P0R6S8TWX": false, "P0R6S8Tw": false, "P0R6S8TI": false, "adr-0001": false} {
		if got := mnemo.IsRef(s); got != want {
			t.Errorf("IsRef(%s) = %v", s, got)
		}
	}
}
