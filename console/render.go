package console

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// view is what every page template gets: the caller's identity and
// rights for the layout, and the page's own data in D.
type view struct {
	Page       string
	Title      string
	NS         string
	Namespaces []string
	Role       string
	Clearance  int
	Caller     string
	CanWrite   bool
	Admin      bool
	CSRF       string
	Keyed      bool
	SignedIn   bool
	Flash      string
	Version    string
	D          map[string]any
}

var pageNames = []string{"login", "error", "records", "confirm", "record", "search", "digest", "retrievals",
	"retrieval", "corrections", "handoff", "threads", "thread", "health"}

var funcs = template.FuncMap{
	"f2":   func(x float64) string { return fmt.Sprintf("%.2f", x) },
	"f3":   func(x float64) string { return fmt.Sprintf("%.3f", x) },
	"num":  func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) },
	"pct":  func(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) },
	"when": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") },
	"whenp": func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04")
	},
	"day":    func(t time.Time) string { return t.UTC().Format("2006-01-02") },
	"short":  shortID,
	"rec":    func(id string) string { return "/record/" + pathEscape(id) },
	"thread": func(name string) string { return "/thread/" + pathEscape(name) },
	"join":   strings.Join,
	"q":      url.QueryEscape,
	"add":    func(a, b int) int { return a + b },
	"mul":    func(a, b float64) float64 { return a * b },
	"at": func(xs []float64, i int) float64 {
		if i < len(xs) {
			return xs[i]
		}
		return 0
	},
	"sorted": sortedFactors,
	"ref":    provenanceRef,
	"md":     renderMarkdown,
	"lines":  func(s string) []string { return strings.Split(s, "\n") },
	"csv": func(xs []string) string {
		return strings.Join(xs, ", ")
	},
	"altlines": func(d *mnemo.Decision) string {
		if d == nil {
			return ""
		}
		var b strings.Builder
		for _, a := range d.Alternatives {
			b.WriteString(a.Option)
			if a.Reason != "" {
				b.WriteString(" | " + a.Reason)
			}
			b.WriteString("\n")
		}
		return b.String()
	},
}

// pathEscape escapes a record id or thread name for a path, keeping its
// slashes readable.
func pathEscape(s string) string {
	parts := strings.Split(s, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

func shortID(id string) string {
	if len(id) > 14 {
		return id[:6] + "…" + id[len(id)-6:]
	}
	return id
}

// parseTemplates parses the layout with each page into its own set.
func (c *Console) parseTemplates() error {
	c.pages = map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return fmt.Errorf("console: template %s: %w", name, err)
		}
		c.pages[name] = t
	}
	return nil
}

// render writes a page. q is nil before sign-in.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, q *req, d map[string]any) {
	v := view{Page: name, Keyed: c.cfg.Keyed(r.Context()), Version: c.cfg.Version, D: d}
	if t, ok := d["Title"].(string); ok {
		v.Title = t
	}
	if q != nil {
		v.NS, v.Namespaces, v.Role, v.Clearance = q.p.Namespace, q.namespaces, string(q.p.Role), q.p.Caller.Clearance
		v.Caller, v.CanWrite, v.Admin, v.CSRF, v.SignedIn = q.p.Caller.Name, q.canWrite(), q.p.Role == mnemo.RoleAdmin, q.s.csrf, true
		c.mu.Lock()
		v.Flash, q.s.flash = q.s.flash, ""
		c.mu.Unlock()
	}
	var buf bytes.Buffer
	if err := c.pages[name].Execute(&buf, v); err != nil {
		c.log.Error("console: rendering", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// fail shows an error page. Internal errors are logged, never shown.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, q *req, err error) {
	code := mnemo.ErrorCode(err)
	msg := mnemo.ErrorMessage(err)
	status := mnemo.HTTPStatus(code)
	if status == http.StatusInternalServerError {
		c.log.Error("console", "path", r.URL.Path, "err", err)
		msg = "internal error"
	}
	c.render(w, r, status, "error", q, map[string]any{"Title": http.StatusText(status), "Message": msg, "Code": code})
}

// flash sets the message the next page shows.
func (c *Console) flash(q *req, format string, args ...any) {
	c.mu.Lock()
	q.s.flash = fmt.Sprintf(format, args...)
	c.mu.Unlock()
}
