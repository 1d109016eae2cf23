package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/mnemo-dev/mnemo/postgres/pgtest"
)

// TestPostgres runs the CLI and `mnemo serve` against a real PostgreSQL
// server (MNEMO_TEST_POSTGRES, or a throwaway one from the local
// installation), skipped when none is available (a failure with
// MNEMO_REQUIRE_POSTGRES set). The URL carries a password: it must never
// appear in any output or log.
func TestPostgres(t *testing.T) {
	base, stop, err := pgtest.Start()
	pgtest.SkipIf(t, err)
	t.Cleanup(stop)
	pw := ""
	if u, err := url.Parse(base); err == nil {
		pw, _ = u.User.Password()
	}
	if pw == "" {
		t.Log("the server URL has no password: the password leak checks check nothing")
	}
	// transcript collects everything mnemo printed, for the leak check.
	var transcript strings.Builder
	t.Cleanup(func() {
		if pw != "" && strings.Contains(transcript.String(), pw) {
			t.Errorf("the database password appears in mnemo's output:\n%s", transcript.String())
		}
	})
	run := func(t *testing.T, db, stdin string, args ...string) (string, string, int) {
		t.Helper()
		out, errs, code := cli(t, db, stdin, args...)
		transcript.WriteString(out + errs)
		return out, errs, code
	}
	must := func(t *testing.T, db, stdin string, args ...string) string {
		t.Helper()
		out, errs, code := run(t, db, stdin, args...)
		if code != 0 {
			t.Fatalf("mnemo %v: exit %d\n%s", args, code, errs)
		}
		return out
	}

	t.Run("records", func(t *testing.T) {
		db := pgtest.NewDatabase(t, base)
		var rec struct {
			ID     string  `json:"id"`
			Layer  string  `json:"layer"`
			Tokens float64 `json:"tokens"`
		}
		out := must(t, db, "", "--json", "remember", "--kind", "decision", "--scope", "/cases/passes", "--importance", "0.8",
			"--ref", "issue:OPS-412", "--tag", "night", "--body", `{"title":"Route via Svalbard","alternatives":[{"option":"Wait","reason":"too slow"}]}`,
			"Night passes go through Svalbard")
		if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.ID == "" || rec.Layer != "workflow" || rec.Tokens <= 0 {
			t.Fatalf("remember --json: %v %s", err, out)
		}
		id := rec.ID
		must(t, db, "Svalbard uplink is limited to 150 W at night\n", "remember", "--scope", "/rules/safety", "-")

		var recall struct {
			Intent string           `json:"intent"`
			Hits   []map[string]any `json:"hits"`
		}
		if err := json.Unmarshal([]byte(must(t, db, "", "recall", "Svalbard night pass", "--json", "--k", "5")), &recall); err != nil {
			t.Fatal(err)
		}
		if recall.Intent == "" || len(recall.Hits) != 2 {
			t.Fatalf("recall --json: %+v", recall)
		}

		var d struct {
			Budget     int              `json:"budget"`
			UsedTokens int              `json:"used_tokens"`
			Entries    []map[string]any `json:"entries"`
		}
		if err := json.Unmarshal([]byte(must(t, db, "", "--json", "digest", "plan the Svalbard pass", "--budget", "300")), &d); err != nil {
			t.Fatal(err)
		}
		if d.Budget != 300 || d.UsedTokens > 300 || d.UsedTokens <= 0 || len(d.Entries) == 0 {
			t.Fatalf("digest --json: budget %d, used %d, %d entries", d.Budget, d.UsedTokens, len(d.Entries))
		}
		if md := must(t, db, "", "digest", "plan the Svalbard pass"); !strings.Contains(md, "rejected: Wait (too slow)") {
			t.Errorf("markdown digest lacks the rejected alternative:\n%s", md)
		}

		checkLifecycle(t, func(args ...string) string { return must(t, db, "", args...) }, id)

		// Export, then import into another namespace of a fresh database
		// (record ids are unique across namespaces of one database).
		export := must(t, db, "", "export")
		if n := strings.Count(export, "\n"); n != 2 || !strings.Contains(export, "Route via Svalbard") {
			t.Fatalf("export: %d lines\n%s", n, export)
		}
		db2 := pgtest.NewDatabase(t, base)
		if out := must(t, db2, export, "--namespace", "copy", "import", "-"); out != "imported 2 records into copy (0 already present)\n" {
			t.Fatalf("import: %q", out)
		}
		if out := must(t, db2, export, "--namespace", "copy", "import", "-"); out != "imported 0 records into copy (2 already present)\n" {
			t.Fatalf("import again: %q", out)
		}
		if list := must(t, db2, "", "--namespace", "copy", "list"); !strings.Contains(list, id) {
			t.Errorf("imported list lacks %s:\n%s", id, list)
		}
		if list := must(t, db2, "", "list"); strings.Contains(list, id) {
			t.Errorf("the default namespace of the copy has the imported record:\n%s", list)
		}
		if md := must(t, db2, "", "--namespace", "copy", "digest", "plan the Svalbard pass"); !strings.Contains(md, "rejected: Wait (too slow)") {
			t.Errorf("digest of the imported copy:\n%s", md)
		}
	})

	t.Run("keys", func(t *testing.T) {
		db := pgtest.NewDatabase(t, base)
		var created struct {
			ID         string   `json:"id"`
			Key        string   `json:"key"`
			Namespaces []string `json:"namespaces"`
			Role       string   `json:"role"`
		}
		out := must(t, db, "", "--json", "keys", "create", "--namespaces", "team-a,team-b", "--role", "write", "--name", "ci")
		if err := json.Unmarshal([]byte(out), &created); err != nil || !strings.HasPrefix(created.Key, "mnemo_") ||
			len(created.Namespaces) != 2 || created.Role != "write" {
			t.Fatalf("keys create --json: %v %s", err, out)
		}
		list := must(t, db, "", "keys", "list")
		if !strings.Contains(list, created.ID) || !strings.Contains(list, "team-a,team-b") || strings.Contains(list, created.Key) {
			t.Fatalf("keys list: %s", list)
		}
		if out := must(t, db, "", "keys", "revoke", created.ID); out != "revoked "+created.ID+"\n" {
			t.Fatalf("revoke: %q", out)
		}
		if _, errs, code := run(t, db, "", "keys", "revoke", "nope"); code == 0 {
			t.Errorf("revoke of an unknown key: exit 0, %q", errs)
		}
	})

	t.Run("serve", func(t *testing.T) {
		db := pgtest.NewDatabase(t, base)
		key := strings.TrimSpace(must(t, db, "", "keys", "create", "--namespaces", "ops", "--role", "write"))
		addr := freeAddr(t)
		cmd := exec.Command(mnemoBin, "--db", db, "serve", "--addr", addr, "--log-level", "info")
		var logs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := false
		defer func() {
			if !exited {
				cmd.Process.Kill()
				cmd.Wait()
			}
			transcript.WriteString(logs.String())
		}()
		baseURL := "http://" + addr
		waitReady(t, baseURL)

		post := func(path, body string) (int, []byte) {
			t.Helper()
			code, b := request(t, http.DefaultClient, "POST", baseURL+path, key, "ops", body)
			return code, []byte(b)
		}
		code, b := post("/v1/records", `{"text":"The ops runbook lives in the wiki under /ops/runbook","scope":"/ops/docs","importance":0.9}`)
		var rec struct{ ID string }
		if code != http.StatusCreated || json.Unmarshal(b, &rec) != nil || rec.ID == "" {
			t.Fatalf("POST /v1/records: %d %s", code, b)
		}
		code, b = post("/v1/records", `{"kind":"decision","text":"We page the on-call engineer by phone","decision":{"title":"paging","alternatives":[{"option":"email","reason":"too slow"}]}}`)
		if code != http.StatusCreated {
			t.Fatalf("POST /v1/records (decision): %d %s", code, b)
		}
		code, b = post("/v1/digest", `{"task_description":"where is the ops runbook","token_budget":200}`)
		var d struct {
			Budget     int    `json:"budget"`
			UsedTokens int    `json:"used_tokens"`
			Markdown   string `json:"markdown"`
		}
		if code != http.StatusOK || json.Unmarshal(b, &d) != nil {
			t.Fatalf("POST /v1/digest: %d %s", code, b)
		}
		if d.Budget != 200 || d.UsedTokens > 200 || !strings.Contains(d.Markdown, "/ops/runbook") {
			t.Errorf("digest: budget %d, used %d\n%s", d.Budget, d.UsedTokens, d.Markdown)
		}
		// Without the key: refused.
		resp, err := http.Post(baseURL+"/v1/digest", "application/json", strings.NewReader(`{"task_description":"x"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("digest without a key: %d", resp.StatusCode)
		}
		// What the server wrote is in PostgreSQL.
		if list := must(t, db, "", "--namespace", "ops", "list"); !strings.Contains(list, rec.ID) {
			t.Errorf("list after POST /v1/records lacks %s:\n%s", rec.ID, list)
		}

		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		exited = true
		if err != nil {
			t.Fatalf("serve after SIGTERM: %v\n%s", err, logs.String())
		}
		if !strings.Contains(logs.String(), "stopped") {
			t.Errorf("serve log lacks the shutdown:\n%s", logs.String())
		}
		if pw != "" && !strings.Contains(logs.String(), "xxxxx") {
			t.Errorf("serve log does not show the redacted database URL:\n%s", logs.String())
		}
	})

	t.Run("errors", func(t *testing.T) {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		secret := pw
		if secret == "" {
			secret = "pgtest-secret"
		}
		for _, bad := range []string{
			fmt.Sprintf("postgres://postgres:%s@127.0.0.1:1/nowhere?sslmode=disable&connect_timeout=5", secret), // nothing listens
			fmt.Sprintf("postgres://postgres:%s@%s/no_such_database?sslmode=disable", secret, u.Host),
			fmt.Sprintf("postgresql://postgres:%s@127.0.0.1:notaport/db", secret),
		} {
			out, errs, code := run(t, bad, "", "list")
			if code == 0 || out != "" || !strings.HasPrefix(errs, "mnemo") {
				t.Errorf("list on %s: exit %d, stdout %q, stderr %q", strings.ReplaceAll(bad, secret, "***"), code, out, errs)
			}
			if strings.Contains(errs, secret) {
				t.Errorf("the error shows the password: %s", strings.ReplaceAll(errs, secret, "***"))
			}
		}
	})
}
