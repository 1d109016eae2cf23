package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

func TestCorrectionRoutes(t *testing.T) {
	f := newFixture(t, nil)
	admin := f.key(t, mnemo.RoleAdmin, 0, "ops")
	reader := f.key(t, mnemo.RoleRead, 0, "ops")
	st, _, b := f.do(t, call{method: "POST", path: "/v1/records", key: admin, body: `{"text":"Pass briefs state the backup-link status"}`})
	if st != 201 {
		t.Fatalf("remember: %d %s", st, b)
	}
	fact := decode[mnemo.Record](t, b)
	st, _, b = f.do(t, call{method: "POST", path: "/v1/digest", key: admin, body: `{"task_description":"plan tonight's pass","token_budget":500}`})
	d := decode[mnemo.Digest](t, b)
	if st != 200 || d.RetrievalID == "" {
		t.Fatalf("digest: %d retrieval_id %q", st, d.RetrievalID)
	}
	if err := f.svc.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	body := `{"kind":"correction","text":"brief lacked the backup link","provenance":["record:` + fact.ID + `"],` +
		`"correction":{"category":"pass-planning","outcome":"modified","summary":"backup link missing","retrieval_id":"` + d.RetrievalID + `","missing_context":true}}`
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/records", key: admin, body: body}); st != 201 {
		t.Fatalf("correction: %d %s", st, b)
	}

	st, _, b = f.do(t, call{method: "GET", path: "/v1/corrections?by=day", key: reader})
	if st != 200 {
		t.Fatalf("report: %d %s", st, b)
	}
	rep := decode[mnemo.CorrectionReport](t, b)
	if rep.Namespace != "ops" || rep.Bucket != "day" || rep.Totals.Retrievals != 1 || rep.Totals.Corrections != 1 ||
		rep.Totals.MissingContext != 1 || rep.Totals.Linked != 1 || rep.Totals.MissingPer100 != 100 {
		t.Fatalf("report %+v", rep.Totals)
	}

	st, hdr, b := f.do(t, call{method: "GET", path: "/v1/corrections/triples", key: admin})
	if st != 200 || hdr.Get("Mnemo-Triple-Count") != "1" || hdr.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("triples: %d %v %s", st, hdr, b)
	}
	var tr mnemo.CorrectionTriple
	if err := json.Unmarshal(b, &tr); err != nil || tr.Query != "plan tonight's pass" || len(tr.Missed) != 1 || tr.Missed[0] != fact.ID {
		t.Fatalf("triple %s (%v)", b, err)
	}
	if st, _, b := f.do(t, call{method: "GET", path: "/v1/corrections/triples", key: reader}); st != 403 || errCode(t, b) != mnemo.EFORBIDDEN {
		t.Fatalf("triples with a read key: %d %s", st, b)
	}
	for _, q := range []string{"?by=fortnight", "?since=yesterday", "?colour=red", "?since=2026-11-02&until=2026-11-01"} {
		if st, _, b := f.do(t, call{method: "GET", path: "/v1/corrections" + q, key: reader}); st != 400 || errCode(t, b) != mnemo.EINVALID {
			t.Errorf("%s: %d %s", q, st, b)
		}
	}
	if st, _, b := f.do(t, call{method: "GET", path: "/v1/corrections?since=2026-01-01&by=month", key: reader}); st != 200 || !strings.Contains(string(b), `"bucket":"month"`) {
		t.Errorf("since as a date: %d %s", st, b)
	}
}

func TestExpireRoute(t *testing.T) {
	f := newFixture(t, nil)
	admin := f.key(t, mnemo.RoleAdmin, 0, "ops")
	writer := f.key(t, mnemo.RoleWrite, 0, "ops")
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/records", key: writer, body: `{"text":"canteen menu trivia","importance":0.01}`}); st != 201 {
		t.Fatalf("remember: %d %s", st, b)
	}
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/expire", key: writer, body: `{}`}); st != 403 || errCode(t, b) != mnemo.EFORBIDDEN {
		t.Fatalf("expire with a write key: %d %s", st, b)
	}
	st, _, b := f.do(t, call{method: "POST", path: "/v1/expire", key: admin, body: `{"dry_run":true,"idle_days":1}`})
	if st != 200 || !strings.Contains(string(b), `"checked":1`) || !strings.Contains(string(b), `"archived":[]`) {
		t.Fatalf("dry run: %d %s", st, b)
	}
	for _, body := range []string{`{"idle_days":-1}`, `{"max_importance":3}`, `{"idle":5}`, `{"idle_days":0.5}`} {
		if st, _, b := f.do(t, call{method: "POST", path: "/v1/expire", key: admin, body: body}); st != 400 || errCode(t, b) != mnemo.EINVALID {
			t.Errorf("%s: %d %s", body, st, b)
		}
	}
}

func TestPurgeRoute(t *testing.T) {
	f := newFixture(t, nil)
	admin := f.key(t, mnemo.RoleAdmin, 0, "ops")
	writer := f.key(t, mnemo.RoleWrite, 0, "ops")
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/purge", key: writer, body: `{"older_than_days":30}`}); st != 403 || errCode(t, b) != mnemo.EFORBIDDEN {
		t.Fatalf("purge with a write key: %d %s", st, b)
	}
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/purge", key: admin, body: `{"older_than_days":30}`}); st != 200 || string(b) != "{\"purged\":0}\n" {
		t.Fatalf("purge: %d %q", st, b)
	}
	for _, body := range []string{`{}`, `{"older_than_days":0.5}`, `{"older_than_days":"30"}`, `{"days":30}`} {
		if st, _, b := f.do(t, call{method: "POST", path: "/v1/purge", key: admin, body: body}); st != 400 || errCode(t, b) != mnemo.EINVALID {
			t.Errorf("%s: %d %s", body, st, b)
		}
	}
}

