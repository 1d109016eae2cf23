// Package episodes writes the episode of a thread: what a conversation was
// about, within a token budget, as one record the thread's later readers
// start from — by the rules (the most central sentences, without repeats)
// or, when a chat model is configured, by the model with the rules as
// fallback. The engine answers mnemo.Briefer's Summarize with it; serve
// refreshes the episodes of idle threads (SummarizeIdle).
package episodes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/access"
	"github.com/mnemo-dev/mnemo/internal/extract"
	"github.com/mnemo-dev/mnemo/internal/render"
	"github.com/mnemo-dev/mnemo/internal/vec"
	"github.com/mnemo-dev/mnemo/llm"
)

// Source is what an episode is written from and with: the store it reads
// the thread from, the service that writes the episode record (as the
// caller), the tokenizer that counts its budget, the embedder's batches
// for the rules' centrality, and the optional chat model with the logger
// of its failures.
type Source struct {
	Store     mnemo.Store
	Records   mnemo.Recorder
	Tokenizer mnemo.Tokenizer
	// Embed embeds texts, in order.
	Embed func(ctx context.Context, texts []string) ([][]float32, error)
	Chat  llm.Model    // nil: the rules alone
	Log   *slog.Logger // the chat model's failures; nil discards them
}

// Episodes summarise conversations. Summarize builds one from a thread's
// records. By default it is deterministic and offline: an extractive
// summary that picks the sentences most central to the thread (closest to
// the mean of all its sentence vectors) while avoiding repeats (maximal
// marginal relevance), within a token budget, in the order they were said.
// With a chat model configured, the model writes it as what was
// discussed, decided, changed and left open; when the model fails, the
// rules write it. The provenance says which ("summary-by:rules" or
// "summary-by:chat:MODEL").

// Episode defaults.
const (
	maxEpisodeBudget     = 4000
	episodeLambda        = 0.7 // centrality against redundancy in the selection
	maxEpisodeRecords    = 10_000
	maxEpisodeCandidates = 2_000
	minSentenceTokens    = 4
)

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// EpisodeID is the id of a thread's episode in namespace ns: one per
// thread, so summarising again updates it.
func EpisodeID(ns, thread string) string {
	return mnemo.DerivedID(time.Time{}, "episode", ns, thread)
}

type sentence struct {
	text string
	rec  int // index of its record
	pos  int // order in the thread
}

// SplitSentences splits a record's text into sentences, keeping a leading
// "Speaker:" with each.
func SplitSentences(text string) []string {
	speaker, text := extract.Speaker(text)
	if speaker != "" {
		speaker += ": "
	}
	var out []string
	for _, s := range extract.Sentences(text) {
		if len([]rune(s)) >= 12 && strings.IndexFunc(s, unicode.IsLetter) >= 0 {
			out = append(out, speaker+s)
		}
	}
	return out
}

