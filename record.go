package mnemo

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Layer is one of the three memory layers; retrieval semantics and lifetime differ per layer.
type Layer string

// The memory layers.
const (
	LayerDomain       Layer = "domain"       // operating data of the field
	LayerWorkflow     Layer = "workflow"     // decisions and their provenance
	LayerPractitioner Layer = "practitioner" // per-operator patterns distilled from corrections
)

// Layers lists every layer in digest order.
var Layers = []Layer{LayerDomain, LayerWorkflow, LayerPractitioner}

// Valid reports whether l is a known layer.
func (l Layer) Valid() bool {
	return l == LayerDomain || l == LayerWorkflow || l == LayerPractitioner
}

// Kind is the lifecycle kind of a record.
type Kind string

// The record kinds.
const (
	KindFact       Kind = "fact"
	KindPreference Kind = "preference"
	KindEpisode    Kind = "episode"
	KindProcedure  Kind = "procedure"
	KindDecision   Kind = "decision"
	KindCorrection Kind = "correction"
	KindRefresh    Kind = "refresh"
	KindEvent      Kind = "event"
	KindCore       Kind = "core" // pinned identity/rules block, always first in a digest
	// KindPrinciple is a principle of the principle registry: a standing
	// rule decisions apply, which they cite by id (Decision.Principles).
	KindPrinciple Kind = "principle"
)

// Kinds lists every kind.
var Kinds = []Kind{KindFact, KindPreference, KindEpisode, KindProcedure, KindDecision,
	KindCorrection, KindRefresh, KindEvent, KindCore, KindPrinciple}

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool {
	for _, x := range Kinds {
		if k == x {
			return true
		}
	}
	return false
}

// DefaultLayer returns the layer a record of kind k lands in when none is given.
func (k Kind) DefaultLayer() Layer {
	switch k {
	case KindDecision, KindRefresh, KindProcedure, KindEvent, KindPrinciple:
		return LayerWorkflow
	case KindCorrection, KindPreference:
		return LayerPractitioner
	}
	return LayerDomain
}

// Alternative is an option a decision rejected, with the reason.
type Alternative struct {
	Option string `json:"option" jsonschema:"the option that was rejected"`
	Reason string `json:"reason,omitempty" jsonschema:"why it was rejected"`
}

// Decision is the structured body of a record of kind decision.
type Decision struct {
	Title        string        `json:"title,omitempty" jsonschema:"short title of the decision"`
	Context      string        `json:"context,omitempty" jsonschema:"the situation and the reason for deciding"`
	Decision     string        `json:"decision,omitempty" jsonschema:"what was decided"`
	Alternatives []Alternative `json:"alternatives,omitempty" jsonschema:"options considered and rejected, each with the reason"`
	Consequences string        `json:"consequences,omitempty" jsonschema:"what follows from the decision"`
	Principle    string        `json:"principle,omitempty" jsonschema:"the principle the decision rests on, in words"`
	Status       string        `json:"status,omitempty" jsonschema:"proposed, accepted, superseded or deprecated"` // proposed, accepted, superseded, deprecated
	Constrains   []string      `json:"constrains,omitempty" jsonschema:"ids of decisions this one constrains"`     // ids of decisions this one constrains
	DependsOn    []string      `json:"depends_on,omitempty" jsonschema:"ids of decisions this one depends on"`     // ids of decisions this one depends on
	// Principles cites records of kind principle by id: the registry's
	// principles the decision applies (the free-text Principle stays).
	Principles []string `json:"principles,omitempty" jsonschema:"ids of the principle records (kind principle) the decision applies; each must be a principle the writer sees, no more restricted than the decision"`
}

// Correction outcomes.
const (
	OutcomeAccepted = "accepted"
	OutcomeRejected = "rejected"
	OutcomeModified = "modified"
)

