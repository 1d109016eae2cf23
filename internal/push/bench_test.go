package push_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/internal/push"
)

// BenchmarkCycle1000 times one orchestrator cycle over 1,000 LONG-TERM
// tasks read from a fake GitHub (issues, 100 a page, two comments each)
// and a fake Plane (work items, 100 a page, two comments each), and counts
// the requests it makes. The fake servers run in this process: their time
// is in the figure.
//
//	first:    a fresh store, every task due, no budget: 1,000 refreshes
//	budget50: a fresh store, the default budget: 50 refreshes, 950 deferred
//	steady:   an hour after every task was refreshed: none due, all read
//	          and assessed (the usual hourly cycle)
//	repo/...: the same with --repo: one `git log` per task and cycle
//
//	go test ./push -run '^$' -bench Cycle1000 -benchtime 1x
func BenchmarkCycle1000(b *testing.B) {
	const n = 1000
	ctx := context.Background()
	t0 := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	body := func(i int) string {
		return fmt.Sprintf("Service %d.\r\nPaths: svc/%04d/\r\n", i, i)
	}
	var issues []ghIssue
	var items []plItem
	for i := range n {
		cs := []ghComment{
			{"lee", fmt.Sprintf("Deployed build %d to staging.", i), t0.Add(-3 * time.Hour)},
			{"ana", fmt.Sprintf("Does service %d need a rollback plan?", i), t0.Add(-time.Hour)},
		}
		issues = append(issues, ghIssue{Number: 1000 + i, Title: fmt.Sprintf("Service %d migration", i), Labels: []string{"LONG-TERM"},
			Body: body(i), Comments: cs})
		items = append(items, plItem{ID: fmt.Sprintf("wi-%d", i), Seq: 1000 + i, Name: fmt.Sprintf("Service %d migration", i),
			Labels: []string{"LONG-TERM"}, Priority: []string{"urgent", "high", "medium", "low", "none"}[i%5], Desc: body(i), Comments: cs})
	}
	g := newFakeGitHub(b, "acme/ops", issues)
	g.perPage = 100
	p := newFakePlane(b, items)
	p.perPage = 100

	var repoDir string
	repo := func() string {
		if repoDir == "" {
			r := newWeekRepo(b)
			for i := range n {
				f := filepath.Join(r.dir, fmt.Sprintf("svc/%04d/main.go", i))
				os.MkdirAll(filepath.Dir(f), 0o755)
				os.WriteFile(f, []byte("package main\n"), 0o644)
			}
			r.git(t0.Add(-2*time.Hour), "add", ".")
			r.git(t0.Add(-2*time.Hour), "commit", "-q", "-m", "Add the services")
			repoDir = r.dir
		}
		return repoDir
	}

	for _, tc := range []struct {
		tracker string
		mode    string
		budget  int
		repo    bool
	}{
		{"github", "first", 0, false}, {"github", "budget50", 50, false}, {"github", "steady", 0, false},
		{"plane", "first", 0, false}, {"plane", "budget50", 50, false}, {"plane", "steady", 0, false},
		{"github", "repo/first", 0, true}, {"github", "repo/steady", 0, true},
	} {
		b.Run(tc.tracker+"/"+tc.mode, func(b *testing.B) {
			var requests int64
			refreshed := 0
			for range b.N {
				b.StopTimer()
				now := t0
				svc, _ := newService(b, &now)
				var tr interface {
					push.Tracker
					Requests() int64
				}
				if tc.tracker == "github" {
					tr = newGitHub(b, g, push.HTTPOptions{})
				} else {
					tr = newPlane(b, p, push.HTTPOptions{})
				}
				o := &push.Orchestrator{Svc: svc, Namespace: "ops", Now: func() time.Time { return now }, Budget: tc.budget}
				if tc.repo {
					o.Repo = repo()
				}
				if tc.mode == "steady" || tc.mode == "repo/steady" {
					if reps, err := o.Cycle(ctx, tr, false); err != nil || len(reps) != n {
						b.Fatalf("%d tasks, %v", len(reps), err)
					}
					now = t0.Add(time.Hour)
				}
				r0 := tr.Requests()
				b.StartTimer()
				reps, err := o.Cycle(ctx, tr, false)
				b.StopTimer()
				if err != nil || len(reps) != n {
					b.Fatalf("%d tasks, %v", len(reps), err)
				}
				requests += tr.Requests() - r0
				for _, r := range reps {
					if len(r.Written) > 0 {
						refreshed++
					}
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(requests)/float64(b.N), "requests/cycle")
			b.ReportMetric(float64(refreshed)/float64(b.N), "refreshed/cycle")
		})
	}
	g.check(b)
	p.check(b)
}
