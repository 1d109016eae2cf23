package main

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo/console"
)

// jobBoard keeps the last run of each background job of `mnemo serve`,
// for the console's health page.
type jobBoard struct {
	mu   sync.Mutex
	jobs map[string]*console.Job
}

// add registers a job that runs every `every`.
func (b *jobBoard) add(name string, every time.Duration) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.jobs == nil {
		b.jobs = map[string]*console.Job{}
	}
	b.jobs[name] = &console.Job{Name: name, Every: every}
}

// ran records a run of job name: what it did per namespace, or its error.
func (b *jobBoard) ran(name string, at time.Time, n map[string]int, err error) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	j := b.jobs[name]
	if j == nil {
		return
	}
	j.LastRun, j.LastErr = at, ""
	if err != nil {
		j.LastErr = err.Error()
	}
	total := 0
	for _, k := range n {
		total += k
	}
	var parts []string
	for _, ns := range slices.Sorted(func(yield func(string) bool) {
		for k := range n {
			if !yield(k) {
				return
			}
		}
	}) {
		parts = append(parts, fmt.Sprintf("%s %d", ns, n[ns]))
	}
	j.Done = fmt.Sprintf("%d records", total)
	if len(parts) > 0 && len(parts) <= 5 {
		j.Done += " (" + strings.Join(parts, ", ") + ")"
	} else if len(parts) > 5 {
		j.Done += fmt.Sprintf(" in %d namespaces", len(parts))
	}
}

// list returns the jobs by name.
func (b *jobBoard) list() []console.Job {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]console.Job, 0, len(b.jobs))
	for _, j := range b.jobs {
		out = append(out, *j)
	}
	slices.SortFunc(out, func(a, b console.Job) int { return strings.Compare(a.Name, b.Name) })
	return out
}