func TestHandoffRoute(t *testing.T) {
	f := newFixture(t, nil)
	body := `{"kind":"correction","text":"brief lacked the backup link","provenance":["operator:kim"],` +
		`"correction":{"category":"pass-planning","outcome":"modified","summary":"backup link missing","missing_context":true}}`
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/records", body: body}); st != 201 {
		t.Fatalf("correction: %d %s", st, b)
	}
	st, _, b := f.do(t, call{method: "POST", path: "/v1/handoff", body: `{"from":"kim","budget":300}`})
	if st != 200 {
		t.Fatalf("handoff: %d %s", st, b)
	}
	var h struct {
		Markdown   string `json:"markdown"`
		UsedTokens int    `json:"used_tokens"`
		Budget     int    `json:"budget"`
	}
	if err := json.Unmarshal(b, &h); err != nil || !strings.Contains(h.Markdown, "backup link missing") || h.Budget != 300 || h.UsedTokens > 300 {
		t.Fatalf("handoff %s (%v)", b, err)
	}
	for _, body := range []string{`{"budget":-5}`, `{"from":"a\nb"}`, `{"since":"yesterday"}`, `{"operator":"kim"}`} {
		if st, _, b := f.do(t, call{method: "POST", path: "/v1/handoff", body: body}); st != 400 || errCode(t, b) != mnemo.EINVALID {
			t.Errorf("%s: %d %s", body, st, b)
		}
	}
}

func TestTuneRoutes(t *testing.T) {
	f := newFixture(t, nil)
	admin := f.key(t, mnemo.RoleAdmin, 0, "ops")
	reader := f.key(t, mnemo.RoleRead, 0, "ops")
	st, _, b := f.do(t, call{method: "POST", path: "/v1/tune", key: admin, body: `{"dry_run":true}`})
	if st != 200 || !strings.Contains(string(b), `"accepted":false`) || !strings.Contains(string(b), "not enough validation data") {
		t.Fatalf("tune: %d %s", st, b)
	}
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/tune", key: reader, body: `{}`}); st != 403 || errCode(t, b) != mnemo.EFORBIDDEN {
		t.Fatalf("tune with a read key: %d %s", st, b)
	}
	if st, _, b := f.do(t, call{method: "GET", path: "/v1/tune", key: reader}); st != 200 || !strings.Contains(string(b), `"active":0`) {
		t.Fatalf("tuning: %d %s", st, b)
	}
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/tune/rollback", key: admin, body: `{"version":0}`}); st != 200 || !strings.Contains(string(b), `"action":"rollback"`) {
		t.Fatalf("rollback to 0: %d %s", st, b)
	}
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/tune/rollback", key: admin, body: `{"version":3}`}); st != 404 || errCode(t, b) != mnemo.ENOTFOUND {
		t.Fatalf("rollback to a missing version: %d %s", st, b)
	}
	for _, body := range []string{`{}`, `{"version":-1}`, `{"version":"1"}`} {
		if st, _, b := f.do(t, call{method: "POST", path: "/v1/tune/rollback", key: admin, body: body}); st != 400 || errCode(t, b) != mnemo.EINVALID {
			t.Errorf("rollback %s: %d %s", body, st, b)
		}
	}
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/tune/rollback", key: reader, body: `{"version":0}`}); st != 403 {
		t.Errorf("rollback with a read key: %d %s", st, b)
	}
}

func TestEpisodeRoute(t *testing.T) {
	f := newFixture(t, nil)
	body := `{"records":[{"text":"Anna: The Svalbard pass lost the uplink for four minutes.","thread":"shift-7"},` +
		`{"text":"Ben: Then we add the backup-link status to every pass brief.","thread":"shift-7"}]}`
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/records/batch", body: body}); st != 201 {
		t.Fatalf("batch: %d %s", st, b)
	}
	st, _, b := f.do(t, call{method: "POST", path: "/v1/episodes", body: `{"thread":"shift-7"}`})
	if st != 201 || !strings.Contains(string(b), `"kind":"episode"`) || !strings.Contains(string(b), "Episode of shift-7") {
		t.Fatalf("episode: %d %s", st, b)
	}
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/episodes", body: `{"thread":"shift-7"}`}); st != 200 || !strings.Contains(string(b), `"created":false`) {
		t.Fatalf("second episode: %d %s", st, b)
	}
	if st, _, b := f.do(t, call{method: "GET", path: "/v1/threads"}); st != 200 || !strings.Contains(string(b), `"name":"shift-7","records":2`) {
		t.Errorf("threads: %d %s", st, b)
	}
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/episodes", body: `{"thread":"none"}`}); st != 404 || errCode(t, b) != mnemo.ENOTFOUND {
		t.Errorf("unknown thread: %d %s", st, b)
	}
	for _, body := range []string{`{}`, `{"thread":"shift-7","budget":3}`, `{"thread":7}`} {
		if st, _, b := f.do(t, call{method: "POST", path: "/v1/episodes", body: body}); st != 400 || errCode(t, b) != mnemo.EINVALID {
			t.Errorf("%s: %d %s", body, st, b)
		}
	}
}
