package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
)

// Filters narrow which records a query or recall sees.
type Filters struct {
	Component   string   `json:"component,omitempty" jsonschema:"only records of this component"`
	Criticality float64  `json:"criticality,omitempty" jsonschema:"minimum criticality 0..1"`
	Since       string   `json:"since,omitempty" jsonschema:"only records created at or after this time (RFC 3339 or YYYY-MM-DD)"`
	Until       string   `json:"until,omitempty" jsonschema:"only records created before this time (RFC 3339 or YYYY-MM-DD)"`
	Kind        []string `json:"kind,omitempty" jsonschema:"only these kinds: fact, preference, episode, procedure, decision, correction, refresh, event, core"`
	Layer       []string `json:"layer,omitempty" jsonschema:"only these layers: domain, workflow, practitioner"`
	Tags        []string `json:"tags,omitempty" jsonschema:"only records that carry every one of these tags"`
	Scope       string   `json:"scope,omitempty" jsonschema:"scope path prefix, e.g. /regulations"`
	Mission     string   `json:"mission,omitempty" jsonschema:"only records of this mission"`
	Thread      string   `json:"thread,omitempty" jsonschema:"only records of this conversation or session"`
	Outcome     string   `json:"outcome,omitempty" jsonschema:"correction outcome: accepted, rejected or modified"`
	AsOf        string   `json:"as_of,omitempty" jsonschema:"answer as of this time (RFC 3339): superseded facts valid then are included"`
}

// filter converts f into the engine's filter.
func (f *Filters) filter() (mnemo.Filter, error) {
	var out mnemo.Filter
	if f == nil {
		return out, nil
	}
	out.Component, out.MinCriticality, out.ScopePrefix = f.Component, f.Criticality, f.Scope
	out.Mission, out.Thread, out.Outcome, out.Tags = f.Mission, f.Thread, f.Outcome, f.Tags
	for _, k := range f.Kind {
		out.Kinds = append(out.Kinds, mnemo.Kind(k))
	}
	for _, l := range f.Layer {
		out.Layers = append(out.Layers, mnemo.Layer(l))
	}
	for _, x := range []struct {
		name, v string
		dst     **time.Time
	}{{"since", f.Since, &out.Since}, {"until", f.Until, &out.Until}, {"as_of", f.AsOf, &out.AsOf}} {
		if x.v == "" {
			continue
		}
		t, err := parseTime(x.v)
		if err != nil {
			return out, mnemo.Errorf(mnemo.EINVALID, "filter %s: %q is not an RFC 3339 time or a date", x.name, x.v)
		}
		*x.dst = &t
	}
	return out, nil
}

func parseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	return time.Parse("2006-01-02", s)
}

// QueryInput is workflow_memory_query's input (DESIGN.md §3).
type QueryInput struct {
	TaskDescription string   `json:"task_description" jsonschema:"the task the agent is about to work on, in plain words"`
	Scope           string   `json:"scope,omitempty" jsonschema:"which layers to draw from: all, domain, workflow or practitioner"`
	TokenBudget     int      `json:"token_budget,omitempty" jsonschema:"maximum size of the digest in tokens (exact count, headers included)"`
	Filters         *Filters `json:"filters,omitempty" jsonschema:"structured filters: component, criticality, time range, kind, tags, scope prefix, outcome, as_of"`
	MinRelevance    *float64 `json:"min_relevance,omitempty" jsonschema:"evidence of relevance every entry must reach, 0..1; unset: adaptive floor; 0: no floor"`
}

func (s *server) query(ctx context.Context, p mnemo.Principal, in QueryInput) (*mcp.CallToolResult, error) {
	f, err := in.Filters.filter()
	if err != nil {
		return nil, err
	}
	d, err := s.svc.Digest(ctx, p.Caller, mnemo.DigestRequest{Namespace: p.Namespace, Task: in.TaskDescription,
		Scope: in.Scope, Budget: in.TokenBudget, Filter: f, MinRelevance: in.MinRelevance})
	if err != nil {
		return nil, err
	}
	return textResult(d.Markdown, d), nil
}

