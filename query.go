package mnemo

import (
	"math"
	"slices"
	"strconv"
	"time"
)

// Factor names used in weights and per-hit breakdowns.
const (
	FactorSemantic    = "semantic"
	FactorKeyword     = "keyword"
	FactorRecency     = "recency"
	FactorImportance  = "importance"
	FactorConfidence  = "confidence"
	FactorFrequency   = "frequency"
	FactorCriticality = "criticality" // triage mode only
	// FactorThread is how much the record's thread (conversation) as a
	// whole is about the query, relative to the thread it is most about;
	// present only for records of a thread under a preset that weighs it.
	FactorThread = "thread"
	// FactorLearned is the learned channel's evidence (the record's
	// similarity to the query in the semantic model learned from the
	// namespace, above what unrelated records reach, scaled to 0..1);
	// present when the namespace has a model.
	FactorLearned = "learned"
)

// Factors is a score's breakdown: factor name to value (and, for ranking
// adjustments, "gate", the boosts "kind_boost", "time_boost" and
// "name_boost", and "scale" when the ranking's scores were divided by its
// best; "thread" for records of a thread). It encodes to JSON with the
// factors in a fixed order, without reflection: digests carry one per entry.
type Factors map[string]float64

// factorOrder is the order Factors are written in; other keys follow, sorted.
var factorOrder = []string{FactorSemantic, FactorKeyword, FactorRecency, FactorImportance,
	FactorConfidence, FactorFrequency, FactorCriticality, FactorThread, FactorLearned, "gate", "kind_boost"}

// MarshalJSON writes the factors as a JSON object in a fixed key order.
func (f Factors) MarshalJSON() ([]byte, error) {
	return f.appendJSON(make([]byte, 0, 24*len(f)+2)), nil
}

func (f Factors) appendJSON(b []byte) []byte {
	if f == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	first := true
	put := func(k string, v float64) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = appendFloat(b, v)
	}
	seen := 0
	for _, k := range factorOrder {
		if v, ok := f[k]; ok {
			put(k, v)
			seen++
		}
	}
	if seen < len(f) {
		var rest []string
		for k := range f {
			if !slices.Contains(factorOrder, k) {
				rest = append(rest, k)
			}
		}
		slices.Sort(rest)
		for _, k := range rest {
			put(k, f[k])
		}
	}
	return append(b, '}')
}

