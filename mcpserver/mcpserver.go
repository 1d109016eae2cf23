// Package mcpserver exposes mnemo's engine as Model Context Protocol tools,
// with the official Go SDK (the only package that imports it). The tool
// handlers are thin: they adapt typed inputs to engine calls.
//
// Tools: workflow_memory_query (the budgeted digest of DESIGN.md §3),
// memory_remember, memory_recall, memory_update and memory_forget. Every
// input is a struct whose JSON schema forbids unknown properties, so a call
// with an unknown argument is rejected before it reaches the engine.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
)

// Tool names.
const (
	ToolQuery    = "workflow_memory_query"
	ToolRemember = "memory_remember"
	ToolRecall   = "memory_recall"
	ToolUpdate   = "memory_update"
	ToolForget   = "memory_forget"
	ToolHandoff  = "memory_handoff"
)

// Options configures New.
type Options struct {
	// Identify returns the principal of a tool call from the HTTP request
	// header (nil over stdio). Nil means the local user: full clearance in
	// namespace DefaultNamespace with role admin.
	Identify func(ctx context.Context, h http.Header) (mnemo.Principal, error)
	// Namespace is the namespace of the local user when Identify is nil.
	Namespace string
	// Observe, when set, is called after every tool call (for metrics).
	Observe func(tool string, d time.Duration, code string)
	// Logger logs internal errors; nil discards them.
	Logger *slog.Logger
	// Version is reported to clients.
	Version string
}

// server holds what the tool handlers need.
type server struct {
	svc *engine.Service
	opt Options
	log *slog.Logger
}

// New returns an MCP server with mnemo's tools registered.
func New(svc *engine.Service, opt Options) *mcp.Server {
	if opt.Version == "" {
		opt.Version = "dev"
	}
	if opt.Namespace == "" {
		opt.Namespace = mnemo.DefaultNamespace
	}
	s := &server{svc: svc, opt: opt, log: opt.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "mnemo", Title: "mnemo memory", Version: opt.Version}, &mcp.ServerOptions{
		Instructions: "mnemo is persistent memory. Call workflow_memory_query at the start of a task to get the context " +
			"(domain facts, decisions with provenance, operator corrections) that fits a token budget; " +
			"call memory_remember to store what was learned or decided.",
	})
	addTool(srv, s, &mcp.Tool{
		Name:  ToolQuery,
		Title: "Workflow memory query",
		Description: "Return the context an agent should start with for a task, within a token budget: pinned core " +
			"records first, then domain facts, workflow decisions with provenance and practitioner patterns, each with " +
			"its score. The text content is the Markdown digest, the structured content is the same digest as JSON.",
		InputSchema: querySchema(),
		Annotations: readOnly(),
	}, s.query)
	addTool(srv, s, &mcp.Tool{
		Name:        ToolRemember,
		Title:       "Remember",
		Description: "Store one memory record (a fact, decision, preference, procedure, correction, ...). Near-duplicates are merged.",
		Annotations: writes(false, false),
	}, s.remember)
	addTool(srv, s, &mcp.Tool{
		Name:        ToolRecall,
		Title:       "Recall",
		Description: "Rank the k memories that best match a query; every hit carries its score and factor breakdown.",
		Annotations: readOnly(),
	}, s.recall)
	addTool(srv, s, &mcp.Tool{
		Name:        ToolUpdate,
		Title:       "Update a memory",
		Description: "Change fields of a stored record; omitted fields are kept. The previous version stays in the record's history.",
		Annotations: writes(true, true),
	}, s.update)
	addTool(srv, s, &mcp.Tool{
		Name:        ToolForget,
		Title:       "Forget a memory",
		Description: "Forget a record: it leaves every retrieval. It stays restorable (mnemo restore) and the action is audited.",
		Annotations: writes(true, true),
	}, s.forget)
	addTool(srv, s, &mcp.Tool{
		Name:  ToolHandoff,
		Title: "Shift handoff",
		Description: "Brief an incoming operator or agent, within a token budget: the outgoing operator's typical corrections, " +
			"areas of heightened attention, the period's decisions with rationale, open questions and the escalation timeline. " +
			"The text content is the Markdown brief, the structured content the same as JSON.",
		Annotations: readOnly(),
	}, s.handoff)
	addLoopTools(srv, s)
	return srv
}

// HTTPOptions configures NewHTTPHandler.
type HTTPOptions struct {
	Logger  *slog.Logger // nil discards logs
	MaxBody int64        // bound of a request body; 0 means the SDK's
	// Owner names who makes a request (an API key id, or "local"): a
	// session answers only requests of the owner that opened it (others
	// get 403), so knowing a session id is not enough to use or end it.
	// Nil leaves sessions unbound.
	Owner func(*http.Request) string
}