// RememberInput is memory_remember's input.
type RememberInput struct {
	Text        string           `json:"text" jsonschema:"the content to remember"`
	Kind        string           `json:"kind,omitempty" jsonschema:"fact (default), preference, episode, procedure, decision, correction, refresh, event or core"`
	Layer       string           `json:"layer,omitempty" jsonschema:"domain, workflow or practitioner (default from the kind)"`
	Scope       string           `json:"scope,omitempty" jsonschema:"scope path such as /regulations/gdpr; it selects the recency half-life"`
	Importance  *float64         `json:"importance,omitempty" jsonschema:"static priority 0..1 (default 0.5)"`
	Confidence  *float64         `json:"confidence,omitempty" jsonschema:"confidence 0..1 (default by source: user 1.0, llm 0.7, observed 0.5)"`
	Criticality *float64         `json:"criticality,omitempty" jsonschema:"criticality 0..1 used by triage ranking (default 0)"`
	Source      string           `json:"source,omitempty" jsonschema:"where it came from: user, llm, observed, import:git, ... (default llm over MCP)"`
	Provenance  []string         `json:"provenance,omitempty" jsonschema:"references such as commit:SHA, issue:URL, doc:PATH, session:ID"`
	Component   string           `json:"component,omitempty" jsonschema:"component the record is about"`
	Tags        []string         `json:"tags,omitempty" jsonschema:"free tags"`
	Mission     string           `json:"mission,omitempty" jsonschema:"mission the record belongs to"`
	Thread      string           `json:"thread,omitempty" jsonschema:"conversation or session the record is part of (e.g. session:ID); records of one thread lend each other context in semantic search"`
	AccessLevel int              `json:"access_level,omitempty" jsonschema:"clearance needed to see the record (default 0); at most the caller's clearance"`
	Supersedes  string           `json:"supersedes,omitempty" jsonschema:"id of a record this one replaces; the old one is kept as history"`
	Decision    *DecisionInput   `json:"decision,omitempty" jsonschema:"structured body of a decision (kind decision): what was decided, why, and the alternatives rejected"`
	Correction  *CorrectionInput `json:"correction,omitempty" jsonschema:"structured body of an operator correction (kind correction); never raw conversation text"`
}

// DecisionInput is the structured body of a decision.
type DecisionInput struct {
	Title        string             `json:"title,omitempty" jsonschema:"short title of the decision"`
	Context      string             `json:"context,omitempty" jsonschema:"the situation and the reason for deciding"`
	Decision     string             `json:"decision,omitempty" jsonschema:"what was decided"`
	Alternatives []AlternativeInput `json:"alternatives,omitempty" jsonschema:"options considered and rejected, each with the reason"`
	Consequences string             `json:"consequences,omitempty" jsonschema:"what follows from the decision"`
	Principle    string             `json:"principle,omitempty" jsonschema:"the principle the decision rests on"`
	Status       string             `json:"status,omitempty" jsonschema:"proposed, accepted, superseded or deprecated"`
	Constrains   []string           `json:"constrains,omitempty" jsonschema:"ids of decisions this one constrains"`
	DependsOn    []string           `json:"depends_on,omitempty" jsonschema:"ids of decisions this one depends on"`
}

// AlternativeInput is a rejected option.
type AlternativeInput struct {
	Option string `json:"option" jsonschema:"the option that was rejected"`
	Reason string `json:"reason,omitempty" jsonschema:"why it was rejected"`
}

// CorrectionInput is the structured body of a correction.
type CorrectionInput struct {
	Class          string `json:"class,omitempty" jsonschema:"class of correction, e.g. omission, wrong-fact, style"`
	Category       string `json:"category,omitempty" jsonschema:"semantic category, e.g. pass-planning"`
	Component      string `json:"component,omitempty" jsonschema:"affected component"`
	Outcome        string `json:"outcome,omitempty" jsonschema:"accepted, rejected or modified"`
	Summary        string `json:"summary,omitempty" jsonschema:"one-sentence summary of the correction"`
	RetrievalID    string `json:"retrieval_id,omitempty" jsonschema:"id of the retrieval the correction followed"`
	MissingContext bool   `json:"missing_context,omitempty" jsonschema:"whether missing context caused the correction"`
}

