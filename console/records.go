package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// pageSize is the number of rows of a listing page.
const pageSize = 50

// maxBulk bounds the records of one bulk forget.
const maxBulk = 200

// listFilter reads the record filters of a query string.
func listFilter(v url.Values) (mnemo.Filter, error) {
	var f mnemo.Filter
	if l := v.Get("layer"); l != "" {
		f.Layers = []mnemo.Layer{mnemo.Layer(l)}
	}
	if k := v.Get("kind"); k != "" {
		f.Kinds = []mnemo.Kind{mnemo.Kind(k)}
	}
	f.ScopePrefix = strings.TrimSpace(v.Get("scope"))
	f.Component = strings.TrimSpace(v.Get("component"))
	f.Thread = strings.TrimSpace(v.Get("thread"))
	if t := strings.TrimSpace(v.Get("tag")); t != "" {
		f.Tags = []string{t}
	}
	for name, dst := range map[string]**time.Time{"since": &f.Since, "until": &f.Until} {
		if s := strings.TrimSpace(v.Get(name)); s != "" {
			t, err := parseWhen(name, s)
			if err != nil {
				return f, err
			}
			*dst = &t
		}
	}
	return f, nil
}

// parseWhen reads a form's date (YYYY-MM-DD) or time (RFC 3339) as every
// surface does (mnemo.ParseTime); the error names the field.
func parseWhen(name, s string) (time.Time, error) {
	t, err := mnemo.ParseTime(s)
	if err != nil {
		return t, mnemo.Errorf(mnemo.EINVALID, "%s: %s", name, mnemo.ErrorMessage(err))
	}
	return t, nil
}

// scopeCrumbs splits a scope prefix into its parents, for navigation.
func scopeCrumbs(scope string) [][2]string {
	var out [][2]string
	path := ""
	for _, p := range strings.Split(strings.Trim(scope, "/"), "/") {
		if p == "" {
			continue
		}
		path += "/" + p
		out = append(out, [2]string{p, path})
	}
	return out
}

// withQuery returns u's query with key set to val (removed when empty).
func withQuery(v url.Values, key, val string) string {
	c := url.Values{}
	for k, xs := range v {
		c[k] = append([]string(nil), xs...)
	}
	if val == "" {
		c.Del(key)
	} else {
		c.Set(key, val)
	}
	return c.Encode()
}

func (c *Console) handleRecords(w http.ResponseWriter, r *http.Request, q *req) {
	v := r.URL.Query()
	f, err := listFilter(v)
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	all := v.Get("all") != ""
	opt := mnemo.ListOptions{Filter: f, Limit: pageSize, After: v.Get("after"), IncludeDeleted: all, IncludeHistory: all}
	recs, err := c.svc.List(r.Context(), opt)
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	next := ""
	if len(recs) == pageSize {
		next = withQuery(v, "after", recs[len(recs)-1].ID)
	}
	first := ""
	if v.Get("after") != "" {
		first = withQuery(v, "after", "")
	}
	c.render(w, r, http.StatusOK, "records", q, map[string]any{"Title": "Records", "Records": recs, "F": v,
		"Next": next, "First": first, "Crumbs": scopeCrumbs(f.ScopePrefix), "Layers": mnemo.Layers, "Kinds": mnemo.Kinds})
}

// handleBulkForget asks for confirmation, then forgets the selected records.
func (c *Console) handleBulkForget(w http.ResponseWriter, r *http.Request, q *req) {
	ids := q.form["id"]
	if len(ids) == 0 {
		c.fail(w, r, q, mnemo.Errorf(mnemo.EINVALID, "select the records to forget"))
		return
	}
	if len(ids) > maxBulk {
		c.fail(w, r, q, mnemo.Errorf(mnemo.EINVALID, "%d records selected: forget at most %d at once", len(ids), maxBulk))
		return
	}
	if q.form.Get("confirm") != "yes" {
		var recs []*mnemo.Record
		for _, id := range ids {
			rec, err := c.svc.Get(r.Context(), id)
			if err != nil {
				c.fail(w, r, q, err)
				return
			}
			recs = append(recs, rec)
		}
		c.render(w, r, http.StatusOK, "confirm", q, map[string]any{"Title": "Forget records?", "Records": recs,
			"Back": safeNext(q.form.Get("back"))})
		return
	}
	n := 0
	for _, id := range ids {
		if _, err := c.svc.Forget(r.Context(), id); err != nil {
			c.flash(q, "Forgot %d of %d records; then: %s", n, len(ids), mnemo.ErrorMessage(err))
			http.Redirect(w, r, "/records", http.StatusSeeOther)
			return
		}
		n++
	}
	c.flash(q, "Forgot %d records (each can be restored from its page).", n)
	http.Redirect(w, r, safeNext(q.form.Get("back")), http.StatusSeeOther)
}

// maxHistory is the number of revisions a record page shows at once.
const maxHistory = 30