// Summarize writes (or rewrites) the episode of a thread: kind episode,
// "Episode of <thread> (<from> – <to>, N messages): <summary>", the
// thread, the summarised records and the path that wrote it as
// provenance, the time of the thread's last record. Errors: EINVALID for an empty thread name or a bad
// budget, ENOTFOUND when the thread has fewer than two records the caller
// may see.
func Summarize(ctx context.Context, s Source, thread string, budget int) (*mnemo.EpisodeResult, error) {
	_, sc, err := access.Writer(ctx)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(thread) == "" || len(thread) > mnemo.MaxThreadBytes {
		return nil, mnemo.Errorf(mnemo.EINVALID, "thread must be named, in at most %d bytes", mnemo.MaxThreadBytes)
	}
	if budget == 0 {
		budget = mnemo.DefaultEpisodeBudget
	}
	if budget < 20 || budget > maxEpisodeBudget {
		return nil, mnemo.Errorf(mnemo.EINVALID, "episode budget %d is outside 20..%d", budget, maxEpisodeBudget)
	}
	recs, err := s.Store.List(ctx, sc, mnemo.ListOptions{Filter: mnemo.Filter{Thread: thread}, ByTime: true, Limit: maxEpisodeRecords})
	if err != nil {
		return nil, err
	}
	slices.Reverse(recs) // oldest first
	if len(recs) < 2 {
		return nil, mnemo.Errorf(mnemo.ENOTFOUND, "thread %q has %d records in %s: an episode needs at least two", thread, len(recs), sc.Namespace)
	}
	first, last := recs[0].CreatedAt, recs[len(recs)-1].CreatedAt
	head := fmt.Sprintf("Episode of %s (%s – %s, %d messages):", render.OneLine(thread), first.UTC().Format("2006-01-02 15:04"),
		last.UTC().Format("2006-01-02 15:04"), len(recs))
	level := 0
	for _, r := range recs {
		level = max(level, r.AccessLevel) // the episode is as restricted as what it summarises
	}
	var text string
	var prov []string
	chosen := 0
	if s.Chat != nil {
		if text, prov, chosen, err = s.modelEpisode(ctx, thread, head, recs, budget); err != nil {
			logger(s.Log).Warn("episode by the chat model failed: the rules summarised", "namespace", sc.Namespace, "thread", thread, "err", err)
		}
	}
	if text == "" {
		if text, prov, chosen, err = s.ruleEpisode(ctx, thread, head, recs, budget); err != nil {
			return nil, err
		}
	}

	id := EpisodeID(sc.Namespace, thread)
	res := &mnemo.EpisodeResult{Records: len(recs), Chosen: chosen}
	old, err := s.Store.Get(ctx, mnemo.Scope{Namespace: sc.Namespace, Clearance: mnemo.MaxAccessLevel}, id)
	switch {
	case mnemo.ErrorCode(err) == mnemo.ENOTFOUND:
		at := last
		w, err := s.Records.Remember(ctx, []mnemo.NewRecord{{ID: id, Kind: mnemo.KindEpisode, Text: text,
			Source: "episode", Provenance: prov, At: &at, AccessLevel: level}}, mnemo.WriteOptions{})
		if err != nil {
			return nil, err
		}
		res.Record, res.Created = w[0].Record, true
	case err != nil:
		return nil, err
	default:
		if old.DeletedAt != nil {
			if _, err := s.Records.Restore(ctx, id); err != nil {
				return nil, err
			}
		}
		r, err := s.Records.Update(ctx, id, mnemo.RecordPatch{Text: &text, Provenance: &prov, AccessLevel: &level})
		if err != nil {
			return nil, err
		}
		res.Record = r
	}
	return res, nil
}

// SummarizeIdle has svc write or refresh the episode of every thread of
// store st, in every namespace, that has at least minRecords live records,
// has been quiet for idle at time now, and has no episode yet or one older
// than its last record. It returns the episodes written per namespace. A thread or namespace that
// fails does not stop the others: the errors, each naming its namespace and
// thread, are joined.
func SummarizeIdle(ctx context.Context, svc mnemo.Briefer, st mnemo.Store, now time.Time, idle time.Duration, minRecords int) (map[string]int, error) {
	nss, err := st.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	c := access.System("episodes")
	out := map[string]int{}
	var errs []error
	for _, ns := range nss {
		sc := mnemo.Scope{Namespace: ns, Clearance: mnemo.MaxAccessLevel}
		threads, err := st.Threads(ctx, sc)
		if err != nil {
			errs = append(errs, fmt.Errorf("episodes of %s: %w", ns, err))
			continue
		}
		for _, t := range threads {
			if ctx.Err() != nil {
				return out, errors.Join(append(errs, ctx.Err())...)
			}
			if t.Records < minRecords || now.Sub(t.Last) < idle {
				continue
			}
			if ep, err := st.Get(ctx, sc, EpisodeID(ns, t.Name)); err == nil && ep.DeletedAt == nil && !ep.CreatedAt.Before(t.Last) {
				continue // up to date
			} else if err != nil && mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
				errs = append(errs, fmt.Errorf("episode of %s/%s: %w", ns, t.Name, err))
				continue
			}
			if _, err := svc.Summarize(mnemo.WithCallerIn(ctx, c, ns), t.Name, 0); err != nil {
				if mnemo.ErrorCode(err) == mnemo.ENOTFOUND { // nothing to summarise
					continue
				}
				errs = append(errs, fmt.Errorf("episode of %s/%s: %w", ns, t.Name, err))
				continue
			}
			out[ns]++
		}
	}
	return out, errors.Join(errs...)
}

