package engine_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/tokenize"
)

// raceStore is a store on which something happens to one record right
// after a reader gets it: another writer, between Remember's check of the
// record it supersedes and its write.
type raceStore struct {
	mnemo.Store
	id    string
	after func()
}

func (r *raceStore) Get(ctx context.Context, sc mnemo.Scope, id string) (*mnemo.Record, error) {
	rec, err := r.Store.Get(ctx, sc, id)
	if err == nil && id == r.id && r.after != nil {
		after := r.after
		r.after = nil
		after()
	}
	return rec, err
}

// TestRememberSupersedeFailsWhole: a supersession that fails when the
// write is made — its record purged or forgotten by another writer since
// Remember checked it — leaves nothing of the write behind: no new record,
// no merge, and the old record as the other writer left it.
func TestRememberSupersedeFailsWhole(t *testing.T) {
	cases := []struct {
		name string
		code string
		race func(t *testing.T, st *sqlite.Store, old *mnemo.Record)
	}{
		{"purged", mnemo.ENOTFOUND, func(t *testing.T, st *sqlite.Store, old *mnemo.Record) {
			c := *old
			c.DeletedAt = at(old.CreatedAt)
			if err := st.Update(context.Background(), &c, "forget", "other"); err != nil {
				t.Fatal(err)
			}
			n, err := st.Purge(context.Background(), mnemo.Scope{Namespace: "ops", Clearance: mnemo.MaxAccessLevel}, old.CreatedAt.Add(time.Hour))
			if err != nil || n != 1 {
				t.Fatalf("purge = %d, %v", n, err)
			}
		}},
		{"forgotten", mnemo.ECONFLICT, func(t *testing.T, st *sqlite.Store, old *mnemo.Record) {
			c := *old
			c.DeletedAt = at(old.CreatedAt.Add(time.Minute))
			if err := st.Update(context.Background(), &c, "forget", "other"); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(t.TempDir(), "m.db")})
			if err != nil {
				t.Fatal(err)
			}
			tok, err := tokenize.New("")
			if err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
			rs := &raceStore{Store: st}
			svc, err := engine.New(ctx, engine.Config{Store: rs, Embedder: embed.NewHash(256), Tokenizer: tok, Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { svc.Close(); st.Close() })
			w, err := svc.Remember(mnemo.WithCallerIn(ctx, admin, "ops"), []mnemo.NewRecord{
				{Text: "The Tromsø ground station downlink runs at 300 Mbit/s", At: at(now.Add(-48 * time.Hour))},
				{Text: "The Kiruna antenna calibration happens every Tuesday morning", At: at(now.Add(-47 * time.Hour))},
			}, mnemo.WriteOptions{})

			if err != nil {
				t.Fatal(err)
			}
			old := w[0].Record
			stored, err := st.Get(ctx, mnemo.Scope{Namespace: "ops", Clearance: mnemo.MaxAccessLevel}, old.ID)
			if err != nil {
				t.Fatal(err)
			}
			rs.id, rs.after = old.ID, func() { tc.race(t, st, stored) }
			_, err = svc.Remember(mnemo.WithCallerIn(ctx, admin, "ops"), []mnemo.NewRecord{
				{Text: "The Tromsø ground station downlink now runs at 450 Mbit/s", Supersedes: old.ID},

				{Text: "The Kiruna antenna calibration happens every Tuesday morning", Confidence: fp(1)},
			}, mnemo.WriteOptions{Dedup: true})

			if mnemo.ErrorCode(err) != tc.code {
				t.Fatalf("remember = %v, want %s", err, tc.code)
			}
			if rs.after != nil {
				t.Fatal("the race did not run")
			}
			all := mnemo.Scope{Namespace: "ops", Clearance: mnemo.MaxAccessLevel}
			list, err := st.List(ctx, all, mnemo.ListOptions{IncludeDeleted: true, IncludeHistory: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range list {
				if r.ID != w[0].ID && r.ID != w[1].ID {
					t.Errorf("a record of the failed write was stored: %s %q", r.ID, r.Text)
				}
			}
			h, err := st.History(ctx, all, w[1].ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(h) != 1 {
				t.Errorf("the merge of the failed write was stored: %d revisions", len(h))
			}
			if tc.name == "forgotten" {
				got, err := st.Get(ctx, all, old.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.DeletedAt == nil || got.SupersededBy != "" {
					t.Errorf("the old record was changed by the failed write: deleted %v, superseded by %q", got.DeletedAt, got.SupersededBy)
				}
			}
		})
	}
}