// appendFloat formats v as encoding/json does.
func appendFloat(b []byte, v float64) []byte {
	format := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' { // 1e-07 -> 1e-7
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// Digest scopes: which layers a digest draws from.
const (
	ScopeAll          = "all"
	ScopeDomain       = "domain"
	ScopeWorkflow     = "workflow"
	ScopePractitioner = "practitioner"
)

// DefaultTokenBudget is the digest budget when none is given.
const DefaultTokenBudget = 8000

// RecallRequest asks for the k best records for a query. It is the body of
// POST /v1/recall and the arguments of the MCP tool memory_recall.
type RecallRequest struct {
	Query  string `json:"query" jsonschema:"what to look for, in plain words"`
	K      int    `json:"k,omitempty" jsonschema:"number of hits, 1..1000 (default 10)"`
	Filter Filter `json:"filters,omitempty" jsonschema:"structured filters"`
	Preset string `json:"preset,omitempty" jsonschema:"scoring preset: default, aura or alma"`
	Intent string `json:"intent,omitempty" jsonschema:"override the classified intent: general, recent, rules, howto or why"` // overrides classification
	// MinRelevance, when set, is the evidence of relevance every hit must
	// reach (0..1; see Why); 0 turns the relevance floor off. Unset, the
	// floor is adaptive: one average content term, or semantic similarity
	// above the embedder's calibrated null.
	MinRelevance *float64 `json:"min_relevance,omitempty" jsonschema:"evidence of relevance every hit must reach, 0..1; unset: adaptive floor; 0: no floor"`
}

// ScoredRecord is one ranked record with its explainable score.
type ScoredRecord struct {
	Record  *Record `json:"-"`
	ID      string  `json:"id"`
	Score   float64 `json:"score"`
	Factors Factors `json:"factors"`
	Why     *Why    `json:"why,omitempty"`
}

// Why explains why a hit passed the relevance floor: the evidence it
// showed, its strength and the floor it had to reach.
type Why struct {
	// Evidence is keyword, semantic, expansion (thesaurus or learned
	// terms), reply (the turn answering a question turn that ranked high;
	// see ReplyTo), core (pinned, always placed) or "none required" (floor
	// off).
	Evidence  string  `json:"evidence"`
	Relevance float64 `json:"relevance"` // the strongest evidence, 0..1
	Floor     float64 `json:"floor"`     // what the evidence had to reach
	// KeywordShare is the share of the query's content-term weight (IDF)
	// that the record holds; ExpansionShare counts related terms too.
	KeywordShare   float64  `json:"keyword_share"`
	ExpansionShare float64  `json:"expansion_share,omitempty"`
	Matched        []string `json:"matched,omitempty"`  // the query's index terms found
	Expanded       []string `json:"expanded,omitempty"` // source:term of related terms found
	// Semantic is the cosine similarity to the query; SemanticNull what
	// unrelated texts reach with this embedder; SemanticStrength the
	// part above it, (semantic − null)/(1 − null).
	Semantic         float64 `json:"semantic"`
	SemanticNull     float64 `json:"semantic_null"`
	SemanticStrength float64 `json:"semantic_strength"`
	// Learned is the similarity in the semantic channel learned from the
	// store, when it rose above LearnedNull, what unrelated records of the
	// namespace reach there.
	Learned     float64 `json:"learned,omitempty"`
	LearnedNull float64 `json:"learned_null,omitempty"`
	// Interval is the time span a temporal query was read as, when any.
	Interval string `json:"interval,omitempty"`
	// ReplyTo is the id of the question turn this turn answers, when it
	// was placed right after it for that reason.
	ReplyTo string `json:"reply_to,omitempty"`
}

// Triage reports degraded-mode ranking.
type Triage struct {
	Active bool    `json:"active"`
	Alpha  float64 `json:"alpha"`
	Rate   float64 `json:"rate"`     // events per minute observed
	Limit  float64 `json:"capacity"` // events per minute the namespace handles
}

// RecallHit is one hit of a recall, as serialised.
type RecallHit struct {
	ID         string    `json:"id"`
	Score      float64   `json:"score"`
	Factors    Factors   `json:"factors"`
	Text       string    `json:"text"`
	Layer      Layer     `json:"layer"`
	Kind       Kind      `json:"kind"`
	Scope      string    `json:"scope"`
	Provenance []string  `json:"provenance"`
	CreatedAt  time.Time `json:"created_at"`
	Why        *Why      `json:"why,omitempty"`
}

// RecallResult is the answer to a RecallRequest.
type RecallResult struct {
	// RetrievalID names this answer in the retrieval log; a correction that
	// followed it says so with correction.retrieval_id.
	RetrievalID string `json:"retrieval_id"`
	Intent      string `json:"intent"`
	// IntentBy says what chose the intent: "request" (the request named
	// it), "rules" (the rule classifier) or "model" (the chat model's
	// earlier answer for the same query, asked in the background).
	IntentBy string             `json:"intent_by,omitempty"`
	Preset   string             `json:"preset"`
	Weights  map[string]float64 `json:"weights"`
	Triage   *Triage            `json:"triage,omitempty"`
	Hits     []RecallHit        `json:"hits"`
}

// DigestRequest is workflow_memory_query: what should an agent start with
// for this task, within a token budget? It is the body of POST /v1/digest
// and the arguments of the MCP tool workflow_memory_query.
type DigestRequest struct {
	Task   string `json:"task_description" jsonschema:"the task the agent is about to work on, in plain words"`
	Scope  string `json:"scope,omitempty" jsonschema:"which layers to draw from: all, domain, workflow or practitioner"`            // all|domain|workflow|practitioner
	Budget int    `json:"token_budget,omitempty" jsonschema:"maximum size of the digest in tokens (exact count, headers included)"` // default 8000
	Filter Filter `json:"filters,omitempty" jsonschema:"structured filters: layers, kinds, scope_prefix, component, mission, thread, tags, min_criticality, since, until, as_of, as_known_at, outcome, operator"`
	Preset string `json:"preset,omitempty" jsonschema:"scoring preset: default, aura or alma"`
	Intent string `json:"intent,omitempty" jsonschema:"override the classified intent: general, recent, rules, howto or why"`
	// MinRelevance is as in RecallRequest; core records are placed
	// whatever their relevance.
	MinRelevance *float64 `json:"min_relevance,omitempty" jsonschema:"evidence of relevance every entry must reach, 0..1; unset: adaptive floor; 0: no floor"`
	// MinScoreRatio is the share of the best entry's score a non-core
	// entry must reach to be placed once eight are placed (0..1): a budget
	// is a ceiling, not a target, and an entry far weaker than the best
	// costs the agent tokens for little. Unset, the namespace's setting
	// (score_ratio) or 0.3; 0 places every relevant entry that fits.
	MinScoreRatio *float64 `json:"min_score_ratio,omitempty" jsonschema:"share of the best entry's score an entry must reach once eight are placed, 0..1; unset: the namespace's setting (default 0.3); 0: fill the budget with every relevant entry"`
}

// DigestEntry is one record placed in a digest.
type DigestEntry struct {
	ID         string   `json:"id"`
	Layer      Layer    `json:"layer"`
	Kind       Kind     `json:"kind"`
	Scope      string   `json:"scope"`
	Score      float64  `json:"score"`
	Factors    Factors  `json:"factors"`
	Text       string   `json:"text"`
	Provenance []string `json:"provenance"`
	Tokens     int      `json:"tokens"`
	Section    string   `json:"section"`
	Why        *Why     `json:"why,omitempty"`
	// Covers lists the messages an extracted memory was taken from that
	// the digest folds under it instead of placing them beside it.
	Covers []string `json:"covers,omitempty"`
}

// Digest is the budgeted context for a task, as Markdown and as structure.
type Digest struct {
	// RetrievalID names this digest in the retrieval log; a correction that
	// followed it says so with correction.retrieval_id.
	RetrievalID string             `json:"retrieval_id"`
	Task        string             `json:"task"`
	Scope       string             `json:"scope"`
	Intent      string             `json:"intent"`
	IntentBy    string             `json:"intent_by,omitempty"` // as in RecallResult
	Preset      string             `json:"preset"`
	Weights     map[string]float64 `json:"weights"`
	Triage      *Triage            `json:"triage,omitempty"`
	Budget      int                `json:"budget"`
	UsedTokens  int                `json:"used_tokens"`
	Tokenizer   string             `json:"tokenizer"`
	Entries     []DigestEntry      `json:"entries"`
	Candidates  int                `json:"candidates"`
	Omitted     int                `json:"omitted"`
	// Weaker counts the relevant candidates left out for scoring under
	// the digest's min_score_ratio of its best entry (not for want of room).
	Weaker   int    `json:"weaker"`
	Markdown string `json:"markdown"`
}

// RecordPatch changes some fields of a stored record; nil fields are kept.
type RecordPatch struct {
	Text         *string     `json:"text,omitempty" jsonschema:"new text"`
	Layer        *Layer      `json:"layer,omitempty" jsonschema:"new layer: domain, workflow or practitioner"`
	Kind         *Kind       `json:"kind,omitempty" jsonschema:"new kind"`
	Scope        *string     `json:"scope,omitempty" jsonschema:"new scope path"`
	Importance   *float64    `json:"importance,omitempty" jsonschema:"new importance 0..1"`
	Confidence   *float64    `json:"confidence,omitempty" jsonschema:"new confidence 0..1"`
	Criticality  *float64    `json:"criticality,omitempty" jsonschema:"new criticality 0..1"`
	Source       *string     `json:"source,omitempty" jsonschema:"new source"`
	Provenance   *[]string   `json:"provenance,omitempty" jsonschema:"replacement list of provenance references"`
	Component    *string     `json:"component,omitempty" jsonschema:"new component"`
	Tags         *[]string   `json:"tags,omitempty" jsonschema:"replacement list of tags"`
	Mission      *string     `json:"mission,omitempty" jsonschema:"new mission"`
	Thread       *string     `json:"thread,omitempty" jsonschema:"new thread (conversation or session); empty to leave the thread"`
	AccessLevel  *int        `json:"access_level,omitempty" jsonschema:"new access level (at most the caller's clearance)"`
	Decision     *Decision   `json:"decision,omitempty" jsonschema:"new decision body (kind decision)"`
	Correction   *Correction `json:"correction,omitempty" jsonschema:"new correction body (kind correction)"`
	ValidTo      *time.Time  `json:"valid_to,omitempty" jsonschema:"end of validity, RFC 3339"`
	SupersededBy *string     `json:"superseded_by,omitempty" jsonschema:"id of the record that replaces this one"`
}

// Empty reports whether the patch changes nothing.
func (p RecordPatch) Empty() bool { return p == RecordPatch{} }

// Apply copies the patch's set fields onto r.
func (p RecordPatch) Apply(r *Record) {
	if p.Text != nil {
		r.Text = *p.Text
	}
	if p.Layer != nil {
		r.Layer = *p.Layer
	}
	if p.Kind != nil {
		r.Kind = *p.Kind
	}
	if p.Scope != nil {
		r.Scope = *p.Scope
	}
	if p.Importance != nil {
		r.Importance = *p.Importance
	}
	if p.Confidence != nil {
		r.Confidence = *p.Confidence
	}
	if p.Criticality != nil {
		r.Criticality = *p.Criticality
	}
	if p.Source != nil {
		r.Source = *p.Source
	}
	if p.Provenance != nil {
		r.Provenance = append([]string(nil), (*p.Provenance)...)
	}
	if p.Component != nil {
		r.Component = *p.Component
	}
	if p.Tags != nil {
		r.Tags = append([]string(nil), (*p.Tags)...)
	}
	if p.Mission != nil {
		r.Mission = *p.Mission
	}
	if p.Thread != nil {
		r.Thread = *p.Thread
	}
	if p.AccessLevel != nil {
		r.AccessLevel = *p.AccessLevel
	}
	if p.Decision != nil {
		d := *p.Decision
		r.Decision = &d
	}
	if p.Correction != nil {
		c := *p.Correction
		r.Correction = &c
	}
	if p.ValidTo != nil {
		t := *p.ValidTo
		r.ValidTo = &t
	}
	if p.SupersededBy != nil {
		r.SupersededBy = *p.SupersededBy
	}
}