func (c *Console) handleRecord(w http.ResponseWriter, r *http.Request, q *req) {
	id := r.PathValue("id")
	rec, err := c.svc.Get(r.Context(), id)
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	revs, err := c.svc.History(r.Context(), id)
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	views := historyViews(revs)
	// Newest first, a page at a time.
	for i, j := 0, len(views)-1; i < j; i, j = i+1, j-1 {
		views[i], views[j] = views[j], views[i]
	}
	hist, _ := strconv.Atoi(r.URL.Query().Get("hist"))
	hist = max(0, min(hist, len(views)))
	end := min(hist+maxHistory, len(views))
	older := ""
	if end < len(views) {
		older = strconv.Itoa(end)
	}
	// The supersession chain forward, as far as the caller may see.
	var chain []*mnemo.Record
	next := rec.SupersededBy
	for i := 0; next != "" && i < 10; i++ {
		nr, err := c.svc.Get(r.Context(), next)
		if err != nil {
			break
		}
		chain = append(chain, nr)
		next = nr.SupersededBy
	}
	c.render(w, r, http.StatusOK, "record", q, map[string]any{"Title": "Record " + shortID(rec.ID), "R": rec,
		"History": views[hist:end], "Revisions": len(views), "Older": older, "Chain": chain,
		"Layers": mnemo.Layers, "Kinds": mnemo.Kinds})
}

// handleRecordAction edits, forgets or restores a record.
func (c *Console) handleRecordAction(w http.ResponseWriter, r *http.Request, q *req) {
	id := r.PathValue("id")
	ctx := r.Context()
	var err error
	switch q.form.Get("action") {
	case "forget":
		_, err = c.svc.Forget(ctx, id)
		if err == nil {
			c.flash(q, "Forgotten: it leaves search and digests at once, and can be restored.")
		}
	case "restore":
		_, err = c.svc.Restore(ctx, id)
		if err == nil {
			c.flash(q, "Restored.")
		}
	case "edit":
		var cur *mnemo.Record
		if cur, err = c.svc.Get(ctx, id); err != nil {
			break
		}
		var patch mnemo.RecordPatch
		if patch, err = patchFromForm(cur, q.form); err != nil {
			break
		}
		if patch.Empty() {
			c.flash(q, "Nothing changed.")
			break
		}
		if _, err = c.svc.Update(ctx, id, patch); err == nil {
			c.flash(q, "Saved: search and digests use the new version at once.")
		}
	default:
		err = mnemo.Errorf(mnemo.EINVALID, "unknown action")
	}
	if err != nil {
		c.fail(w, r, q, err)
		return
	}
	http.Redirect(w, r, "/record/"+pathEscape(id), http.StatusSeeOther)
}

// patchFromForm builds a patch of the fields the form changed.
func patchFromForm(cur *mnemo.Record, f url.Values) (mnemo.RecordPatch, error) {
	var p mnemo.RecordPatch
	str := func(name, old string, dst **string) {
		if _, ok := f[name]; !ok {
			return
		}
		v := strings.ReplaceAll(f.Get(name), "\r\n", "\n")
		if name != "text" {
			v = strings.TrimSpace(v)
		}
		if v != old {
			*dst = &v
		}
	}
	str("text", cur.Text, &p.Text)
	str("scope", cur.Scope, &p.Scope)
	str("component", cur.Component, &p.Component)
	str("mission", cur.Mission, &p.Mission)
	str("thread", cur.Thread, &p.Thread)
	num := func(name string, old float64, dst **float64) error {
		s := strings.TrimSpace(f.Get(name))
		if s == "" {
			return nil
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return mnemo.Errorf(mnemo.EINVALID, "%s %q is not a number", name, s)
		}
		if x != old {
			*dst = &x
		}
		return nil
	}
	for _, n := range []struct {
		name string
		old  float64
		dst  **float64
	}{{"importance", cur.Importance, &p.Importance}, {"confidence", cur.Confidence, &p.Confidence}, {"criticality", cur.Criticality, &p.Criticality}} {
		if err := num(n.name, n.old, n.dst); err != nil {
			return p, err
		}
	}
	if s := strings.TrimSpace(f.Get("access_level")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return p, mnemo.Errorf(mnemo.EINVALID, "access level %q is not an integer", s)
		}
		if n != cur.AccessLevel {
			p.AccessLevel = &n
		}
	}
	if l := mnemo.Layer(f.Get("layer")); l != "" && l != cur.Layer {
		p.Layer = &l
	}
	if k := mnemo.Kind(f.Get("kind")); k != "" && k != cur.Kind {
		p.Kind = &k
	}
	if _, ok := f["tags"]; ok {
		tags := splitComma(f.Get("tags"))
		if strings.Join(tags, ",") != strings.Join(cur.Tags, ",") {
			p.Tags = &tags
		}
	}
	if _, ok := f["d_title"]; ok {
		d := mnemo.Decision{}
		if cur.Decision != nil {
			d = *cur.Decision
		}
		d.Title = strings.TrimSpace(f.Get("d_title"))
		d.Decision = strings.TrimSpace(f.Get("d_decision"))
		d.Context = strings.TrimSpace(f.Get("d_context"))
		d.Principle = strings.TrimSpace(f.Get("d_principle"))
		d.Consequences = strings.TrimSpace(f.Get("d_consequences"))
		d.Status = strings.TrimSpace(f.Get("d_status"))
		d.Alternatives = nil
		for _, line := range strings.Split(strings.ReplaceAll(f.Get("d_alternatives"), "\r\n", "\n"), "\n") {
			opt, reason, _ := strings.Cut(line, "|")
			if opt = strings.TrimSpace(opt); opt != "" {
				d.Alternatives = append(d.Alternatives, mnemo.Alternative{Option: opt, Reason: strings.TrimSpace(reason)})
			}
		}
		if jsonOf(&d) != jsonOf(cur.Decision) && (cur.Decision != nil || jsonOf(&d) != "{}") {
			p.Decision = &d
		}
	}
	return p, nil
}

func splitComma(s string) []string {
	out := []string{}
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}
