package episodes

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Extraction on write runs in the background, off the write path: the
// service tells a Queue the threads each write added records to
// (engine.Config.ThreadsWritten is Queue.Add), and the queue's goroutine
// has its Extractor read each of them once it has gained Extractor.Every
// messages. Close drains the queue; Flush waits for it.

// queueLen bounds the threads waiting for extraction: a write that finds
// the queue full leaves its thread for the thread's next message.
const queueLen = 1024

// queued is a thread a write handed to the queue.
type queued struct{ ns, thread string }

// Queue extracts from the threads writes hand it, one at a time, in a
// goroutine of its own. It is made before the service whose writes feed
// it (NewQueue) and started with the extractor that writes through that
// service (Start); it is safe for concurrent use.
type Queue struct {
	q       chan queued
	log     *slog.Logger
	pending sync.WaitGroup // threads queued and not yet extracted (Flush)
	done    chan struct{}  // closed when the goroutine has drained q
	start   sync.Once
	stop    sync.Once
	started bool
}

// NewQueue returns a queue that keeps what it is handed until Start; log
// receives the failures of extraction (nil discards them).
func NewQueue(log *slog.Logger) *Queue {
	return &Queue{q: make(chan queued, queueLen), log: logger(log), done: make(chan struct{})}
}

// Start runs x over the queued threads (those handed before Start too)
// until Close. Only the first call starts the queue.
func (q *Queue) Start(x Extractor) {
	q.start.Do(func() {
		q.started = true
		go q.run(x)
	})
}

// Add queues the threads a write of namespace ns added records to (empty
// names ignored). It never blocks: when the queue is full, the thread
// waits for its next message.
func (q *Queue) Add(ns string, threads []string) {
	for _, t := range threads {
		if t != "" {
			q.add(ns, t)
		}
	}
}

func (q *Queue) add(ns, thread string) {
	q.pending.Add(1)
	defer func() {
		if recover() != nil { // queue closed during shutdown
			q.pending.Done()
		}
	}()
	select {
	case q.q <- queued{ns: ns, thread: thread}:
	default:
		q.pending.Done()
		q.log.Warn("extraction queue full: thread left for its next message", "thread", thread)
	}
}

func (q *Queue) run(x Extractor) {
	defer close(q.done)
	for j := range q.q {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if n, err := x.Thread(ctx, j.ns, j.thread, 0); err != nil {
			q.log.Warn("extraction failed", "namespace", j.ns, "thread", j.thread, "err", err)
		} else if n > 0 {
			q.log.Debug("extracted", "namespace", j.ns, "thread", j.thread, "candidates", n)
		}
		cancel()
		q.pending.Done()
	}
}

// Flush waits until the threads queued so far are extracted, or ctx ends.
func (q *Queue) Flush(ctx context.Context) error {
	done := make(chan struct{})
	go func() { q.pending.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops taking threads and waits until the queued ones are
// extracted (when started). Close it before the service it writes
// through.
func (q *Queue) Close() {
	q.stop.Do(func() {
		close(q.q)
		q.start.Do(func() {}) // no Start after Close
		if q.started {
			<-q.done
		}
	})
}
