package push

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/gitlog"
)

// Artifacts a refresh writes.
const (
	ArtifactSummary   = "summary"
	ArtifactLineage   = "tool-lineage"
	ArtifactQuestions = "questions"
	// Source is the source of every record push mode writes.
	Source = "push-refresh"
)

// Orchestrator runs refresh cycles over one namespace.
type Orchestrator struct {
	Svc       *engine.Service
	Namespace string
	Repo      string           // repository whose commits touch tasks; "" = none
	Now       func() time.Time // nil: time.Now
}

// state is what the orchestrator keeps per task in the store's settings.
type state struct {
	Last    time.Time         `json:"last"`              // last refresh
	Tools   []Tool            `json:"tools,omitempty"`   // the tool set at the last refresh
	Records map[string]string `json:"records,omitempty"` // artifact -> id of its current record
}

// TaskReport is what a cycle did for one task.
type TaskReport struct {
	ID        string            `json:"id"`
	Priority  float64           `json:"priority"`
	Due       bool              `json:"due"`
	Reason    string            `json:"reason"`
	Commits   int               `json:"commits"`
	Comments  int               `json:"comments"`
	SincePull time.Duration     `json:"since_pull_ns"`
	Written   map[string]string `json:"written,omitempty"` // artifact -> record id
}

var caller = mnemo.Caller{Name: Source, Clearance: mnemo.MaxAccessLevel}

func (o *Orchestrator) now() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
}

func stateKey(ns, task string) string { return "refresh/" + ns + "/" + task }

