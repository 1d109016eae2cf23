package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/episodes"
)

// mergeThread writes a shift's thread, in which a decision is said in one
// message (at level), and unrelated records; it runs extraction and
// returns the decision's message id.
func mergeThread(t *testing.T, f *fixture, level int) string {
	t.Helper()
	start := f.now.Add(-2 * time.Hour)
	var id string
	for i, m := range []string{
		"Anna: The Svalbard pass lost the uplink for four minutes last night.",
		"Ben: We decided to route night passes via Svalbard until Inuvik is back.",
		"Kim: Thanks, noted.",
	} {
		lv := 0
		if i == 1 {
			lv = level
		}
		w := f.remember(t, "ops", mnemo.NewRecord{Text: m, Thread: "shift-7", AccessLevel: lv, At: at(start.Add(time.Duration(i) * time.Minute))})
		if i == 1 {
			id = w[0].ID
		}
	}
	f.remember(t, "ops",
		mnemo.NewRecord{Text: "Night pass briefs list the ground stations in the order of the passes."},
		mnemo.NewRecord{Text: "The Inuvik antenna is down for repairs until the spare part arrives."},
		mnemo.NewRecord{Text: "Lunch options near the office include a ramen bar."})
	if _, err := (episodes.Extractor{Store: f.svc.Store(), Records: f.svc, Lock: f.svc.LockThread}).All(context.Background()); err != nil {
		t.Fatal(err)
	}
	return id
}

// foldDigest runs a digest and checks that the budget holds and that the
// tokens it reports are those of its Markdown.
func foldDigest(t *testing.T, f *fixture, c mnemo.Caller, req mnemo.DigestRequest) *mnemo.Digest {
	t.Helper()
	d, err := f.svc.Digest(mnemo.WithCallerIn(context.Background(), c, "ops"), req)
	if err != nil {
		t.Fatal(err)
	}
	if n := f.tok.Count(d.Markdown); d.UsedTokens > d.Budget || n != d.UsedTokens {
		t.Fatalf("used %d tokens of %d, the Markdown has %d:\n%s", d.UsedTokens, d.Budget, n, d.Markdown)
	}
	return d
}

// foldEntryOf returns the entry of id, or nil.
func foldEntryOf(d *mnemo.Digest, id string) *mnemo.DigestEntry {
	for i := range d.Entries {
		if d.Entries[i].ID == id {
			return &d.Entries[i]
		}
	}
	return nil
}

// foldMemoryOf returns the digest's entry of the memory extracted from msg.
func foldMemoryOf(d *mnemo.Digest, msg string) *mnemo.DigestEntry {
	for i, e := range d.Entries {
		if e.Kind == mnemo.KindDecision && slices.Contains(e.Provenance, mnemo.MissedRef+msg) {
			return &d.Entries[i]
		}
	}
	return nil
}

// A decision said in a message and extracted shows once in a digest
// about it: the extracted memory, naming its message, which is not placed
// beside it; the budget holds. With the intent why the memory ranks
// above its message (the message is never placed); with general, below
// it (the message, placed first, is taken out when the memory is placed).
func TestDigestFoldsMessagesUnderTheirMemory(t *testing.T) {
	for _, intent := range []string{"why", "general"} {
		t.Run(intent, func(t *testing.T) { testDigestFold(t, intent) })
	}
}

