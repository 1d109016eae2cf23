package engine

import (
	"context"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo/episodes"
)

// Extraction (package episodes) runs in the background, off the write
// path: a write that adds messages to a thread queues the thread, and the
// extractor goroutine has episodes.Extractor read it once it has gained
// Config.ExtractEvery messages. Close drains the queue; Flush waits for
// it.

// extractJob is a thread queued by a write.
type extractJob struct{ ns, thread string }

// extractQueue is the threads writes queued for extraction; q is nil when
// extraction on write is off.
type extractQueue struct {
	every   int // Config.ExtractEvery
	q       chan extractJob
	pending sync.WaitGroup // jobs queued and not yet done (Flush)
	done    chan struct{}  // closed when the extractor has drained q
}

// extraction is the service's extractor: its store, itself as the writer
// of the memories, the chat model and the thread locks of its writers.
func (s *Service) extraction() episodes.Extractor {
	return episodes.Extractor{Store: s.store, Records: s, Chat: s.chat, Log: s.log, Every: s.ex.every,
		Lock: func(ns, thread string) func() { return s.threads.lock(ns, thread) }}
}

// ExtractAll extracts, in every namespace, the memories of each thread's
// messages that no extraction has read yet, and returns the memories
// stored per namespace (serve's extraction job; episodes.Extractor.All).
func (s *Service) ExtractAll(ctx context.Context) (map[string]int, error) {
	return s.extraction().All(ctx)
}

// queueExtract asks the extractor to look at a thread.
func (s *Service) queueExtract(ns, thread string) {
	if s.ex.q == nil || thread == "" {
		return
	}
	s.ex.pending.Add(1)
	defer func() {
		if recover() != nil { // queue closed during shutdown
			s.ex.pending.Done()
		}
	}()
	select {
	case s.ex.q <- extractJob{ns: ns, thread: thread}:
	default:
		s.ex.pending.Done()
		s.log.Warn("extraction queue full: thread left for its next message", "thread", thread)
	}
}

func (s *Service) extractor() {
	defer close(s.ex.done)
	x := s.extraction()
	for j := range s.ex.q {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if n, err := x.Thread(ctx, j.ns, j.thread, 0); err != nil {
			s.log.Warn("extraction failed", "namespace", j.ns, "thread", j.thread, "err", err)
		} else if n > 0 {
			s.log.Debug("extracted", "namespace", j.ns, "thread", j.thread, "candidates", n)
		}
		cancel()
		s.ex.pending.Done()
	}
}