// Cycle refreshes the due LONG-TERM tasks of the tracker; with dryRun it
// only reports priorities and what is due. One task's failure stops the
// cycle with an error naming the task; the tasks refreshed before it stay.
func (o *Orchestrator) Cycle(ctx context.Context, tr *Tracker, dryRun bool) ([]TaskReport, error) {
	now := o.now()
	tasks := tr.LongTermTasks()
	store := o.Svc.Store()
	// The last pull of each task: the newest retrieval of the week whose
	// query names the task's id or title.
	lastPull := map[string]time.Time{}
	err := store.EachRetrieval(ctx, o.Namespace, now.Add(-MaxInterval), time.Time{}, func(l mnemo.RetrievalLog) error {
		q := strings.ToLower(l.Query)
		for _, t := range tasks {
			if strings.Contains(q, strings.ToLower(t.ID)) || strings.Contains(q, strings.ToLower(t.Title)) {
				if l.At.After(lastPull[t.ID]) {
					lastPull[t.ID] = l.At
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []TaskReport
	for _, t := range tasks {
		rep, err := o.task(ctx, t, now, lastPull[t.ID], dryRun)
		if err != nil {
			return out, fmt.Errorf("task %s: %w", t.ID, err)
		}
		out = append(out, rep)
	}
	return out, nil
}

func (o *Orchestrator) task(ctx context.Context, t Task, now, pulled time.Time, dryRun bool) (TaskReport, error) {
	store := o.Svc.Store()
	var st state
	if v, ok, err := store.Setting(ctx, stateKey(o.Namespace, t.ID)); err != nil {
		return TaskReport{}, err
	} else if ok {
		if err := json.Unmarshal([]byte(v), &st); err != nil {
			return TaskReport{}, fmt.Errorf("refresh state: %w", err)
		}
	}
	since := st.Last
	if since.IsZero() {
		since = now.Add(-MaxInterval)
	}
	var commits []gitlog.Commit
	if o.Repo != "" && len(t.Paths) > 0 {
		var err error
		if commits, err = gitlog.Read(ctx, o.Repo, gitlog.Options{Since: since, Paths: t.Paths, Max: 200}); err != nil {
			return TaskReport{}, err
		}
	}
	var comments []Comment
	for _, c := range t.Comments {
		if c.At.After(since) {
			comments = append(comments, c)
		}
	}
	sincePull := MaxInterval
	if !pulled.IsZero() {
		sincePull = now.Sub(pulled)
	}
	rep := TaskReport{ID: t.ID, Commits: len(commits), Comments: len(comments), SincePull: sincePull,
		Priority: Priority(len(commits), len(comments), sincePull)}
	rep.Due, rep.Reason = Due(rep.Priority, st.Last, now)
	if !rep.Due || dryRun {
		return rep, nil
	}

	query := t.Query
	if query == "" {
		query = t.Title
	}
	// What memory learned about the task since the last refresh.
	fresh, err := o.Svc.Recall(ctx, caller, mnemo.RecallRequest{Namespace: o.Namespace, Query: query, K: 5,
		Filter: mnemo.Filter{Since: &since, Kinds: []mnemo.Kind{mnemo.KindDecision, mnemo.KindCorrection, mnemo.KindEvent,
			mnemo.KindFact, mnemo.KindProcedure}}})
	if err != nil {
		return rep, err
	}
	questions, err := o.Svc.Recall(ctx, caller, mnemo.RecallRequest{Namespace: o.Namespace, Query: query, K: 5,
		Filter: mnemo.Filter{Tags: []string{engine.QuestionTag}}})
	if err != nil {
		return rep, err
	}
	isQuestion := map[string]bool{}
	for _, h := range questions.Hits {
		isQuestion[h.ID] = true
	}
	var news []mnemo.RecallHit
	for _, h := range fresh.Hits {
		if !isQuestion[h.ID] && h.Kind != mnemo.KindRefresh {
			news = append(news, h)
		}
	}

	day := since.Format("2006-01-02")
	texts := map[string]string{}
	var b strings.Builder
	fmt.Fprintf(&b, "What changed for %s (%s) since %s:", t.ID, oneLine(t.Title), day)
	if len(commits) == 0 && len(comments) == 0 && len(news) == 0 {
		b.WriteString(" nothing recorded.")
	}
	if len(commits) > 0 {
		fmt.Fprintf(&b, " %d commit%s:", len(commits), plural(len(commits)))
		for i, c := range commits[:min(5, len(commits))] {
			if i > 0 {
				b.WriteString(";")
			}
			fmt.Fprintf(&b, " %s (%s)", oneLine(c.Subject), c.Hash[:min(8, len(c.Hash))])
		}
		b.WriteString(".")
	}
	if len(comments) > 0 {
		fmt.Fprintf(&b, " %d comment%s:", len(comments), plural(len(comments)))
		for i, c := range comments[max(0, len(comments)-3):] {
			if i > 0 {
				b.WriteString(";")
			}
			if c.Author != "" {
				fmt.Fprintf(&b, " %s:", oneLine(c.Author))
			}
			fmt.Fprintf(&b, " %s", clip(oneLine(c.Text), 200))
		}
		endSentence(&b)
	}
	if len(news) > 0 {
		b.WriteString(" New in memory:")
		for i, h := range news {
			if i > 0 {
				b.WriteString(";")
			}
			fmt.Fprintf(&b, " %s %s [%s]", h.Kind, clip(oneLine(h.Text), 160), h.ID)
		}
		b.WriteString(".")
	}
	texts[ArtifactSummary] = b.String()

	var tools []Tool
	if t.Tools != "" {
		path := t.Tools
		if !filepath.IsAbs(path) && o.Repo != "" {
			path = filepath.Join(o.Repo, path)
		}
		if tools, err = ReadTools(path); err != nil {
			return rep, err
		}
		l := Diff(st.Tools, tools)
		b.Reset()
		fmt.Fprintf(&b, "Tool lineage for %s since %s:", t.ID, day)
		if st.Tools == nil {
			fmt.Fprintf(&b, " first record of %d tools: %s.", len(tools), toolNames(tools))
		} else if l.Empty() {
			b.WriteString(" no change.")
		} else {
			for _, part := range []struct {
				name  string
				items []string
			}{{"new", l.New}, {"changed", l.Changed}, {"retired", l.Retired}} {
				if len(part.items) > 0 {
					fmt.Fprintf(&b, " %s: %s.", part.name, strings.Join(part.items, "; "))
				}
			}
		}
		texts[ArtifactLineage] = b.String()
	}

	b.Reset()
	fmt.Fprintf(&b, "Open questions for %s:", t.ID)
	n := 0
	for _, c := range comments {
		if strings.HasSuffix(strings.TrimSpace(c.Text), "?") {
			fmt.Fprintf(&b, " %s", clip(oneLine(c.Text), 200))
			n++
		}
	}
	for _, h := range questions.Hits {
		fmt.Fprintf(&b, " %s [%s]", clip(oneLine(h.Text), 200), h.ID)
		n++
	}
	if n == 0 {
		b.WriteString(" none recorded.")
	}
	texts[ArtifactQuestions] = b.String()

	if st.Records == nil {
		st.Records = map[string]string{}
	}
	rep.Written = map[string]string{}
	for _, art := range []string{ArtifactSummary, ArtifactLineage, ArtifactQuestions} {
		text, ok := texts[art]
		if !ok {
			continue
		}
		prov := []string{"task:" + t.ID}
		for _, c := range commits[:min(20, len(commits))] {
			prov = append(prov, "commit:"+c.Hash)
		}
		r := mnemo.NewRecord{Kind: mnemo.KindRefresh, Scope: "/tasks", Text: text, Source: Source, Provenance: prov,
			Tags: []string{t.ID, art}, Importance: ptr(0.7), At: &now}
		if prev := st.Records[art]; prev != "" {
			if old, err := store.Get(ctx, mnemo.Scope{Namespace: o.Namespace, Clearance: mnemo.MaxAccessLevel}, prev); err == nil &&
				old.DeletedAt == nil && old.SupersededBy == "" {
				r.Supersedes = prev // the previous brief stays as history
			}
		}
		w, err := o.Svc.Remember(ctx, caller, o.Namespace, []mnemo.NewRecord{r}, engine.WriteOptions{})
		if err != nil {
			return rep, err
		}
		st.Records[art] = w[0].ID
		rep.Written[art] = w[0].ID
	}
	st.Last = now
	if tools != nil {
		st.Tools = tools
	}
	b2, err := json.Marshal(st)
	if err != nil {
		return rep, err
	}
	if err := store.SetSetting(ctx, stateKey(o.Namespace, t.ID), string(b2)); err != nil {
		return rep, err
	}
	return rep, nil
}

// endSentence closes the text with a full stop unless it already ends one.
func endSentence(b *strings.Builder) {
	if s := b.String(); s != "" && !strings.ContainsAny(s[len(s)-1:], ".?!…") {
		b.WriteString(".")
	}
}

func toolNames(ts []Tool) string {
	var n []string
	for _, t := range ts {
		n = append(n, t.Name)
	}
	return strings.Join(n, ", ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func ptr(f float64) *float64 { return &f }
