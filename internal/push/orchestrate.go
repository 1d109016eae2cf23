package push

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/engine"
	"github.com/mnemo-dev/mnemo/internal/gitlog"
	"github.com/mnemo-dev/mnemo/internal/safefile"
	"github.com/mnemo-dev/mnemo/llm"
)

// Artifacts a refresh writes.
const (
	ArtifactSummary   = "summary"
	ArtifactLineage   = "tool-lineage"
	ArtifactQuestions = "questions"
	// Source is the source of every record push mode writes.
	Source = "push-refresh"
	// DefaultRelevance is the evidence of relevance a record needs to
	// appear in a task's brief: a third of the weight of the task's query
	// terms, or as strong a semantic match; sharing one common word is not
	// enough.
	DefaultRelevance = 0.35
)

// Orchestrator runs refresh cycles over one namespace.
type Orchestrator struct {
	Svc       *engine.Service
	Namespace string           // the only namespace it reads and writes
	Repo      string           // repository whose commits touch tasks; "" = none
	Now       func() time.Time // nil: time.Now
	// AccessLevel is the access level of the records it writes, and the
	// clearance of its own recalls, so that a brief never copies a record
	// its readers could not see (default 0).
	AccessLevel int
	// Relevance is the evidence of relevance to the task (0..1, see
	// mnemo.Why) a record needs to appear in its brief, as news or as an
	// open question (default DefaultRelevance).
	Relevance float64
	// Chat, when set, writes the executive summary from the commits,
	// comments and new records; on a timeout, a refusal or an invalid
	// answer the rules' summary stands. Nil: the rules only.
	Chat llm.Model
	// Budget is the most tasks refreshed in one cycle, the most pressing
	// first (priority, then criticality); 0 means no limit.
	Budget int
}

// state is what the orchestrator keeps per task in the store's settings.
type state struct {
	Last    time.Time         `json:"last"`              // last refresh
	Tools   []Tool            `json:"tools,omitempty"`   // the tool set at the last refresh
	Records map[string]string `json:"records,omitempty"` // artifact -> id of its current record
}

// TaskReport is what a cycle did for one task.
type TaskReport struct {
	ID          string            `json:"id"`
	Priority    float64           `json:"priority"`
	Criticality float64           `json:"criticality,omitempty"`
	Due         bool              `json:"due"`
	Deferred    bool              `json:"deferred,omitempty"` // due, but over the cycle's budget
	Reason      string            `json:"reason"`
	Commits     int               `json:"commits"`
	Comments    int               `json:"comments"`
	SincePull   time.Duration     `json:"since_pull_ns"`
	Written     map[string]string `json:"written,omitempty"` // artifact -> record id
	Error       string            `json:"error,omitempty"`   // why the task was skipped this cycle
	// SummaryBy says what wrote the summary: the chat model's name, or
	// "rules"; ModelError why the model's answer was not used.
	SummaryBy  string `json:"summary_by,omitempty"`
	ModelError string `json:"model_error,omitempty"`
}

func (o *Orchestrator) caller() mnemo.Caller {
	return mnemo.Caller{Name: Source, Role: mnemo.RoleWrite, Clearance: max(o.AccessLevel, 0)}
}

func (o *Orchestrator) now() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
}

func stateKey(ns, task string) string { return "refresh/" + ns + "/" + task }

// plan is a task's state and evidence, gathered before anything is written.
type plan struct {
	task     Task
	st       state
	since    time.Time
	commits  []gitlog.Commit
	comments []Comment
}

