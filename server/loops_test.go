package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/loops"
	"github.com/mnemo-dev/mnemo/server"
	"github.com/mnemo-dev/mnemo/tuning"
)

// namedKey creates an API key with a name and returns its secret.
func (f *fixture) namedKey(t testing.TB, name string, role mnemo.Role, nss ...string) string {
	t.Helper()
	id, secret, hash := mnemo.NewAPIKeySecret()
	if err := f.store.CreateKey(context.Background(), &mnemo.APIKey{ID: id, Name: name, Hash: hash, Namespaces: nss,
		Role: role, Clearance: mnemo.MaxAccessLevel}); err != nil {
		t.Fatal(err)
	}
	return secret
}

// seedUnits writes 160 records of ten units, each unit's records sharing
// a few made-up words, so that probes need meaning (semantic and keyword)
// to find their record.
func seedUnits(t *testing.T, f *fixture, key, ns string) {
	t.Helper()
	r := rand.New(rand.NewSource(1))
	syl := strings.Fields("ka lo mi ru ze tan vor pel dim sho gra nu bex fi tul om")
	mk := func() string { return syl[r.Intn(16)] + syl[r.Intn(16)] + syl[r.Intn(16)] }
	var recs []map[string]any
	for i := range 10 {
		shared := []string{mk(), mk(), mk(), mk()}
		for range 16 {
			recs = append(recs, map[string]any{"text": fmt.Sprintf("unit%c %s %s %s %s %s checklist", 'a'+i, shared[r.Intn(4)], shared[r.Intn(4)], mk(), mk(), mk()),
				"scope": fmt.Sprintf("/ops/unit%c", 'a'+i), "importance": r.Float64()})
		}
	}
	b, _ := json.Marshal(map[string]any{"records": recs, "no_dedup": true})
	if st, _, body := f.do(t, call{method: "POST", path: "/v1/records/batch", key: key, ns: ns, body: string(b)}); st != 201 {
		t.Fatalf("seed %s: %d %s", ns, st, body)
	}
}

// brokenConfig returns the active document of ns with weights that ignore
// meaning.
func brokenConfig(t *testing.T, f *fixture, key, ns string) mnemo.ScoringConfig {
	t.Helper()
	st, _, b := f.do(t, call{method: "GET", path: "/v1/config", key: key, ns: ns})
	if st != 200 {
		t.Fatalf("get config: %d %s", st, b)
	}
	cfg := decode[tuning.ConfigVersion](t, b).Config
	for i := range cfg.Weights {
		cfg.Weights[i] = mnemo.ConfigWeights{Recency: 0.5, Importance: 0.3, Confidence: 0.1, Frequency: 0.1}
	}
	return cfg
}

