package console_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// TestCorrectInPlace edits, forgets and restores a record from the
// console on the keyless loopback server, and sees each change at once in
// search and in the digest.
func TestCorrectInPlace(t *testing.T) {
	f := newFixture(t)
	id := f.remember(t, "default", mnemo.NewRecord{Text: "GDPR breach notification is due within 72 hours", Scope: "/regulations/gdpr"})
	other := f.remember(t, "default", mnemo.NewRecord{Text: "Breach drills run every quarter"})
	b := f.browser(t)
	if st, _, body := b.get("/search?q=breach+deadline"); st != http.StatusOK || !strings.Contains(body, "72 hours") || !strings.Contains(body, "Passed the relevance floor") {
		t.Fatalf("search: %d\n%s", st, body)
	}
	if st, _, _ := b.post("/record/"+id, url.Values{"action": {"edit"}, "text": {"GDPR breach notification is due within 48 hours"},
		"importance": {"0.95"}, "criticality": {"0.8"}}); st != http.StatusSeeOther {
		t.Fatalf("edit: %d", st)
	}
	_, _, page := b.get("/record/" + id)
	for _, want := range []string{"48 hours", "<del>72</del><ins>48</ins>", "importance: <del>0.50</del> → <ins>0.95</ins>", "Saved"} {
		if !strings.Contains(page, want) {
			t.Errorf("record page lacks %q", want)
		}
	}
	if _, _, d := b.get("/digest?task=handle+a+data+breach&budget=500"); !strings.Contains(d, "48 hours") || strings.Contains(d, "72 hours") || !strings.Contains(d, "of 500 tokens") {
		t.Errorf("the digest does not carry the edit")
	}
	b.post("/record/"+id, url.Values{"action": {"forget"}})
	if _, _, s := b.get("/search?q=breach+notification"); strings.Contains(s, "48 hours") {
		t.Error("a forgotten record is still found")
	}
	if _, _, l := b.get("/records?all=1"); !strings.Contains(l, "forgotten") {
		t.Error("the listing of all records does not mark the forgotten one")
	}
	b.post("/record/"+id, url.Values{"action": {"restore"}})
	if _, _, s := b.get("/search?q=breach+notification"); !strings.Contains(s, "48 hours") {
		t.Error("a restored record is not found")
	}
	// Bulk forget asks first.
	st, _, confirm := b.post("/records/forget", url.Values{"id": {id, other}})
	if st != http.StatusOK || !strings.Contains(confirm, "Forget 2 records?") {
		t.Fatalf("bulk forget did not ask: %d", st)
	}
	if r, _ := f.svc.Get(mnemo.WithCallerIn(context.Background(), mnemo.Caller{Role: mnemo.RoleAdmin}, "default"), other); r.DeletedAt != nil {
		t.Fatal("forgotten before confirmation")
	}
	b.post("/records/forget", url.Values{"id": {id, other}, "confirm": {"yes"}})
	for _, x := range []string{id, other} {
		if r, _ := f.svc.Get(mnemo.WithCallerIn(context.Background(), mnemo.Caller{Role: mnemo.RoleAdmin}, "default"), x); r.DeletedAt == nil {
			t.Errorf("%s not forgotten", x)
		}
	}
}

// TestMarkRetrievalMissed marks a search as missing context from the
// console: the correction is the one the API would write, and the report
// and chart count it.
func TestMarkRetrievalMissed(t *testing.T) {
	f := newFixture(t)
	want := f.remember(t, "default", mnemo.NewRecord{Text: "The DPO is notified before legal"})
	f.remember(t, "default", mnemo.NewRecord{Text: "Breach notification is due within 72 hours"})
	b := f.browser(t)
	b.get("/search?q=breach+notification")
	if err := f.svc.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, _, log := b.get("/retrievals")
	ids := regexpAll(`href="/retrieval/([^"]+)"`, log)
	if len(ids) == 0 {
		t.Fatalf("no retrieval listed:\n%s", log)
	}
	if _, _, chart := b.get("/corrections?by=day"); strings.Contains(chart, `data-share="1.0000"`) {
		t.Fatal("chart shows a correction before any")
	}
	if _, _, page := b.get("/retrieval/" + ids[0] + "?find=DPO+notified"); !strings.Contains(page, want) {
		t.Fatal("the candidate search does not offer the record")
	}
	st, h, _ := b.post("/retrieval/"+ids[0], url.Values{"record": {want}, "category": {"escalation"}})
	if st != http.StatusSeeOther || h.Get("Location") != "/corrections" {
		t.Fatalf("mark missed: %d %s", st, h.Get("Location"))
	}
	_, _, rep := b.get("/corrections?by=day")
	if !strings.Contains(rep, `data-share="1.0000"`) || !strings.Contains(rep, "escalation") {
		t.Errorf("the chart or the report does not count the correction")
	}
	// The API reports the same correction.
	resp, err := http.Get(f.ts.URL + "/v1/corrections?by=day")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r mnemo.CorrectionReport
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	if r.Totals.MissingContext != 1 || r.Totals.Linked != 1 {
		t.Fatalf("API report: %+v", r.Totals)
	}
	// The triples download names the missed record.
	_, _, tr := b.get("/corrections/triples.jsonl")
	if !strings.Contains(tr, want) || !strings.Contains(tr, ids[0]) {
		t.Errorf("triples: %s", tr)
	}
}

// TestKeylessConsoleKeepsTheAPIGuards: without keys the console needs no
// sign-in, but a foreign Host and a cross-site post are refused.
func TestKeylessConsoleKeepsTheAPIGuards(t *testing.T) {
	f := newFixture(t)
	b := f.browser(t)
	if st, _, body := b.get("/records"); st != http.StatusOK || !strings.Contains(body, "local · admin") {
		t.Fatalf("keyless /records: %d", st)
	}
	req, _ := http.NewRequest("GET", f.ts.URL+"/records", nil)
	req.Host = "rebound.example"
	if st, _, _ := b.do(req); st != http.StatusForbidden {
		t.Errorf("foreign Host: %d", st)
	}
	id := f.remember(t, "default", mnemo.NewRecord{Text: "keep me"})
	req, _ = http.NewRequest("POST", f.ts.URL+"/record/"+id, strings.NewReader(url.Values{"action": {"forget"}, "csrf": {b.csrf}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example")
	if st, _, _ := b.do(req); st != http.StatusForbidden {
		t.Errorf("cross-site post: %d", st)
	}
	// A second browser (another session) cannot use the first one's token.
	b2 := f.browser(t)
	b2.get("/records")
	if st, _, _ := b2.post("/record/"+id, url.Values{"action": {"forget"}, "csrf": {"not-" + b.csrf}}); st != http.StatusForbidden {
		t.Errorf("foreign token: %d", st)
	}
	if r, _ := f.svc.Get(mnemo.WithCallerIn(context.Background(), mnemo.Caller{Role: mnemo.RoleAdmin}, "default"), id); r.DeletedAt != nil {
		t.Fatal("a refused post forgot the record")
	}
	// Unknown API routes stay JSON 404s, not console pages.
	resp, err := http.Get(f.ts.URL + "/v1/nothing")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/v1/nothing: %d", resp.StatusCode)
	}
}