func (d *DecisionInput) body() *mnemo.Decision {
	if d == nil {
		return nil
	}
	out := &mnemo.Decision{Title: d.Title, Context: d.Context, Decision: d.Decision, Consequences: d.Consequences,
		Principle: d.Principle, Status: d.Status, Constrains: d.Constrains, DependsOn: d.DependsOn}
	for _, a := range d.Alternatives {
		out.Alternatives = append(out.Alternatives, mnemo.Alternative{Option: a.Option, Reason: a.Reason})
	}
	return out
}

func (c *CorrectionInput) body() *mnemo.Correction {
	if c == nil {
		return nil
	}
	return &mnemo.Correction{Class: c.Class, Category: c.Category, Component: c.Component, Outcome: c.Outcome,
		Summary: c.Summary, RetrievalID: c.RetrievalID, MissingContext: c.MissingContext}
}

// RememberOutput says what memory_remember stored.
type RememberOutput struct {
	ID     string `json:"id"`
	Merged bool   `json:"merged"`
	Layer  string `json:"layer"`
	Kind   string `json:"kind"`
	Tokens int    `json:"tokens"`
}

func (s *server) remember(ctx context.Context, p mnemo.Principal, in RememberInput) (*mcp.CallToolResult, error) {
	if err := p.CheckWrite(); err != nil {
		return nil, err
	}
	src := in.Source
	if src == "" {
		src = "llm"
	}
	n := mnemo.NewRecord{Text: in.Text, Kind: mnemo.Kind(in.Kind), Layer: mnemo.Layer(in.Layer), Scope: in.Scope,
		Importance: in.Importance, Confidence: in.Confidence, Criticality: in.Criticality, Source: src,
		Provenance: in.Provenance, Component: in.Component, Tags: in.Tags, Mission: in.Mission,
		Thread: in.Thread, AccessLevel: in.AccessLevel, Supersedes: in.Supersedes,
		Decision: in.Decision.body(), Correction: in.Correction.body()}
	out, err := s.svc.Remember(ctx, p.Caller, p.Namespace, []mnemo.NewRecord{n}, engine.WriteOptions{Dedup: true})
	if err != nil {
		return nil, err
	}
	w := out[0]
	o := RememberOutput{ID: w.ID, Merged: w.Merged, Layer: string(w.Layer), Kind: string(w.Kind), Tokens: w.Tokens}
	verb := "remembered"
	if w.Merged {
		verb = "merged into"
	}
	return textResult(fmt.Sprintf("%s %s (%s/%s, %d tokens)", verb, w.ID, w.Layer, w.Kind, w.Tokens), o), nil
}

// RecallInput is memory_recall's input.
type RecallInput struct {
	Query   string   `json:"query" jsonschema:"what to look for, in plain words"`
	K       int      `json:"k,omitempty" jsonschema:"number of hits, 1..1000 (default 10)"`
	Filters *Filters `json:"filters,omitempty" jsonschema:"structured filters"`
	Preset  string   `json:"preset,omitempty" jsonschema:"scoring preset: default, aura or alma"`
	Intent  string   `json:"intent,omitempty" jsonschema:"override the classified intent: general, recent, rules, howto or why"`
	// MinRelevance is as in QueryInput.
	MinRelevance *float64 `json:"min_relevance,omitempty" jsonschema:"evidence of relevance every hit must reach, 0..1; unset: adaptive floor; 0: no floor"`
}

func (s *server) recall(ctx context.Context, p mnemo.Principal, in RecallInput) (*mcp.CallToolResult, error) {
	f, err := in.Filters.filter()
	if err != nil {
		return nil, err
	}
	res, err := s.svc.Recall(ctx, p.Caller, mnemo.RecallRequest{Namespace: p.Namespace, Query: in.Query, K: in.K,
		Filter: f, Preset: in.Preset, Intent: in.Intent, MinRelevance: in.MinRelevance})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "intent %s, preset %s, %d hits\n", res.Intent, res.Preset, len(res.Hits))
	for i, h := range res.Hits {
		fmt.Fprintf(&b, "%d. [%.4f] %s (%s/%s) %s\n", i+1, h.Score, h.ID, h.Layer, h.Kind, h.Text)
	}
	return textResult(b.String(), res), nil
}

