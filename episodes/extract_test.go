package episodes_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/episodes"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
	"github.com/mnemo-dev/mnemo/internal/llmtest"
	"github.com/mnemo-dev/mnemo/llm"
)

// Messages appended to a thread one by one: every fourth brings an
// extraction of the four, in the background; the candidates are stored as
// low-confidence memories pointing at their messages.
func TestExtractionEveryFourMessages(t *testing.T) {
	f := enginetest.Extracting(t, 4, nil)
	ctx := context.Background()
	start := f.Now.Add(-time.Hour)
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
		w := f.Remember(t, "ops", mnemo.NewRecord{Text: m, Thread: "shift-7", At: enginetest.Ptr(start.Add(time.Duration(i) * time.Minute))})
		ids = append(ids, w[0].ID)
		if err := f.Flush(ctx); err != nil { // one message at a time, as a chat arrives
			t.Fatal(err)
		}
	}
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	ex := extracted(t, f, enginetest.Admin, "ops")
	// The first four messages were read; the last two wait for two more.
	if len(ex) != 2 {
		var texts []string
		for _, r := range ex {
			texts = append(texts, r.Text)
		}
		t.Fatalf("%d extracted records, want 2:\n%s", len(ex), strings.Join(texts, "\n"))
	}
	kinds := map[mnemo.Kind]*mnemo.Record{}
	for _, r := range ex {
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
		f.Remember(t, "ops", mnemo.NewRecord{Text: m, Thread: "shift-7", At: enginetest.Ptr(start.Add(time.Duration(10+i) * time.Minute))})
		if err := f.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	ex = extracted(t, f, enginetest.Admin, "ops")
	var texts []string
	for _, r := range ex {
		texts = append(texts, r.Text)
	}
	if n := len(ex); n != 5 || !strings.Contains(strings.Join(texts, "\n"), "Open question (Anna): Who confirms the slot") {
		t.Errorf("%d extracted after eight messages, want 5:\n%s", n, strings.Join(texts, "\n"))
	}
}

// Extraction is off unless configured.
func TestNoExtractionByDefault(t *testing.T) {
	f := enginetest.Clocked(t, "", nil)
	for i := range 8 {
		f.Remember(t, "ops", mnemo.NewRecord{Text: "We decided to route night passes via Svalbard, take " + string(rune('a'+i)), Thread: "t"})
	}
	if err := f.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.Svc.Store().Count(context.Background(), "ops"); n != 8 {
		t.Errorf("%d records, want the 8 messages only", n)
	}
}