// ruleEpisode is the deterministic episode: head, then the thread's most
// central sentences without repeats, within budget, in the order they
// were said; it returns the text, the provenance and the number of
// sentences.
func (s Source) ruleEpisode(ctx context.Context, thread, head string, recs []*mnemo.Record, budget int) (string, []string, int, error) {
	var sents []sentence
	for i, r := range recs {
		for _, t := range SplitSentences(r.Text) {
			sents = append(sents, sentence{text: t, rec: i, pos: len(sents)})
		}
	}
	if len(sents) == 0 {
		return "", nil, 0, mnemo.Errorf(mnemo.ENOTFOUND, "thread %q has no sentences to summarise", thread)
	}
	texts := make([]string, len(sents))
	for i, x := range sents {
		texts[i] = x.text
	}
	vecs, err := s.Embed(ctx, texts)
	if err != nil {
		return "", nil, 0, err
	}
	centroid := make([]float64, len(vecs[0]))
	for _, v := range vecs {
		for i, x := range v {
			centroid[i] += float64(x)
		}
	}
	norm := 0.0
	for _, x := range centroid {
		norm += x * x
	}
	norm = math.Sqrt(norm)
	central := make([]float64, len(vecs))
	for i, v := range vecs {
		for j, x := range v {
			central[i] += float64(x) * centroid[j]
		}
		if norm > 0 {
			central[i] /= norm
		}
	}

	used := s.Tokenizer.Count(head)
	// Long threads: only the most central sentences compete.
	cands := make([]int, len(sents))
	for i := range cands {
		cands[i] = i
	}
	if len(cands) > maxEpisodeCandidates {
		slices.SortStableFunc(cands, func(a, b int) int { return -cmpFloat(central[a], central[b]) })
		cands = cands[:maxEpisodeCandidates]
	}
	var chosen []int
	taken := make(map[int]bool, len(cands))
	for len(taken) < len(cands) && budget-used >= minSentenceTokens {
		best, bestScore := -1, math.Inf(-1)
		for _, i := range cands {
			if taken[i] {
				continue
			}
			red := 0.0
			for _, j := range chosen {
				red = math.Max(red, float64(vec.Dot(vecs[i], vecs[j])))
			}
			if v := episodeLambda*central[i] - (1-episodeLambda)*red; v > bestScore {
				best, bestScore = i, v
			}
		}
		taken[best] = true
		n := s.Tokenizer.Count(" " + sents[best].text)
		if used+n > budget {
			continue // too long for what is left: try the next best
		}
		used += n
		chosen = append(chosen, best)
	}
	if len(chosen) == 0 {
		return "", nil, 0, mnemo.Errorf(mnemo.EINVALID, "episode budget %d is too small for any sentence of thread %q", budget, thread)
	}
	slices.Sort(chosen) // in the order they were said
	var b strings.Builder
	b.WriteString(head)
	prov := []string{"thread:" + thread}
	seen := map[int]bool{}
	for _, i := range chosen {
		b.WriteString(" " + sents[i].text)
		if r := sents[i].rec; !seen[r] {
			seen[r] = true
			prov = append(prov, mnemo.MissedRef+recs[r].ID)
		}
	}
	prov = append(prov, "summary-by:rules")
	return b.String(), prov, len(chosen), nil
}

const episodePrompt = `You summarise a conversation of a team into its episode. The conversation may be in any language; write in the language of the conversation.
Answer with one JSON object and nothing else:
{"discussed": ["..."], "decided": ["..."], "changed": ["..."], "open": ["..."]}
- discussed: the topics talked about; decided: what the team actually decided or agreed (most important: never leave a decision out); changed: what was changed or done; open: questions or work still open.
- Each item one short sentence; at most 5 items per list; an empty list when there is nothing.`