// UpdateInput is memory_update's input.
type UpdateInput struct {
	ID          string    `json:"id" jsonschema:"id of the record to change"`
	Text        *string   `json:"text,omitempty" jsonschema:"new text"`
	Kind        *string   `json:"kind,omitempty" jsonschema:"new kind"`
	Layer       *string   `json:"layer,omitempty" jsonschema:"new layer"`
	Scope       *string   `json:"scope,omitempty" jsonschema:"new scope path"`
	Importance  *float64  `json:"importance,omitempty" jsonschema:"new importance 0..1"`
	Confidence  *float64  `json:"confidence,omitempty" jsonschema:"new confidence 0..1"`
	Criticality *float64  `json:"criticality,omitempty" jsonschema:"new criticality 0..1"`
	Provenance  *[]string `json:"provenance,omitempty" jsonschema:"replacement list of provenance references"`
	Component   *string   `json:"component,omitempty" jsonschema:"new component"`
	Tags        *[]string `json:"tags,omitempty" jsonschema:"replacement list of tags"`
	Mission     *string   `json:"mission,omitempty" jsonschema:"new mission"`
	Thread      *string   `json:"thread,omitempty" jsonschema:"new thread (conversation or session); empty to leave the thread"`
	AccessLevel *int      `json:"access_level,omitempty" jsonschema:"new access level (at most the caller's clearance)"`
}

func (s *server) update(ctx context.Context, p mnemo.Principal, in UpdateInput) (*mcp.CallToolResult, error) {
	if err := p.CheckWrite(); err != nil {
		return nil, err
	}
	patch := mnemo.RecordPatch{Text: in.Text, Scope: in.Scope, Importance: in.Importance, Confidence: in.Confidence,
		Criticality: in.Criticality, Provenance: in.Provenance, Component: in.Component, Tags: in.Tags,
		Mission: in.Mission, Thread: in.Thread, AccessLevel: in.AccessLevel}
	if in.Kind != nil {
		k := mnemo.Kind(*in.Kind)
		patch.Kind = &k
	}
	if in.Layer != nil {
		l := mnemo.Layer(*in.Layer)
		patch.Layer = &l
	}
	r, err := s.svc.Update(ctx, p.Caller, p.Namespace, in.ID, patch)
	if err != nil {
		return nil, err
	}
	return textResult("updated "+r.ID, r), nil
}

// ForgetInput is memory_forget's input.
type ForgetInput struct {
	ID string `json:"id" jsonschema:"id of the record to forget"`
}

func (s *server) forget(ctx context.Context, p mnemo.Principal, in ForgetInput) (*mcp.CallToolResult, error) {
	if err := p.CheckWrite(); err != nil {
		return nil, err
	}
	r, err := s.svc.Forget(ctx, p.Caller, p.Namespace, in.ID)
	if err != nil {
		return nil, err
	}
	return textResult("forgot "+r.ID+" (restorable)", map[string]any{"id": r.ID, "forgotten": true}), nil
}

// HandoffInput is memory_handoff's input.
type HandoffInput struct {
	From        string `json:"from,omitempty" jsonschema:"the outgoing operator: only corrections with provenance operator:NAME (default everyone's)"`
	Since       string `json:"since,omitempty" jsonschema:"start of the shift or period (RFC 3339 or YYYY-MM-DD; default 7 days ago)"`
	TokenBudget int    `json:"token_budget,omitempty" jsonschema:"maximum size of the brief in tokens (exact count; default 4000)"`
}

func (s *server) handoff(ctx context.Context, p mnemo.Principal, in HandoffInput) (*mcp.CallToolResult, error) {
	req := engine.HandoffRequest{Namespace: p.Namespace, From: in.From, Budget: in.TokenBudget}
	if in.Since != "" {
		t, err := parseTime(in.Since)
		if err != nil {
			return nil, mnemo.Errorf(mnemo.EINVALID, "since %q is not an RFC 3339 time or a date", in.Since)
		}
		req.Since = t
	}
	h, err := s.svc.Handoff(ctx, p.Caller, req)
	if err != nil {
		return nil, err
	}
	return textResult(h.Markdown, h), nil
}
