// Package push is mnemo's push mode: a process of its own (`mnemo
// orchestrate`) that keeps long-running tasks' memory current, so that a
// new shift starts from the state of the work rather than from its last
// digest. Each cycle it reads the tasks labelled LONG-TERM from a tracker (a
// local JSON file, GitHub issues or Plane work items), computes each task's refresh priority from the commits
// touching it, the comments on it and the time since its context was last
// pulled, and for each task that is due writes three records into the
// workflow layer (kind refresh, source push-refresh): an executive summary
// of what changed, the tool-lineage delta (tools new, changed with their
// parameter differences, retired) and the open questions. It never runs
// inside the server: a failure here cannot affect pull mode.
package push

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/safefile"
)

// LongTerm is the label that marks a task for background refresh.
const LongTerm = "LONG-TERM"

// Refresh bounds: at most one refresh per MinInterval, at least one per
// MaxInterval; a task is due in between when its priority reaches
// DueAt.
const (
	MinInterval = 24 * time.Hour
	MaxInterval = 7 * 24 * time.Hour
	DueAt       = 0.5
)

// Comment is a comment on a task.
type Comment struct {
	At     time.Time `json:"at"`
	Author string    `json:"author,omitempty"`
	Text   string    `json:"text"`
}

// Task is one tracker task.
type Task struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Labels   []string  `json:"labels"`
	Query    string    `json:"query,omitempty"` // what the task is about, for memory searches (default: the title)
	Paths    []string  `json:"paths,omitempty"` // repository paths whose commits touch the task
	Comments []Comment `json:"comments,omitempty"`
	Tools    string    `json:"tools,omitempty"` // a JSON file of the task's tools (an MCP tools/list result or an array of tools)
	// Criticality (0..1) orders tasks of equal refresh priority: the more
	// critical is refreshed first when a cycle's budget runs out.
	Criticality float64 `json:"criticality,omitempty"`
	// Source is where the task came from ("github", "plane"; empty for the file).
	Source string `json:"-"`
}

// TaskFile is the local tracker file: {"tasks": [...]}.
type TaskFile struct {
	Tasks []Task `json:"tasks"`
}

// MaxTrackerBytes bounds a tracker file.
const MaxTrackerBytes = 16 << 20

// ParseTracker reads a tracker file's content. Tasks need an id and a
// title; ids must be unique.
func ParseTracker(b []byte) (*TaskFile, error) {
	if len(b) > MaxTrackerBytes {
		return nil, mnemo.Errorf(mnemo.ETOOLARGE, "tracker file is %d bytes, over the limit of %d", len(b), MaxTrackerBytes)
	}
	var t TaskFile
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "tracker file: %v", err)
	}
	seen := map[string]bool{}
	for i, task := range t.Tasks {
		if strings.TrimSpace(task.ID) == "" || strings.TrimSpace(task.Title) == "" {
			return nil, mnemo.Errorf(mnemo.EINVALID, "tracker task %d: id and title are required", i+1)
		}
		if len(task.ID) > 200 || strings.ContainsAny(task.ID, "\n\r\x00") {
			return nil, mnemo.Errorf(mnemo.EINVALID, "tracker task %d: id must be one line of at most 200 bytes", i+1)
		}
		if seen[task.ID] {
			return nil, mnemo.Errorf(mnemo.EINVALID, "tracker task id %q appears twice", task.ID)
		}
		seen[task.ID] = true
		if task.Criticality < 0 || task.Criticality > 1 {
			return nil, mnemo.Errorf(mnemo.EINVALID, "tracker task %s: criticality must be within 0..1", task.ID)
		}
		for _, p := range task.Paths {
			if strings.HasPrefix(p, "-") {
				return nil, mnemo.Errorf(mnemo.EINVALID, "tracker task %s: path %q looks like an option", task.ID, p)
			}
		}
	}
	return &t, nil
}

// LongTerm returns the tasks labelled LONG-TERM (any case).
func (t *TaskFile) LongTerm() []Task { return longTerm(t.Tasks, LongTerm) }

// Priority is the refresh priority
//
//	f = 1 − exp(−(commits/5 + comments/3 + daysSincePull/7))
//
// in [0, 1), monotone in each argument: five commits, three comments or a
// week without a pull each bring it to 1 − 1/e ≈ 0.63 on their own.
func Priority(commits, comments int, sincePull time.Duration) float64 {
	x := float64(max(commits, 0))/5 + float64(max(comments, 0))/3 + math.Max(sincePull.Hours()/24, 0)/7
	return 1 - math.Exp(-x)
}