// episodeSections are the episode schema's lists, in the order they are
// written; episodeDrop is the order in which items give way when the
// episode is over its budget (decisions last).
var (
	episodeSections = []string{"discussed", "decided", "changed", "open"}
	episodeTitles   = map[string]string{"discussed": "Discussed", "decided": "Decided", "changed": "Changed", "open": "Open"}
	episodeDrop     = []string{"discussed", "changed", "open", "decided"}
)

const maxEpisodeItems = 10 // per list

// modelEpisode asks the chat model for the episode of the thread's most
// recent messages that fit its material bound, as {"discussed", "decided",
// "changed", "open"} lists of strings (all four present, at least one
// item, each item short), and renders "head Discussed: …; …. Decided: ….
// …" within budget, dropping the least important items first. It returns
// the text, the provenance (the thread, the messages the model read, the
// model) and the number of items, or an error when the answer does not
// fit the schema or nothing fits the budget.
func (s Source) modelEpisode(ctx context.Context, thread, head string, recs []*mnemo.Record, budget int) (string, []string, int, error) {
	// The most recent messages that fit, in the order they were said.
	from := len(recs)
	used := 0
	for from > 0 {
		n := min(len([]rune(render.OneLine(recs[from-1].Text))), render.MessageRunes) + 8
		if used+n > render.MaterialRunes {
			break
		}
		used += n
		from--
	}
	if from == len(recs) {
		return "", nil, 0, fmt.Errorf("no message fits the model's material bound: %w", llm.ErrInvalid)
	}
	msgs := make([]extract.Message, 0, len(recs)-from)
	for _, r := range recs[from:] {
		msgs = append(msgs, extract.Message{ID: r.ID, Text: r.Text})
	}
	user, _ := numbered(msgs)
	var ans struct {
		Discussed *[]string `json:"discussed"`
		Decided   *[]string `json:"decided"`
		Changed   *[]string `json:"changed"`
		Open      *[]string `json:"open"`
	}
	out := map[string]**[]string{"discussed": &ans.Discussed, "decided": &ans.Decided, "changed": &ans.Changed, "open": &ans.Open}
	answer := min(2*budget+100, 1500)
	if err := s.Chat.JSON(ctx, llm.Request{System: episodePrompt, User: user, MaxTokens: answer}, &ans); err != nil {
		return "", nil, 0, err
	}
	items := map[string][]string{}
	total := 0
	for _, k := range episodeSections {
		l := *out[k]
		if l == nil {
			return "", nil, 0, fmt.Errorf("the answer has no %q list: %w", k, llm.ErrInvalid)
		}
		if len(*l) > maxEpisodeItems {
			return "", nil, 0, fmt.Errorf("%d items in %q, more than %d: %w", len(*l), k, maxEpisodeItems, llm.ErrInvalid)
		}
		for _, it := range *l {
			it = render.OneLine(it)
			if r := []rune(it); len(r) == 0 || len(r) > render.ItemRunes {
				return "", nil, 0, fmt.Errorf("an item of %q has %d characters: %w", k, len(r), llm.ErrInvalid)
			}
			items[k] = append(items[k], strings.TrimRight(it, ".;"))
			total++
		}
	}
	if total == 0 {
		return "", nil, 0, fmt.Errorf("an empty episode: %w", llm.ErrInvalid)
	}
	render := func() string {
		var b strings.Builder
		b.WriteString(head)
		for _, k := range episodeSections {
			if len(items[k]) > 0 {
				b.WriteString(" " + episodeTitles[k] + ": " + strings.Join(items[k], "; ") + ".")
			}
		}
		return b.String()
	}
	text := render()
	for s.Tokenizer.Count(text) > budget && total > 0 {
		for _, k := range episodeDrop {
			if n := len(items[k]); n > 0 {
				items[k] = items[k][:n-1]
				total--
				break
			}
		}
		text = render()
	}
	if total == 0 {
		return "", nil, 0, fmt.Errorf("no item of the model's episode fits %d tokens: %w", budget, llm.ErrInvalid)
	}
	prov := []string{"thread:" + thread}
	for _, m := range msgs {
		prov = append(prov, mnemo.MissedRef+m.ID)
	}
	prov = append(prov, "summary-by:"+s.Chat.Name())
	return text, prov, total, nil
}

// logger is l, or one that discards when l is nil.
func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
