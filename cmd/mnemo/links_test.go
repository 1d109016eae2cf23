package main

import (
	"encoding/json"
	"github.com/mnemo-dev/mnemo"
	"path/filepath"
	"strings"
	"testing"
)

// show lists a decision's links, each with the linked decision's title
// (or "(not found)", "(forgotten)"); --json keeps the record as it is.
func TestShowDecisionLinks(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	remember := func(body, text string) string {
		out := mustCLI(t, db, "", "--json", "remember", "--kind", "decision", "--body", body, text)
		var rec map[string]any
		if err := json.Unmarshal([]byte(out), &rec); err != nil {
			t.Fatal(err)
		}
		return rec["id"].(string)
	}
	stations := remember(`{"title":"Keep two ground-station contracts"}`, "Two ground-station contracts stay active.")
	rota := remember(`{"title":"Weekend rota"}`, "Old weekend rota.")
	mustCLI(t, db, "", "forget", rota)
	routing := remember(`{"title":"Route night passes via Svalbard","depends_on":["`+stations+`","01NOSUCHRECORD"],"constrains":["`+rota+`"]}`,
		"Night passes go through Svalbard.")
	show := mustCLI(t, db, "", "show", routing)
	for _, want := range []string{
		"depends on    " + stations + " — Keep two ground-station contracts\n",
		"              01NOSUCHRECORD — (not found)\n",
		"constrains    " + rota + " — Weekend rota (forgotten)\n",
	} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, db, "", "--json", "show", routing)), &rec); err != nil || rec["decision"].(map[string]any)["depends_on"] == nil {
		t.Errorf("show --json: %v %v", rec, err)
	}
	md := mustCLI(t, db, "", "digest", "route the night passes via Svalbard")
	if !strings.Contains(md, "  - depends on: "+mnemo.ShortRef(stations)+", 01NOSUCHRECORD") || !strings.Contains(md, "- (linked) decision — Two ground-station contracts stay active.") {
		t.Errorf("digest:\n%s", md)
	}
}
