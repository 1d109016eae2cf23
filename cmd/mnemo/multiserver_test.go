package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-dev/mnemo/internal/stats"
	"github.com/mnemo-dev/mnemo/postgres/pgtest"
)

// Two `mnemo serve` processes on one PostgreSQL database: what one does,
// the other shows within a second.

// serverPair is two real `mnemo serve` processes on one database.
type serverPair struct {
	db     string // the database URL
	admin  string // an admin key of namespace ops
	a, b   string // the servers' base URLs
	client *http.Client
}

// startPair creates a database on the server at base, an admin key, and
// starts two servers on it, the second with --index-memory (so that both
// ways of holding the index are exercised).
func startPair(t testing.TB, base string) *serverPair {
	t.Helper()
	db := pgtest.NewDatabase(t, base)
	p := &serverPair{db: db, client: &http.Client{Timeout: 10 * time.Second}}
	p.admin = strings.TrimSpace(runCLI(t, db, "keys", "create", "--namespaces", "ops", "--role", "admin"))
	p.a = startServe(t, db)
	p.b = startServe(t, db, "--index-memory", "1MiB")
	return p
}

// runCLI runs mnemo in-process against db and returns its output.
func runCLI(t testing.TB, db string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), append([]string{"--db", db}, args...), strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("mnemo %v: exit %d\n%s", args, code, errb.String())
	}
	return out.String()
}

// startServe starts `mnemo serve` on db on a free port and waits until it
// answers; it is killed when the test ends.
func startServe(t testing.TB, db string, extra ...string) string {
	t.Helper()
	base, _ := startServeProc(t, db, extra...)
	return base
}

// startServeProc is startServe that also returns the server's process.
func startServeProc(t testing.TB, db string, extra ...string) (string, *exec.Cmd) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	args := append([]string{"--db", db, "serve", "--addr", addr, "--log-level", "warn"}, extra...)
	cmd := exec.Command(mnemoBin, args...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("server %s log:\n%s", addr, logs.String())
		}
	})
	base := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base, cmd
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s not ready: %v\n%s", addr, err, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// do sends a request with key to namespace ops and returns the status and
// body.
func (p *serverPair) do(t testing.TB, method, url, key, body string) (int, string) {
	t.Helper()
	return request(t, p.client, method, url, key, "ops", body)
}

// request makes a JSON request with key as bearer and ns as namespace
// (body "" sends none) and returns its status and body.
func request(t testing.TB, c *http.Client, method, url, key, ns, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Mnemo-Namespace", ns)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// within polls cond until it holds and returns how long that took; it
// fails the test when it does not hold within limit.
func within(t testing.TB, what string, limit time.Duration, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > limit {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return time.Since(start)
}

// write stores a record through server url and returns its id.
func (p *serverPair) write(t testing.TB, url, text string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"text": text, "scope": "/zoo", "no_dedup": true})
	code, resp := p.do(t, "POST", url+"/v1/records", p.admin, string(body))
	var rec struct{ ID string }
	if code != http.StatusCreated || json.Unmarshal([]byte(resp), &rec) != nil || rec.ID == "" {
		t.Fatalf("POST /v1/records: %d %s", code, resp)
	}
	return rec.ID
}

// recalls reports whether a recall of query through url returns id.
func (p *serverPair) recalls(t testing.TB, url, query, id string) bool {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "k": 10})
	code, resp := p.do(t, "POST", url+"/v1/recall", p.admin, string(body))
	if code != http.StatusOK {
		t.Fatalf("POST /v1/recall: %d %s", code, resp)
	}
	return strings.Contains(resp, `"`+id+`"`)
}