// Cycle reads the LONG-TERM tasks of the tracker and refreshes those due,
// the most pressing first (refresh priority, then criticality), at most
// Budget of them; with dryRun it only reports priorities and what is due.
// A task that cannot be read or refreshed is skipped with its error in its
// report and retried next cycle; a refresh writes its records in one
// batch, so a task is refreshed completely or not at all. The error joins
// whatever was skipped (the tracker's, and each task's); the reports are
// complete for the tasks that were read.
func (o *Orchestrator) Cycle(ctx context.Context, tr Tracker, dryRun bool) ([]TaskReport, error) {
	now := o.now()
	tasks, fetchErr := tr.LongTermTasks(ctx)
	var errs []error
	if fetchErr != nil {
		errs = append(errs, fmt.Errorf("%s: %w", tr.Name(), fetchErr))
	}
	if len(tasks) == 0 {
		return nil, errors.Join(errs...)
	}
	store := o.Svc.Store()
	// The last pull of each task: the newest retrieval of the week whose
	// query names the task's id or title, the orchestrator's own excepted.
	lastPull := map[string]time.Time{}
	err := store.EachRetrieval(ctx, o.Namespace, now.Add(-MaxInterval), time.Time{}, func(l mnemo.RetrievalLog) error {
		if l.Caller == Source {
			return nil
		}
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
		return nil, errors.Join(append(errs, err)...)
	}
	reps := make([]TaskReport, 0, len(tasks))
	plans := make([]*plan, 0, len(tasks))
	for _, t := range tasks {
		rep, p, err := o.assess(ctx, t, now, lastPull[t.ID])
		if err != nil {
			rep.Error = errorText(err)
			errs = append(errs, fmt.Errorf("task %s: %w", t.ID, err))
		}
		reps = append(reps, rep)
		plans = append(plans, p)
	}
	order := make([]int, len(reps))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := reps[order[a]], reps[order[b]]
		if x.Due != y.Due {
			return x.Due
		}
		if x.Priority != y.Priority {
			return x.Priority > y.Priority
		}
		if x.Criticality != y.Criticality {
			return x.Criticality > y.Criticality
		}
		return x.ID < y.ID
	})
	out := make([]TaskReport, 0, len(reps))
	refreshed := 0
	for _, i := range order {
		rep, p := reps[i], plans[i]
		if rep.Due && rep.Error == "" && !dryRun {
			if o.Budget > 0 && refreshed >= o.Budget {
				rep.Deferred = true
				rep.Reason += fmt.Sprintf("; over this cycle's budget of %d refreshes", o.Budget)
			} else if err := o.refresh(ctx, p, now, &rep); err != nil {
				rep.Error = errorText(err)
				rep.Written = nil
				errs = append(errs, fmt.Errorf("task %s: %w", rep.ID, err))
			} else {
				refreshed++
			}
		}
		out = append(out, rep)
	}
	return out, errors.Join(errs...)
}

// errorText is the whole chain of an error, context included.
func errorText(err error) string { return err.Error() }

// assess reads a task's state, commits and comments and decides whether it
// is due; it writes nothing.
func (o *Orchestrator) assess(ctx context.Context, t Task, now, pulled time.Time) (TaskReport, *plan, error) {
	rep := TaskReport{ID: t.ID, Criticality: t.Criticality}
	store := o.Svc.Store()
	p := &plan{task: t}
	if v, ok, err := store.Setting(ctx, stateKey(o.Namespace, t.ID)); err != nil {
		return rep, p, err
	} else if ok {
		if err := json.Unmarshal([]byte(v), &p.st); err != nil {
			return rep, p, fmt.Errorf("refresh state: %w", err)
		}
	}
	p.since = p.st.Last
	if p.since.IsZero() {
		p.since = now.Add(-MaxInterval)
	}
	if o.Repo != "" && len(t.Paths) > 0 {
		var err error
		if p.commits, err = gitlog.Read(ctx, o.Repo, gitlog.Options{Since: p.since, Paths: t.Paths, Max: 200}); err != nil {
			return rep, p, err
		}
	}
	for _, c := range t.Comments {
		if c.At.After(p.since) {
			p.comments = append(p.comments, c)
		}
	}
	sincePull := MaxInterval
	if !pulled.IsZero() {
		sincePull = now.Sub(pulled)
	}
	rep.Commits, rep.Comments, rep.SincePull = len(p.commits), len(p.comments), sincePull
	rep.Priority = Priority(len(p.commits), len(p.comments), sincePull)
	rep.Due, rep.Reason = Due(rep.Priority, p.st.Last, now)
	return rep, p, nil
}