// A Russian thread gives its memories too, stored like English ones.
func TestExtractionRussianThread(t *testing.T) {
	f := enginetest.Extracting(t, 4, nil)
	ctx := context.Background()
	start := f.Now.Add(-time.Hour)
	for i, m := range []string{
		"Анна: Ночью на пролёте над Шпицбергеном пропал аплинк на четыре минуты.",
		"Борис: Мы решили вести ночные пролёты через Шпицберген, пока Инувик на обслуживании.",
		"Анна: В брифе пролёта всегда должен быть статус резервного канала.",
		"Кира: А кто подтверждает слот со станцией?",
	} {
		f.Remember(t, "ops", mnemo.NewRecord{Text: m, Thread: "смена-7", At: enginetest.Ptr(start.Add(time.Duration(i) * time.Minute))})
		if err := f.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, r := range extracted(t, f, enginetest.Admin, "ops") {
		kinds[string(r.Kind)+" "+strings.SplitN(r.Text, " (", 2)[0]] = true
	}
	for _, k := range []string{"decision Decided", "fact Rule", "fact Open question"} {
		if !kinds[k] {
			t.Errorf("no %q among the extracted: %v", k, kinds)
		}
	}
}

// russianShift is a thread of four messages: one extraction's worth.
var russianShift = []string{
	"Анна: Ночью на пролёте над Шпицбергеном пропал аплинк на четыре минуты.",
	"Борис: Ок, значит ведём ночные пролёты через Шпицберген, пока Инувик на обслуживании.",
	"Анна: Статус резервного канала — в каждый бриф.",
	"Кира: А кто подтверждает слот со станцией?",
}

func extractWith(t *testing.T, model func(*testing.T) llm.Model) (*enginetest.Fixture, []*mnemo.Record, []string) {
	t.Helper()
	f := enginetest.Extracting(t, 4, func(c *engine.Config) {
		if model != nil {
			c.Chat = model(t)
		}
	})
	ctx := context.Background()
	var ids []string
	for i, m := range russianShift {
		w := f.Remember(t, "ops", mnemo.NewRecord{Text: m, Thread: "смена-7", At: enginetest.Ptr(f.Now.Add(time.Duration(i-60) * time.Minute))})
		ids = append(ids, w[0].ID)
	}
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return f, extracted(t, f, enginetest.Admin, "ops"), ids
}

// With a chat model, the model's memories are stored (any language), each
// pointing at its message, with the model named in the provenance.
func TestExtractionByChatModel(t *testing.T) {
	chat := llmtest.NewFakeChat(t, llmtest.FixedAnswer(`{"memories": [
		{"kind": "decision", "text": "Ночные пролёты ведём через Шпицберген, пока Инувик на обслуживании.", "message": 2, "confidence": 0.9},
		{"kind": "rule", "text": "В каждом брифе пролёта указывается статус резервного канала.", "message": 3},
		{"kind": "question", "text": "Кто подтверждает слот со станцией?", "message": 4}]}`))
	_, ex, ids := extractWith(t, func(t *testing.T) llm.Model { return chat.Model(t, time.Second) })
	if chat.Calls() != 1 || !strings.Contains(chat.Users()[0], "[2] Борис: Ок, значит ведём") {
		t.Fatalf("%d calls: %q", chat.Calls(), chat.Users())
	}
	byKind := map[string]*mnemo.Record{}
	for _, r := range ex {
		byKind[strings.SplitN(r.Text, " (", 2)[0]] = r
		if !slices.Contains(r.Provenance, "extracted-by:chat:tiny") || r.Confidence != 0.7 {
			t.Errorf("record %q: provenance %v, confidence %v", r.Text, r.Provenance, r.Confidence)
		}
	}
	dec, rule, q := byKind["Decided"], byKind["Rule"], byKind["Open question"]
	if len(ex) != 3 || dec == nil || rule == nil || q == nil {
		t.Fatalf("extracted %d: %v", len(ex), byKind)
	}
	if dec.Text != "Decided (Борис): Ночные пролёты ведём через Шпицберген, пока Инувик на обслуживании." || dec.Decision == nil ||
		dec.Provenance[0] != mnemo.MissedRef+ids[1] || rule.Scope != "/rules" || !slices.Contains(q.Tags, "question") || q.Provenance[0] != mnemo.MissedRef+ids[3] {
		t.Errorf("decision %+v\nrule %+v\nquestion %+v", dec, rule, q)
	}
}

// A model that is slow, refuses, answers out of the schema or nothing:
// the rules extract instead, and nothing of the model's answer is written.
func TestExtractionChatModelFallsBack(t *testing.T) {
	valid := `{"memories": [{"kind": "decision", "text": "MODEL: ведём через Шпицберген.", "message": 2}]}`
	cases := llmtest.BrokenModels(valid)
	for name, content := range map[string]string{
		"unknown kind":    `{"memories": [{"kind": "decision", "text": "MODEL: ведём через Шпицберген.", "message": 2}, {"kind": "opinion", "text": "MODEL: так себе", "message": 1}]}`,
		"no such message": `{"memories": [{"kind": "decision", "text": "MODEL: ведём через Шпицберген.", "message": 9}]}`,
		"no message":      `{"memories": [{"kind": "decision", "text": "MODEL: ведём через Шпицберген."}]}`,
		"empty text":      `{"memories": [{"kind": "decision", "text": "  ", "message": 2}]}`,
		"no memories":     `{"memories": []}`,
		"other object":    `{"items": [{"kind": "decision", "text": "MODEL: ведём", "message": 2}]}`,
		"wrong types":     `{"memories": [{"kind": "decision", "text": ["MODEL"], "message": "2"}]}`,
	} {
		cases[name] = llmtest.FixedAnswer(content)
	}
	_, want, _ := extractWith(t, nil)
	for name, answer := range cases {
		t.Run(name, func(t *testing.T) {
			chat := llmtest.NewFakeChat(t, answer)
			_, ex, _ := extractWith(t, func(t *testing.T) llm.Model { return chat.Model(t, llmtest.CallBound(name, 200*time.Millisecond)) })
			if chat.Calls() != 1 || len(ex) != len(want) || len(ex) == 0 {
				t.Fatalf("%d calls, %d extracted, want %d by the rules", chat.Calls(), len(ex), len(want))
			}
			for _, r := range ex {
				if strings.Contains(r.Text, "MODEL") || !slices.Contains(r.Provenance, "extracted-by:rules") || r.Confidence != 0.5 {
					t.Errorf("record %q %v %v", r.Text, r.Provenance, r.Confidence)
				}
			}
		})
	}
}

// The model is asked without the thread's lock: a message written while
// it thinks is not held up, and is left for the next extraction.
func TestExtractionChatModelDoesNotBlockTheThread(t *testing.T) {
	called, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	chat := llmtest.NewFakeChat(t, func(http.ResponseWriter, string, string) (string, string) {
		once.Do(func() { close(called) })
		<-release
		return `{"memories": [{"kind": "question", "text": "Кто подтверждает слот?", "message": 4}]}`, "stop"
	})
	f := enginetest.Extracting(t, 4, func(c *engine.Config) { c.Chat = chat.Model(t, 5*time.Second) })
	ctx := context.Background()
	for i, m := range russianShift {
		f.Remember(t, "ops", mnemo.NewRecord{Text: m, Thread: "смена-7", At: enginetest.Ptr(f.Now.Add(time.Duration(i-60) * time.Minute))})
	}
	select {
	case <-called:
	case <-time.After(5 * time.Second):
		t.Fatal("the model was not asked")
	}
	start := time.Now()
	f.Remember(t, "ops", mnemo.NewRecord{Text: "Борис: Слот подтверждаю я, до 18:00.", Thread: "смена-7", At: enginetest.Ptr(f.Now.Add(-time.Minute))})
	if d := time.Since(start); d > time.Second {
		t.Errorf("a write to the thread waited %v for the model", d)
	}
	close(release)
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(extracted(t, f, enginetest.Admin, "ops")); n != 1 || chat.Calls() != 1 {
		t.Errorf("%d extracted after %d calls, want the model's one memory from one call", n, chat.Calls())
	}
}

// The same steps said in two threads become one learned procedure, with
// its messages, threads and count; a third thread updates it; a sequence
// said in one thread only, or other steps, teach nothing.
func TestProceduresLearnedFromRepetition(t *testing.T) {
	f := enginetest.Extracting(t, 2, nil)
	ctx := context.Background()
	n := 0
	say := func(thread string, msgs ...string) []string {
		var ids []string
		for _, m := range msgs {
			n++
			ids = append(ids, f.Remember(t, "ops", mnemo.NewRecord{Text: m, Thread: thread, At: enginetest.Ptr(f.Now.Add(time.Duration(n-100) * time.Minute))})[0].ID)
		}
		if err := f.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	learned := func() []*mnemo.Record {
		got, err := f.Svc.List(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.ListOptions{Filter: mnemo.Filter{Tags: []string{"learned"}}})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	a := say("shift-1", "Anna: The uplink dropped again at 02:10.", "Anna: To switch links:\n1. Stop the uplink\n2. Select the backup link\n3. Verify telemetry")
	say("shift-1", "Ben: Noted, thanks.", "Ben: Again, to switch links:\n1. stop the uplink\n2. select the backup link\n3. verify the telemetry")
	say("shift-2", "Kim: Calibration today.", "Kim: To calibrate:\n1. Park the antenna\n2. Run the sweep\n3. Save the offsets")
	if got := learned(); len(got) != 0 {
		t.Fatalf("learned from one thread: %v", got[0].Text)
	}
	b := say("shift-3", "Ben: Link trouble tonight.", "Ben: Switching:\n1. stop uplink\n2. select the backup link now\n3. verify telemetry frames")
	got := learned()
	if len(got) != 1 {
		t.Fatalf("%d learned procedures", len(got))
	}
	p := got[0]
	if p.Kind != mnemo.KindProcedure || p.Source != "learned" ||
		p.Text != "Learned procedure (seen 3 times in 2 threads): 1. stop uplink 2. select the backup link now 3. verify telemetry frames" ||
		!slices.Contains(p.Provenance, "thread:shift-1") || !slices.Contains(p.Provenance, "thread:shift-3") || !slices.Contains(p.Provenance, mnemo.MissedRef+a[1]) ||
		!slices.Contains(p.Provenance, mnemo.MissedRef+b[1]) || slices.Contains(p.Provenance, "thread:shift-2") {
		t.Fatalf("learned %+v", p)
	}
	// Learning again changes nothing; a third thread updates the same record.
	if k, err := episodes.LearnProcedures(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), f.Svc, f.Svc.Store()); err != nil || k != 0 {
		t.Errorf("relearning wrote %d: %v", k, err)
	}
	say("shift-4", "Kim: Same drill here.", "Kim: To switch links:\n1. Stop the uplink\n2. Select the backup link\n3. Verify telemetry")
	got = learned()
	if len(got) != 1 || got[0].ID != p.ID || !strings.HasPrefix(got[0].Text, "Learned procedure (seen 4 times in 3 threads): ") {
		t.Fatalf("after a third thread: %d, %+v", len(got), got)
	}
	if hist, _ := f.Svc.History(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), p.ID); len(hist) != 2 {
		t.Errorf("%d revisions, want 2", len(hist))
	}
	// Russian steps are learned the same way.
	say("смена-1", "Анна: Снова обрыв.", "Анна: Чтобы переключить канал, сначала остановите аплинк, потом выберите резервный канал.")
	say("смена-2", "Борис: И у нас.", "Борис: Чтобы переключить канал, сначала остановите аплинк, затем выберите резервный канал.")
	if got := learned(); len(got) != 2 {
		t.Errorf("%d learned procedures after the Russian threads, want 2", len(got))
	}
}

// TestExtractionStateKeysPerNamespace: the extraction state of thread "c"
// of namespace "a/b" is not that of thread "b/c" of namespace "a": the
// second thread's messages, older than the first's, are still extracted.
func TestExtractionStateKeysPerNamespace(t *testing.T) {
	f := enginetest.Extracting(t, 2, nil)
	ctx := context.Background()
	start := f.Now.Add(-time.Hour)
	write := func(ns, thread string, at0 time.Time) {
		for i, m := range []string{
			"Ben: We decided to route night passes via Svalbard until Inuvik is back.",
			"Anna: Pass briefs must state the backup-link status.",
		} {
			f.Remember(t, ns, mnemo.NewRecord{Text: m, Thread: thread, At: enginetest.Ptr(at0.Add(time.Duration(i) * time.Minute))})
			if err := f.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("a/b", "c", start.Add(30*time.Minute))
	write("a", "b/c", start)
	for _, ns := range []string{"a/b", "a"} {
		if len(extracted(t, f, enginetest.Admin, ns)) == 0 {
			t.Errorf("namespace %s: nothing extracted: its thread's state was taken for another namespace's", ns)
		}
	}
}
