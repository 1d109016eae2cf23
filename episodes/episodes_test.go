package episodes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/episodes"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
	"github.com/mnemo-dev/mnemo/internal/extract"
	"github.com/mnemo-dev/mnemo/internal/llmtest"
	"github.com/mnemo-dev/mnemo/llm"
)

func TestSummarizeThread(t *testing.T) {
	f := enginetest.Clocked(t, "", nil)
	ctx := context.Background()
	start := f.Now.Add(-2 * time.Hour)
	turns := []string{
		"Anna: The Svalbard pass at 02:10 lost the uplink for four minutes. We switched to the backup link.",
		"Ben: Was the backup link stable? The telemetry gap worries me.",
		"Anna: Stable after the switch. The gap was four minutes, all frames recovered from the buffer.",
		"Ben: Good. Let's add the backup-link status to every pass brief from now on.",
		"Anna: Agreed. I will update the pass brief template tonight.",
		"Ben: Thanks!",
	}
	var in []mnemo.NewRecord
	for i, tx := range turns {
		in = append(in, mnemo.NewRecord{Text: tx, Thread: "shift-7", At: enginetest.Ptr(start.Add(time.Duration(i) * time.Minute))})
	}
	f.Remember(t, "ops", in...)

	res, err := f.Svc.Summarize(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), "shift-7", 70)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Record
	if !res.Created || r.Kind != mnemo.KindEpisode || r.ID != episodes.EpisodeID("ops", "shift-7") || res.Records != 6 || res.Chosen == 0 {
		t.Fatalf("episode %+v", res)
	}
	if !strings.HasPrefix(r.Text, "Episode of shift-7 (") || !strings.Contains(r.Text, "6 messages") {
		t.Errorf("text %q", r.Text)
	}
	if n := f.Tok.Count(r.Text); n > 70 {
		t.Errorf("episode is %d tokens, over the budget of 70: %q", n, r.Text)
	}
	if strings.Contains(r.Text, "Thanks!") {
		t.Errorf("the episode kept a sentence too short to matter: %q", r.Text)
	}
	if r.Provenance[0] != "thread:shift-7" || len(r.Provenance) < 2 || !strings.HasPrefix(r.Provenance[1], mnemo.MissedRef) {
		t.Errorf("provenance %v", r.Provenance)
	}
	if !r.CreatedAt.Equal(start.Add(5 * time.Minute)) {
		t.Errorf("episode time %v, want the last turn's", r.CreatedAt)
	}
	// A larger budget keeps more; summarising again updates the one episode.
	f.Remember(t, "ops", mnemo.NewRecord{Text: "Anna: Template updated, the backup-link status is now a required field.",
		Thread: "shift-7", At: enginetest.Ptr(start.Add(10 * time.Minute))})
	again, err := f.Svc.Summarize(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), "shift-7", 400)
	if err != nil || again.Created || again.Record.ID != r.ID || again.Records != 7 || again.Chosen <= res.Chosen {
		t.Fatalf("second summary: %+v %v", again, err)
	}
	if hist, _ := f.Svc.History(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), r.ID); len(hist) != 2 {
		t.Errorf("history has %d revisions, want 2", len(hist))
	}
	d, err := f.Svc.Digest(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), mnemo.DigestRequest{Task: "what happened with the backup link on the Svalbard pass", Budget: 2000})
	if err != nil || !strings.Contains(d.Markdown, "episode — Episode of shift-7") {
		t.Errorf("digest lacks the episode: %v\n%s", err, d.Markdown)
	}

	f.Remember(t, "ops", mnemo.NewRecord{Text: "a lone turn", Thread: "solo"})
	for name, call := range map[string]func() error{
		"one record": func() error {
			_, err := f.Svc.Summarize(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), "solo", 0)
			return err
		},
		"no thread": func() error {
			_, err := f.Svc.Summarize(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), "nope", 0)
			return err
		},
	} {
		if err := call(); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
			t.Errorf("%s: %v, want %s", name, err, mnemo.ENOTFOUND)
		}
	}
	for name, call := range map[string]func() error{
		"empty name": func() error {
			_, err := f.Svc.Summarize(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), " ", 0)
			return err
		},
		"tiny budget": func() error {
			_, err := f.Svc.Summarize(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), "shift-7", 5)
			return err
		},
	} {
		if err := call(); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%s: %v, want %s", name, err, mnemo.EINVALID)
		}
	}
}