// NewHTTPHandler serves srv over the streamable HTTP transport. Host and
// Origin are the caller's to check (the server checks them for every
// route), so the SDK's own loopback-only Host check is off.
func NewHTTPHandler(srv *mcp.Server, opt HTTPOptions) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Logger:                     opt.Logger,
		MaxRequestBodyBytes:        opt.MaxBody,
		SessionTimeout:             30 * time.Minute,
		DisableLocalhostProtection: true,
	})
	if opt.Owner == nil {
		return h
	}
	// The SDK binds a session to the TokenInfo.UserID of the request that
	// opened it; the bearer middleware is the way to attach one.
	const localToken = "mnemo-local-session"
	bound := auth.RequireBearerToken(func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: opt.Owner(r)}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	// The local user sends no key: lend it a placeholder for the middleware
	// and take it away again before the SDK sees the request.
	strip := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+localToken {
			r = r.Clone(r.Context())
			r.Header.Del("Authorization")
		}
		h.ServeHTTP(w, r)
	})
	withOwner := bound(strip)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+localToken)
		}
		withOwner.ServeHTTP(w, r)
	})
}

// ServeStdio runs srv over stdin/stdout until the client disconnects or ctx ends.
func ServeStdio(ctx context.Context, srv *mcp.Server) error {
	return ServeIO(ctx, srv, os.Stdin, os.Stdout)
}

// ServeIO runs srv over newline-delimited JSON-RPC on in and out. A line
// that is not a JSON-RPC message gets a JSON-RPC error answer (-32700 parse
// error, -32600 invalid request) and the session goes on.
func ServeIO(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer) error {
	lw := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(filterFrames(in, pw, lw)) }()
	err := srv.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: nopCloser{lw}, MaxLineLength: MaxFrame + 16})
	_ = pr.Close()
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || strings.Contains(err.Error(), "EOF")) {
		return nil
	}
	return err
}

// handler is a typed tool body: it gets the resolved principal.
type handler[In any] func(ctx context.Context, p mnemo.Principal, in In) (*mcp.CallToolResult, error)

// wrap identifies the caller, runs h, hides internal errors and observes.
func wrap[In any](s *server, tool string, h handler[In]) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		start := time.Now()
		p, err := s.identify(ctx, req)
		var res *mcp.CallToolResult
		if err == nil {
			res, err = h(mnemo.WithPrincipal(ctx, p), p, in)
		}
		code := "ok"
		if err != nil {
			code = mnemo.ErrorCode(err)
			if code == mnemo.EINTERNAL || code == mnemo.EUNAVAILABLE {
				s.log.Error("mcp tool failed", "tool", tool, "err", err)
			}
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
				Text: code + ": " + mnemo.ErrorMessage(err)}}}
		}
		if s.opt.Observe != nil {
			s.opt.Observe(tool, time.Since(start), code)
		}
		return res, nil, nil
	}
}

func (s *server) identify(ctx context.Context, req *mcp.CallToolRequest) (mnemo.Principal, error) {
	var h http.Header
	if req != nil && req.Extra != nil {
		h = req.Extra.Header
	}
	if s.opt.Identify != nil {
		return s.opt.Identify(ctx, h)
	}
	return mnemo.Principal{Caller: mnemo.Caller{Name: "mcp", Role: mnemo.RoleAdmin, Clearance: mnemo.MaxAccessLevel},
		Namespace: s.opt.Namespace}, nil
}

// addTool registers a tool whose calls go through wrap; its input schema
// is In's unless t gives one.
func addTool[In any](srv *mcp.Server, s *server, t *mcp.Tool, h handler[In]) {
	if t.InputSchema == nil {
		t.InputSchema = schemaFor[In]()
	}
	mcp.AddTool(srv, t, wrap(s, t.Name, h))
}

// readOnly annotates a tool that changes nothing: calling it again is
// harmless, and it reaches nothing outside mnemo.
func readOnly() *mcp.ToolAnnotations {
	no := false
	return &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
}

// writes annotates a tool that writes memory: destructive when it changes
// or removes what exists, idempotent when calling it again changes nothing
// more.
func writes(destructive, idempotent bool) *mcp.ToolAnnotations {
	no := false
	return &mcp.ToolAnnotations{DestructiveHint: &destructive, IdempotentHint: idempotent, OpenWorldHint: &no}
}

// schemaFor infers the input schema of T (unknown properties forbidden).
func schemaFor[T any]() *jsonschema.Schema {
	sc, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[mnemo.Filter](): filterSchema()}})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema for %T: %v", *new(T), err))
	}
	return sc
}

// querySchema is QueryInput's schema with the enum and defaults of DESIGN.md §3.
func querySchema() *jsonschema.Schema {
	sc := schemaFor[QueryInput]()
	scope := sc.Properties["scope"]
	scope.Enum = []any{mnemo.ScopeAll, mnemo.ScopeDomain, mnemo.ScopeWorkflow, mnemo.ScopePractitioner}
	scope.Default = json.RawMessage(`"all"`)
	budget := sc.Properties["token_budget"]
	budget.Default = json.RawMessage(fmt.Sprint(mnemo.DefaultTokenBudget))
	lo, hi := 1.0, float64(engine.MaxTokenBudget)
	budget.Minimum, budget.Maximum = &lo, &hi
	return sc
}

// textResult is a tool result with one text block and structured content.
func textResult(text string, structured any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: structured}
}

func jsonText(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}
