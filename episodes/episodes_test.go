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
	"github.com/mnemo-dev/mnemo/episodes"
	"github.com/mnemo-dev/mnemo/extract"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
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
		data, err := os.ReadFile("../extract/testdata/" + file)
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
