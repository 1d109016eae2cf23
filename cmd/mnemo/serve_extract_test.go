package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/episodes"
)

// serve extracts memories from threads by default, every 10 minutes;
// --extract-every sets the pace and 0 turns it off.
func TestServeExtractionFlag(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	out := mustCLI(t, db, "", "serve", "--help")
	if !strings.Contains(out, "-extract-every") || !strings.Contains(out, "(default 10m0s)") {
		t.Fatalf("serve --help:\n%s", out)
	}
	_, errs, code := cli(t, db, "", "serve", "--extract-every", "30s")
	if code != 2 || !strings.Contains(errs, "--extract-every must be 0 (never) or at least a minute") {
		t.Fatalf("--extract-every 30s: exit %d\n%s", code, errs)
	}
	names := func(p jobPace) []string {
		var out []string
		for _, j := range serveJobs(nil, episodes.Extractor{}, p) {
			out = append(out, j.name)
		}
		return out
	}
	if got := names(jobPace{extract: 10 * time.Minute}); len(got) != 1 || got[0] != "extraction" {
		t.Fatalf("jobs %v", got)
	}
	if got := strings.Join(names(jobPace{expire: time.Hour, semantic: time.Hour, episodes: time.Hour, consolidate: time.Hour}), ","); strings.Contains(got, "extraction") {
		t.Fatalf("--extract-every 0 still extracts: %s", got)
	}
}

// The extraction job stores each thread's memories and shows on the job
// board with what it did per namespace.
func TestServeExtractionJobOnTheBoard(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	_, svc := startServerSvc(t, db)
	ctx := context.Background()
	c := mnemo.Caller{Name: "test", Clearance: mnemo.MaxAccessLevel, Role: mnemo.RoleAdmin}
	if _, err := svc.Remember(mnemo.WithCallerIn(ctx, c, "ops"), []mnemo.NewRecord{
		{Text: "Ben: We decided to route night passes via Svalbard.", Thread: "shift-7"},
		{Text: "Anna: Pass briefs must always state the backup-link status.", Thread: "shift-7"},
	}, mnemo.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var job *serveJob
	for _, j := range serveJobs(svc, episodes.Extractor{Store: svc.Store(), Records: svc, Lock: svc.LockThread}, jobPace{extract: 10 * time.Minute}) {
		if j.name == "extraction" {
			job = &j
		}
	}
	if job == nil || job.every != 10*time.Minute || job.first <= 0 {
		t.Fatalf("extraction job %+v", job)
	}
	board := &jobBoard{}
	board.add(job.name, job.every)
	at := time.Now()
	n, err := job.run(ctx)
	board.ran(job.name, at, n, err)
	jobs := board.list()
	if err != nil || len(jobs) != 1 || jobs[0].Name != "extraction" || jobs[0].Done != "2 records (ops 2)" || jobs[0].LastErr != "" {
		t.Fatalf("board %+v, err %v", jobs, err)
	}
	// A second run finds nothing new.
	if n, err := job.run(ctx); err != nil || len(n) != 0 {
		t.Fatalf("second run: %v, %v", n, err)
	}
}

// MNEMO_EXTRACT_EVERY=N extracts on write in any command: the second
// message of a thread queues its extraction, and the command's close waits
// for it, so the memories are stored when `mnemo remember` returns.
func TestExtractionOnWriteInACommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	t.Setenv("MNEMO_EXTRACT_EVERY", "2")
	mustCLI(t, db, "", "remember", "--thread", "shift-7", "Ben: We decided to route night passes via Svalbard.")
	if out := mustCLI(t, db, "", "--json", "list"); strings.Contains(out, `"extracted"`) {
		t.Fatalf("extracted after one message of two:\n%s", out)
	}
	mustCLI(t, db, "", "remember", "--thread", "shift-7", "Anna: Pass briefs must always state the backup-link status.")
	out := mustCLI(t, db, "", "--json", "list")
	if n := strings.Count(out, `"source": "extracted"`) + strings.Count(out, `"source":"extracted"`); n != 2 {
		t.Fatalf("%d extracted memories after the second message, want 2:\n%s", n, out)
	}
}
