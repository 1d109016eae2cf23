package engine

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo/llm"
	"github.com/mnemo-dev/mnemo/score"
)

// Intent classification by the chat model, off the request path. The
// rules (score.Classify) classify every query first; when they say
// general — nothing they recognise — and the service asks the model for
// intents (Config.IntentModel), the query is queued for the model and
// answered by the rules meanwhile. A background worker asks the model
// for {"intent": "general|recent|rules|howto|why"}, one query per call,
// bounded in time, material and answer tokens; the answer, checked
// against the known intents (extra fields ignored), is cached per
// namespace and normalised query text, and later requests with the same
// query use it. A timeout, a refusal, an answer cut off or out of shape
// leaves the rules' answer (the failure is remembered for a while, so a
// broken model is not asked again and again). No request ever waits for
// the model: a request reads the cache and, on a miss, offers the query
// to a bounded queue without blocking (a full queue drops it).

// Bounds of intent classification by the model.
const (
	intentQueue       = 64               // queries waiting for the model
	intentCacheSize   = 4096             // answers kept (the oldest dropped first)
	intentCallTimeout = 10 * time.Second // one call, at most
	intentAnswerToken = 32               // {"intent": "howto"} and some slack
	intentQueryRunes  = 1_000            // of the query, sent to the model
	intentRetryAfter  = 10 * time.Minute // a failed query is asked again after this
)

// Who classified a request's intent (RecallResult.IntentBy).
const (
	IntentByRequest = "request"
	IntentByRules   = "rules"
	IntentByModel   = "model"
)

const intentPrompt = `You classify what a query to a team's memory is after. The query may be in any language.
Answer with one JSON object and nothing else: {"intent": "general|recent|rules|howto|why"}
- recent: what was just said, decided or changed; rules: standing rules, policies, requirements; howto: how to do something, steps, a procedure; why: the reasons for a decision; general: none of these.`

// intentKey names a cached answer: the namespace and the normalised query.
type intentKey struct{ ns, query string }

// intentAnswer is the model's answer for a query, or its failure.
type intentAnswer struct {
	intent score.Intent // "" when the model failed
	at     time.Time    // when it answered or failed
}

// intentModel is the background classifier of one Service.
type intentModel struct {
	chat llm.Model
	log  *slog.Logger
	now  func() time.Time

	q       chan intentKey
	pending sync.WaitGroup // queued and not yet answered
	done    chan struct{}
	ctx     context.Context // ends with Close: an answer still awaited is dropped
	cancel  context.CancelFunc
	closed  sync.Once

	mu     sync.Mutex
	cache  map[intentKey]intentAnswer
	order  []intentKey // insertion order, for eviction
	queued map[intentKey]bool
}

func newIntentModel(chat llm.Model, log *slog.Logger, now func() time.Time) *intentModel {
	m := &intentModel{chat: chat, log: log, now: now, q: make(chan intentKey, intentQueue), done: make(chan struct{}),
		cache: map[intentKey]intentAnswer{}, queued: map[intentKey]bool{}}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	go m.run()
	return m
}

// normalQuery is the cache key's form of a query: lower case, runs of
// white space folded into one space, the ends trimmed.
func normalQuery(q string) string {
	return strings.ToLower(strings.Join(strings.Fields(q), " "))
}

// classifyIntent returns the intent of query and what classified it: the
// rules, or the model's earlier answer for the same query in namespace
// ns. A query the rules call general, and the model has not answered, is
// queued for the model; the call never waits for it. ruled is the
// rules' reading of query (score.Classify, made by cutQuery).
func (s *Service) classifyIntent(ns, query string, ruled score.Intent) (score.Intent, string) {
	intent := ruled
	if intent != score.IntentGeneral || s.intents == nil {
		return intent, IntentByRules
	}
	k := intentKey{ns, normalQuery(query)}
	if k.query == "" {
		return intent, IntentByRules
	}
	if i, ok := s.intents.lookup(k); ok {
		return i, IntentByModel
	}
	return intent, IntentByRules
}

// lookup returns the model's cached intent for k. On a miss, k is queued
// for the model unless it is queued already, the queue is full, or the
// model failed on it less than intentRetryAfter ago.
func (m *intentModel) lookup(k intentKey) (score.Intent, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.cache[k]
	if ok && a.intent != "" {
		return a.intent, true
	}
	if ok && m.now().Sub(a.at) < intentRetryAfter || m.queued[k] {
		return "", false
	}
	m.pending.Add(1)
	sent := func() (sent bool) {
		defer func() {
			if recover() != nil { // queue closed by Close
				sent = false
			}
		}()
		select {
		case m.q <- k:
			return true
		default:
			return false // full: asked again by a later request
		}
	}()
	if sent {
		m.queued[k] = true
	} else {
		m.pending.Done()
	}
	return "", false
}

// run asks the model for each queued query, one at a time.
func (m *intentModel) run() {
	defer close(m.done)
	for k := range m.q {
		i, err := m.ask(k.query)
		live := m.ctx.Err() == nil
		if err != nil && live {
			m.log.Warn("intent by the chat model failed: the rules classify this query", "namespace", k.ns, "err", err)
		}
		m.mu.Lock()
		delete(m.queued, k)
		if live {
			m.store(k, intentAnswer{intent: i, at: m.now()}) // i is "" on failure
		}
		m.mu.Unlock()
		m.pending.Done()
	}
}

// store keeps a, dropping the oldest answers past intentCacheSize. Called
// with mu held.
func (m *intentModel) store(k intentKey, a intentAnswer) {
	if _, ok := m.cache[k]; !ok {
		m.order = append(m.order, k)
	}
	m.cache[k] = a
	for len(m.cache) > intentCacheSize && len(m.order) > 0 {
		delete(m.cache, m.order[0])
		m.order = m.order[1:]
	}
}

// ask asks the model for the intent of query, within intentCallTimeout,
// and checks the answer: {"intent": one of the known intents}, extra
// fields ignored.
func (m *intentModel) ask(query string) (score.Intent, error) {
	ctx, cancel := context.WithTimeout(m.ctx, intentCallTimeout)
	defer cancel()
	var out struct {
		Intent *string `json:"intent"`
	}
	if err := m.chat.JSON(ctx, llm.Request{System: intentPrompt, User: clipRunes(oneLine(query), intentQueryRunes), MaxTokens: intentAnswerToken}, &out); err != nil {
		return "", err
	}
	if out.Intent == nil {
		return "", fmt.Errorf("no intent in the answer: %w", llm.ErrInvalid)
	}
	i, err := score.ParseIntent(*out.Intent)
	if err != nil || i == "" {
		return "", fmt.Errorf("intent %q is none of general, recent, rules, howto, why: %w", clipRunes(*out.Intent, 40), llm.ErrInvalid)
	}
	return i, nil
}

// wait waits until the queries queued so far are answered, or ctx ends.
func (m *intentModel) wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { m.pending.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close stops the worker: a call in flight is cancelled, and the queries
// still queued are dropped unasked.
func (m *intentModel) close() {
	m.closed.Do(func() {
		m.cancel()
		m.mu.Lock()
		close(m.q)
		m.mu.Unlock()
		<-m.done
	})
}
