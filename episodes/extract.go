package episodes

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/access"
	"github.com/mnemo-dev/mnemo/internal/extract"
	"github.com/mnemo-dev/mnemo/internal/render"
	"github.com/mnemo-dev/mnemo/llm"
)

// Extraction runs in the background, off the write path: after a write
// adds messages to a thread, the service hands the thread to a Queue
// (queue.go), whose goroutine checks whether the thread has gained Every
// messages since its last extraction and, if so, stores the candidates the rules find in them (source "extracted",
// confidence 0.5, "record:<message id>" and "thread:<name>" as
// provenance, near-duplicates merged). Candidates carry no thread, so they
// never trigger extraction.

// Extractor extracts memories from the messages of threads.
type Extractor struct {
	Store   mnemo.Store
	Records mnemo.Recorder // writes the memories, as ExtractCaller
	Chat    llm.Model      // nil: the rules alone
	Log     *slog.Logger   // the chat model's failures; nil discards them
	// Every is how many new messages a thread needs before Thread
	// extracts from it (unless asked for fewer).
	Every int
	// Lock takes the lock of a thread's writers and returns its release.
	Lock func(ns, thread string) func()
}

// extractJob is one extraction: a thread, as whom, and the messages it
// needs (0: Every).
type extractJob struct {
	c          mnemo.Caller
	ns, thread string
	min        int
}

// extractState is what extraction remembers per thread: the last message
// it has read.
type extractState struct {
	At time.Time `json:"at"`
	ID string    `json:"id"`
}

// extractKey is the setting that holds a thread's extraction state. The
// namespace is length-prefixed: namespaces and threads may both hold '/',
// and ("a/b", "c") must not share a key with ("a", "b/c").
func extractKey(ns, thread string) string {
	return "extract/" + strconv.Itoa(len(ns)) + ":" + ns + "/" + thread
}

// legacyExtractKey is the key of earlier versions, "extract/<ns>/<thread>",
// read only where it was unambiguous: neither name holds a '/'.
func legacyExtractKey(ns, thread string) (string, bool) {
	if strings.Contains(ns, "/") || strings.Contains(thread, "/") {
		return "", false
	}
	return "extract/" + ns + "/" + thread, true
}

// loadExtractState returns the thread's extraction state (zero if none).
func (s Extractor) loadExtractState(ctx context.Context, ns, thread string) (extractState, error) {
	var st extractState
	v, ok, err := s.Store.Setting(ctx, extractKey(ns, thread))
	if err != nil {
		return st, err
	}
	if !ok {
		if key, unambiguous := legacyExtractKey(ns, thread); unambiguous {
			if v, ok, err = s.Store.Setting(ctx, key); err != nil {
				return st, err
			}
		}
	}
	if ok {
		if err := json.Unmarshal([]byte(v), &st); err != nil {
			return st, fmt.Errorf("extraction state: %w", err)
		}
	}
	return st, nil
}

// Thread extracts from the messages of a thread of namespace ns since its
// last extraction when there are at least min of them (0: Every), reading
// and writing as ExtractCaller, and returns
// the number of candidates stored. The chat model, when configured, is
// asked without the thread's lock held (a slow model never holds up the
// thread's writers); the candidates and the new state are written under
// it, only if no other extraction read the messages meanwhile.
func (s Extractor) Thread(ctx context.Context, ns, thread string, min int) (int, error) {
	j := extractJob{c: ExtractCaller, ns: ns, thread: thread, min: min}
	unlock := s.Lock(j.ns, j.thread)
	st, recs, err := s.pendingMessages(ctx, j)
	unlock()
	if err != nil || len(recs) == 0 || len(recs) < cmp.Or(j.min, s.Every) {
		return 0, err
	}
	msgs := make([]extract.Message, len(recs))
	byID := make(map[string]*mnemo.Record, len(recs))
	for i, r := range recs {
		msgs[i] = extract.Message{ID: r.ID, Text: r.Text}
		byID[r.ID] = r
	}
	cands, by, conf := extract.Extract(msgs), "rules", 0.5
	if s.Chat != nil {
		mc, err := s.modelExtractByLevel(ctx, recs)
		if err == nil {
			cands, by, conf = mc, s.Chat.Name(), 0.7
		} else {
			logger(s.Log).Warn("extraction by the chat model failed: the rules extracted", "namespace", j.ns, "thread", j.thread, "err", err)
		}
	}

	unlock = s.Lock(j.ns, j.thread)
	defer unlock()
	if now, err := s.loadExtractState(ctx, j.ns, j.thread); err != nil {
		return 0, err
	} else if now != st {
		return 0, nil // read meanwhile
	}
	var in []mnemo.NewRecord
	for _, c := range cands {
		src := byID[c.From]
		at := src.CreatedAt
		imp, cf := c.Importance, conf
		in = append(in, mnemo.NewRecord{Kind: c.Kind, Scope: c.Scope, Text: c.Text, Tags: c.Tags, Decision: c.Decision,
			Importance: &imp, Confidence: &cf, Source: mnemo.SourceExtracted, At: &at, AccessLevel: src.AccessLevel,
			Provenance: []string{mnemo.MissedRef + c.From, "thread:" + j.thread, "extracted-by:" + by}})
	}
	if len(in) > 0 {
		if _, err := s.Records.Remember(mnemo.WithCallerIn(ctx, j.c, j.ns), in, mnemo.WriteOptions{Dedup: true}); err != nil {
			return 0, err
		}
	}
	if slices.ContainsFunc(cands, func(c extract.Candidate) bool { return c.Kind == mnemo.KindProcedure }) {
		if _, err := LearnProcedures(mnemo.WithCallerIn(ctx, j.c, j.ns), s.Records, s.Store); err != nil {
			logger(s.Log).Warn("learning procedures failed", "namespace", j.ns, "err", err)
		}
	}
	last := recs[len(recs)-1]
	b, _ := json.Marshal(extractState{At: last.CreatedAt, ID: last.ID})
	if err := s.Store.SetSetting(ctx, extractKey(j.ns, j.thread), string(b)); err != nil {
		return 0, err
	}
	return len(in), nil
}

