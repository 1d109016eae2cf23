package extract_test

import (
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/extract"
)

func TestExtract(t *testing.T) {
	got := extract.Extract([]extract.Message{
		{ID: "m1", Text: "Anna: The Svalbard pass lost the uplink for four minutes. We decided to route night passes via Svalbard until Inuvik is back."},
		{ID: "m2", Text: "Ben: Pass briefs must state the backup-link status. Thanks!"},
		{ID: "m3", Text: "Kim: I prefer short briefs with the station first. Who confirms the slot with the station?"},
		{ID: "m4", Text: "Anna: The maintenance window is 2026-12-02 at 14:00 and lasts 3 hours.\nTo switch links:\n1. Stop the uplink\n2. Select the backup\n3. Verify telemetry"},
		{ID: "m5", Text: "ok"},
	})
	want := []struct {
		kind mnemo.Kind
		text string
		from string
	}{
		{mnemo.KindDecision, "Decided (Anna): We decided to route night passes via Svalbard until Inuvik is back.", "m1"},
		{mnemo.KindFact, "Rule (Ben): Pass briefs must state the backup-link status.", "m2"},
		{mnemo.KindPreference, "Preference (Kim): I prefer short briefs with the station first.", "m3"},
		{mnemo.KindFact, "Open question (Kim): Who confirms the slot with the station?", "m3"},
		{mnemo.KindProcedure, "Procedure: 1. Stop the uplink 2. Select the backup 3. Verify telemetry", "m4"},
		{mnemo.KindFact, "Fact (Anna): The maintenance window is 2026-12-02 at 14:00 and lasts 3 hours.", "m4"},
	}
	if len(got) != len(want) {
		var texts []string
		for _, c := range got {
			texts = append(texts, string(c.Kind)+" "+c.Text)
		}
		t.Fatalf("got %d candidates:\n%s", len(got), strings.Join(texts, "\n"))
	}
	for i, w := range want {
		if got[i].Kind != w.kind || got[i].Text != w.text || got[i].From != w.from {
			t.Errorf("candidate %d = %s %q from %s, want %s %q from %s", i, got[i].Kind, got[i].Text, got[i].From, w.kind, w.text, w.from)
		}
	}
	if got[0].Decision == nil || got[0].Decision.Decision == "" || got[1].Scope != "/rules" || got[3].Tags[0] != "question" {
		t.Errorf("bodies, scopes and tags: %+v", got[:4])
	}
	// Repeats are dropped and the count is bounded.
	var many []extract.Message
	for i := range 100 {
		many = append(many, extract.Message{ID: "x", Text: strings.Repeat("a", i%5+1) + " must always be checked before the pass."})
	}
	if n := len(extract.Extract(many)); n != 5 {
		t.Errorf("%d candidates from five distinct sentences repeated", n)
	}
	var distinct []extract.Message
	for i := range 100 {
		distinct = append(distinct, extract.Message{ID: "x", Text: "Rule " + strings.Repeat("b", i+1) + " must always be checked."})
	}
	if n := len(extract.Extract(distinct)); n != extract.MaxCandidates {
		t.Errorf("%d candidates, want the limit %d", n, extract.MaxCandidates)
	}
}

func FuzzExtract(f *testing.F) {
	f.Add("Anna: We decided to go. Who pays?\n1. a\n2. b")
	f.Add("x: y")
	f.Add("Анна: Мы решили вести пролёты через Шпицберген. Кто подтвердит слот?\n1. а\n2. б")
	f.Add("Борис: Окно — 2 декабря в 14:00, длится 3 часа. Нельзя включать аплинк выше 200 Вт.")
	f.Add("Олена: Ми вирішили спершу закрити міграцію, а потім вмикати кеш. Чи потрібен стенд?")
	f.Add("Тарас: Обов’язково перевірити копію; обовʼязково; обов'язково. Дедлайн — 12 грудня.")
	f.Add("Щоб відкотити реліз, спочатку вимкніть прапорець, потім поверніть тег.")
	f.Fuzz(func(t *testing.T, text string) {
		for _, c := range extract.Extract([]extract.Message{{ID: "m", Text: text}}) {
			if c.Text == "" || c.From != "m" || !c.Kind.Valid() {
				t.Fatalf("candidate %+v", c)
			}
		}
		if steps := extract.Steps(text); steps != nil && (len(steps) < 2 || !extract.SameSteps(steps, steps)) {
			t.Fatalf("steps %q", steps)
		}
	})
}