// Due decides whether a task is refreshed now: never twice within
// MinInterval, always after MaxInterval (or when never refreshed), and in
// between when its priority reaches DueAt.
func Due(priority float64, lastRefresh time.Time, now time.Time) (bool, string) {
	if lastRefresh.IsZero() {
		return true, "never refreshed"
	}
	since := now.Sub(lastRefresh)
	switch {
	case since < MinInterval:
		return false, fmt.Sprintf("refreshed %s ago (at most one refresh per 24 h)", since.Round(time.Minute))
	case since >= MaxInterval:
		return true, "a week since the last refresh"
	case priority >= DueAt:
		return true, fmt.Sprintf("priority %.2f", priority)
	}
	return false, fmt.Sprintf("priority %.2f below %.2f", priority, DueAt)
}

// Tool is one tool definition: a name and the JSON schema of its input.
type Tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	InputSchema map[string]any `json:"inputSchema,omitempty"`
}

// ReadTools reads a tools file: an MCP tools/list result ({"tools": [...]})
// or an array of tools.
func ReadTools(path string) ([]Tool, error) {
	b, err := safefile.ReadFile(path, safefile.DefaultMax)
	if err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "tools file: %v", err)
	}
	return parseTools(b, path)
}

// parseTools reads the content of the tools file named path.
func parseTools(b []byte, path string) ([]Tool, error) {
	var wrapped struct {
		Tools []Tool `json:"tools"`
	}
	if err := json.Unmarshal(b, &wrapped); err == nil && wrapped.Tools != nil {
		return wrapped.Tools, nil
	}
	var list []Tool
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "tools file %s: want {\"tools\": [...]} or an array of tools: %v", path, err)
	}
	return list, nil
}

// Lineage is the difference between two versions of a tool set.
type Lineage struct {
	New     []string `json:"new"`
	Changed []string `json:"changed"` // "name: what changed"
	Retired []string `json:"retired"`
}

// Empty reports whether nothing changed.
func (l Lineage) Empty() bool { return len(l.New)+len(l.Changed)+len(l.Retired) == 0 }

// Diff compares the tools before and now: tools added, removed, and for the
// tools in both, the parameters added, removed, changed in type, and those
// that became required or optional.
func Diff(before, now []Tool) Lineage {
	l := Lineage{New: []string{}, Changed: []string{}, Retired: []string{}}
	old := map[string]Tool{}
	for _, t := range before {
		old[t.Name] = t
	}
	cur := map[string]bool{}
	for _, t := range now {
		cur[t.Name] = true
		o, ok := old[t.Name]
		if !ok {
			l.New = append(l.New, t.Name)
			continue
		}
		if d := schemaDiff(o.InputSchema, t.InputSchema); d != "" {
			l.Changed = append(l.Changed, t.Name+": "+d)
		}
	}
	for _, t := range before {
		if !cur[t.Name] {
			l.Retired = append(l.Retired, t.Name)
		}
	}
	sort.Strings(l.New)
	sort.Strings(l.Changed)
	sort.Strings(l.Retired)
	return l
}

func schemaDiff(a, b map[string]any) string {
	pa, pb := props(a), props(b)
	ra, rb := required(a), required(b)
	var parts []string
	var names []string
	for n := range pb {
		names = append(names, n)
	}
	for n := range pa {
		if _, ok := pb[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		x, inA := pa[n]
		y, inB := pb[n]
		switch {
		case !inA:
			parts = append(parts, "+"+n)
		case !inB:
			parts = append(parts, "-"+n)
		case typeOf(x) != typeOf(y):
			parts = append(parts, fmt.Sprintf("%s %s→%s", n, typeOf(x), typeOf(y)))
		}
		if inA && inB && ra[n] != rb[n] {
			if rb[n] {
				parts = append(parts, n+" now required")
			} else {
				parts = append(parts, n+" now optional")
			}
		}
	}
	return strings.Join(parts, ", ")
}

func props(s map[string]any) map[string]any {
	if p, ok := s["properties"].(map[string]any); ok {
		return p
	}
	return map[string]any{}
}

func required(s map[string]any) map[string]bool {
	out := map[string]bool{}
	if r, ok := s["required"].([]any); ok {
		for _, x := range r {
			if n, ok := x.(string); ok {
				out[n] = true
			}
		}
	}
	return out
}

func typeOf(p any) string {
	if m, ok := p.(map[string]any); ok {
		if t, ok := m["type"].(string); ok {
			return t
		}
		if t, ok := m["type"].([]any); ok {
			var s []string
			for _, x := range t {
				s = append(s, fmt.Sprint(x))
			}
			return strings.Join(s, "|")
		}
	}
	return "any"
}
