package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/llm"
)

// ukrainianRelease is a thread whose decision is said once, in passing.
var ukrainianRelease = []string{
	"Олена: Реліз 4.2 на цьому тижні під питанням: міграція бази ще не закрита.",
	"Тарас: Міграція йде повільно, на стейджингу вона триває дві години.",
	"Ірина: Можна вимкнути новий кеш і випустити без нього?",
	"Олена: Ні, без кешу немає сенсу. Переносимо реліз на 12 грудня, спершу закриваємо міграцію.",
	"Тарас: Тоді я оновлю дошку і напишу клієнтам.",
	"Ірина: Хто перевірить резервну копію перед міграцією?",
}

func summarizeWith(t *testing.T, model llm.Model, budget int) *mnemo.EpisodeResult {
	t.Helper()
	f := open(t, "", func(c *engine.Config) { c.Chat = model })
	for i, tx := range ukrainianRelease {
		f.remember(t, "ops", mnemo.NewRecord{Text: tx, Thread: "реліз-4.2", At: at(f.now.Add(time.Duration(i-60) * time.Minute))})
	}
	res, err := f.svc.Summarize(mnemo.WithCallerIn(context.Background(), admin, "ops"), "реліз-4.2", budget)
	if err != nil {
		t.Fatal(err)
	}
	if n := f.tok.Count(res.Record.Text); n > budget {
		t.Errorf("episode of %d tokens over the budget of %d: %q", n, budget, res.Record.Text)
	}
	return res
}

// With a chat model, the episode is what was discussed, decided, changed
// and left open, within the budget (decisions are the last to give way),
// and says which model wrote it.
func TestEpisodeByChatModel(t *testing.T) {
	chat := newFakeChat(t, fixedAnswer(`{"discussed": ["Чи випускати 4.2 без нового кешу", "Повільна міграція бази на стейджингу"],
		"decided": ["Реліз 4.2 переносять на 12 грудня; спершу закривають міграцію"],
		"changed": ["Тарас оновлює дошку і пише клієнтам"],
		"open": ["Хто перевірить резервну копію перед міграцією"], "mood": "calm"}`))
	res := summarizeWith(t, chat.model(t, time.Second), 400)
	r := res.Record
	want := "Discussed: Чи випускати 4.2 без нового кешу; Повільна міграція бази на стейджингу. Decided: Реліз 4.2 переносять на 12 грудня; спершу закривають міграцію. Changed: Тарас оновлює дошку і пише клієнтам. Open: Хто перевірить резервну копію перед міграцією."
	if !strings.HasPrefix(r.Text, "Episode of реліз-4.2 (") || !strings.HasSuffix(r.Text, "6 messages): "+want) || res.Chosen != 5 {
		t.Errorf("episode %q (%d items)", r.Text, res.Chosen)
	}
	if r.Provenance[0] != "thread:реліз-4.2" || len(r.Provenance) != 8 || r.Provenance[7] != "summary-by:chat:tiny" {
		t.Errorf("provenance %v", r.Provenance)
	}
	if !strings.Contains(chat.users[0], "[4] Олена: Ні, без кешу немає сенсу.") {
		t.Errorf("material %q", chat.users[0])
	}
	// A small budget: the discussion gives way before the decision.
	small := summarizeWith(t, chat.model(t, time.Second), 90)
	if !strings.Contains(small.Record.Text, "Decided: Реліз 4.2 переносять на 12 грудня") || strings.Contains(small.Record.Text, "Discussed:") {
		t.Errorf("small episode %q", small.Record.Text)
	}
}

// A model that is slow, refuses or answers out of the schema: the rules
// write the episode, and say so.
func TestEpisodeChatModelFallsBack(t *testing.T) {
	valid := `{"discussed": ["MODEL"], "decided": ["MODEL"], "changed": [], "open": []}`
	cases := brokenModels(valid)
	for name, content := range map[string]string{
		"a list missing": `{"discussed": ["MODEL"], "decided": ["MODEL"], "changed": []}`,
		"all empty":      `{"discussed": [], "decided": [], "changed": [], "open": []}`,
		"not strings":    `{"discussed": [1], "decided": ["MODEL"], "changed": [], "open": []}`,
		"empty item":     `{"discussed": [" "], "decided": ["MODEL"], "changed": [], "open": []}`,
		"long item":      `{"discussed": ["` + strings.Repeat("MODEL ", 200) + `"], "decided": [], "changed": [], "open": []}`,
	} {
		cases[name] = fixedAnswer(content)
	}
	for name, answer := range cases {
		t.Run(name, func(t *testing.T) {
			chat := newFakeChat(t, answer)
			r := summarizeWith(t, chat.model(t, callBound(name, 200*time.Millisecond)), 200).Record
			if chat.calls() != 1 || strings.Contains(r.Text, "MODEL") || r.Provenance[len(r.Provenance)-1] != "summary-by:rules" {
				t.Errorf("%d calls: %q %v", chat.calls(), r.Text, r.Provenance)
			}
		})
	}
}

// Recall and digest never ask the model.
func TestChatModelNeverOnTheReadPath(t *testing.T) {
	chat := newFakeChat(t, fixedAnswer(`{"intent": "recent"}`))
	f := open(t, "", func(c *engine.Config) { c.Chat = chat.model(t, time.Second) })
	f.remember(t, "ops", mnemo.NewRecord{Text: "Реліз 4.2 переносять на 12 грудня."})
	ctx := context.Background()
	if _, err := f.svc.Recall(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.RecallRequest{Query: "коли реліз 4.2?"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Digest(mnemo.WithCallerIn(ctx, admin, "ops"), mnemo.DigestRequest{Task: "реліз 4.2", Budget: 500}); err != nil {
		t.Fatal(err)
	}
	if chat.calls() != 0 {
		t.Errorf("the read path asked the model %d times", chat.calls())
	}
}
