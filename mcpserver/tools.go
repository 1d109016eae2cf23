package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
)

// filterSchema is mnemo.Filter's schema for tool arguments: its JSON
// spelling, which every surface shares, plus the older spellings the tools
// took before (layer, kind, scope, tag, criticality), still accepted.
func filterSchema() *jsonschema.Schema {
	sc, err := jsonschema.For[mnemo.Filter](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: filter schema: %v", err))
	}
	for _, old := range []string{"layer", "kind", "scope", "tag", "criticality"} {
		canon := mnemo.FilterAliases[old]
		p := sc.Properties[canon].CloneSchemas()
		p.Description = "older spelling of " + canon
		p.Deprecated = true
		sc.Properties[old] = p
		sc.PropertyOrder = append(sc.PropertyOrder, old)
	}
	return sc
}

// QueryInput is workflow_memory_query's input (DESIGN.md §3): the digest
// request of POST /v1/digest.
type QueryInput = mnemo.DigestRequest

func (s *server) query(ctx context.Context, p mnemo.Principal, in QueryInput) (*mcp.CallToolResult, error) {
	d, err := s.svc.Digest(ctx, in)
	if err != nil {
		return nil, err
	}
	return textResult(d.Markdown, d), nil
}

// RememberInput is memory_remember's input: the new record of
// POST /v1/records. Its source defaults to llm.
type RememberInput = mnemo.NewRecord

// RememberOutput says what memory_remember stored.
type RememberOutput struct {
	ID     string `json:"id"`
	Merged bool   `json:"merged"`
	Layer  string `json:"layer"`
	Kind   string `json:"kind"`
	Tokens int    `json:"tokens"`
}

func (s *server) remember(ctx context.Context, p mnemo.Principal, in RememberInput) (*mcp.CallToolResult, error) {
	if in.Source == "" {
		in.Source = "llm"
	}
	out, err := s.svc.Remember(ctx, []mnemo.NewRecord{in}, mnemo.WriteOptions{Dedup: true})
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

// RecallInput is memory_recall's input: the recall request of POST /v1/recall.
type RecallInput = mnemo.RecallRequest

func (s *server) recall(ctx context.Context, p mnemo.Principal, in RecallInput) (*mcp.CallToolResult, error) {
	res, err := s.svc.Recall(ctx, in)
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

// UpdateInput is memory_update's input: the record's id and the patch of
// PATCH /v1/records/{id}.
type UpdateInput struct {
	ID string `json:"id" jsonschema:"id of the record to change"`
	mnemo.RecordPatch
}

func (s *server) update(ctx context.Context, p mnemo.Principal, in UpdateInput) (*mcp.CallToolResult, error) {
	r, err := s.svc.Update(ctx, in.ID, in.RecordPatch)
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
	r, err := s.svc.Forget(ctx, in.ID)
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
	req := mnemo.HandoffRequest{From: in.From, Budget: in.TokenBudget}
	if in.Since != "" {
		t, err := mnemo.ParseTime(in.Since)
		if err != nil {
			return nil, mnemo.Errorf(mnemo.EINVALID, "since: %s", mnemo.ErrorMessage(err))
		}
		req.Since = t
	}
	h, err := s.svc.Handoff(ctx, req)
	if err != nil {
		return nil, err
	}
	return textResult(h.Markdown, h), nil
}
