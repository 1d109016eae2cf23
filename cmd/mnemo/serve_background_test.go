package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// background runs its job on schedule, logs counts and failures, and stops
// with its context.
func TestBackgroundRunsLogsAndStops(t *testing.T) {
	var (
		mu   sync.Mutex
		runs int
		buf  bytes.Buffer
	)
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, nil))
	ctx, cancel := context.WithCancel(context.Background())
	board := &jobBoard{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		background(ctx, log, board, "job", time.Millisecond, time.Millisecond, func(context.Context) (map[string]int, error) {
			mu.Lock()
			runs++
			n := runs
			mu.Unlock()
			if n == 2 {
				return map[string]int{"a": 1}, errors.New("disk full")
			}
			return map[string]int{"a": 2, "b": 1}, nil
		})
	}()
	for {
		mu.Lock()
		n := runs
		mu.Unlock()
		if n >= 3 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("background did not stop with its context")
	}
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	if !strings.Contains(out, `msg=job records=3 namespaces=2`) || !strings.Contains(out, `msg="job stopped" records=1 err="disk full"`) {
		t.Errorf("log:\n%s", out)
	}
	// The console's health page sees the job and its last run.
	jobs := board.list()
	if len(jobs) != 1 || jobs[0].Name != "job" || jobs[0].Every != time.Millisecond || jobs[0].LastRun.IsZero() {
		t.Fatalf("jobs: %+v", jobs)
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
