package client_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/client"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
	"github.com/mnemo-dev/mnemo/server"
	"github.com/mnemo-dev/mnemo/sqlite"
)

type fixture struct {
	store *sqlite.Store
	ts    *httptest.Server
}

// newFixture serves a real SQLite file through the real handler.
func newFixture(t *testing.T, _ any) *fixture {
	t.Helper()
	svc, st := enginetest.Open(t, nil)
	srv, err := server.New(server.Config{Service: svc, Keys: st})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return &fixture{store: st, ts: ts}
}

func (f *fixture) key(t *testing.T, role mnemo.Role, clearance int, nss ...string) string {
	t.Helper()
	id, secret, hash := mnemo.NewAPIKeySecret()
	if err := f.store.CreateKey(context.Background(), &mnemo.APIKey{ID: id, Hash: hash, Namespaces: nss, Role: role, Clearance: clearance}); err != nil {
		t.Fatal(err)
	}
	return secret
}

func TestRoundTrip(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	c, err := client.New(f.ts.URL+"/", client.Options{Namespace: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	imp := 0.8
	out, err := c.Remember(ctx, []mnemo.NewRecord{{Text: "Backups run nightly at 02:00 UTC", Importance: &imp, Tags: []string{"backup"}}}, mnemo.WriteOptions{Dedup: true})
	if err != nil || len(out) != 1 || out[0].Namespace != "ops" || out[0].Importance != 0.8 {
		t.Fatalf("remember: %+v %v", out, err)
	}
	id := out[0].ID
	batch, err := c.Remember(ctx, []mnemo.NewRecord{{Text: "Restores are tested monthly"}, {Text: "The backup bucket is in eu-west-1"}}, mnemo.WriteOptions{})
	if err != nil || len(batch) != 2 || batch[0].ID == "" {
		t.Fatalf("batch: %+v %v", batch, err)
	}
	if r, err := c.Get(ctx, id); err != nil || r.Text != "Backups run nightly at 02:00 UTC" {
		t.Fatalf("get: %+v %v", r, err)
	}
	txt := "Backups run nightly at 03:00 UTC"
	if r, err := c.Update(ctx, id, mnemo.RecordPatch{Text: &txt}); err != nil || r.Text != txt {
		t.Fatalf("update: %+v %v", r, err)
	}
	if recs, err := c.List(ctx, mnemo.ListOptions{Filter: mnemo.Filter{Tags: []string{"backup"}}}); err != nil || len(recs) != 1 {
		t.Fatalf("list: %d %v", len(recs), err)
	}
	if recs, err := c.List(ctx, mnemo.ListOptions{Filter: mnemo.Filter{Outcome: "accepted"}}); err != nil || len(recs) != 0 {
		t.Fatalf("list by outcome: %d %v", len(recs), err)
	}
	if res, err := c.Recall(ctx, mnemo.RecallRequest{Query: "when do backups run", K: 2}); err != nil || len(res.Hits) == 0 || res.Hits[0].ID != id {
		t.Fatalf("recall: %+v %v", res, err)
	}
	if d, err := c.Digest(ctx, mnemo.DigestRequest{Task: "restore a backup", Budget: 300}); err != nil || d.UsedTokens > 300 || !strings.Contains(d.Markdown, "eu-west-1") {
		t.Fatalf("digest: %+v %v", d, err)
	}
	if r, err := c.Forget(ctx, id); err != nil || r.DeletedAt == nil {
		t.Fatalf("forget: %+v %v", r, err)
	}
	if r, err := c.Restore(ctx, id); err != nil || r.DeletedAt != nil {
		t.Fatalf("restore: %+v %v", r, err)
	}
	if revs, err := c.History(ctx, id); err != nil || len(revs) != 4 {
		t.Fatalf("history: %d %v", len(revs), err)
	}
	var buf bytes.Buffer
	n, err := c.Export(ctx, &buf)
	if err != nil || n != 3 {
		t.Fatalf("export: %d %v", n, err)
	}
	res, err := c.WithNamespace("copy").Import(ctx, bytes.NewReader(buf.Bytes()), nil)
	if err != nil || res.Read != 3 || res.Imported != 3 {
		t.Fatalf("import into another namespace of the same store: %+v %v", res, err)
	}
	// The context's namespace wins over the client's.
	done := 0
	res, err = c.Import(mnemo.WithNamespace(ctx, "copy"), bytes.NewReader(buf.Bytes()), func(d, _ int) { done = d })
	if err != nil || res.Imported != 0 || res.Skipped != 3 || done != 3 {
		t.Fatalf("second import: %+v %v (progress %d)", res, err, done)
	}
	if cr, err := c.Consolidate(ctx, true); err != nil || !cr.DryRun || cr.Checked != 3 || len(cr.Pairs) != 0 {
		t.Fatalf("consolidate: %+v %v", cr, err)
	}
	if err := c.Health(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestClientMapsErrorCodes(t *testing.T) {
	f := newFixture(t, nil)
	keyA := f.key(t, mnemo.RoleRead, 0, "a")
	c, _ := client.New(f.ts.URL, client.Options{APIKey: keyA})
	_, err := c.Get(context.Background(), "missing")
	if mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("get missing: %v", err)
	}
	_, err = c.Remember(context.Background(), []mnemo.NewRecord{{Text: "x"}}, mnemo.WriteOptions{})
	if mnemo.ErrorCode(err) != mnemo.EFORBIDDEN {
		t.Fatalf("write with read key: %v", err)
	}
	_, err = c.WithNamespace("b").Recall(context.Background(), mnemo.RecallRequest{Query: "x"})
	if mnemo.ErrorCode(err) != mnemo.EFORBIDDEN {
		t.Fatalf("other namespace: %v", err)
	}
	_, err = c.Digest(context.Background(), mnemo.DigestRequest{Task: ""})
	if mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Fatalf("empty task: %v", err)
	}
	anon, _ := client.New(f.ts.URL, client.Options{})
	if _, err := anon.List(context.Background(), mnemo.ListOptions{}); mnemo.ErrorCode(err) != mnemo.EUNAUTHORIZED {
		t.Fatalf("no key: %v", err)
	}
	if _, err := client.New("ftp://x", client.Options{}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Fatalf("bad url: %v", err)
	}
}

func TestListTimeAndOutcomeFilters(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	c, err := client.New(f.ts.URL, client.Options{Namespace: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	old := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	crit := 0.9
	if _, err := c.Remember(ctx, []mnemo.NewRecord{{Text: "an old fact", At: &old}, {Text: "a new fact", Criticality: &crit}}, mnemo.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	recs, err := c.List(ctx, mnemo.ListOptions{Filter: mnemo.Filter{Since: &since}})
	if err != nil || len(recs) != 1 || recs[0].Text != "a new fact" {
		t.Fatalf("since: %v %v", recs, err)
	}
	recs, err = c.List(ctx, mnemo.ListOptions{Filter: mnemo.Filter{MinCriticality: 0.5}})
	if err != nil || len(recs) != 1 || recs[0].Text != "a new fact" {
		t.Fatalf("criticality: %v %v", recs, err)
	}
	if _, err := c.List(ctx, mnemo.ListOptions{Filter: mnemo.Filter{Outcome: "maybe"}}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Fatalf("bad outcome: %v", err)
	}
}
