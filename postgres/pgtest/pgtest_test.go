package pgtest_test

import (
	"context"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo/postgres/pgtest"
)

// TestStartStop starts a server (or uses MNEMO_TEST_POSTGRES), creates and
// drops a database on it, and checks that stop stops a server it started
// and may be called twice.
func TestStartStop(t *testing.T) {
	ctx := context.Background()
	base, stop, err := pgtest.Start()
	pgtest.SkipIf(t, err)
	defer stop()
	name, db, err := pgtest.CreateDatabase(ctx, base, "")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var current, encoding string
	err = conn.QueryRow(ctx, `SELECT current_database(), pg_encoding_to_char(encoding) FROM pg_database WHERE datname = current_database()`).
		Scan(&current, &encoding)
	conn.Close(ctx)
	if err != nil || current != name || encoding != "UTF8" {
		t.Errorf("database %s: %s, %s, %v", name, current, encoding, err)
	}
	if err := pgtest.DropDatabase(ctx, base, name); err != nil {
		t.Fatal(err)
	}
	if err := pgtest.DropDatabase(ctx, base, "x; DROP"); err == nil {
		t.Error("DropDatabase accepted an invalid name")
	}
	if os.Getenv(pgtest.EnvURL) != "" {
		return // not ours to stop
	}
	if u, err := url.Parse(base); err != nil || u.User == nil {
		t.Errorf("URL %q: %v", base, err)
	} else if _, ok := u.User.Password(); !ok {
		t.Error("the throwaway server's URL has no password")
	}
	stop()
	stop()
	if c, err := pgx.Connect(ctx, base); err == nil {
		c.Close(ctx)
		t.Error("the server still accepts connections after stop")
	}
}

func TestRequired(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "false": false, "FALSE": false, "1": true, "true": true, "yes": true} {
		t.Setenv(pgtest.EnvRequire, v)
		if got := pgtest.Required(); got != want {
			t.Errorf("Required() with %s=%q = %v", pgtest.EnvRequire, v, got)
		}
	}
}