func TestSplitSentencesKeepsTheSpeaker(t *testing.T) {
	got := episodes.SplitSentences("Anna: We switched to the backup link. Was it stable? Yes!\nThe gap was four minutes.")
	want := []string{"Anna: We switched to the backup link.", "Anna: Was it stable?", "Anna: The gap was four minutes."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestSummarizeIdleThreads(t *testing.T) {
	f := enginetest.Clocked(t, "", nil)
	ctx := context.Background()
	start := f.Now.Add(-3 * time.Hour)
	add := func(thread string, n int, from time.Time) {
		for i := range n {
			f.Remember(t, "ops", mnemo.NewRecord{Text: fmt.Sprintf("Anna: The relay pass number %d of %s went through the backup link.", i, thread),
				Thread: thread, At: enginetest.Ptr(from.Add(time.Duration(i) * time.Minute))})
		}
	}
	add("quiet", 5, start)                     // idle for hours: summarised
	add("short", 2, start)                     // too few records
	add("busy", 5, f.Now.Add(-10*time.Minute)) // still active
	got, err := episodes.SummarizeIdle(ctx, f.Svc, f.Svc.Store(), f.Svc.Now(), time.Hour, 4)
	if err != nil || got["ops"] != 1 {
		t.Fatalf("first pass: %v %v", got, err)
	}
	if _, err := f.Svc.Get(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"), episodes.EpisodeID("ops", "quiet")); err != nil {
		t.Fatalf("no episode for the quiet thread: %v", err)
	}
	if got, _ := episodes.SummarizeIdle(ctx, f.Svc, f.Svc.Store(), f.Svc.Now(), time.Hour, 4); got["ops"] != 0 {
		t.Errorf("second pass rewrote an up-to-date episode: %v", got)
	}
	f.Now = f.Now.Add(2 * time.Hour) // busy goes quiet; quiet gains a record, then goes quiet again
	add("quiet", 1, f.Now.Add(-90*time.Minute))
	if got, _ := episodes.SummarizeIdle(ctx, f.Svc, f.Svc.Store(), f.Svc.Now(), time.Hour, 4); got["ops"] != 2 {
		t.Errorf("third pass: %v, want busy's new episode and quiet's refresh", got)
	}
	threads, err := f.Svc.Threads(mnemo.WithCallerIn(ctx, enginetest.Admin, "ops"))
	if err != nil || len(threads) != 3 || threads[0].Name != "quiet" || threads[0].Records != 6 {
		t.Errorf("threads %+v %v", threads, err)
	}
}

// TestEpisodeQuality measures how many of the labelled decisions and open
// questions of the labelled threads (extract/testdata) a rules episode of
// the default budget keeps: a message counts as kept when the episode
// holds one of its sentences. Run with -v for the figures of
// docs/BENCHMARKS.md.
func TestEpisodeQuality(t *testing.T) {
	for _, file := range []string{"labelled.json", "heldout.json"} {
		data, err := os.ReadFile("../internal/extract/testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		var set struct {
			Threads []struct {
				Name     string
				Messages []struct {
					Text string
					Gold []string
				}
			}
		}
		if err := json.Unmarshal(data, &set); err != nil {
			t.Fatal(err)
		}
		for _, budget := range []int{mnemo.DefaultEpisodeBudget, 80} {
			f := enginetest.Clocked(t, "", nil)
			kept, total := map[string]int{}, map[string]int{}
			for _, th := range set.Threads {
				for i, m := range th.Messages {
					f.Remember(t, "ops", mnemo.NewRecord{Text: m.Text, Thread: th.Name, At: enginetest.Ptr(f.Now.Add(time.Duration(i-60) * time.Minute))})
				}
				res, err := f.Svc.Summarize(mnemo.WithCallerIn(context.Background(), enginetest.Admin, "ops"), th.Name, budget)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range th.Messages {
					in := false
					for _, s := range episodes.SplitSentences(m.Text) {
						_, body := extract.Speaker(s)
						in = in || strings.Contains(res.Record.Text, body)
					}
					for _, g := range m.Gold {
						if g == extract.LabelDecision || g == extract.LabelQuestion {
							total[g]++
							if in {
								kept[g]++
							}
						}
					}
				}
			}
			t.Logf("%s: rules episodes (budget %d) keep %d of %d decisions and %d of %d open questions",
				file, budget, kept[extract.LabelDecision], total[extract.LabelDecision], kept[extract.LabelQuestion], total[extract.LabelQuestion])
		}
	}
}

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
	f := enginetest.Clocked(t, "", func(c *engine.Config) { c.Chat = model })
	for i, tx := range ukrainianRelease {
		f.Remember(t, "ops", mnemo.NewRecord{Text: tx, Thread: "реліз-4.2", At: enginetest.Ptr(f.Now.Add(time.Duration(i-60) * time.Minute))})
	}
	res, err := f.Svc.Summarize(mnemo.WithCallerIn(context.Background(), enginetest.Admin, "ops"), "реліз-4.2", budget)
	if err != nil {
		t.Fatal(err)
	}
	if n := f.Tok.Count(res.Record.Text); n > budget {
		t.Errorf("episode of %d tokens over the budget of %d: %q", n, budget, res.Record.Text)
	}
	return res
}

// With a chat model, the episode is what was discussed, decided, changed
// and left open, within the budget (decisions are the last to give way),
// and says which model wrote it.
func TestEpisodeByChatModel(t *testing.T) {
	chat := llmtest.NewFakeChat(t, llmtest.FixedAnswer(`{"discussed": ["Чи випускати 4.2 без нового кешу", "Повільна міграція бази на стейджингу"],
		"decided": ["Реліз 4.2 переносять на 12 грудня; спершу закривають міграцію"],
		"changed": ["Тарас оновлює дошку і пише клієнтам"],
		"open": ["Хто перевірить резервну копію перед міграцією"], "mood": "calm"}`))
	res := summarizeWith(t, chat.Model(t, time.Second), 400)
	r := res.Record
	want := "Discussed: Чи випускати 4.2 без нового кешу; Повільна міграція бази на стейджингу. Decided: Реліз 4.2 переносять на 12 грудня; спершу закривають міграцію. Changed: Тарас оновлює дошку і пише клієнтам. Open: Хто перевірить резервну копію перед міграцією."
	if !strings.HasPrefix(r.Text, "Episode of реліз-4.2 (") || !strings.HasSuffix(r.Text, "6 messages): "+want) || res.Chosen != 5 {
		t.Errorf("episode %q (%d items)", r.Text, res.Chosen)
	}
	if r.Provenance[0] != "thread:реліз-4.2" || len(r.Provenance) != 8 || r.Provenance[7] != "summary-by:chat:tiny" {
		t.Errorf("provenance %v", r.Provenance)
	}
	if !strings.Contains(chat.Users()[0], "[4] Олена: Ні, без кешу немає сенсу.") {
		t.Errorf("material %q", chat.Users()[0])
	}
	// A small budget: the discussion gives way before the decision.
	small := summarizeWith(t, chat.Model(t, time.Second), 90)
	if !strings.Contains(small.Record.Text, "Decided: Реліз 4.2 переносять на 12 грудня") || strings.Contains(small.Record.Text, "Discussed:") {
		t.Errorf("small episode %q", small.Record.Text)
	}
}

// A model that is slow, refuses or answers out of the schema: the rules
// write the episode, and say so.
func TestEpisodeChatModelFallsBack(t *testing.T) {
	valid := `{"discussed": ["MODEL"], "decided": ["MODEL"], "changed": [], "open": []}`
	cases := llmtest.BrokenModels(valid)
	for name, content := range map[string]string{
		"a list missing": `{"discussed": ["MODEL"], "decided": ["MODEL"], "changed": []}`,
		"all empty":      `{"discussed": [], "decided": [], "changed": [], "open": []}`,
		"not strings":    `{"discussed": [1], "decided": ["MODEL"], "changed": [], "open": []}`,
		"empty item":     `{"discussed": [" "], "decided": ["MODEL"], "changed": [], "open": []}`,
		"long item":      `{"discussed": ["` + strings.Repeat("MODEL ", 200) + `"], "decided": [], "changed": [], "open": []}`,
	} {
		cases[name] = llmtest.FixedAnswer(content)
	}
	for name, answer := range cases {
		t.Run(name, func(t *testing.T) {
			chat := llmtest.NewFakeChat(t, answer)
			r := summarizeWith(t, chat.Model(t, llmtest.CallBound(name, 200*time.Millisecond)), 200).Record
			if chat.Calls() != 1 || strings.Contains(r.Text, "MODEL") || r.Provenance[len(r.Provenance)-1] != "summary-by:rules" {
				t.Errorf("%d calls: %q %v", chat.Calls(), r.Text, r.Provenance)
			}
		})
	}
}
