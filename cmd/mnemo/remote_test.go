package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/server"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/tokenize"
)

// startServer serves db in-process, configured like `mnemo serve`.
func startServer(t *testing.T, db string) string {
	url, _ := startServerSvc(t, db)
	return url
}

// startServerSvc also returns the engine, so a test can wait for its
// background work.
func startServerSvc(t *testing.T, db string) (string, *engine.Service) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlite.Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenize.New("")
	if err != nil {
		t.Fatal(err)
	}
	svc, err := engine.New(ctx, engine.Config{Store: st, Embedder: embed.NewCached(embed.NewHash(0), 1024), Tokenizer: tok})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Service: svc, Keys: st})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { ts.Close(); svc.Close(); st.Close() })
	return ts.URL, svc
}

// TestRemoteModeMatchesLocal runs the record commands against a server and
// checks that they print what local mode prints for the same database.
func TestRemoteModeMatchesLocal(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	url, svc := startServerSvc(t, db)
	remote := func(args ...string) string {
		t.Helper()
		return mustCLI(t, db, "", append([]string{"--server", url}, args...)...)
	}
	out := remote("remember", "--scope", "/regulations/gdpr", "--importance", "0.9", "--ref", "doc:gdpr.pdf", "GDPR breach notification is due within 72 hours")
	if !strings.HasPrefix(out, "remembered ") {
		t.Fatalf("remember: %q", out)
	}
	id := strings.Fields(out)[1]
	remote("remember", "--kind", "decision", "--body", `{"title":"ledger","alternatives":[{"option":"MongoDB","reason":"no transactions"}]}`, "We chose PostgreSQL for the ledger")
	var w struct {
		ID     string `json:"id"`
		Merged bool   `json:"merged"`
	}
	if err := json.Unmarshal([]byte(remote("--json", "remember", "Operators prefer short answers")), &w); err != nil || w.ID == "" {
		t.Fatalf("remember --json: %v", err)
	}
	if out := remote("edit", id, "--importance", "0.95"); out != "updated "+id+"\n" {
		t.Fatalf("edit: %q", out)
	}
	if out := remote("forget", w.ID); !strings.HasPrefix(out, "forgot "+w.ID) {
		t.Fatalf("forget: %q", out)
	}
	if out := remote("restore", w.ID); out != "restored "+w.ID+"\n" {
		t.Fatalf("restore: %q", out)
	}
	if out := remote("recall", "breach notification"); !strings.Contains(out, id) {
		t.Fatalf("recall: %q", out)
	}
	if out := remote("digest", "--budget", "400", "handle a data breach"); !strings.Contains(out, "72 hours") {
		t.Fatalf("digest: %q", out)
	}
	// Access counters are bumped off the request path; let them land before
	// comparing local and remote output.
	if err := svc.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}

	for _, args := range [][]string{
		{"show", id}, {"--json", "show", id}, {"list"}, {"--json", "list"}, {"list", "--kind", "decision"},
		{"list", "--limit", "1"}, {"history", id}, {"--json", "history", w.ID}, {"export"},
	} {
		l, r := mustCLI(t, db, "", args...), remote(args...)
		if l != r {
			t.Errorf("mnemo %v differs:\nlocal:\n%s\nremote:\n%s", args, l, r)
		}
	}

	// Import through the server into another namespace of a fresh database.
	export := filepath.Join(t.TempDir(), "x.jsonl")
	remote("export", export)
	db2 := filepath.Join(t.TempDir(), "m2.db")
	url2 := startServer(t, db2)
	out, errs, code := cli(t, db2, "", "--server", url2, "--namespace", "copy", "import", export)
	if code != 0 || out != "imported 3 records into copy (0 already present)\n" {
		t.Fatalf("import: %d %q %q", code, out, errs)
	}
	// The correction signal: a correction names the digest it followed.
	var d struct {
		RetrievalID string `json:"retrieval_id"`
	}
	if err := json.Unmarshal([]byte(remote("--json", "digest", "--budget", "400", "reply to a data breach")), &d); err != nil || d.RetrievalID == "" {
		t.Fatalf("digest --json has no retrieval_id: %v", err)
	}
	remote("remember", "--kind", "correction", "--ref", "record:"+id, "--body",
		`{"category":"gdpr","outcome":"modified","summary":"missed the 72-hour rule","retrieval_id":"`+d.RetrievalID+`","missing_context":true}`,
		"the breach reply lacked the notification deadline")
	if err := svc.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	window := []string{"--since", "2026-01-01", "--until", "2031-01-01", "--by", "month"}
	for _, args := range [][]string{
		append([]string{"corrections"}, window...), append([]string{"--json", "corrections"}, window...),
		append([]string{"corrections", "--triples"}, window...),
	} {
		l, r := mustCLI(t, db, "", args...), remote(args...)
		if l != r {
			t.Errorf("mnemo %v differs:\nlocal:\n%s\nremote:\n%s", args, l, r)
		}
	}
	if out := remote(append([]string{"corrections"}, window...)...); !strings.Contains(out, "1 caused by missing context") || !strings.Contains(out, "1 linked") {
		t.Errorf("corrections:\n%s", out)
	}
	if out := remote(append([]string{"corrections", "--triples"}, window...)...); !strings.Contains(out, `"missed":["`+id+`"]`) || !strings.Contains(out, `"query":"reply to a data breach"`) {
		t.Errorf("triples:\n%s", out)
	}
	for _, args := range [][]string{{"expire", "--dry-run"}, {"--json", "expire", "--dry-run", "--idle", "1d", "--importance", "0.5"},
		{"purge", "--older-than", "365d"}, {"--json", "purge", "--older-than", "30"},
		{"tune", "--dry-run"}, {"tune", "history"}, {"tune", "rollback", "0"}, {"threads"}, {"--json", "threads"}} {
		l, r := mustCLI(t, db, "", args...), remote(args...)
		if l != r {
			t.Errorf("mnemo %v differs:\nlocal:\n%s\nremote:\n%s", args, l, r)
		}
	}
	// ADRs import over the server too (caller-chosen ids, then gets and updates).
	if out := remote("adr", "--scope", "/adr", "../../internal/adr/testdata/decisions"); !strings.HasPrefix(out, "ADRs into default: 3 added") {
		t.Errorf("adr over the server:\n%s", out)
	}
	if out := remote("adr", "../../internal/adr/testdata/decisions"); !strings.HasPrefix(out, "ADRs into default: 0 added, 0 updated, 3 unchanged") {
		t.Errorf("adr again over the server:\n%s", out)
	}
	// The handoff names the time it was made, so local and remote differ
	// there; both must carry the correction and the decision.
	for _, out := range []string{mustCLI(t, db, "", "handoff", "--since", "2026-01-01"), remote("handoff", "--since", "2026-01-01")} {
		if !strings.Contains(out, "- gdpr: 1 correction, 1 from missing context") || !strings.Contains(out, "rejected: MongoDB (no transactions)") {
			t.Errorf("handoff:\n%s", out)
		}
	}
	if _, errs, code := cli(t, db, "", "--server", url, "corrections", "--by", "fortnight"); code != 1 || !strings.Contains(errs, "fortnight") {
		t.Errorf("bad bucket: %d %q", code, errs)
	}

	// Errors keep their message.
	_, errs, code = cli(t, db, "", "--server", url, "show", "nope")
	if code != 1 || !strings.Contains(errs, "nope") {
		t.Fatalf("show missing: %d %q", code, errs)
	}
	_, errs, code = cli(t, db, "", "--server", url, "reembed")
	if code != 2 {
		t.Fatalf("reembed over a server: %d %q", code, errs)
	}
}

