package push

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// DefaultGitHubURL is the public GitHub REST API.
const DefaultGitHubURL = "https://api.github.com"

// GitHubConfig configures the GitHub issues tracker.
type GitHubConfig struct {
	URL   string // API root (default DefaultGitHubURL; GitHub Enterprise: https://HOST/api/v3)
	Token string // sent as a bearer token when set; never logged
	Repo  string // OWNER/NAME
	Label string // the label that marks a task (default LONG-TERM)
	HTTPOptions
}

// GitHub reads a repository's open issues carrying the LONG-TERM label and
// their comments through the REST API (GET /repos/{owner}/{repo}/issues,
// GET /repos/{owner}/{repo}/issues/{number}/comments), following the Link
// header's rel="next" pages.
type GitHub struct {
	cfg   GitHubConfig
	owner string
	name  string
	api   *apiClient
}

var repoName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`) })

// NewGitHub returns the tracker for cfg.
//
// Errors: EINVALID when Repo is not OWNER/NAME or URL is not an absolute
// http(s) URL.
func NewGitHub(cfg GitHubConfig) (*GitHub, error) {
	if !repoName().MatchString(cfg.Repo) {
		return nil, mnemo.Errorf(mnemo.EINVALID, "github: repository %q is not OWNER/NAME", cfg.Repo)
	}
	if cfg.URL == "" {
		cfg.URL = DefaultGitHubURL
	}
	if strings.TrimSpace(cfg.Label) == "" {
		cfg.Label = LongTerm
	}
	g := &GitHub{cfg: cfg}
	g.owner, g.name, _ = strings.Cut(cfg.Repo, "/")
	var err error
	g.api, err = newAPIClient("github "+cfg.Repo, cfg.URL, cfg.Token, cfg.HTTPOptions, func(h http.Header) {
		h.Set("Accept", "application/vnd.github+json")
		h.Set("X-GitHub-Api-Version", "2022-11-28")
		h.Set("User-Agent", "mnemo-orchestrate")
		if cfg.Token != "" {
			h.Set("Authorization", "Bearer "+cfg.Token)
		}
	})
	return g, err
}

// Name returns "github OWNER/NAME".
func (g *GitHub) Name() string { return g.api.name }

// Requests returns the number of HTTP requests made so far.
func (g *GitHub) Requests() int64 { return g.api.Requests() }

type ghIssue struct {
	Number   int    `json:"number"`
	Title    string `json:"title"`
	Body     string `json:"body"`
	State    string `json:"state"`
	Comments int    `json:"comments"`
	Labels   []struct {
		Name string `json:"name"`
	} `json:"labels"`
	PullRequest *struct{} `json:"pull_request"`
}

type ghComment struct {
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
	User      *struct {
		Login string `json:"login"`
	} `json:"user"`
}

// LongTermTasks lists the open issues labelled LONG-TERM (pull requests
// left out) and reads the comments of those that have any. Task ids are
// OWNER/NAME#NUMBER; a line "Paths: a/, b/" in an issue's body names the
// repository paths whose commits touch it, a line "Tools: tools.json" the
// tools file in the repository whose lineage is tracked.
func (g *GitHub) LongTermTasks(ctx context.Context) ([]Task, error) {
	q := url.Values{"state": {"open"}, "labels": {g.cfg.Label}, "per_page": {"100"}}
	issues, err := ghPages[ghIssue](ctx, g, g.api.url(q, "repos", g.owner, g.name, "issues"))
	if err != nil {
		return nil, fmt.Errorf("issues: %w", err)
	}
	type cand struct {
		t        Task
		number   int
		comments int
	}
	var cands []cand
	for _, is := range issues {
		if is.PullRequest != nil || (is.State != "" && is.State != "open") {
			continue
		}
		t := Task{ID: fmt.Sprintf("%s#%d", g.cfg.Repo, is.Number), Title: oneLine(is.Title), Source: "github",
			Paths: bodyPaths(is.Body), Tools: bodyTools(is.Body)}
		for _, l := range is.Labels {
			t.Labels = append(t.Labels, l.Name)
		}
		if hasLabel(t.Labels, g.cfg.Label) && t.Title != "" {
			cands = append(cands, cand{t, is.Number, is.Comments})
		}
	}
	var tasks []Task
	var skipped []error
	for i, c := range cands {
		t := c.t
		if c.comments > 0 {
			cs, err := ghPages[ghComment](ctx, g, g.api.url(url.Values{"per_page": {"100"}},
				"repos", g.owner, g.name, "issues", strconv.Itoa(c.number), "comments"))
			if err != nil {
				var stop bool
				if skipped, stop = skipTask(skipped, t.ID, err, len(cands)-1-i); stop {
					break
				}
				continue
			}
			for _, x := range cs {
				cm := Comment{At: x.CreatedAt.UTC(), Text: x.Body}
				if x.User != nil {
					cm.Author = x.User.Login
				}
				t.Comments = append(t.Comments, cm)
			}
		}
		tasks = append(tasks, t)
	}
	return tasks, skippedError(len(cands), len(tasks), skipped)
}

// skipTask adds a task whose comments could not be read to skipped. After
// a rate limit every further request would be refused too: it adds that
// the rest tasks are not read either, and stop is set.
func skipTask(skipped []error, id string, err error, rest int) (_ []error, stop bool) {
	skipped = append(skipped, fmt.Errorf("%s: comments: %w", id, err))
	var rl *RateLimitError
	if !errors.As(err, &rl) {
		return skipped, false
	}
	if rest > 0 {
		skipped = append(skipped, fmt.Errorf("%d more not read", rest))
	}
	return skipped, true
}

// skippedError joins the errors of the tasks that were skipped: of n
// tasks, read were read completely.
func skippedError(n, read int, skipped []error) error {
	if len(skipped) == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d tasks skipped until the next cycle: %w", n-read, n, errors.Join(skipped...))
}

// ghPages reads every page of a listing, following rel="next" links on the
// API's own host and refusing a page read twice.
func ghPages[T any](ctx context.Context, g *GitHub, first string) ([]T, error) {
	var all []T
	seen := map[string]bool{}
	for next := first; next != ""; {
		if seen[next] || len(seen) >= MaxPages {
			return nil, fmt.Errorf("%s: %w", g.api.path(next), ErrPaginationLoop)
		}
		seen[next] = true
		var page []T
		h, err := g.api.get(ctx, next, &page)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		next = nextLink(h.Get("Link"))
		if next != "" && !g.api.sameOrigin(next) {
			return nil, mnemo.Errorf(mnemo.EINTERNAL, "%s: next page is on another host", g.Name())
		}
	}
	return all, nil
}

// nextLink returns the rel="next" URL of an RFC 8288 Link header.
func nextLink(h string) string {
	for _, part := range strings.Split(h, ",") {
		segs := strings.Split(part, ";")
		if len(segs) < 2 {
			continue
		}
		u := strings.TrimSpace(segs[0])
		if !strings.HasPrefix(u, "<") || !strings.HasSuffix(u, ">") {
			continue
		}
		for _, p := range segs[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(k, "rel") && slicesContainsFold(strings.Fields(strings.Trim(v, `"`)), "next") {
				return u[1 : len(u)-1]
			}
		}
	}
	return ""
}

func slicesContainsFold(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
