package engine_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed"
	"github.com/mnemo-dev/mnemo/internal/synth"
)

// conversation is a short chat whose last turn names none of the words of
// the question it answers.
var conversation = []string{
	"Anna: How was your weekend?",
	"Ben: Busy! We took the kids to the natural history museum.",
	"Anna: Did they like the dinosaur skeletons?",
	"Ben: They were stoked, they kept asking about the bones all week.",
}

func threadRecords(thread string, start time.Time) []mnemo.NewRecord {
	out := make([]mnemo.NewRecord, len(conversation))
	for i, text := range conversation {
		out[i] = mnemo.NewRecord{Text: text, Thread: thread, At: at(start.Add(time.Duration(i) * time.Minute))}
	}
	return out
}

func ownVector(t *testing.T, text string) []float32 {
	t.Helper()
	v, err := embed.NewHash(256).Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func sameVector(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}

func get(t *testing.T, f *fixture, ns, id string) *mnemo.Record {
	t.Helper()
	r, err := f.svc.Get(mnemo.WithCallerIn(context.Background(), admin, ns), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func semanticOf(t *testing.T, f *fixture, ns, query, id string) float64 {
	t.Helper()
	res, err := f.svc.Recall(mnemo.WithCallerIn(context.Background(), admin, ns), mnemo.RecallRequest{Query: query, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.ID == id {
			return h.Factors[mnemo.FactorSemantic]
		}
	}
	return 0
}

func TestThreadContextFindsTerseReplies(t *testing.T) {
	f := open(t, "", nil)
	start := f.now.Add(-time.Hour)
	threaded := f.remember(t, "threaded", threadRecords("chat-1", start)...)
	plain := make([]mnemo.NewRecord, len(conversation))
	for i, r := range threadRecords("", start) {
		plain[i] = r
	}
	loose := f.remember(t, "loose", plain...)

	last := len(conversation) - 1
	query := "did the kids like the dinosaur museum"
	withCtx := semanticOf(t, f, "threaded", query, threaded[last].ID)
	without := semanticOf(t, f, "loose", query, loose[last].ID)
	if !(withCtx > without+0.1) {
		t.Errorf("semantic of the terse reply: %.3f with its thread, %.3f without; want the thread to add context", withCtx, without)
	}

	// The first record of a thread has no context; later ones are
	// normalise(own + ½·previous).
	first := get(t, f, "threaded", threaded[0].ID)
	if !sameVector(first.Embedding, ownVector(t, conversation[0])) {
		t.Error("the first record of a thread should keep its own vector")
	}
	prev := first.Embedding
	for i := 1; i <= last; i++ {
		r := get(t, f, "threaded", threaded[i].ID)
		want := blendRef(ownVector(t, conversation[i]), prev)
		if !sameVector(r.Embedding, want) {
			t.Fatalf("record %d: vector is not own + ½·previous", i)
		}
		prev = r.Embedding
	}
	// Without a thread every record keeps its own vector.
	if r := get(t, f, "loose", loose[last].ID); !sameVector(r.Embedding, ownVector(t, conversation[last])) {
		t.Error("a record without a thread should keep its own vector")
	}
}

func blendRef(own, prev []float32) []float32 {
	out := make([]float32, len(own))
	var n float64
	for i := range own {
		out[i] = own[i] + 0.5*prev[i]
		n += float64(out[i]) * float64(out[i])
	}
	for i := range out {
		out[i] = float32(float64(out[i]) / math.Sqrt(n))
	}
	return out
}

// Appending one record at a time, writing the thread in one batch, writing
// it out of order in one batch, and re-embedding all give the same vectors.
func TestThreadContextSameForBatchAppendAndReembed(t *testing.T) {
	f := open(t, "", nil)
	start := f.now.Add(-time.Hour)
	recs := threadRecords("chat", start)
	batch := f.remember(t, "batch", recs...)
	var appended []mnemo.Written
	for _, r := range recs {
		appended = append(appended, f.remember(t, "append", r)...)
	}
	shuffled := []mnemo.NewRecord{recs[2], recs[0], recs[3], recs[1]}
	out := f.remember(t, "shuffled", shuffled...)
	byText := map[string]string{}
	for _, w := range out {
		byText[w.Text] = w.ID
	}
	for i := range recs {
		b := get(t, f, "batch", batch[i].ID).Embedding
		a := get(t, f, "append", appended[i].ID).Embedding
		s := get(t, f, "shuffled", byText[recs[i].Text]).Embedding
		if !sameVector(a, b) || !sameVector(s, b) {
			t.Fatalf("record %d: batch, append and shuffled writes disagree", i)
		}
	}
	if _, err := f.svc.Reembed(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if !sameVector(get(t, f, "append", appended[i].ID).Embedding, get(t, f, "batch", batch[i].ID).Embedding) {
			t.Fatalf("record %d: reembed changed a vector written in order", i)
		}
	}
}

// A record never carries the words of a record its readers may not see,
// nor of a forgotten one.
func TestThreadContextRespectsClearanceAndForget(t *testing.T) {
	f := open(t, "", nil)
	start := f.now.Add(-time.Hour)
	secret := mnemo.NewRecord{Text: "Launch codes rotate at midnight: orchid-seven", Thread: "ops", AccessLevel: 3, At: at(start)}
	open0 := mnemo.NewRecord{Text: "Shift handover is at noon", Thread: "ops", At: at(start.Add(time.Minute))}
	w := f.remember(t, "ops", secret, open0)
	if r := get(t, f, "ops", w[1].ID); !sameVector(r.Embedding, ownVector(t, open0.Text)) {
		t.Error("a public record took context from a restricted one")
	}
	// A restricted record may take context from a public one.
	later := mnemo.NewRecord{Text: "Codes were rotated", Thread: "ops", AccessLevel: 3, At: at(start.Add(2 * time.Minute))}
	w2 := f.remember(t, "ops", later)
	pub := get(t, f, "ops", w[1].ID)
	if r := get(t, f, "ops", w2[0].ID); !sameVector(r.Embedding, blendRef(ownVector(t, later.Text), pub.Embedding)) {
		t.Error("a restricted record should take context from the latest record it may see")
	}

	// A forgotten record is skipped.
	if _, err := f.svc.Forget(mnemo.WithCallerIn(context.Background(), admin, "ops"), w2[0].ID); err != nil {
		t.Fatal(err)
	}
	next := mnemo.NewRecord{Text: "Next handover moved to 13:00", Thread: "ops", AccessLevel: 3, At: at(start.Add(3 * time.Minute))}
	w3 := f.remember(t, "ops", next)
	if r := get(t, f, "ops", w3[0].ID); !sameVector(r.Embedding, blendRef(ownVector(t, next.Text), pub.Embedding)) {
		t.Error("a forgotten record should not be context")
	}

	// Lowering a record's access level recomputes its context; so does
	// leaving the thread.
	lvl := 0
	u, err := f.svc.Update(mnemo.WithCallerIn(context.Background(), admin, "ops"), w3[0].ID, mnemo.RecordPatch{AccessLevel: &lvl})
	if err != nil {
		t.Fatal(err)
	}
	if !sameVector(u.Embedding, blendRef(ownVector(t, next.Text), pub.Embedding)) {
		t.Error("update to level 0: wrong context")
	}
	none := ""
	u, err = f.svc.Update(mnemo.WithCallerIn(context.Background(), admin, "ops"), w3[0].ID, mnemo.RecordPatch{Thread: &none})
	if err != nil {
		t.Fatal(err)
	}
	if !sameVector(u.Embedding, ownVector(t, next.Text)) {
		t.Error("a record that leaves its thread should keep its own vector")
	}
	if r := get(t, f, "ops", w3[0].ID); r.Thread != "" || !sameVector(r.Embedding, u.Embedding) {
		t.Error("the update was not stored")
	}
}

func TestThreadValidation(t *testing.T) {
	f := open(t, "", nil)
	long := make([]byte, mnemo.MaxThreadBytes+1)
	for i := range long {
		long[i] = 'a'
	}
	for name, thread := range map[string]string{"too long": string(long), "bad utf-8": "\xff\xfe"} {
		_, err := f.svc.Remember(mnemo.WithCallerIn(context.Background(), admin, ""), []mnemo.NewRecord{{Text: "x y z", Thread: thread}}, mnemo.WriteOptions{})
		if err == nil {
			t.Errorf("%s: thread accepted", name)
		}
	}
	if n, _ := f.store.Count(context.Background(), mnemo.DefaultNamespace); n != 0 {
		t.Errorf("%d records stored after rejected writes", n)
	}
}

// The thread factor lifts the turns of the conversation a query is about;
// records without a thread carry no thread factor, and presets that do not
// weigh threads ignore it.
func TestThreadFactor(t *testing.T) {
	f := open(t, "", nil)
	start := f.now.Add(-time.Hour)
	var recs []mnemo.NewRecord
	for i, text := range []string{
		"Anna: Did the Svalbard ground station pass restore the telemetry link?",
		"Ben: Yes, all green since 14:05.",
		"Anna: Great, log it in the handover.",
	} {
		recs = append(recs, mnemo.NewRecord{Text: text, Thread: "ops-1", At: at(start.Add(time.Duration(i) * time.Minute))})
	}
	for i, text := range []string{
		"Carl: The canteen telemetry dashboard is down again.",
		"Dana: I will reboot it after lunch.",
	} {
		recs = append(recs, mnemo.NewRecord{Text: text, Thread: "ops-2", At: at(start.Add(time.Duration(10+i) * time.Minute))})
	}
	recs = append(recs, mnemo.NewRecord{Text: "The coffee machine on floor 2 is broken again.", At: at(start)})
	w := f.remember(t, "", recs...)

	query := "Svalbard ground station pass telemetry link"
	res, err := f.svc.Recall(mnemo.WithCallerIn(context.Background(), admin, ""), mnemo.RecallRequest{Query: query, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.Weights[mnemo.FactorThread] != 0.10 {
		t.Errorf("weights %v: want thread 0.10", res.Weights)
	}
	rank := map[string]int{}
	hits := map[string]mnemo.RecallHit{}
	for i, h := range res.Hits {
		rank[h.ID], hits[h.ID] = i, h
	}
	reply, other := w[1].ID, w[4].ID
	if hits[reply].Factors[mnemo.FactorThread] != 1 {
		t.Errorf("reply in the query's thread: thread factor %v, want 1", hits[reply].Factors)
	}
	if th, ok := hits[other].Factors[mnemo.FactorThread]; ok && th >= 1 {
		t.Errorf("record of the other thread: thread factor %v, want < 1", th)
	}
	if _, ok := rank[reply]; !ok {
		t.Fatal("the reply was not recalled")
	}
	if r, ok := rank[other]; ok && r < rank[reply] {
		t.Errorf("a turn of the other conversation ranks above the reply in the query's conversation")
	}
	if h, ok := hits[w[5].ID]; ok {
		if _, has := h.Factors[mnemo.FactorThread]; has {
			t.Error("a record without a thread has a thread factor")
		}
	}

	aura, err := f.svc.Recall(mnemo.WithCallerIn(context.Background(), admin, ""), mnemo.RecallRequest{Query: query, K: 10, Preset: "aura"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range aura.Hits {
		if _, has := h.Factors[mnemo.FactorThread]; has {
			t.Fatal("aura does not weigh threads, yet a hit has a thread factor")
		}
	}
	if _, has := aura.Weights[mnemo.FactorThread]; has {
		t.Error("aura weights list a thread weight")
	}
}

// BenchmarkRememberAppend measures appending one record to a store of
// 20,000 records, without a thread and as the next turn of a 50-turn
// thread (which also reads the thread's latest records for context):
//
//	go test ./engine -run '^$' -bench RememberAppend
func BenchmarkRememberAppend(b *testing.B) {
	f := open(b, "", nil)
	ctx := context.Background()
	syn := synth.NewWorkload(7, f.now)
	for range 20 {
		if _, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, ""), syn.Records(1000), mnemo.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 50 {
		r := syn.Record()
		r.Thread, r.At = "chat", at(f.now.Add(time.Duration(i-1000)*time.Minute))
		if _, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, ""), []mnemo.NewRecord{r}, mnemo.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	for _, thread := range []string{"", "chat"} {
		name := "no-thread"
		if thread != "" {
			name = "thread"
		}
		b.Run(name, func(b *testing.B) {
			recs := syn.Records(b.N)
			b.ResetTimer()
			for i := range b.N {
				recs[i].Thread, recs[i].At = thread, at(f.now.Add(time.Duration(i)*time.Second))
				if _, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, ""), recs[i:i+1], mnemo.WriteOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Whatever happens to a thread — appends, batches dated into its middle,
// edits of text, access level or thread, forgets, restores, merges — its
// live records' vectors are what Reembed computes from scratch.
func TestThreadVectorsStayCanonical(t *testing.T) {
	ctx := context.Background()
	for seed := range 8 {
		f := open(t, "", nil)
		rng := rand.New(rand.NewSource(int64(seed)))
		start := f.now.Add(-100 * time.Hour)
		words := strings.Fields("pass uplink telemetry battery thermal orbit relay antenna burn window cargo crew docking solar panel")
		text := func() string {
			n := 3 + rng.Intn(5)
			out := make([]string, n)
			for i := range out {
				out[i] = words[rng.Intn(len(words))]
			}
			return strings.Join(out, " ")
		}
		var ids []string
		newRec := func() mnemo.NewRecord {
			return mnemo.NewRecord{Text: text(), Thread: []string{"a", "b", ""}[rng.Intn(3)], AccessLevel: rng.Intn(3),
				At: at(start.Add(time.Duration(rng.Intn(100)) * time.Hour))}
		}
		for step := range 60 {
			switch op := rng.Intn(10); {
			case op < 4 || len(ids) == 0: // a batch of one to five records, maybe merging duplicates
				n := 1 + rng.Intn(5)
				batch := make([]mnemo.NewRecord, n)
				for i := range batch {
					batch[i] = newRec()
				}
				if len(ids) > 0 && rng.Intn(4) == 0 {
					old := get(t, f, "", ids[rng.Intn(len(ids))])
					batch[0].Text, batch[0].Thread, batch[0].AccessLevel = old.Text, old.Thread, old.AccessLevel
				}
				out, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, ""), batch, mnemo.WriteOptions{Dedup: rng.Intn(2) == 0})
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range out {
					if !w.Merged {
						ids = append(ids, w.ID)
					}
				}
			case op < 7: // edit text, level or thread
				id := ids[rng.Intn(len(ids))]
				var p mnemo.RecordPatch
				switch rng.Intn(3) {
				case 0:
					tx := text()
					p.Text = &tx
				case 1:
					l := rng.Intn(3)
					p.AccessLevel = &l
				default:
					th := []string{"a", "b", ""}[rng.Intn(3)]
					p.Thread = &th
				}
				if _, err := f.svc.Update(mnemo.WithCallerIn(ctx, admin, ""), id, p); err != nil && mnemo.ErrorCode(err) != mnemo.ECONFLICT {
					t.Fatalf("step %d: update: %v", step, err)
				}
			case op < 9:
				if _, err := f.svc.Forget(mnemo.WithCallerIn(ctx, admin, ""), ids[rng.Intn(len(ids))]); err != nil {
					t.Fatal(err)
				}
			default:
				if _, err := f.svc.Restore(mnemo.WithCallerIn(ctx, admin, ""), ids[rng.Intn(len(ids))]); err != nil {
					t.Fatal(err)
				}
			}
		}
		before := map[string][]float32{}
		for _, id := range ids {
			if r := get(t, f, "", id); r.DeletedAt == nil {
				before[id] = r.Embedding
			}
		}
		if _, err := f.svc.Reembed(ctx, nil); err != nil {
			t.Fatal(err)
		}
		for id, v := range before {
			if r := get(t, f, "", id); !sameVector(r.Embedding, v) {
				t.Fatalf("seed %d: record %s (thread %q, level %d): vector differs from a fresh reembed", seed, id, r.Thread, r.AccessLevel)
			}
		}
	}
}

// Writers appending to one thread at once (a user's and an assistant's
// hook, say) still leave the thread canonical.
func TestThreadConcurrentAppends(t *testing.T) {
	f := open(t, "", nil)
	ctx := context.Background()
	start := f.now.Add(-time.Hour)
	const writers, each = 6, 15
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				at := start.Add(time.Duration(i*writers+w) * time.Second)
				text := fmt.Sprintf("writer %d says turn %d about the relay uplink", w, i)
				if _, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, ""), []mnemo.NewRecord{{Text: text, Thread: "chat", At: &at}}, mnemo.WriteOptions{}); err != nil {
					errs <- err
					return
				}
				if i%5 == 4 {
					if _, err := f.svc.Remember(mnemo.WithCallerIn(ctx, admin, ""), []mnemo.NewRecord{{Text: "side note " + text, Thread: "other", At: &at}}, mnemo.WriteOptions{}); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	recs, err := f.svc.List(mnemo.WithCallerIn(ctx, admin, ""), mnemo.ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	before := map[string][]float32{}
	for _, r := range recs {
		before[r.ID] = r.Embedding
	}
	if _, err := f.svc.Reembed(ctx, nil); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for id, v := range before {
		if !sameVector(get(t, f, "", id).Embedding, v) {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d vectors differ from a fresh reembed after concurrent appends", bad, len(before))
	}
}