// The configuration and loop routes: who may read and change what, in
// which namespace; refused input changes nothing; a broken configuration
// applied by force is seen by the warm loop and repaired by the cold loop
// through a manual approval; rollback.
func TestConfigAndLoopRoutes(t *testing.T) {
	f := newFixture(t, nil)
	adminA := f.namedKey(t, "ops-a", mnemo.RoleAdmin, "a")
	readA := f.namedKey(t, "reader-a", mnemo.RoleRead, "a")
	writeA := f.namedKey(t, "writer-a", mnemo.RoleWrite, "a")
	adminB := f.namedKey(t, "ops-b", mnemo.RoleAdmin, "b")
	seedUnits(t, f, adminA, "a")
	seedUnits(t, f, adminB, "b")

	history := func(key, ns string) server.ConfigHistory {
		t.Helper()
		st, _, b := f.do(t, call{method: "GET", path: "/v1/config/history", key: key, ns: ns})
		if st != 200 {
			t.Fatalf("history %s: %d %s", ns, st, b)
		}
		return decode[server.ConfigHistory](t, b)
	}
	if h := history(readA, "a"); h.Active != 0 || len(h.Versions) != 1 || h.Versions[0].Version != 0 || h.Namespace != "a" {
		t.Fatalf("fresh history: %+v", h)
	}

	broken := brokenConfig(t, f, readA, "a")
	doc, _ := json.Marshal(map[string]any{"config": broken, "reason": "ignore meaning"})
	forced, _ := json.Marshal(map[string]any{"config": broken, "reason": "ignore meaning", "force": true})

	// Refused: roles, namespaces, bad input. None changes a version.
	for _, c := range []struct {
		name string
		call call
		st   int
		code string
		msg  string
	}{
		{"read key applies", call{method: "POST", path: "/v1/config", key: readA, ns: "a", body: string(forced)}, 403, mnemo.EFORBIDDEN, "admin"},
		{"write key applies", call{method: "POST", path: "/v1/config", key: writeA, ns: "a", body: string(forced)}, 403, mnemo.EFORBIDDEN, "admin"},
		{"a's key applies in b", call{method: "POST", path: "/v1/config", key: adminA, ns: "b", body: string(forced)}, 403, mnemo.EFORBIDDEN, ""},
		{"a's key reads b", call{method: "GET", path: "/v1/config", key: adminA, ns: "b"}, 403, mnemo.EFORBIDDEN, ""},
		{"a's key reads b's history", call{method: "GET", path: "/v1/config/history", key: readA, ns: "b"}, 403, mnemo.EFORBIDDEN, ""},
		{"a's key rolls b back", call{method: "POST", path: "/v1/config/rollback", key: adminA, ns: "b", body: `{"version":0}`}, 403, mnemo.EFORBIDDEN, ""},
		{"read key rolls back", call{method: "POST", path: "/v1/config/rollback", key: readA, ns: "a", body: `{"version":0}`}, 403, mnemo.EFORBIDDEN, ""},
		{"rule step", call{method: "POST", path: "/v1/config", key: adminA, ns: "a", body: string(doc)}, 400, mnemo.EINVALID, "rule step"},
		{"malformed", call{method: "POST", path: "/v1/config", key: adminA, ns: "a", body: `{"config":`}, 400, mnemo.EINVALID, ""},
		{"unknown field", call{method: "POST", path: "/v1/config", key: adminA, ns: "a", body: `{"config":{},"forse":true}`}, 400, mnemo.EINVALID, "forse"},
		{"unknown document field", call{method: "POST", path: "/v1/config", key: adminA, ns: "a", body: `{"config":{"wieghts":{}},"force":true}`}, 400, mnemo.EINVALID, "wieghts"},
		{"no config", call{method: "POST", path: "/v1/config", key: adminA, ns: "a", body: `{"force":true}`}, 400, mnemo.EINVALID, "config is required"},
		{"intent missing", call{method: "POST", path: "/v1/config", key: adminA, ns: "a", body: `{"config":{"weights":{"general":{"semantic":1,"keyword":0,"recency":0,"importance":0,"confidence":0,"frequency":0}}},"force":true}`}, 400, mnemo.EINVALID, "missing"},
		{"weights as a string", call{method: "POST", path: "/v1/config", key: adminA, ns: "a", body: `{"config":{"weights":"x"}}`}, 400, mnemo.EINVALID, "wrong type"},
		{"weights sum 1.7", call{method: "POST", path: "/v1/config", key: adminA, ns: "a", body: sumTo(t, broken, 1.7)}, 400, mnemo.EINVALID, "rule weights_sum"},
		{"no content type", call{method: "POST", path: "/v1/config", key: adminA, ns: "a", body: string(forced), ctype: "text/plain"}, 415, mnemo.EMEDIATYPE, ""},
		{"bad version", call{method: "GET", path: "/v1/config?version=x", key: readA, ns: "a"}, 400, mnemo.EINVALID, "version"},
		{"unknown parameter", call{method: "GET", path: "/v1/config?v=1", key: readA, ns: "a"}, 400, mnemo.EINVALID, "unknown query parameter"},
		{"unknown version", call{method: "GET", path: "/v1/config?version=7", key: readA, ns: "a"}, 404, mnemo.ENOTFOUND, ""},
		{"rollback without version", call{method: "POST", path: "/v1/config/rollback", key: adminA, ns: "a", body: `{}`}, 400, mnemo.EINVALID, "version is required"},
		{"rollback to a missing version", call{method: "POST", path: "/v1/config/rollback", key: adminA, ns: "a", body: `{"version":9}`}, 404, mnemo.ENOTFOUND, ""},
		{"read key runs warm", call{method: "POST", path: "/v1/loops/warm", key: readA, ns: "a", body: `{}`}, 403, mnemo.EFORBIDDEN, "admin"},
		{"write key runs cold", call{method: "POST", path: "/v1/loops/cold", key: writeA, ns: "a", body: `{}`}, 403, mnemo.EFORBIDDEN, "admin"},
		{"a's key runs b's loop", call{method: "POST", path: "/v1/loops/warm", key: adminA, ns: "b", body: `{}`}, 403, mnemo.EFORBIDDEN, ""},
		{"a's key reads b's status", call{method: "GET", path: "/v1/loops/status", key: readA, ns: "b"}, 403, mnemo.EFORBIDDEN, ""},
		{"bad approval", call{method: "POST", path: "/v1/loops/cold", key: adminA, ns: "a", body: `{"approval":"later"}`}, 400, mnemo.EINVALID, "approval"},
		{"bad threshold", call{method: "POST", path: "/v1/loops/cold", key: adminA, ns: "a", body: `{"threshold":2}`}, 400, mnemo.EINVALID, "threshold"},
		{"bad records", call{method: "POST", path: "/v1/loops/warm", key: adminA, ns: "a", body: `{"records":-1}`}, 400, mnemo.EINVALID, "records"},
		{"unknown warm field", call{method: "POST", path: "/v1/loops/warm", key: adminA, ns: "a", body: `{"record":5}`}, 400, mnemo.EINVALID, "record"},
		{"approve unknown", call{method: "POST", path: "/v1/loops/pending/nope/approve", key: adminA, ns: "a", body: `{}`}, 404, mnemo.ENOTFOUND, ""},
		{"reject unknown", call{method: "POST", path: "/v1/loops/pending/nope/reject", key: adminA, ns: "a", body: `{}`}, 404, mnemo.ENOTFOUND, ""},
	} {
		st, _, b := f.do(t, c.call)
		if st != c.st || errCode(t, b) != c.code || !strings.Contains(string(b), c.msg) {
			t.Errorf("%s: %d %s (want %d %s %q)", c.name, st, b, c.st, c.code, c.msg)
		}
	}
	for _, ns := range []struct{ key, ns string }{{readA, "a"}, {adminB, "b"}} {
		if h := history(ns.key, ns.ns); h.Active != 0 || len(h.Versions) != 1 || len(h.Events) != 0 {
			t.Fatalf("refused calls changed %s: %+v", ns.ns, h)
		}
	}
	if st, _, b := f.do(t, call{method: "GET", path: "/v1/loops/status", key: readA, ns: "a"}); st != 200 ||
		decode[loops.Status](t, b).LastWarm != nil {
		t.Fatalf("refused loop calls ran a loop: %d %s", st, b)
	}

	// Applied by force, versioned with the key's name and the reason.
	st, _, b := f.do(t, call{method: "POST", path: "/v1/config", key: adminA, ns: "a", body: string(forced)})
	if st != 201 {
		t.Fatalf("apply forced: %d %s", st, b)
	}
	cv := decode[tuning.ConfigVersion](t, b)
	if cv.Version != 1 || !cv.Active || cv.Author != "ops-a" || !strings.Contains(cv.Reason, "ignore meaning") ||
		!strings.Contains(cv.Reason, "forced") || cv.Evaluation["validation_after"] >= cv.Evaluation["validation_before"] {
		t.Fatalf("applied: %+v", cv)
	}
	if st, _, b := f.do(t, call{method: "GET", path: "/v1/config", key: adminB, ns: "b"}); st != 200 || decode[tuning.ConfigVersion](t, b).Version != 0 {
		t.Fatalf("b's configuration moved: %d %s", st, b)
	}

	// The warm loop sees the drop; the cold loop proposes a patch that waits.
	st, _, b = f.do(t, call{method: "POST", path: "/v1/loops/warm", key: adminA, ns: "a", body: `{"no_adjust":true}`})
	warm := decode[loops.WarmRun](t, b)
	if st != 200 || warm.Namespace != "a" || warm.Probes < 40 || warm.Validation >= 0.8 || len(warm.Adjusted) != 0 {
		t.Fatalf("warm: %d %s", st, b)
	}
	st, _, b = f.do(t, call{method: "POST", path: "/v1/loops/cold", key: adminA, ns: "a", body: `{"approval":"manual"}`})
	cold := decode[loops.ColdRun](t, b)
	if st != 200 || !cold.Triggered || !cold.Accepted || cold.Pending == "" || cold.Version != 1 {
		t.Fatalf("cold: %d %s", st, b)
	}
	st, _, b = f.do(t, call{method: "GET", path: "/v1/loops/pending", key: readA, ns: "a"})
	if pl := decode[server.PendingList](t, b); st != 200 || len(pl.Pending) != 1 || pl.Pending[0].ID != cold.Pending {
		t.Fatalf("pending: %d %s", st, b)
	}
	if st, _, b := f.do(t, call{method: "GET", path: "/v1/loops/pending", key: adminB, ns: "b"}); st != 200 || len(decode[server.PendingList](t, b).Pending) != 0 {
		t.Fatalf("b sees a's pending patch: %d %s", st, b)
	}
	approve := "/v1/loops/pending/" + cold.Pending + "/approve"
	for _, c := range []call{{key: readA, ns: "a"}, {key: adminB, ns: "b"}, {key: adminA, ns: "b"}} {
		c.method, c.path, c.body = "POST", approve, `{}`
		if st, _, b := f.do(t, c); st != 403 && st != 404 {
			t.Fatalf("approve by %s in %s: %d %s", c.key[:8], c.ns, st, b)
		}
	}
	st, _, b = f.do(t, call{method: "POST", path: approve, key: adminA, ns: "a", body: `{}`})
	cv = decode[tuning.ConfigVersion](t, b)
	if st != 200 || cv.Version != 2 || cv.Author != "ops-a" {
		t.Fatalf("approve: %d %s", st, b)
	}
	st, _, b = f.do(t, call{method: "POST", path: "/v1/loops/warm", key: adminA, ns: "a", body: `{"no_adjust":true}`})
	if after := decode[loops.WarmRun](t, b); st != 200 || after.Validation < 0.8 || after.Version != 2 {
		t.Fatalf("warm after the patch: %d %s", st, b)
	}
	st, _, b = f.do(t, call{method: "GET", path: "/v1/loops/status", key: readA, ns: "a"})
	if s := decode[loops.Status](t, b); st != 200 || s.Version != 2 || len(s.Trend) != 2 || s.LastTrigger == nil || len(s.Pending) != 0 {
		t.Fatalf("status: %d %s", st, b)
	}

	// Rollback to the default; b never moved.
	st, _, b = f.do(t, call{method: "POST", path: "/v1/config/rollback", key: adminA, ns: "a", body: `{"version":0}`})
	if st != 200 || decode[tuning.ConfigVersion](t, b).Version != 0 {
		t.Fatalf("rollback: %d %s", st, b)
	}
	if h := history(readA, "a"); h.Active != 0 || len(h.Versions) != 3 || h.Versions[1].Author != "ops-a" || len(h.Events) != 3 {
		t.Fatalf("history after rollback: %+v", h)
	}
	if h := history(adminB, "b"); h.Active != 0 || len(h.Versions) != 1 {
		t.Fatalf("b's history: %+v", h)
	}
	// Warm and cold take an empty body (or none) as the defaults.
	for _, c := range []call{{path: "/v1/loops/warm", ctype: "-"}, {path: "/v1/loops/cold", body: " \n"}} {
		c.method, c.key, c.ns = "POST", adminB, "b"
		if st, _, b := f.do(t, c); st != 200 || !strings.Contains(string(b), `"namespace":"b"`) {
			t.Fatalf("%s with an empty body: %d %s", c.path, st, b)
		}
	}
}

// sumTo returns an apply body whose general weights sum to s.
func sumTo(t *testing.T, cfg mnemo.ScoringConfig, s float64) string {
	t.Helper()
	c := cfg.Clone()
	w := c.Weights["general"]
	w.Recency += s - 1
	c.Weights["general"] = w
	b, _ := json.Marshal(map[string]any{"config": c})
	return string(b)
}
