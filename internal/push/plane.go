package push

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// DefaultPlaneURL is Plane Cloud's API host.
const DefaultPlaneURL = "https://api.plane.so"

// PlaneConfig configures the Plane tracker.
type PlaneConfig struct {
	URL       string // the instance (default DefaultPlaneURL); requests go to URL + /api/v1/...
	Token     string // sent as X-API-Key; never logged
	Workspace string // the workspace slug
	Project   string // the project id
	Label     string // the label that marks a task (default LONG-TERM)
	HTTPOptions
}

// Plane reads a project's work items carrying the LONG-TERM label and their
// comments through Plane's REST API v1:
//
//	GET /api/v1/workspaces/{slug}/projects/{project_id}/
//	GET /api/v1/workspaces/{slug}/projects/{project_id}/labels/
//	GET /api/v1/workspaces/{slug}/projects/{project_id}/work-items/
//	GET /api/v1/workspaces/{slug}/projects/{project_id}/work-items/{id}/comments/
//
// following cursor pagination (next_cursor while next_page_results).
type Plane struct {
	cfg PlaneConfig
	api *apiClient
}

var planeSlug = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,100}$`) })

// NewPlane returns the tracker for cfg.
//
// Errors: EINVALID when the workspace or project is missing or malformed,
// or URL is not an absolute http(s) URL.
func NewPlane(cfg PlaneConfig) (*Plane, error) {
	if !planeSlug().MatchString(cfg.Workspace) || !planeSlug().MatchString(cfg.Project) {
		return nil, mnemo.Errorf(mnemo.EINVALID, "plane: a workspace slug and a project id are required (letters, digits, - and _)")
	}
	if cfg.URL == "" {
		cfg.URL = DefaultPlaneURL
	}
	if strings.TrimSpace(cfg.Label) == "" {
		cfg.Label = LongTerm
	}
	p := &Plane{cfg: cfg}
	var err error
	p.api, err = newAPIClient("plane "+cfg.Workspace+"/"+cfg.Project, cfg.URL, cfg.Token, cfg.HTTPOptions, func(h http.Header) {
		h.Set("Accept", "application/json")
		h.Set("User-Agent", "mnemo-orchestrate")
		if cfg.Token != "" {
			h.Set("X-API-Key", cfg.Token)
		}
	})
	return p, err
}

// Name returns "plane WORKSPACE/PROJECT".
func (p *Plane) Name() string { return p.api.name }

// Requests returns the number of HTTP requests made so far.
func (p *Plane) Requests() int64 { return p.api.Requests() }

type planeProject struct {
	Identifier string `json:"identifier"`
	Name       string `json:"name"`
}

type planeLabel struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type planeItem struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	SequenceID  int               `json:"sequence_id"`
	Priority    string            `json:"priority"`
	Labels      []json.RawMessage `json:"labels"` // label ids, or label objects with ?expand=labels
	Description string            `json:"description_stripped"`
	DescHTML    string            `json:"description_html"`
	ArchivedAt  *time.Time        `json:"archived_at"`
	CompletedAt *time.Time        `json:"completed_at"`
}

type planeComment struct {
	Stripped  string    `json:"comment_stripped"`
	HTML      string    `json:"comment_html"`
	CreatedAt time.Time `json:"created_at"`
	Actor     *struct {
		DisplayName string `json:"display_name"`
	} `json:"actor_detail"`
}

// planeCriticality maps a work item's priority to a criticality.
var planeCriticality = map[string]float64{"urgent": 1, "high": 0.75, "medium": 0.5, "low": 0.25}

// LongTermTasks reads the project's identifier and labels, then its work
// items carrying the LONG-TERM label (archived and completed ones left
// out) and their comments. Task ids are the human keys (PROJ-142); a
// work item's priority becomes the task's criticality; a line "Paths: a/,
// b/" in its description names the repository paths whose commits touch
// it, a line "Tools: tools.json" the tools file in the repository whose
// lineage is tracked.
func (p *Plane) LongTermTasks(ctx context.Context) ([]Task, error) {
	ws, pr := p.cfg.Workspace, p.cfg.Project
	var proj planeProject
	if _, err := p.api.get(ctx, p.api.url(nil, "api", "v1", "workspaces", ws, "projects", pr, ""), &proj); err != nil {
		return nil, fmt.Errorf("project: %w", err)
	}
	labels, err := planePages[planeLabel](ctx, p, "labels", "api", "v1", "workspaces", ws, "projects", pr, "labels", "")
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	labelName := map[string]string{}
	for _, l := range labels {
		labelName[l.ID] = l.Name
	}
	items, err := planePages[planeItem](ctx, p, "work items", "api", "v1", "workspaces", ws, "projects", pr, "work-items", "")
	if err != nil {
		return nil, fmt.Errorf("work items: %w", err)
	}
	var cands []Task
	for _, it := range items {
		if it.ArchivedAt != nil || it.CompletedAt != nil || strings.TrimSpace(it.Name) == "" || it.ID == "" {
			continue
		}
		t := Task{ID: it.ID, Title: oneLine(it.Name), Source: "plane", Criticality: planeCriticality[it.Priority]}
		if proj.Identifier != "" && it.SequenceID > 0 {
			t.ID = fmt.Sprintf("%s-%d", proj.Identifier, it.SequenceID)
		}
		for _, raw := range it.Labels {
			var id string
			var obj planeLabel
			switch {
			case json.Unmarshal(raw, &id) == nil:
				if name, ok := labelName[id]; ok {
					t.Labels = append(t.Labels, name)
				}
			case json.Unmarshal(raw, &obj) == nil:
				t.Labels = append(t.Labels, obj.Name)
			}
		}
		if !hasLabel(t.Labels, p.cfg.Label) {
			continue
		}
		desc := it.Description
		if desc == "" {
			desc = stripHTML(it.DescHTML)
		}
		t.Paths, t.Tools = bodyPaths(desc), bodyTools(desc)
		t.Query = it.ID // the work item's uuid, for its comments; replaced below
		cands = append(cands, t)
	}
	var tasks []Task
	var skipped []error
	for i, t := range cands {
		itemID := t.Query
		t.Query = ""
		cs, err := planePages[planeComment](ctx, p, "comments", "api", "v1", "workspaces", ws, "projects", pr, "work-items", itemID, "comments", "")
		if err != nil {
			var stop bool
			if skipped, stop = skipTask(skipped, t.ID, err, len(cands)-1-i); stop {
				break
			}
			continue
		}
		for _, c := range cs {
			text := c.Stripped
			if text == "" {
				text = stripHTML(c.HTML)
			}
			cm := Comment{At: c.CreatedAt.UTC(), Text: text}
			if c.Actor != nil {
				cm.Author = c.Actor.DisplayName
			}
			t.Comments = append(t.Comments, cm)
		}
		tasks = append(tasks, t)
	}
	return tasks, skippedError(len(cands), len(tasks), skipped)
}

type planePage[T any] struct {
	Results         []T    `json:"results"`
	NextCursor      string `json:"next_cursor"`
	NextPageResults bool   `json:"next_page_results"`
}

// planePages reads every page of a listing: per_page=100, then the
// next_cursor of each page while next_page_results is true (the last page
// carries a next_cursor too). A cursor seen twice is a loop.
func planePages[T any](ctx context.Context, p *Plane, what string, segments ...string) ([]T, error) {
	var all []T
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page >= MaxPages {
			return nil, fmt.Errorf("%s: %w", what, ErrPaginationLoop)
		}
		q := url.Values{"per_page": {"100"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var pg planePage[T]
		if _, err := p.api.get(ctx, p.api.url(q, segments...), &pg); err != nil {
			return nil, err
		}
		all = append(all, pg.Results...)
		if !pg.NextPageResults || pg.NextCursor == "" {
			return all, nil
		}
		if seen[pg.NextCursor] || pg.NextCursor == cursor {
			return nil, fmt.Errorf("%s: cursor %q repeats: %w", what, clip(pg.NextCursor, 40), ErrPaginationLoop)
		}
		seen[pg.NextCursor] = true
		cursor = pg.NextCursor
	}
}

var htmlTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[^>]*>`) })

// stripHTML turns a rich-text field into plain text.
func stripHTML(s string) string {
	s = strings.NewReplacer("<br>", "\n", "<br/>", "\n", "<br />", "\n", "</p>", "\n", "</li>", "\n").Replace(s)
	return strings.TrimSpace(html.UnescapeString(htmlTag().ReplaceAllString(s, "")))
}