// Correction is the structured body of a record of kind correction: an
// abstraction of an operator's correction, never raw conversation text.
type Correction struct {
	Class          string `json:"class,omitempty" jsonschema:"class of correction, e.g. omission, wrong-fact, style"`
	Category       string `json:"category,omitempty" jsonschema:"semantic category, e.g. pass-planning"` // semantic category
	Component      string `json:"component,omitempty" jsonschema:"affected component"`
	Outcome        string `json:"outcome,omitempty" jsonschema:"accepted, rejected or modified"`         // accepted, rejected, modified
	Summary        string `json:"summary,omitempty" jsonschema:"one-sentence summary of the correction"` // one sentence
	RetrievalID    string `json:"retrieval_id,omitempty" jsonschema:"id of the retrieval the correction followed"`
	MissingContext bool   `json:"missing_context,omitempty" jsonschema:"whether missing context caused the correction"`
}

// Record is the unit of memory.
type Record struct {
	ID         string      `json:"id"`
	Namespace  string      `json:"namespace"`
	Layer      Layer       `json:"layer"`
	Kind       Kind        `json:"kind"`
	Scope      string      `json:"scope"`
	Text       string      `json:"text"`
	Decision   *Decision   `json:"decision,omitempty"`
	Correction *Correction `json:"correction,omitempty"`

	Importance  float64 `json:"importance"`
	Confidence  float64 `json:"confidence"`
	Criticality float64 `json:"criticality"`

	Source     string   `json:"source,omitempty"`
	Provenance []string `json:"provenance,omitempty"` // references: "commit:sha", "issue:URL", "doc:path", "msg:conv/id", "session:id", "operator:name"
	Component  string   `json:"component,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Mission    string   `json:"mission,omitempty"`
	// Thread names the conversation or session the record is part of. The
	// records of one thread, in time order, lend each other context: each
	// record's vector carries a fading trace of the thread before it
	// (see the engine's write path), so a terse reply ("Yes, last
	// Tuesday") is found by the words of the turn it answers.
	Thread string `json:"thread,omitempty"`

	AccessLevel int `json:"access_level"`

	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	LastAccessedAt *time.Time `json:"last_accessed_at,omitempty"`
	AccessCount    int64      `json:"access_count"`

	ValidFrom    time.Time  `json:"valid_from"`
	ValidTo      *time.Time `json:"valid_to,omitempty"`
	SupersededBy string     `json:"superseded_by,omitempty"`
	DeletedAt    *time.Time `json:"deleted_at,omitempty"`

	Tokens int `json:"tokens"`

	// Embedding is the record's vector; it is stored but never serialised.
	// It is read-only: a store may share it between the records it returns,
	// so code that changes a vector assigns a new slice.
	Embedding []float32 `json:"-"`
}

// MaxThreadBytes bounds a record's thread name.
const MaxThreadBytes = 256

// Limits bound what a record may hold.
type Limits struct {
	MaxTextBytes int // 64 KiB by default
}

// DefaultLimits are the limits used when none are configured.
var DefaultLimits = Limits{MaxTextBytes: 64 << 10}

// MaxAccessLevel is the highest clearance level a record or caller can have.
const MaxAccessLevel = 1 << 20

// Validate checks r's fields and returns an EINVALID or ETOOLARGE error naming
// the first bad field. It does not fill defaults; see Normalize.
func (r *Record) Validate(lim Limits) error {
	if lim.MaxTextBytes <= 0 {
		lim = DefaultLimits
	}
	if r.ID != "" { // "" is assigned on write
		if err := ValidateID(r.ID); err != nil {
			return err
		}
	}
	if !r.Layer.Valid() {
		return Errorf(EINVALID, "unknown layer %q (want domain, workflow or practitioner)", r.Layer)
	}
	if !r.Kind.Valid() {
		return Errorf(EINVALID, "unknown kind %q (want one of %s)", r.Kind, kindList())
	}
	if strings.TrimSpace(r.Text) == "" {
		return Errorf(EINVALID, "text is empty")
	}
	if len(r.Text) > lim.MaxTextBytes {
		return Errorf(ETOOLARGE, "text is %d bytes, over the limit of %d", len(r.Text), lim.MaxTextBytes)
	}
	for name, s := range map[string]string{"text": r.Text, "scope": r.Scope, "source": r.Source,
		"component": r.Component, "mission": r.Mission, "thread": r.Thread, "namespace": r.Namespace} {
		if !utf8.ValidString(s) {
			return Errorf(EINVALID, "%s is not valid UTF-8", name)
		}
	}
	for _, s := range append(append([]string{}, r.Tags...), r.Provenance...) {
		if !utf8.ValidString(s) {
			return Errorf(EINVALID, "tag or provenance is not valid UTF-8")
		}
	}
	if len(r.Thread) > MaxThreadBytes {
		return Errorf(ETOOLARGE, "thread is %d bytes, over the limit of %d", len(r.Thread), MaxThreadBytes)
	}
	if err := ValidateScope(r.Scope); err != nil {
		return err
	}
	if err := ValidateNamespace(r.Namespace); err != nil {
		return err
	}
	for name, v := range map[string]float64{"importance": r.Importance, "confidence": r.Confidence, "criticality": r.Criticality} {
		if !(v >= 0 && v <= 1) { // also rejects NaN
			return Errorf(EINVALID, "%s %v is outside 0..1", name, v)
		}
	}
	if r.AccessLevel < 0 || r.AccessLevel > MaxAccessLevel {
		return Errorf(EINVALID, "access_level %d is outside 0..%d", r.AccessLevel, MaxAccessLevel)
	}
	if r.Decision != nil && r.Kind != KindDecision {
		return Errorf(EINVALID, "a decision body needs kind decision, not %q", r.Kind)
	}
	if r.Decision != nil {
		if err := validatePrinciples(r.Decision.Principles); err != nil {
			return err
		}
	}
	if r.Correction != nil {
		if r.Kind != KindCorrection {
			return Errorf(EINVALID, "a correction body needs kind correction, not %q", r.Kind)
		}
		switch r.Correction.Outcome {
		case "", OutcomeAccepted, OutcomeRejected, OutcomeModified:
		default:
			return Errorf(EINVALID, "unknown correction outcome %q (want accepted, rejected or modified)", r.Correction.Outcome)
		}
	}
	if r.ValidTo != nil && !r.ValidFrom.IsZero() && r.ValidTo.Before(r.ValidFrom) {
		return Errorf(EINVALID, "valid_to is before valid_from")
	}
	return nil
}

func kindList() string {
	s := make([]string, len(Kinds))
	for i, k := range Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// ValidateScope checks that s is "" or a slash-separated path: it starts with
// "/", has no empty segments, no whitespace or control characters, and at
// most 512 bytes.
func ValidateScope(s string) error {
	if s == "" || s == "/" {
		return nil
	}
	if len(s) > 512 {
		return Errorf(EINVALID, "scope is longer than 512 bytes")
	}
	if !strings.HasPrefix(s, "/") {
		return Errorf(EINVALID, "malformed scope %q: it must start with /", s)
	}
	if strings.Contains(s, "//") {
		return Errorf(EINVALID, "malformed scope %q: empty path segment", s)
	}
	for _, c := range s {
		if c <= ' ' || c == 0x7f || c == utf8.RuneError {
			return Errorf(EINVALID, "malformed scope %q: whitespace or control character", s)
		}
	}
	return nil
}

// ValidateNamespace checks a namespace name: 1..128 bytes of letters,
// digits, '-', '_', '.', ':' or '/'. The empty string means the default.
func ValidateNamespace(ns string) error {
	if ns == "" {
		return nil
	}
	if len(ns) > 128 {
		return Errorf(EINVALID, "namespace is longer than 128 bytes")
	}
	for _, c := range ns {
		ok := c == '-' || c == '_' || c == '.' || c == ':' || c == '/' ||
			(c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !ok {
			return Errorf(EINVALID, "malformed namespace %q: use letters, digits, - _ . : /", ns)
		}
	}
	return nil
}

// MaxIDBytes is the longest record id.
const MaxIDBytes = 256

// ValidateID checks a record id: 1..MaxIDBytes bytes of ASCII letters,
// digits, '-', '_', '.', ':' or '/' (the alphabet of namespaces). Ids mnemo
// assigns are ULIDs; ids are unique within a namespace, not across a store.
// A bad id is EINVALID on every surface, and its text is never echoed.
func ValidateID(id string) error {
	if id == "" {
		return Errorf(EINVALID, "record id is empty")
	}
	if len(id) > MaxIDBytes {
		return Errorf(EINVALID, "record id is longer than %d bytes", MaxIDBytes)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c == '-' || c == '_' || c == '.' || c == ':' || c == '/' ||
			(c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !ok {
			return Errorf(EINVALID, "malformed record id: use at most %d letters, digits, - _ . : /", MaxIDBytes)
		}
	}
	return nil
}

// DefaultNamespace is the namespace used when none is given.
const DefaultNamespace = "default"

// Normalize fills defaults on a new record: namespace, layer from kind,
// scope "/", confidence by source, and timestamps from now.
func (r *Record) Normalize(now time.Time) {
	if r.Namespace == "" {
		r.Namespace = DefaultNamespace
	}
	if r.Kind == "" {
		r.Kind = KindFact
	}
	if r.Layer == "" {
		r.Layer = r.Kind.DefaultLayer()
	}
	if r.Scope == "" {
		r.Scope = "/"
	}
	r.Scope = strings.TrimRight(r.Scope, "/")
	if r.Scope == "" {
		r.Scope = "/"
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = now
	}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = r.CreatedAt
	}
	if r.ValidFrom.IsZero() {
		r.ValidFrom = r.CreatedAt
	}
	r.Tags = dedupStrings(r.Tags)
	r.Provenance = dedupStrings(r.Provenance)
}

// DefaultConfidence returns the confidence a record from source gets when
// none is given: user-stated 1.0, model-inferred 0.7, observed 0.5.
func DefaultConfidence(source string) float64 {
	switch {
	case source == "llm" || strings.HasPrefix(source, "llm:"):
		return 0.7
	case source == "observed" || strings.HasPrefix(source, "observed:"):
		return 0.5
	}
	return 1.0
}

func dedupStrings(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(in))
	out := in[:0:0]
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// Live reports whether r is visible at time t: not deleted, and valid at t.
func (r *Record) Live(t time.Time) bool {
	if r.DeletedAt != nil {
		return false
	}
	if !r.ValidFrom.IsZero() && t.Before(r.ValidFrom) {
		return false
	}
	return r.ValidTo == nil || t.Before(*r.ValidTo)
}

// NewRecord is the input of a write: the fields a caller may set, with
// pointers where "unset" differs from zero so defaults can apply.
type NewRecord struct {
	ID          string      `json:"id,omitempty" jsonschema:"optional id (letters, digits, - _ . : /); assigned when empty"` // optional; assigned when empty
	Layer       Layer       `json:"layer,omitempty" jsonschema:"domain, workflow or practitioner (default from the kind)"`
	Kind        Kind        `json:"kind,omitempty" jsonschema:"fact (default), preference, episode, procedure, decision, correction, refresh, event, core or principle"`
	Scope       string      `json:"scope,omitempty" jsonschema:"scope path such as /regulations/gdpr; it selects the recency half-life"`
	Text        string      `json:"text" jsonschema:"the content to remember"`
	Decision    *Decision   `json:"decision,omitempty" jsonschema:"structured body of a decision (kind decision): what was decided, why, and the alternatives rejected"`
	Correction  *Correction `json:"correction,omitempty" jsonschema:"structured body of an operator correction (kind correction); never raw conversation text"`
	Importance  *float64    `json:"importance,omitempty" jsonschema:"static priority 0..1 (default 0.5)"`                                                // default 0.5
	Confidence  *float64    `json:"confidence,omitempty" jsonschema:"confidence 0..1 (default by source: user 1.0, llm 0.7, observed 0.5)"`              // default by source
	Criticality *float64    `json:"criticality,omitempty" jsonschema:"criticality 0..1 used by triage ranking (default 0)"`                              // default 0
	Source      string      `json:"source,omitempty" jsonschema:"where it came from: user, llm, observed, import:git, ... (default user; llm over MCP)"` // default "user"
	Provenance  []string    `json:"provenance,omitempty" jsonschema:"references such as commit:SHA, issue:URL, doc:PATH, session:ID"`
	Component   string      `json:"component,omitempty" jsonschema:"component the record is about"`
	Tags        []string    `json:"tags,omitempty" jsonschema:"free tags"`
	Mission     string      `json:"mission,omitempty" jsonschema:"mission the record belongs to"`
	Thread      string      `json:"thread,omitempty" jsonschema:"conversation or session the record is part of (e.g. session:ID); records of one thread lend each other context in semantic search"` // conversation or session the record belongs to
	AccessLevel int         `json:"access_level,omitempty" jsonschema:"clearance needed to see the record (default 0); at most the caller's clearance"`
	At          *time.Time  `json:"at,omitempty" jsonschema:"when it happened or was learned, RFC 3339 (default now)"`                  // when it happened or was learned; default now
	ValidTo     *time.Time  `json:"valid_to,omitempty" jsonschema:"end of validity, RFC 3339, if known"`                                // end of validity, if known
	Supersedes  string      `json:"supersedes,omitempty" jsonschema:"id of a record this one replaces; the old one is kept as history"` // id of a record this one replaces
}

// Record turns the input into a record with defaults applied (no id, no
// namespace, no timestamps: the engine sets those).
func (n NewRecord) Record() *Record {
	r := &Record{
		ID: n.ID, Layer: n.Layer, Kind: n.Kind, Scope: n.Scope, Text: n.Text,
		Decision: n.Decision, Correction: n.Correction, Source: n.Source,
		Provenance: append([]string(nil), n.Provenance...), Component: n.Component,
		Tags: append([]string(nil), n.Tags...), Mission: n.Mission, Thread: n.Thread, AccessLevel: n.AccessLevel,
		Importance: 0.5,
	}
	if r.Source == "" {
		r.Source = "user"
	}
	r.Confidence = DefaultConfidence(r.Source)
	if n.Importance != nil {
		r.Importance = *n.Importance
	}
	if n.Confidence != nil {
		r.Confidence = *n.Confidence
	}
	if n.Criticality != nil {
		r.Criticality = *n.Criticality
	}
	if n.At != nil {
		r.CreatedAt = n.At.UTC()
		r.ValidFrom = r.CreatedAt
	}
	if n.ValidTo != nil {
		t := n.ValidTo.UTC()
		r.ValidTo = &t
	}
	if r.Kind == "" && r.Decision != nil {
		r.Kind = KindDecision
	}
	if r.Kind == "" && r.Correction != nil {
		r.Kind = KindCorrection
	}
	return r
}

// SearchText returns what keyword search indexes for the record: its text,
// then the words of its structured body.
func (r *Record) SearchText() string {
	return r.Text + BodyText(r.Decision, r.Correction)
}

// BodyText returns the searchable words of a structured body, each part on
// its own line after a leading newline ("" without a body): a decision's
// title, decision, context, principle, consequences, status and rejected
// options with their reasons; a correction's class, category, component and
// summary.
func BodyText(d *Decision, c *Correction) string {
	var parts []string
	if d != nil {
		parts = append(parts, d.Title, d.Decision, d.Context, d.Principle, d.Consequences, d.Status)
		for _, a := range d.Alternatives {
			parts = append(parts, a.Option, a.Reason)
		}
	}
	if c != nil {
		parts = append(parts, c.Class, c.Category, c.Component, c.Summary)
	}
	var b strings.Builder
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			b.WriteByte('\n')
			b.WriteString(p)
		}
	}
	return b.String()
}
