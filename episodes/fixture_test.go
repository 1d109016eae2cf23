package episodes_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
)

var admin = mnemo.Caller{Name: "test", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}

// fixture is the engine over a new SQLite file (at path, when given),
// its clock standing at now.
type fixture struct {
	svc *engine.Service
	now time.Time
	tok mnemo.Tokenizer
}

func open(t testing.TB, path string, mod func(*engine.Config)) *fixture {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "m.db")
	}
	f := &fixture{now: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	f.svc, _ = enginetest.OpenAt(t, path, func(c *engine.Config) {
		c.Now = func() time.Time { return f.now }
		if mod != nil {
			mod(c)
		}
	})
	f.tok = f.svc.Tokenizer()
	return f
}

func (f *fixture) remember(t *testing.T, ns string, recs ...mnemo.NewRecord) []mnemo.Written {
	t.Helper()
	out, err := f.svc.Remember(mnemo.WithCallerIn(context.Background(), admin, ns), recs, mnemo.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fp(v float64) *float64 { return &v }

func at(t time.Time) *time.Time { return &t }