// TestMultiServerPostgres: a record written through server A is found by
// a recall and a digest through server B; an edit, a forget and a purge
// through A show through B; a key revoked (by `mnemo keys revoke`, a third
// process) is refused by both; each within a second.
func TestMultiServerPostgres(t *testing.T) {
	base, stop, err := pgtest.Start()
	pgtest.SkipIf(t, err)
	t.Cleanup(stop)
	p := startPair(t, base)
	const second = time.Second

	id := p.write(t, p.a, "The quokka enclosure is cleaned at dawn by the night keeper")
	lag := within(t, "a write on A found by a recall on B", second, func() bool {
		return p.recalls(t, p.b, "quokka enclosure cleaning", id)
	})
	t.Logf("write on A -> recall on B: %v", lag)
	code, digest := p.do(t, "POST", p.b+"/v1/digest", p.admin, `{"task_description":"when is the quokka enclosure cleaned","token_budget":300}`)
	if code != http.StatusOK || !strings.Contains(digest, "quokka enclosure is cleaned at dawn") {
		t.Fatalf("digest on B: %d %s", code, digest)
	}

	code, resp := p.do(t, "PATCH", p.a+"/v1/records/"+id, p.admin, `{"text":"The quokka enclosure is cleaned at dusk by the evening keeper"}`)
	if code != http.StatusOK {
		t.Fatalf("PATCH on A: %d %s", code, resp)
	}
	within(t, "an edit on A shown by B", second, func() bool {
		_, got := p.do(t, "GET", p.b+"/v1/records/"+id, p.admin, "")
		return strings.Contains(got, "at dusk") && p.recalls(t, p.b, "evening keeper dusk", id)
	})
	_, digest = p.do(t, "POST", p.b+"/v1/digest", p.admin, `{"task_description":"when is the quokka enclosure cleaned","token_budget":300}`)
	if !strings.Contains(digest, "at dusk") || strings.Contains(digest, "at dawn") {
		t.Errorf("digest on B after the edit:\n%s", digest)
	}

	if code, resp := p.do(t, "DELETE", p.a+"/v1/records/"+id, p.admin, ""); code != http.StatusOK {
		t.Fatalf("DELETE on A: %d %s", code, resp)
	}
	within(t, "a forget on A hiding the record on B", second, func() bool {
		return !p.recalls(t, p.b, "quokka enclosure cleaning dusk", id)
	})
	if _, got := p.do(t, "GET", p.b+"/v1/records/"+id, p.admin, ""); !strings.Contains(got, "deleted_at") {
		t.Errorf("GET on B of the forgotten record: %s", got)
	}

	// Purge takes records forgotten at least a day ago: date the forget
	// back (it changes no search field, so no stamp is needed).
	conn, err := pgx.Connect(context.Background(), p.db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), `UPDATE records SET deleted_at = deleted_at - $1 WHERE id = $2`,
		int64(3*24*time.Hour), id); err != nil {
		t.Fatal(err)
	}
	conn.Close(context.Background())
	code, resp = p.do(t, "POST", p.a+"/v1/purge", p.admin, `{"older_than_days":1}`)
	if code != http.StatusOK || !strings.Contains(resp, `"purged":1`) {
		t.Fatalf("purge on A: %d %s", code, resp)
	}
	within(t, "a purge on A removing the record on B", second, func() bool {
		code, _ := p.do(t, "GET", p.b+"/v1/records/"+id, p.admin, "")
		return code == http.StatusNotFound
	})

	var key struct{ ID, Key string }
	if err := json.Unmarshal([]byte(runCLI(t, p.db, "--json", "keys", "create", "--namespaces", "ops", "--role", "read")), &key); err != nil || key.Key == "" {
		t.Fatalf("keys create --json: %v", err)
	}
	for _, srv := range []string{p.a, p.b} {
		if code, resp := p.do(t, "GET", srv+"/v1/records", key.Key, ""); code != http.StatusOK {
			t.Fatalf("the new key on %s: %d %s", srv, code, resp)
		}
	}
	runCLI(t, p.db, "keys", "revoke", key.ID)
	for _, srv := range []string{p.a, p.b} {
		within(t, "a revoked key refused by "+srv, second, func() bool {
			code, _ := p.do(t, "GET", srv+"/v1/records", key.Key, "")
			return code == http.StatusUnauthorized
		})
	}
}

// BenchmarkVisibilityLag measures how long a record written through one
// server takes to be found by a recall through another on the same
// PostgreSQL database: after each write on A returns, B is asked until
// its answer holds the record. It reports the median, p99 and maximum
// over visibilityWrites writes (run once: -benchtime 1x).
func BenchmarkVisibilityLag(b *testing.B) {
	base, stop, err := pgtest.Start()
	pgtest.SkipIf(b, err)
	b.Cleanup(stop)
	p := startPair(b, base)
	// Some records for the searches to rank.
	for i := range 200 {
		p.write(b, p.a, fmt.Sprintf("background note %d about the aviary, the reptile house and feeding rounds", i))
	}
	const visibilityWrites = 200
	b.ResetTimer()
	var lags, recalls []time.Duration
	for range b.N {
		for i := range visibilityWrites {
			word := fmt.Sprintf("okapi%dx", i)
			id := p.write(b, p.a, "The "+word+" paddock gate is checked every evening")
			start := time.Now()
			for {
				t0 := time.Now()
				found := p.recalls(b, p.b, word+" paddock gate", id)
				recalls = append(recalls, time.Since(t0))
				if found {
					break
				}
				if time.Since(start) > 5*time.Second {
					b.Fatalf("write %d not visible on B after 5 s", i)
				}
			}
			lags = append(lags, time.Since(start))
		}
	}
	b.StopTimer()
	q := func(ds []time.Duration, f float64) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(stats.Percentile(s, f).Microseconds()) / 1000
	}
	b.ReportMetric(q(lags, 0.5), "p50-ms")
	b.ReportMetric(q(lags, 0.99), "p99-ms")
	b.ReportMetric(q(lags, 1), "max-ms")
	b.ReportMetric(float64(len(recalls))/float64(len(lags)), "recalls/write")
	b.ReportMetric(q(recalls, 0.5), "recall-p50-ms")
}