// pendingMessages returns the thread's extraction state and the messages
// it has not read, oldest first.
func (s Extractor) pendingMessages(ctx context.Context, j extractJob) (extractState, []*mnemo.Record, error) {
	st, err := s.loadExtractState(ctx, j.ns, j.thread)
	if err != nil {
		return st, nil, err
	}
	f := mnemo.Filter{Thread: j.thread}
	if !st.At.IsZero() {
		f.Since = &st.At
	}
	recs, err := s.Store.List(ctx, access.ScopeOf(j.c, j.ns), mnemo.ListOptions{Filter: f, ByTime: true, Limit: 1000})
	if err != nil {
		return st, nil, err
	}
	slices.Reverse(recs) // oldest first
	out := recs[:0]
	for _, r := range recs {
		if !st.At.IsZero() && r.CreatedAt.Equal(st.At) && r.ID <= st.ID {
			continue // read by the previous extraction
		}
		out = append(out, r)
	}
	return st, out, nil
}

// The chat model's background paths: extraction of memories from a
// thread's new messages and the thread's episode. Each asks for one JSON
// object, checks it against its schema as a whole, and on any failure
// (timeout, refusal, an answer cut off, malformed, empty or out of shape)
// reports an error so that the caller's rules make the result instead:
// nothing a model half-answered is written.

// Bounds of a model call's material and answer.
const (
	extractAnswerToken = 1_500
)

const extractPrompt = `You extract durable memories from a conversation of a team. The conversation may be in any language; write each memory in the language of its message.
Answer with one JSON object and nothing else:
{"memories": [{"kind": "decision|rule|preference|procedure|fact|question", "text": "one self-contained sentence", "message": N}]}
- decision: something the team decided or agreed; rule: a standing rule (always, never, must); preference: how someone likes things done; procedure: steps to do something; fact: a fact with a date, deadline or quantity; question: a question still open.
- message: the number in brackets of the message the memory comes from.
- Only what the messages state; no small talk, no guesses. At most 30 memories.`

// modelMemory is one memory of the extraction schema.
type modelMemory struct {
	Kind    string `json:"kind"`
	Text    string `json:"text"`
	Message *int   `json:"message"`
}

