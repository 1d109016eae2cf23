package engine

import (
	"context"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/mnemo-dev/mnemo"
)

// A question and its answer are an adjacency pair: when a turn of a
// conversation that asks something ranks high for a task, what the task
// needs is often in the turn that answers it, which may share no word
// with the task ("What's your best camping memory?" — "We roasted
// marshmallows and hiked to the falls"). So the turn that follows a
// question turn among the first replyDepth hits, in its thread, is placed
// right after it, with evidence "reply" when it had none of its own.
// Chosen on LoCoMo's conversations 1–5 (`mnemo bench locomo`: recall@10
// 0.716 → 0.727 with the first 3 hits; the first 5 gave 0.726, the first
// 10 0.728 but open-domain 0.352 → 0.295; any turn's successor instead of
// a question's lost recall in a replay of the rankings).

// replyDepth is how many of the best hits pass their rank on to their
// reply when they ask something.
const replyDepth = 3

// isQuestion reports whether a turn's text ends by asking something: its
// last character, before any trailing bracketed note (a shared photo's
// caption) and closing quotes or brackets, is a question mark.
func isQuestion(text string) bool {
	t := strings.TrimSpace(text)
	for strings.HasSuffix(t, "]") {
		i := strings.LastIndexByte(t, '[')
		if i < 0 {
			break
		}
		t = strings.TrimSpace(t[:i])
	}
	t = strings.TrimRightFunc(t, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(`"'»”’)`, r)
	})
	return strings.HasSuffix(t, "?") || strings.HasSuffix(t, "？")
}

// placeReplies moves the reply of each question turn among the first
// replyDepth hits right after it (see above), reading the replies that
// were no candidates; hits stays sorted best first.
func (s *Service) placeReplies(ctx context.Context, sc mnemo.Scope, f mnemo.Filter, hits []mnemo.ScoredRecord) ([]mnemo.ScoredRecord, error) {
	tf, ok := s.store.(mnemo.ThreadFollower)
	if !ok {
		return hits, nil
	}
	var questions []string
	for _, h := range hits[:min(replyDepth, len(hits))] {
		if h.Record != nil && h.Record.Thread != "" && isQuestion(h.Record.Text) {
			questions = append(questions, h.ID)
		}
	}
	if len(questions) == 0 {
		return hits, nil
	}
	next, err := tf.NextInThread(ctx, sc, f, questions)
	if err != nil || len(next) == 0 {
		return hits, err
	}
	at := make(map[string]int, len(hits))
	for i, h := range hits {
		at[h.ID] = i
	}
	var missing []string
	for _, q := range questions {
		if r, ok := next[q]; ok {
			if _, in := at[r]; !in && !slices.Contains(missing, r) {
				missing = append(missing, r)
			}
		}
	}
	if len(missing) > 0 {
		recs, err := s.store.GetMany(ctx, sc, missing)
		if err != nil {
			return hits, err
		}
		for _, r := range recs {
			at[r.ID] = len(hits)
			hits = append(hits, mnemo.ScoredRecord{Record: r, ID: r.ID, Score: math.Inf(-1),
				Factors: mnemo.Factors{}, Why: &mnemo.Why{Evidence: "reply"}})
		}
	}
	for _, q := range questions {
		r, ok := next[q]
		if !ok {
			continue
		}
		qi, ri := at[q], at[r]
		if ri >= len(hits) || hits[ri].Score >= hits[qi].Score {
			continue // not visible after all, or ranked above its question already
		}
		h := &hits[ri]
		h.Score = math.Nextafter(hits[qi].Score, math.Inf(-1))
		why := mnemo.Why{}
		if h.Why != nil {
			why = *h.Why
		}
		why.ReplyTo = q
		if why.Evidence == "reply" && hits[qi].Why != nil {
			why.Relevance = hits[qi].Why.Relevance
		}
		h.Why = &why
	}
	// Replies read but not placed (their question's own reply ranked
	// above it) drop out.
	out := hits[:0]
	for _, h := range hits {
		if !math.IsInf(h.Score, -1) {
			out = append(out, h)
		}
	}
	sortHits(out)
	return out, nil
}
