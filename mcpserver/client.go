package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Client is one MCP session with a server run as a command over stdio —
// mnemo's own `mnemo mcp` or another memory server — for benchmarks and
// tools that drive MCP servers.
type Client struct {
	name string
	cs   *mcp.ClientSession
}

// DialCommand starts cmd and connects to it as an MCP client; name labels
// its errors.
func DialCommand(ctx context.Context, name string, cmd *exec.Cmd) (*Client, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "mnemo-client", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: connect: %w", name, err)
	}
	return &Client{name: name, cs: cs}, nil
}

// Close ends the session and the server process.
func (c *Client) Close() { _ = c.cs.Close() }

// HasTools returns an error naming the first of names the server lacks.
func (c *Client) HasTools(ctx context.Context, names ...string) error {
	res, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: list tools: %w", c.name, err)
	}
	have := map[string]bool{}
	for _, t := range res.Tools {
		have[t.Name] = true
	}
	for _, n := range names {
		if !have[n] {
			return fmt.Errorf("%s has no tool %q", c.name, n)
		}
	}
	return nil
}

// Call runs a tool and decodes its structured content into out (when not
// nil); a tool error becomes an error carrying the tool's text.
func (c *Client) Call(ctx context.Context, tool string, args any, out any) error {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return fmt.Errorf("%s: %s: %w", c.name, tool, err)
	}
	if res.IsError {
		var msg []string
		for _, ct := range res.Content {
			if t, ok := ct.(*mcp.TextContent); ok {
				msg = append(msg, t.Text)
			}
		}
		return fmt.Errorf("%s: %s failed: %s", c.name, tool, strings.Join(msg, " "))
	}
	if out == nil {
		return nil
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