// refresh composes a due task's artifacts and writes them in one batch,
// then its state, filling in rep.
func (o *Orchestrator) refresh(ctx context.Context, p *plan, now time.Time, rep *TaskReport) error {
	store := o.Svc.Store()
	t, st, since, commits, comments := p.task, p.st, p.since, p.commits, p.comments
	caller := o.caller()
	query := t.Query
	if query == "" {
		query = t.Title
	}
	// Records must be about the task, not merely share a word with it.
	rel := o.Relevance
	if rel <= 0 || rel > 1 {
		rel = DefaultRelevance
	}
	// What memory learned about the task since the last refresh.
	fresh, err := o.Svc.Recall(mnemo.WithCallerIn(ctx, caller, o.Namespace), mnemo.RecallRequest{Query: query, K: 5,
		Filter: mnemo.Filter{Since: &since, Kinds: []mnemo.Kind{mnemo.KindDecision, mnemo.KindCorrection, mnemo.KindEvent,
			mnemo.KindFact, mnemo.KindProcedure}}, MinRelevance: &rel})
	if err != nil {
		return err
	}
	questions, err := o.Svc.Recall(mnemo.WithCallerIn(ctx, caller, o.Namespace), mnemo.RecallRequest{Query: query, K: 5,
		Filter: mnemo.Filter{Tags: []string{mnemo.QuestionTag}}, MinRelevance: &rel})
	if err != nil {
		return err
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
	summaryBy := SummaryByRules
	if o.Chat != nil && (len(commits) > 0 || len(comments) > 0 || len(news) > 0) {
		head := fmt.Sprintf("What changed for %s (%s) since %s:", t.ID, oneLine(t.Title), day)
		if text, err := o.modelSummary(ctx, t, day, commits, comments, news); err != nil {
			rep.ModelError = errorText(err) // the rules' summary stands
		} else {
			texts[ArtifactSummary] = head + " " + text + sourcesNote(commits, comments, news)
			summaryBy = o.Chat.Name()
		}
	}
	rep.SummaryBy = summaryBy

	tools, err := o.readTools(t)
	if err != nil {
		return err
	}
	if t.Tools != "" && (t.Source == "" || o.Repo != "") {
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

	var batch []mnemo.NewRecord
	var arts []string
	for _, art := range []string{ArtifactSummary, ArtifactLineage, ArtifactQuestions} {
		text, ok := texts[art]
		if !ok {
			continue
		}
		prov := []string{"task:" + t.ID}
		for _, c := range commits[:min(20, len(commits))] {
			prov = append(prov, "commit:"+c.Hash)
		}
		if art == ArtifactSummary {
			prov = append(prov, "summary-by:"+summaryBy) // which path made the text
		}
		r := mnemo.NewRecord{Kind: mnemo.KindRefresh, Scope: "/tasks", Text: text, Source: Source, Provenance: prov,
			Tags: []string{t.ID, art}, Importance: ptr(0.7), At: &now, AccessLevel: max(o.AccessLevel, 0)}
		if prev := st.Records[art]; prev != "" {
			if old, err := store.Get(ctx, mnemo.Scope{Namespace: o.Namespace, Clearance: mnemo.MaxAccessLevel}, prev); err == nil &&
				old.DeletedAt == nil && old.SupersededBy == "" {
				r.Supersedes = prev // the previous brief stays as history
			}
		}
		batch = append(batch, r)
		arts = append(arts, art)
	}
	// One batch: the task's briefs are written together or not at all.
	w, err := o.Svc.Remember(mnemo.WithCallerIn(ctx, caller, o.Namespace), batch, mnemo.WriteOptions{})
	if err != nil {
		return err
	}
	written := map[string]string{}
	records := map[string]string{}
	for art, id := range st.Records {
		records[art] = id
	}
	for i, art := range arts {
		records[art] = w[i].ID
		written[art] = w[i].ID
	}
	next := state{Last: now, Tools: st.Tools, Records: records}
	if tools != nil {
		next.Tools = tools
	}
	rep.Written = written
	b2, err := json.Marshal(next)
	if err != nil {
		return err
	}
	return store.SetSetting(ctx, stateKey(o.Namespace, t.ID), string(b2))
}

// readTools reads the task's tools file, nil when it names none. A task of
// the local file names a path of the operator's (relative to the
// repository, if any); a task from GitHub or Plane names a file inside the
// repository, read only there (no "..", no symbolic link out of it), and
// none without a repository.
func (o *Orchestrator) readTools(t Task) ([]Tool, error) {
	if t.Tools == "" {
		return nil, nil
	}
	if t.Source == "" {
		path := t.Tools
		if !filepath.IsAbs(path) && o.Repo != "" {
			path = filepath.Join(o.Repo, path)
		}
		return ReadTools(path)
	}
	if o.Repo == "" {
		return nil, nil
	}
	dir, err := safefile.Dir(o.Repo, safefile.DefaultMax)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	b, err := dir.ReadFile(t.Tools)
	if err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "tools file: %v", err)
	}
	return parseTools(b, t.Tools)
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
