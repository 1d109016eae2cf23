package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
)

// Messages appended to a thread one by one: every fourth brings an
// extraction of the four, in the background; the candidates are stored as
// low-confidence memories pointing at their messages.
func TestExtractionEveryFourMessages(t *testing.T) {
	f := open(t, "", func(c *engine.Config) { c.ExtractEvery = 4 })
	ctx := context.Background()
	start := f.now.Add(-time.Hour)
	msgs := []string{
		"Anna: The Svalbard pass lost the uplink for four minutes.",
		"Ben: We decided to route night passes via Svalbard until Inuvik is back.",
		"Anna: Pass briefs must state the backup-link status.",
		"Ben: Agreed, thanks.",
		"Kim: I prefer short briefs with the station first.",
		"Anna: Who confirms the slot with the station?",
	}
	var ids []string
	for i, m := range msgs {
		w := f.remember(t, "ops", mnemo.NewRecord{Text: m, Thread: "shift-7", At: at(start.Add(time.Duration(i) * time.Minute))})
		ids = append(ids, w[0].ID)
		if err := f.svc.Flush(ctx); err != nil { // one message at a time, as a chat arrives
			t.Fatal(err)
		}
	}
	if err := f.svc.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := f.svc.List(ctx, admin, "ops", mnemo.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var extracted []*mnemo.Record
	for _, r := range got {
		if r.Source == "extracted" {
			extracted = append(extracted, r)
		}
	}
	// The first four messages were read; the last two wait for two more.
	if len(extracted) != 2 {
		var texts []string
		for _, r := range extracted {
			texts = append(texts, r.Text)
		}
		t.Fatalf("%d extracted records, want 2:\n%s", len(extracted), strings.Join(texts, "\n"))
	}
	kinds := map[mnemo.Kind]*mnemo.Record{}
	for _, r := range extracted {
		kinds[r.Kind] = r
	}
	dec, rule := kinds[mnemo.KindDecision], kinds[mnemo.KindFact]
	if dec == nil || rule == nil || !strings.Contains(dec.Text, "route night passes via Svalbard") || rule.Scope != "/rules" ||
		dec.Confidence != 0.5 || dec.Thread != "" || dec.Provenance[0] != mnemo.MissedRef+ids[1] || dec.Provenance[1] != "thread:shift-7" ||
		!dec.CreatedAt.Equal(start.Add(time.Minute)) {
		t.Fatalf("extracted %+v / %+v", dec, rule)
	}
	// Two more messages: the next four (5-8) are read.
	for i, m := range []string{"Ben: Noted.", "Anna: The maintenance window is 2026-12-02 at 14:00 and lasts 3 hours."} {
		f.remember(t, "ops", mnemo.NewRecord{Text: m, Thread: "shift-7", At: at(start.Add(time.Duration(10+i) * time.Minute))})
		if err := f.svc.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.svc.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ = f.svc.List(ctx, admin, "ops", mnemo.ListOptions{})
	n := 0
	var texts []string
	for _, r := range got {
		if r.Source == "extracted" {
			n++
			texts = append(texts, r.Text)
		}
	}
	if n != 5 || !strings.Contains(strings.Join(texts, "\n"), "Open question (Anna): Who confirms the slot") {
		t.Errorf("%d extracted after eight messages, want 5:\n%s", n, strings.Join(texts, "\n"))
	}
}

// Extraction is off unless configured.
func TestNoExtractionByDefault(t *testing.T) {
	f := open(t, "", nil)
	for i := range 8 {
		f.remember(t, "ops", mnemo.NewRecord{Text: "We decided to route night passes via Svalbard, take " + string(rune('a'+i)), Thread: "t"})
	}
	if err := f.svc.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.store.Count(context.Background(), "ops"); n != 8 {
		t.Errorf("%d records, want the 8 messages only", n)
	}
}

// A Russian thread gives its memories too, stored like English ones.
func TestExtractionRussianThread(t *testing.T) {
	f := open(t, "", func(c *engine.Config) { c.ExtractEvery = 4 })
	ctx := context.Background()
	start := f.now.Add(-time.Hour)
	for i, m := range []string{
		"Анна: Ночью на пролёте над Шпицбергеном пропал аплинк на четыре минуты.",
		"Борис: Мы решили вести ночные пролёты через Шпицберген, пока Инувик на обслуживании.",
		"Анна: В брифе пролёта всегда должен быть статус резервного канала.",
		"Кира: А кто подтверждает слот со станцией?",
	} {
		f.remember(t, "ops", mnemo.NewRecord{Text: m, Thread: "смена-7", At: at(start.Add(time.Duration(i) * time.Minute))})
		if err := f.svc.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.svc.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := f.svc.List(ctx, admin, "ops", mnemo.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, r := range got {
		if r.Source == "extracted" {
			kinds[string(r.Kind)+" "+strings.SplitN(r.Text, " (", 2)[0]] = true
		}
	}
	for _, k := range []string{"decision Decided", "fact Rule", "fact Open question"} {
		if !kinds[k] {
			t.Errorf("no %q among the extracted: %v", k, kinds)
		}
	}
}
