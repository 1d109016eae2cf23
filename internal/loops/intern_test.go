package loops_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/loops"
	"github.com/mnemo-dev/mnemo/thesaurus"
)

// Every kind of probe from ordinary records: masked, paraphrase (with the
// installed thesauri), temporal, other-language and boundary; the Teacher
// keeps the grounded ones and drops the rest, naming why.
func TestInternWritesEveryKindAndTheTeacherFilters(t *testing.T) {
	f := open(t)
	ctx := context.Background()
	texts := []struct{ text, scope string }{
		{"The uplink power above 200 W requires the safety officer on the loop", "/rules/safety"},
		{"GDPR breach notification is due within 72 hours of discovery", "/regulations/gdpr"},
		{"Night passes go through the Svalbard station while Inuvik is in maintenance", "/ops/passes"},
		{"The battery heater schedule changed after the thermal review of OPS-412", "/ops/thermal"},
		{"Уведомление об утечке данных направляется в течение 72 часов по GDPR", "/regulations/gdpr"},
	}
	for i, x := range texts {
		at := f.now.AddDate(0, 0, -i)
		if _, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, "ops"), []mnemo.NewRecord{{Text: x.text, Scope: x.scope, At: &at}}, mnemo.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	th, _ := thesaurus.Load(thesaurus.Config{})
	in := loops.Intern{Thesaurus: th}
	ps, err := in.Generate(ctx, f.svc, admin, "ops", f.now)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, p := range ps {
		kinds[p.Kind]++
		t.Logf("%-10s %-2s %s", p.Kind, p.Lang, p.Query)
	}
	want := []string{loops.KindMasked, loops.KindTemporal, loops.KindLanguage, loops.KindBoundary}
	if len(th.Sources()) > 0 {
		want = append(want, loops.KindParaphrase)
	} else {
		t.Log("no thesaurus installed: no paraphrases")
	}
	for _, k := range want {
		if kinds[k] == 0 {
			t.Errorf("no %s probe: %v", k, kinds)
		}
	}
	for _, p := range ps {
		if p.Kind == loops.KindLanguage && p.Lang == "ru" && !strings.HasPrefix(p.Query, "что мы знаем о ") {
			t.Errorf("language probe %q", p.Query)
		}
	}
	te := loops.Teacher{Thesaurus: th}
	bad := append(ps[:0:0], ps...)
	bad = append(bad,
		loops.Probe{Kind: loops.KindMasked, Query: "x", Expect: ps[0].Expect},                              // ill-formed
		loops.Probe{Kind: loops.KindMasked, Query: "zebra giraffe okapi", Expect: ps[0].Expect},            // ungrounded
		loops.Probe{Kind: loops.KindMasked, Query: "uplink power safety", Expect: []string{"01NOSUCHREC"}}, // ungrounded: gone
		ps[0], // duplicate
	)
	kept, dropped, err := te.Filter(ctx, f.svc, admin, "ops", bad)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != len(ps) || dropped[loops.DropIllFormed] != 1 || dropped[loops.DropUngrounded] != 2 || dropped[loops.DropDuplicate] != 1 {
		t.Errorf("kept %d of %d generated, dropped %v", len(kept), len(ps), dropped)
	}
}