// modelExtract asks the chat model for the memories of msgs and returns
// them as candidates, or an error when the answer does not fit the schema
// {"memories": [{"kind", "text", "message"}]} in every item, or is empty.
func (s Extractor) modelExtract(ctx context.Context, msgs []extract.Message) ([]extract.Candidate, error) {
	user, n := numbered(msgs)
	if n < len(msgs) {
		return nil, fmt.Errorf("%d of %d messages fit the model's material bound: %w", n, len(msgs), llm.ErrInvalid)
	}
	var out struct {
		Memories *[]modelMemory `json:"memories"`
	}
	if err := s.Chat.JSON(ctx, llm.Request{System: extractPrompt, User: user, MaxTokens: extractAnswerToken}, &out); err != nil {
		return nil, err
	}
	if out.Memories == nil || len(*out.Memories) == 0 {
		return nil, fmt.Errorf("no memories in the answer: %w", llm.ErrInvalid)
	}
	if len(*out.Memories) > extract.MaxCandidates {
		return nil, fmt.Errorf("%d memories, more than %d: %w", len(*out.Memories), extract.MaxCandidates, llm.ErrInvalid)
	}
	var cands []extract.Candidate
	seen := map[string]bool{}
	for i, m := range *out.Memories {
		if m.Message == nil || *m.Message < 1 || *m.Message > len(msgs) {
			return nil, fmt.Errorf("memory %d names no message of the %d: %w", i+1, len(msgs), llm.ErrInvalid)
		}
		if !slices.Contains(extract.Labels, m.Kind) {
			return nil, fmt.Errorf("memory %d has kind %q: %w", i+1, m.Kind, llm.ErrInvalid)
		}
		if r := []rune(strings.TrimSpace(m.Text)); len(r) == 0 || len(r) > render.ItemRunes {
			return nil, fmt.Errorf("memory %d has %d characters of text: %w", i+1, len(r), llm.ErrInvalid)
		}
		from := msgs[*m.Message-1]
		speaker, _ := extract.Speaker(from.Text)
		c, _ := extract.Make(m.Kind, m.Text, speaker)
		c.From = from.ID
		if key := strings.ToLower(c.Text); !seen[key] {
			seen[key] = true
			cands = append(cands, c)
		}
	}
	return cands, nil
}

// numbered renders messages as "[N] text" lines while they fit the
// material bound (render.Numbered); it returns the text and how many
// fitted.
func numbered(msgs []extract.Message) (string, int) {
	texts := make([]string, len(msgs))
	for i, m := range msgs {
		texts[i] = m.Text
	}
	return render.Numbered(texts)
}

// Procedures learned from repetition: the same sequence of steps,
// extracted from at least two threads, becomes one procedure record
// (source "learned", tag "learned") that names every message it was seen
// in and says how often it was seen. Sequences are the same when they
// have as many steps and each pair of steps shares half its content words
// (extract.SameSteps).

// Bounds of learning.
const (
	maxLearnInput      = 2_000 // extracted procedures read per pass
	minLearnThreads    = 2
	maxLearnProvenance = 64
)

// LearnedProcedureID is the id of the procedure learned from the
// repetitions whose first occurrence is the extracted record first.
func LearnedProcedureID(ns, first string) string {
	return mnemo.DerivedID(time.Time{}, "learned-procedure", ns, first)
}

// procedureGroup is one step sequence and the extracted records that hold it.
type procedureGroup struct {
	steps []string
	recs  []*mnemo.Record
}

// LearnProcedures has svc group the namespace's extracted procedures (those the
// caller may see) by their steps and writes, for each sequence seen in at
// least two threads, the learned procedure: "Learned procedure (seen N
// times in M threads): 1. … 2. …" with the steps as last said, the
// messages and threads as provenance, as restricted as its most
// restricted source. A learned procedure that is up to date is left as it
// is. It returns the number written or updated.
func LearnProcedures(ctx context.Context, svc mnemo.Recorder, st mnemo.Store) (int, error) {
	_, sc, err := access.Writer(ctx)
	if err != nil {
		return 0, err
	}
	recs, err := st.List(ctx, sc, mnemo.ListOptions{Filter: mnemo.Filter{Kinds: []mnemo.Kind{mnemo.KindProcedure}}, ByTime: true, Limit: maxLearnInput})
	if err != nil {
		return 0, err
	}
	slices.Reverse(recs) // oldest first: a group is named by its first occurrence
	var groups []*procedureGroup
	for _, r := range recs {
		if r.Source != mnemo.SourceExtracted {
			continue
		}
		steps := extract.Steps(r.Text)
		if steps == nil {
			continue
		}
		var g *procedureGroup
		for _, x := range groups {
			if extract.SameSteps(x.steps, steps) {
				g = x
				break
			}
		}
		if g == nil {
			g = &procedureGroup{steps: steps}
			groups = append(groups, g)
		}
		g.recs = append(g.recs, r)
	}
	n := 0
	for _, g := range groups {
		var msgs, threads []string
		level := 0
		for _, r := range g.recs {
			level = max(level, r.AccessLevel)
			for _, p := range r.Provenance {
				switch {
				case strings.HasPrefix(p, mnemo.MissedRef) && !slices.Contains(msgs, p):
					msgs = append(msgs, p)
				case strings.HasPrefix(p, "thread:") && !slices.Contains(threads, p):
					threads = append(threads, p)
				}
			}
		}
		if len(threads) < minLearnThreads {
			continue
		}
		latest := extract.Steps(g.recs[len(g.recs)-1].Text)
		var b strings.Builder
		fmt.Fprintf(&b, "Learned procedure (seen %d times in %d threads):", len(msgs), len(threads))
		for i, st := range latest {
			fmt.Fprintf(&b, " %d. %s", i+1, st)
		}
		text := b.String()
		prov := append(append([]string(nil), threads...), msgs...)
		if len(prov) > maxLearnProvenance {
			prov = prov[:maxLearnProvenance]
		}
		id := LearnedProcedureID(sc.Namespace, g.recs[0].ID)
		old, err := st.Get(ctx, mnemo.Scope{Namespace: sc.Namespace, Clearance: mnemo.MaxAccessLevel}, id)
		switch {
		case mnemo.ErrorCode(err) == mnemo.ENOTFOUND:
			imp, conf := 0.6, 0.6
			if _, err := svc.Remember(ctx, []mnemo.NewRecord{{ID: id, Kind: mnemo.KindProcedure, Text: text, Tags: []string{"learned"},
				Source: "learned", Provenance: prov, Importance: &imp, Confidence: &conf, AccessLevel: level}}, mnemo.WriteOptions{}); err != nil {
				return n, err
			}
		case err != nil:
			return n, err
		case old.DeletedAt != nil:
			continue // forgotten by someone: not learned again
		case old.Text == text && slices.Equal(old.Provenance, prov) && old.AccessLevel == level:
			continue // up to date
		default:
			if _, err := svc.Update(ctx, id, mnemo.RecordPatch{Text: &text, Provenance: &prov, AccessLevel: &level}); err != nil {
				return n, err
			}
		}
		n++
	}
	return n, nil
}

