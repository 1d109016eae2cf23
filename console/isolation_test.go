package console_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// TestKeySeesOnlyItsNamespaceAndClearance signs in with a key for
// namespace a at clearance 1 and visits every page, search, history,
// handoff and download: nothing of namespace b and nothing above the
// clearance may show.
func TestKeySeesOnlyItsNamespaceAndClearance(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	writeA := f.key(t, mnemo.RoleWrite, 1, "a")
	adminA := f.key(t, mnemo.RoleAdmin, 1, "a")
	now := time.Now().UTC()
	f.remember(t, "a", mnemo.NewRecord{Text: "Pumps are inspected weekly", Thread: "shift-7"})
	f.remember(t, "a", mnemo.NewRecord{Text: "Pump seals are replaced yearly", AccessLevel: 1, Thread: "shift-7"})
	topaz := f.remember(t, "a", mnemo.NewRecord{Text: "Pumps SECRETTOPAZ override code", AccessLevel: 3, Thread: "shift-7", Tags: []string{"question"}})
	f.remember(t, "a", mnemo.NewRecord{Text: "Pump station decision SAPPHIRESECRET", Kind: mnemo.KindDecision, AccessLevel: 3,
		Decision: &mnemo.Decision{Title: "SAPPHIRESECRET title"}})
	f.remember(t, "a", mnemo.NewRecord{Text: "Pump failure SAPPHIRESECRET event", Kind: mnemo.KindEvent, Criticality: ptr(0.9), AccessLevel: 3, Component: "pumps"})
	lowered := f.remember(t, "a", mnemo.NewRecord{Text: "Pumps EMERALDSECRET procedure", AccessLevel: 3})
	text, level := "Pumps procedure, now public", 1
	if _, err := f.svc.Update(mnemo.WithCallerIn(ctx, mnemo.Caller{Name: "test", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}, "a"), lowered,
		mnemo.RecordPatch{Text: &text, AccessLevel: &level}); err != nil {
		t.Fatal(err)
	}
	ruby := f.remember(t, "b", mnemo.NewRecord{Text: "Pumps RUBYSECRET in namespace b", Thread: "shift-7", Kind: mnemo.KindDecision,
		Decision: &mnemo.Decision{Title: "RUBYSECRET"}})
	// Another caller's retrieval in a, which saw the hidden records.
	res, err := f.svc.Recall(mnemo.WithCallerIn(ctx, mnemo.Caller{Name: "other", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}, "a"),
		mnemo.RecallRequest{Query: "OPALQUERY pumps", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	// And a missing-context correction naming that retrieval (which
	// returned hidden records).
	f.remember(t, "a", mnemo.NewRecord{Text: "missing pumps context", Kind: mnemo.KindCorrection, Provenance: []string{"record:" + lowered},
		Correction: &mnemo.Correction{MissingContext: true, Summary: "missing", RetrievalID: res.RetrievalID}, At: &now})
	if err := f.svc.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	secrets := []string{"RUBYSECRET", "SECRETTOPAZ", "EMERALDSECRET", "SAPPHIRESECRET", ruby, topaz}

	for _, tc := range []struct {
		name   string
		secret string
		extra  []string
	}{{"write key", writeA, []string{"OPALQUERY"}}, {"admin key", adminA, nil}} {
		t.Run(tc.name, func(t *testing.T) {
			b := f.browser(t)
			b.signIn(tc.secret)
			pages := []string{"/records", "/records?all=1", "/records?thread=shift-7", "/search?q=pumps",
				"/search?q=override+code", "/search?q=namespace+b", "/record/" + lowered, "/digest?task=pumps+override+code", "/digest?task=namespace+b",
				"/handoff?go=1", "/handoff?go=1&from=test", "/retrievals", "/corrections", "/threads", "/thread/shift-7", "/health"}
			if tc.name == "admin key" {
				pages = append(pages, "/corrections/triples.jsonl")
				if _, _, tr := b.get("/corrections/triples.jsonl"); !strings.Contains(tr, res.RetrievalID) {
					t.Errorf("the triple is not in the download: %s", tr)
				}
			}
			_, _, list := b.get("/retrievals")
			if tc.name == "admin key" && !strings.Contains(list, "OPALQUERY") {
				t.Error("an admin key does not see the namespace's other retrievals")
			}
			for _, m := range regexpAll(`href="/retrieval/([^"]+)"`, list) {
				pages = append(pages, "/retrieval/"+m)
			}
			for _, p := range pages {
				st, _, body := b.get(p)
				if st != http.StatusOK {
					t.Errorf("%s: %d", p, st)
				}
				for _, s := range append(secrets, tc.extra...) {
					if strings.Contains(body, s) {
						i := strings.Index(body, s)
						t.Errorf("%s shows %q: …%s…", p, s, body[max(0, i-300):min(len(body), i+100)])
					}
				}
			}
			// Hidden and foreign records are not found by id, nor their history.
			for _, id := range []string{ruby, topaz} {
				if st, _, _ := b.get("/record/" + id); st != http.StatusNotFound {
					t.Errorf("record %s: %d, want 404", id, st)
				}
			}
			// The lowered record's history hides the revision above the clearance.
			_, _, body := b.get("/record/" + lowered)
			if !strings.Contains(body, "above your clearance") {
				t.Error("the hidden revision is not shown as redacted")
			}
			// Namespace b cannot be picked.
			if st, _, _ := b.post("/namespace", url.Values{"ns": {"b"}}); st != http.StatusForbidden {
				t.Errorf("switching to b: %d", st)
			}
			if _, _, body := b.get("/records"); strings.Contains(body, "RUBYSECRET") || !strings.Contains(body, "Pumps are inspected") {
				t.Error("after the refused switch the console is not in namespace a")
			}
			// No write above the clearance.
			if st, _, _ := b.post("/record/"+lowered, url.Values{"action": {"edit"}, "access_level": {"3"}}); tc.name == "write key" && st != http.StatusForbidden {
				t.Errorf("raising a record above the clearance: %d", st)
			}
		})
	}
	// The write key cannot download the triples (admin only, as on the API).
	b := f.browser(t)
	b.signIn(writeA)
	if st, _, _ := b.get("/corrections/triples.jsonl"); st != http.StatusForbidden {
		t.Errorf("triples with a write key: %d", st)
	}
}

func regexpAll(pattern, s string) []string {
	var out []string
	for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

func ptr[T any](v T) *T { return &v }