func testDigestFold(t *testing.T, intent string) {
	f := open(t, "", nil)
	msg := mergeThread(t, f, 0)
	ref := mnemo.ShortRef(msg)
	d := foldDigest(t, f, admin, mnemo.DigestRequest{Task: "why do night passes route via Svalbard", Budget: 2000, Intent: intent})
	mem := foldMemoryOf(d, msg)
	if mem == nil {
		t.Fatalf("no extracted decision in the digest:\n%s", d.Markdown)
	}
	if foldEntryOf(d, msg) != nil {
		t.Fatalf("the message is placed beside its memory:\n%s", d.Markdown)
	}
	if len(mem.Covers) != 1 || mem.Covers[0] != msg {
		t.Fatalf("covers %v, want [%s]", mem.Covers, msg)
	}
	if !strings.Contains(d.Markdown, "\n  - from: "+ref+"\n") || strings.Contains(d.Markdown, "["+ref) {
		t.Fatalf("the memory does not name its message, or the message has an entry of its own:\n%s", d.Markdown)
	}
	if strings.Contains(d.Markdown, "Ben: We decided") {
		t.Fatalf("the message's text shows beside its memory:\n%s", d.Markdown)
	}
	if d.Omitted != 0 {
		t.Fatalf("%d left out of a large budget", d.Omitted)
	}
	// The JSON carries the fold.
	if b := string(d.AppendJSON(nil)); !strings.Contains(b, `"covers":["`+msg+`"]`) {
		t.Fatalf("JSON without covers: %s", b)
	}

	// The tokens of the folded message go to the other entries: at the
	// least budget holding this digest whole, the message's entry would
	// not fit beside the others.
	low := d.UsedTokens
	var tight *mnemo.Digest
	for b := low; b < low+200; b++ {
		x := foldDigest(t, f, admin, mnemo.DigestRequest{Task: "why do night passes route via Svalbard", Budget: b, Intent: intent})
		if x.Omitted == 0 && len(x.Entries) == len(d.Entries) {
			tight = x
			break
		}
	}
	if tight == nil || foldMemoryOf(tight, msg) == nil || foldEntryOf(tight, msg) != nil {
		t.Fatalf("no budget near %d holds the folded digest", low)
	}
	alone := foldDigest(t, f, admin, mnemo.DigestRequest{Task: "why do night passes route via Svalbard", Budget: 2000,
		Intent: intent, Filter: mnemo.Filter{Thread: "shift-7"}})
	e := foldEntryOf(alone, msg)
	if e == nil {
		t.Fatalf("the message is not placed when its memory is no candidate:\n%s", alone.Markdown)
	}
	if slack := tight.Budget - tight.UsedTokens; e.Tokens <= slack {
		t.Fatalf("the message (%d tokens) would fit in the %d tokens left", e.Tokens, slack)
	}
}

// When the memory is no candidate (a thread filter: extracted memories
// have no thread), the message is placed as it always was.
func TestDigestMessageAloneUnchanged(t *testing.T) {
	f := open(t, "", nil)
	msg := mergeThread(t, f, 0)
	d := foldDigest(t, f, admin, mnemo.DigestRequest{Task: "why do night passes route via Svalbard", Budget: 2000,
		Filter: mnemo.Filter{Thread: "shift-7"}})
	e := foldEntryOf(d, msg)
	if e == nil || len(e.Covers) != 0 || strings.Contains(d.Markdown, "  - from: ") {
		t.Fatalf("message entry %+v:\n%s", e, d.Markdown)
	}
	if !strings.Contains(d.Markdown, "["+mnemo.ShortRef(msg)) {
		t.Fatalf("the message has no entry of its own:\n%s", d.Markdown)
	}
}

// A caller who may not see the message sees nothing of it: neither the
// message, nor the memory extracted from it, nor a reference to either.
func TestDigestFoldKeepsClearance(t *testing.T) {
	f := open(t, "", nil)
	msg := mergeThread(t, f, 2)
	low := mnemo.Caller{Name: "low", Clearance: 1, Role: mnemo.RoleAdmin}
	d := foldDigest(t, f, low, mnemo.DigestRequest{Task: "why do night passes route via Svalbard", Budget: 2000})
	if foldEntryOf(d, msg) != nil || foldMemoryOf(d, msg) != nil || strings.Contains(d.Markdown, mnemo.ShortRef(msg)) ||
		strings.Contains(d.Markdown, "until Inuvik is back") {
		t.Fatalf("clearance 1 sees the level-2 decision:\n%s", d.Markdown)
	}
	for _, e := range d.Entries {
		if len(e.Covers) > 0 {
			t.Fatalf("covers %v at clearance 1", e.Covers)
		}
	}
	// Whoever may see it sees it once, folded.
	all := foldDigest(t, f, admin, mnemo.DigestRequest{Task: "why do night passes route via Svalbard", Budget: 2000})
	if mem := foldMemoryOf(all, msg); mem == nil || foldEntryOf(all, msg) != nil || len(mem.Covers) != 1 {
		t.Fatalf("clearance %d:\n%s", admin.Clearance, all.Markdown)
	}
}
