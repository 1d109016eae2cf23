package episodes_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/enginetest"
	"github.com/mnemo-dev/mnemo/internal/llmtest"
)

// extracted returns the extracted memories of ns that c may see.
func extracted(t *testing.T, f *enginetest.Fixture, c mnemo.Caller, ns string) []*mnemo.Record {
	t.Helper()
	got, err := f.Svc.List(mnemo.WithCallerIn(context.Background(), c, ns), mnemo.ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var out []*mnemo.Record
	for _, r := range got {
		if r.Source == "extracted" {
			out = append(out, r)
		}
	}
	return out
}

// Extractor.All (serve's extraction job) reads every thread of every
// namespace once, whatever the number of its new messages, and reads a
// thread again only when it has new messages.
func TestExtractAllReadsEachMessageOnce(t *testing.T) {
	f := enginetest.Clocked(t, "", nil) // no extraction on write
	ctx := context.Background()
	start := f.Now.Add(-time.Hour)
	f.Remember(t, "ops", mnemo.NewRecord{Text: "Ben: We decided to route night passes via Svalbard.", Thread: "shift-7", At: enginetest.Ptr(start)})
	f.Remember(t, "ops", mnemo.NewRecord{Text: "Anna: Noted.", Thread: "shift-7", At: enginetest.Ptr(start.Add(time.Minute))})
	f.Remember(t, "lab", mnemo.NewRecord{Text: "Kim: Samples must never leave the cold room.", Thread: "bench", At: enginetest.Ptr(start)})
	f.Remember(t, "lab", mnemo.NewRecord{Text: "No thread: we decided nothing here."})

	n, err := f.Extractor().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n["ops"] != 1 || n["lab"] != 1 || len(n) != 2 {
		t.Fatalf("first run: %v", n)
	}
	if ops := extracted(t, f, enginetest.Admin, "ops"); len(ops) != 1 || ops[0].Kind != mnemo.KindDecision || !strings.Contains(ops[0].Text, "Svalbard") {
		t.Fatalf("ops: %+v", ops)
	}
	// Nothing new: nothing read again.
	if n, err := f.Extractor().All(ctx); err != nil || len(n) != 0 {
		t.Fatalf("second run: %v, %v", n, err)
	}
	// One new message: it alone is read.
	f.Remember(t, "ops", mnemo.NewRecord{Text: "Anna: Pass briefs must state the backup-link status.", Thread: "shift-7", At: enginetest.Ptr(start.Add(2 * time.Minute))})
	if n, err := f.Extractor().All(ctx); err != nil || n["ops"] != 1 || len(n) != 1 {
		t.Fatalf("third run: %v, %v", n, err)
	}
	if ops := extracted(t, f, enginetest.Admin, "ops"); len(ops) != 2 {
		t.Fatalf("ops after the new message: %d memories", len(ops))
	}
}

// An extracted memory is as restricted as its message, stays in its
// namespace, and a caller who may not see the message sees nothing of
// it; a writer of low clearance does not hide the thread's restricted
// messages from extraction.
func TestExtractionKeepsClearanceAndNamespace(t *testing.T) {
	f := enginetest.Extracting(t, 2, nil)
	ctx := context.Background()
	start := f.Now.Add(-time.Hour)
	low := mnemo.Caller{Name: "low", Clearance: 0, Role: mnemo.RoleAdmin}
	flush := func() {
		if err := f.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	f.Remember(t, "ops", mnemo.NewRecord{Text: "Ben: We decided to move the secret relay to Inuvik.", Thread: "t", AccessLevel: 2, At: enginetest.Ptr(start)})
	flush()
	// A writer of clearance 0 adds two messages: the extraction their
	// writes queue reads the thread whole, the restricted message too
	// (extraction moves past what it read: had it read as the writer, the
	// restricted message would never be read).
	for i, text := range []string{"Anna: Briefs must always name the relay.", "Kim: Thanks."} {
		if _, err := f.Svc.Remember(mnemo.WithCallerIn(ctx, low, "ops"), []mnemo.NewRecord{{Text: text, Thread: "t", At: enginetest.Ptr(start.Add(time.Duration(i+1) * time.Minute))}}, mnemo.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		flush()
	}
	// Serve's job: another thread at level 3, another namespace.
	f.Remember(t, "ops", mnemo.NewRecord{Text: "Ben: We decided to keep the relay keys offline.", Thread: "u", AccessLevel: 3, At: enginetest.Ptr(start)})
	f.Remember(t, "other", mnemo.NewRecord{Text: "Ben: We decided to paint the van red.", Thread: "t", At: enginetest.Ptr(start)})
	if _, err := f.Extractor().All(ctx); err != nil {
		t.Fatal(err)
	}
	all := extracted(t, f, enginetest.Admin, "ops")
	levels := map[string]int{}
	for _, r := range all {
		switch {
		case strings.Contains(r.Text, "secret relay"):
			levels["secret relay"] = r.AccessLevel
		case strings.Contains(r.Text, "relay keys"):
			levels["relay keys"] = r.AccessLevel
		case strings.Contains(r.Text, "name the relay"):
			levels["name the relay"] = r.AccessLevel
		case strings.Contains(r.Text, "van"):
			t.Fatalf("another namespace's memory in ops: %q", r.Text)
		}
	}
	if len(levels) != 3 || levels["secret relay"] != 2 || levels["relay keys"] != 3 || levels["name the relay"] != 0 {
		t.Fatalf("levels %v of %d memories", levels, len(all))
	}
	for _, r := range extracted(t, f, low, "ops") {
		if strings.Contains(r.Text, "secret") || strings.Contains(r.Text, "keys") {
			t.Fatalf("clearance 0 sees %q", r.Text)
		}
	}
	res, err := f.Svc.Recall(mnemo.WithCallerIn(ctx, low, "ops"), mnemo.RecallRequest{Query: "secret relay Inuvik keys offline", K: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if strings.Contains(h.Text, "secret") || strings.Contains(h.Text, "offline") {
			t.Fatalf("clearance 0 recalls %q", h.Text)
		}
	}
	if other := extracted(t, f, enginetest.Admin, "other"); len(other) != 1 || !strings.Contains(other[0].Text, "van") {
		t.Fatalf("other: %+v", other)
	}
}

// The chat model reads the messages of one access level at a time: a
// memory it attributes to an open message cannot carry the words of a
// restricted one, and each memory is as restricted as its message.
func TestModelExtractionOneLevelPerCall(t *testing.T) {
	chat := llmtest.NewFakeChat(t, func(_ http.ResponseWriter, _, user string) (string, string) {
		if strings.Contains(user, "Inuvik") {
			return `{"memories":[{"kind":"decision","text":"The secret relay moves to Inuvik.","message":1}]}`, "stop"
		}
		return `{"memories":[{"kind":"rule","text":"Briefs always name the relay.","message":1}]}`, "stop"
	})
	f := enginetest.Clocked(t, "", func(c *engine.Config) { c.Chat = chat.Model(t, 5*time.Second) })
	ctx := context.Background()
	start := f.Now.Add(-time.Hour)
	f.Remember(t, "ops",
		mnemo.NewRecord{Text: "Anna: Briefs must always name the relay.", Thread: "t", At: enginetest.Ptr(start)},
		mnemo.NewRecord{Text: "Ben: We decided to move the secret relay to Inuvik.", Thread: "t", AccessLevel: 2, At: enginetest.Ptr(start.Add(time.Minute))})
	if _, err := f.Extractor().All(ctx); err != nil {
		t.Fatal(err)
	}
	users := chat.Users()
	if len(users) != 2 {
		t.Fatalf("%d model calls, want one per access level", len(users))
	}
	for _, u := range users {
		if strings.Contains(u, "Inuvik") && strings.Contains(u, "Briefs") {
			t.Fatalf("one call read both levels:\n%s", u)
		}
	}
	got := map[string]int{}
	for _, r := range extracted(t, f, enginetest.Admin, "ops") {
		got[r.Text] = r.AccessLevel
		if !slices.Contains(r.Provenance, "extracted-by:chat:tiny") {
			t.Fatalf("provenance %v", r.Provenance)
		}
	}
	if len(got) != 2 || got["Decided (Ben): The secret relay moves to Inuvik."] != 2 {
		t.Fatalf("memories %v", got)
	}
}