func TestKeysAndAuthenticatedRemote(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	var created struct {
		ID         string   `json:"id"`
		Key        string   `json:"key"`
		Namespaces []string `json:"namespaces"`
		Role       string   `json:"role"`
		Clearance  int      `json:"clearance"`
	}
	out := mustCLI(t, db, "", "--json", "keys", "create", "--namespaces", "team-a,team-b", "--role", "write", "--clearance", "2", "--name", "ci")
	if err := json.Unmarshal([]byte(out), &created); err != nil || !strings.HasPrefix(created.Key, "mnemo_") || created.ID == "" ||
		len(created.Namespaces) != 2 || created.Role != "write" || created.Clearance != 2 {
		t.Fatalf("keys create --json: %v %s", err, out)
	}
	plain := strings.TrimSpace(mustCLI(t, db, "", "keys", "create", "--namespaces", "team-a", "--role", "read"))
	if !strings.HasPrefix(plain, "mnemo_") || strings.Contains(plain, "\n") {
		t.Fatalf("keys create prints the key alone: %q", plain)
	}
	list := mustCLI(t, db, "", "keys", "list")
	if !strings.Contains(list, created.ID) || !strings.Contains(list, "team-a,team-b") || strings.Contains(list, created.Key) {
		t.Fatalf("keys list: %s", list)
	}
	if _, errs, code := cli(t, db, "", "keys", "create", "--namespaces", "a", "--role", "owner"); code != 1 || !strings.Contains(errs, "unknown role") {
		t.Fatalf("bad role: %d %s", code, errs)
	}

	url := startServer(t, db)
	_, errs, code := cli(t, db, "", "--server", url, "list")
	if code != 1 || !strings.Contains(errs, "API key is required") {
		t.Fatalf("no key: %d %q", code, errs)
	}
	// --api-key with a namespace bound to the key.
	out = mustCLI(t, db, "", "--server", url, "--api-key", created.Key, "--namespace", "team-b", "remember", "Team B deploys on Fridays")
	if !strings.HasPrefix(out, "remembered") {
		t.Fatalf("remember with key: %q", out)
	}
	// MNEMO_API_KEY works too; namespace team-c is not bound.
	os.Setenv("MNEMO_API_KEY", created.Key)
	defer os.Unsetenv("MNEMO_API_KEY")
	_, errs, code = cli(t, db, "", "--server", url, "--namespace", "team-c", "list")
	if code != 1 || !strings.Contains(errs, "not bound") {
		t.Fatalf("unbound namespace: %d %q", code, errs)
	}
	if out := mustCLI(t, db, "", "--server", url, "--namespace", "team-b", "list"); !strings.Contains(out, "Fridays") {
		t.Fatalf("list team-b: %q", out)
	}
	if out := mustCLI(t, db, "", "keys", "revoke", created.ID); out != "revoked "+created.ID+"\n" {
		t.Fatalf("revoke: %q", out)
	}
	_, errs, code = cli(t, db, "", "--server", url, "--namespace", "team-b", "list")
	if code != 1 || !strings.Contains(errs, "revoked") {
		t.Fatalf("revoked key: %d %q", code, errs)
	}
}
