package push

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/mnemo-dev/mnemo/internal/safefile"
)

// Tracker is where the orchestrator finds its tasks: a local task file, a
// GitHub repository's issues or a Plane project's work items.
type Tracker interface {
	// Name names the tracker in reports and logs; it never holds a token.
	Name() string
	// LongTermTasks returns the open tasks labelled LONG-TERM with their
	// comments. When the list itself cannot be read it returns no tasks
	// and the error; when some tasks cannot be read completely (their
	// comments, say) it returns the others and an error naming those
	// skipped, so that no task is refreshed from half its data.
	LongTermTasks(ctx context.Context) ([]Task, error)
}

// RateLimitError is a tracker's refusal to answer before Reset; the cycle
// stops asking it and the next cycle tries again.
type RateLimitError struct {
	Tracker string
	Reset   time.Time // zero when the tracker did not say
}

func (e *RateLimitError) Error() string {
	if e.Reset.IsZero() {
		return e.Tracker + ": rate limited"
	}
	return fmt.Sprintf("%s: rate limited until %s", e.Tracker, e.Reset.UTC().Format(time.RFC3339))
}

// ErrPaginationLoop is returned when a tracker's next page repeats one
// already read, or there are more pages than MaxPages.
var ErrPaginationLoop = errors.New("pagination does not end")

// MaxPages bounds the pages read from one tracker listing.
const MaxPages = 1000

// FileTracker reads the local task file at Path, again on every cycle.
type FileTracker struct {
	Path string
}

// Name returns "file PATH".
func (f *FileTracker) Name() string { return "file " + f.Path }

// LongTermTasks reads and validates the file and returns its LONG-TERM
// tasks; an invalid file is an error and no tasks.
func (f *FileTracker) LongTermTasks(ctx context.Context) ([]Task, error) {
	b, err := safefile.ReadFile(f.Path, safefile.DefaultMax)
	if err != nil {
		return nil, fmt.Errorf("tracker file: %w", err)
	}
	tf, err := ParseTracker(b)
	if err != nil {
		return nil, err
	}
	return tf.LongTerm(), nil
}

// Static is a fixed task list as a Tracker (a parsed file, or tests).
type Static struct {
	Tasks []Task
}

// Name returns "static".
func (s *Static) Name() string { return "static" }

// LongTermTasks returns the tasks labelled LONG-TERM.
func (s *Static) LongTermTasks(context.Context) ([]Task, error) {
	return longTerm(s.Tasks, LongTerm), nil
}

// longTerm returns the tasks carrying label (any case).
func longTerm(tasks []Task, label string) []Task {
	var out []Task
	for _, task := range tasks {
		if hasLabel(task.Labels, label) {
			out = append(out, task)
		}
	}
	return out
}

func hasLabel(labels []string, label string) bool {
	return slices.ContainsFunc(labels, func(l string) bool { return strings.EqualFold(strings.TrimSpace(l), label) })
}

var pathsLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?im)^\s*(?:mnemo[- ])?paths\s*:\s*(.+)$`) })

// bodyPaths reads the repository paths a task names in its description, on
// a line "Paths: a/, b/c.go" (commas or spaces between them). Paths that
// look like options are dropped.
func bodyPaths(body string) []string {
	m := pathsLine().FindStringSubmatch(body)
	if m == nil {
		return nil
	}
	var out []string
	for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == '`' || unicode.IsSpace(r) }) {
		if p != "" && !strings.HasPrefix(p, "-") && len(out) < 50 {
			out = append(out, p)
		}
	}
	return out
}

var toolsLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)^\s*(?:mnemo[- ])?tools\s*:\s*` + "`?" + `([^\s` + "`" + `]+)` + "`?" + `\s*$`)
})

// bodyTools reads the tools file a task names in its description, on a
// line "Tools: tools/plan.json": one JSON file inside the repository
// (slash-separated, relative, without "..", ending in .json), else "".
func bodyTools(body string) string {
	m := toolsLine().FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	p := path.Clean(m[1])
	if !fs.ValidPath(p) || p == "." || strings.HasPrefix(p, "-") || !strings.EqualFold(path.Ext(p), ".json") {
		return ""
	}
	return p
}