// Extraction as a periodic job (`mnemo serve --extract-every`): every
// thread of every namespace that has messages extraction has not read yet
// is extracted, whatever their number, at the job's pace. It runs beside
// the queue writes feed (Queue, MNEMO_EXTRACT_EVERY) and shares its
// state, so no message is read twice.
//
// Visibility: extraction reads a thread whole (every access level) and
// writes each memory at the access level of the message it came from, in
// the message's namespace: an extracted memory is never more visible than
// its source. The chat model, when configured, is asked about the
// messages of one access level at a time, so that no memory it writes
// can carry words of a message more restricted than the one it is
// attributed to.

// ExtractCaller is who extraction reads and writes as: it sees every
// message of the thread's namespace, so that one writer's clearance never
// hides messages from it (the thread's state moves past what it read).
var ExtractCaller = access.System("extraction")

// All extracts, in every namespace, the memories of each thread's
// messages that no extraction has read yet, and returns the memories
// stored per namespace. A thread or namespace that fails does not stop the
// others: the errors, each naming its namespace and thread, are joined.
func (s Extractor) All(ctx context.Context) (map[string]int, error) {
	nss, err := s.Store.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	var errs []error
	for _, ns := range nss {
		threads, err := s.Store.Threads(ctx, mnemo.Scope{Namespace: ns, Clearance: mnemo.MaxAccessLevel})
		if err != nil {
			errs = append(errs, fmt.Errorf("extraction in %s: %w", ns, err))
			continue
		}
		for _, t := range threads {
			if ctx.Err() != nil {
				return out, errors.Join(append(errs, ctx.Err())...)
			}
			st, err := s.loadExtractState(ctx, ns, t.Name)
			if err != nil {
				errs = append(errs, fmt.Errorf("extraction of %s/%s: %w", ns, t.Name, err))
				continue
			}
			if !st.At.IsZero() && t.Last.Before(st.At) {
				continue // nothing new since the last extraction
			}
			n, err := s.Thread(ctx, ns, t.Name, 1)
			if err != nil {
				errs = append(errs, fmt.Errorf("extraction of %s/%s: %w", ns, t.Name, err))
				continue
			}
			if n > 0 {
				out[ns] += n
			}
		}
	}
	return out, errors.Join(errs...)
}

// modelExtractByLevel asks the chat model for the memories of recs, the
// messages of each access level in a call of their own (in the order of
// their first message), and returns the candidates of all calls, at most
// extract.MaxCandidates. Any call's failure fails the whole: the rules
// extract instead.
func (s Extractor) modelExtractByLevel(ctx context.Context, recs []*mnemo.Record) ([]extract.Candidate, error) {
	var levels []int
	groups := map[int][]extract.Message{}
	for _, r := range recs {
		if _, ok := groups[r.AccessLevel]; !ok {
			levels = append(levels, r.AccessLevel)
		}
		groups[r.AccessLevel] = append(groups[r.AccessLevel], extract.Message{ID: r.ID, Text: r.Text})
	}
	var out []extract.Candidate
	for _, l := range levels {
		cands, err := s.modelExtract(ctx, groups[l])
		if err != nil {
			return nil, err
		}
		out = append(out, cands...)
	}
	if len(out) > extract.MaxCandidates {
		out = out[:extract.MaxCandidates]
	}
	return out, nil
}
