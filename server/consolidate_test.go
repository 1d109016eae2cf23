package server_test

import (
	"encoding/json"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

func TestConsolidateRoute(t *testing.T) {
	f := newFixture(t, nil)
	admin := f.key(t, mnemo.RoleAdmin, 0, "ops")
	writer := f.key(t, mnemo.RoleWrite, 0, "ops")
	for _, text := range []string{"the relay antenna must be greased every monday morning", "relay antenna greased every monday morning before the shift"} {
		if st, _, b := f.do(t, call{method: "POST", path: "/v1/records", key: writer, body: `{"no_dedup":true,"text":"` + text + `"}`}); st != 201 {
			t.Fatalf("remember: %d %s", st, b)
		}
	}
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/consolidate", key: writer, body: `{}`}); st != 403 || errCode(t, b) != mnemo.EFORBIDDEN {
		t.Fatalf("consolidate with a write key: %d %s", st, b)
	}
	var res struct {
		Checked int `json:"checked"`
		Pairs   []struct {
			Kept   string `json:"kept"`
			Merged string `json:"merged"`
		} `json:"pairs"`
		DryRun bool `json:"dry_run"`
	}
	st, _, b := f.do(t, call{method: "POST", path: "/v1/consolidate", key: admin, body: `{"dry_run":true}`})
	if err := json.Unmarshal(b, &res); st != 200 || err != nil || !res.DryRun || res.Checked != 2 || len(res.Pairs) != 1 {
		t.Fatalf("dry run: %d %s", st, b)
	}
	st, _, b = f.do(t, call{method: "POST", path: "/v1/consolidate", key: admin, body: `{}`})
	res.Pairs, res.DryRun = nil, false
	if err := json.Unmarshal(b, &res); st != 200 || err != nil || res.DryRun || len(res.Pairs) != 1 {
		t.Fatalf("consolidate: %d %s", st, b)
	}
	if st, _, b := f.do(t, call{method: "POST", path: "/v1/consolidate", key: admin, body: `{"colour":"red"}`}); st != 400 || errCode(t, b) != mnemo.EINVALID {
		t.Fatalf("unknown field: %d %s", st, b)
	}
}
