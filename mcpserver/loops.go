package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/loops"
)

// Tool names of the namespace's scoring configuration and loops (read
// only: changing either is an administrator's, over REST or the CLI).
const (
	ToolConfig     = "memory_config"
	ToolLoopStatus = "memory_loop_status"
)

// ConfigInput is memory_config's input.
type ConfigInput struct {
	Version *int `json:"version,omitempty" jsonschema:"the configuration version to show (default: the active one; 0: the default preset's)"`
}

// LoopStatusInput is memory_loop_status's input (it takes no argument).
type LoopStatusInput struct{}

// addLoopTools registers the read-only configuration and loop tools.
func addLoopTools(srv *mcp.Server, s *server) {
	addTool(srv, s, &mcp.Tool{
		Name:  ToolConfig,
		Title: "Scoring configuration",
		Description: "Show a version of the namespace's scoring configuration (weights per intent, half-lives, recency floor, " +
			"candidate count, relevance floor, near-duplicate threshold) with who made it, why and what was measured.",
		Annotations: readOnly(),
	}, s.config)
	addTool(srv, s, &mcp.Tool{
		Name:  ToolLoopStatus,
		Title: "Memory quality loops",
		Description: "Report how well the namespace's memory answers its own probe questions (the validation score and its " +
			"trend), the last repair the cold loop triggered or made, and the configuration patches that wait for approval.",
		Annotations: readOnly(),
	}, s.loopStatus)
}

func (s *server) config(ctx context.Context, p mnemo.Principal, in ConfigInput) (*mcp.CallToolResult, error) {
	v := -1
	if in.Version != nil {
		if *in.Version < 0 {
			return nil, mnemo.Errorf(mnemo.EINVALID, "version must be 0 or more")
		}
		v = *in.Version
	}
	cv, err := s.svc.Config(ctx, v)
	if err != nil {
		return nil, err
	}
	head := fmt.Sprintf("configuration version %d of %s", cv.Version, cv.Namespace)
	if cv.Active {
		head += " (active)"
	}
	if cv.Author != "" {
		head += " by " + cv.Author
	}
	if cv.Reason != "" {
		head += ": " + cv.Reason
	}
	return textResult(head+"\n"+jsonText(cv.Config), cv), nil
}

func (s *server) loopStatus(ctx context.Context, p mnemo.Principal, _ LoopStatusInput) (*mcp.CallToolResult, error) {
	st, err := loops.New(s.svc).Status(ctx, p.Caller, p.Namespace)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: configuration version %d, threshold %.2f\n", st.Namespace, st.Version, st.Threshold)
	if len(st.Trend) == 0 {
		b.WriteString("no warm run yet: no validation score\n")
	}
	for _, pt := range st.Trend {
		fmt.Fprintf(&b, "%s validation %.3f on %d probes (v%d)\n", pt.At.Format("2006-01-02 15:04"), pt.Validation, pt.Probes, pt.Version)
	}
	if r := st.LastTrigger; r != nil {
		fmt.Fprintf(&b, "last trigger %s: %s\n", r.At.Format("2006-01-02 15:04"), r.Reason)
	}
	if r := st.LastPatch; r != nil {
		fmt.Fprintf(&b, "last patch %s: version %d, validation %.3f -> %.3f\n", r.At.Format("2006-01-02 15:04"), r.Version, r.ValidationBefore, r.ValidationAfter)
	}
	for _, pd := range st.Pending {
		fmt.Fprintf(&b, "pending patch %s: %d changes, search half %.3f -> %.3f\n", pd.ID, len(pd.Patch), pd.Evaluation.SearchBefore, pd.Evaluation.SearchAfter)
	}
	fmt.Fprintf(&b, "%d records with importance adjusted by the loops\n", st.Adjusted)
	return textResult(b.String(), st), nil
}
