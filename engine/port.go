package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"slices"

	"github.com/mnemo-dev/mnemo"
)

// Export writes every record of the namespace visible to the caller —
// forgotten and superseded ones included — as JSONL, oldest first. It
// returns the number of records written. It streams: memory stays within
// a page of records (and one id per page), whatever the namespace's size.
func (s *Service) Export(ctx context.Context, w io.Writer) (int, error) {
	_, sc, err := reader(ctx)
	if err != nil {
		return 0, err
	}
	const pageSize = 500
	opt := mnemo.ListOptions{IncludeDeleted: true, IncludeHistory: true, Limit: pageSize}
	// The store lists newest first: note where each page ends, then write
	// the pages from the last to the first, each reversed.
	bounds := []string{""} // bounds[i]: the id page i starts below ("" = the top)
	for {
		page, err := s.store.List(ctx, sc, opt)
		if err != nil {
			return 0, err
		}
		if len(page) < pageSize {
			break
		}
		opt.After = page[len(page)-1].ID
		bounds = append(bounds, opt.After)
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	n := 0
	for i := len(bounds) - 1; i >= 0; i-- {
		// Page i: ids below bounds[i] and at or above bounds[i+1].
		lo := ""
		if i+1 < len(bounds) {
			lo = bounds[i+1]
		}
		var recs []*mnemo.Record
		opt.After = bounds[i]
		for {
			page, err := s.store.List(ctx, sc, opt)
			if err != nil {
				return n, err
			}
			done := len(page) < pageSize
			for _, r := range page {
				if lo != "" && r.ID < lo {
					done = true
					break
				}
				recs = append(recs, r)
			}
			if done || len(page) == 0 {
				break
			}
			opt.After = page[len(page)-1].ID
		}
		slices.Reverse(recs)
		for _, r := range recs {
			if err := enc.Encode(r); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, bw.Flush()
}

// ImportBatch is the number of records written per transaction by Import.
const ImportBatch = 500

// Import reads JSONL records (as written by Export) into the namespace. The
// whole input is parsed and validated first: a bad line is an EINVALID error
// naming the line, and nothing is written. Records keep their ids, so a
// second import of the same file changes nothing. Records are written in
// transactions of ImportBatch; progress, when set, is called after each
// committed batch with the number of records durably written so far.
//
// It streams, in two passes over the input: the first checks every line
// and keeps only an 8-byte hash of each id, the second parses the
// lines again and writes them a batch at a time. An input that cannot
// seek (standard input, a request body) is copied to a temporary file by
// the first pass. Memory stays within a batch of records and the ids'
// hashes, whatever the input's size.
func (s *Service) Import(ctx context.Context, r io.Reader, progress func(done, total int)) (mnemo.ImportResult, error) {
	c, sc, err := writer(ctx)
	if err != nil {
		return mnemo.ImportResult{}, err
	}
	src, err := rewindable(r)
	if err != nil {
		return mnemo.ImportResult{}, err
	}
	defer src.close()
	chk, err := s.checkImport(ctx, src, sc, c)
	if err != nil {
		return mnemo.ImportResult{}, err
	}
	if err := src.rewind(); err != nil {
		return mnemo.ImportResult{}, err
	}
	res := mnemo.ImportResult{Read: chk.records}
	defer s.threads.lockStripes(chk.stripes)()
	batch := make([]*mnemo.Record, 0, ImportBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		skipped, err := s.importBatch(ctx, batch, c.Name)
		if err != nil {
			return err
		}
		res.Skipped += skipped
		res.Imported += len(batch) - skipped
		if progress != nil {
			progress(res.Imported+res.Skipped, chk.records)
		}
		batch = batch[:0]
		return nil
	}
	err = eachImportLine(src.reader(), func(line int, b []byte) error {
		rec, err := s.parseImportLine(b, sc, c)
		if err != nil { // the first pass accepted it: only a clock-dependent check can refuse it now
			return mnemo.Errorf(mnemo.ErrorCode(err), "line %d: %s", line, mnemo.ErrorMessage(err))
		}
		if batch = append(batch, rec); len(batch) == ImportBatch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	return res, err
}

// importBatch embeds, counts and stores one batch of an import in one
// transaction and returns how many of its records were skipped (their
// ids taken). A large batch with a local embedder and no record of a
// thread is embedded as the store inserts it (see pipelined).
func (s *Service) importBatch(ctx context.Context, batch []*mnemo.Record, actor string) (int, error) {
	if s.pipelined(batch, false) {
		p := s.startPrepare(ctx, batch, pipedChunk)
		defer p.cancel()
		skipped, err := s.store.Write(ctx, mnemo.WriteBatch{Insert: batch, InsertAction: "import", Actor: actor, Ready: p.wait})
		if err == nil {
			err = p.wait(len(batch)) // the store waited for every record; this only makes sure
		}
		return skipped, err
	}
	restamped, err := s.prepare(ctx, batch)
	if err != nil {
		return 0, err
	}
	skipped, err := s.store.Insert(ctx, batch, "import", actor)
	if err != nil {
		return 0, err
	}
	return skipped, s.storeVectors(ctx, restamped)
}

// importIDHash is the hash checkImport compares ids by (a variable for
// tests, which make every id clash).
var importIDHash = maphash.String

// importCheck is what the first pass of Import learns of its input.
type importCheck struct {
	records int
	stripes []int // the thread lock stripes of the records' threads
}

// checkImport parses and validates every line of src, and refuses an id
// given twice. Records keep their ids: ids are unique per namespace, so an
// export imports into any namespace as it is, whatever other namespaces
// hold. Ids are compared by a 64-bit hash; two equal hashes are
// checked against the ids themselves by reading the input again.
func (s *Service) checkImport(ctx context.Context, src *importSource, sc mnemo.Scope, c mnemo.Caller) (importCheck, error) {
	var chk importCheck
	seed := maphash.MakeSeed()
	first := make(map[uint64]int32) // id hash -> the record that gave it first
	var clashes [][2]int            // records whose ids' hashes are equal
	stripes := make(map[int]bool)
	err := eachImportLine(src.reader(), func(line int, b []byte) error {
		if chk.records%ImportBatch == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rec, err := s.parseImportLine(b, sc, c)
		if err != nil {
			return mnemo.Errorf(mnemo.ErrorCode(err), "line %d: %s", line, mnemo.ErrorMessage(err))
		}
		chk.records++
		if rec.Thread != "" {
			stripes[s.threads.stripe(sc.Namespace, rec.Thread)] = true
		}
		// Ids the input leaves out are new ones, hashed too: a clash of
		// theirs is read again below, where they are new again and differ.
		h := importIDHash(seed, rec.ID)
		if at, ok := first[h]; ok {
			clashes = append(clashes, [2]int{int(at), chk.records})
		} else {
			first[h] = int32(chk.records)
		}
		return nil
	})
	if err != nil {
		return chk, err
	}
	if len(clashes) > 0 {
		if err := s.sameIDs(src, sc, c, clashes); err != nil {
			return chk, err
		}
	}
	for i := range stripes {
		chk.stripes = append(chk.stripes, i)
	}
	return chk, nil
}

// sameIDs reads the records of clashes from src and returns the error of
// the first record whose id (not only its hash) an earlier one gave: two
// records of equal ids have equal hashes, so both are among clashes.
func (s *Service) sameIDs(src *importSource, sc mnemo.Scope, c mnemo.Caller, clashes [][2]int) error {
	involved := make(map[int]bool)
	for _, p := range clashes {
		involved[p[0]], involved[p[1]] = true, true
	}
	if err := src.rewind(); err != nil {
		return err
	}
	n := 0
	seen := make(map[string]bool)
	return eachImportLine(src.reader(), func(_ int, b []byte) error {
		if n++; !involved[n] {
			return nil
		}
		rec, err := s.parseImportLine(b, sc, c)
		if err != nil {
			return err
		}
		if seen[rec.ID] {
			return mnemo.Errorf(mnemo.EINVALID, "record %d: id %s appears twice", n, rec.ID)
		}
		seen[rec.ID] = true
		return nil
	})
}

// eachImportLine calls fn with each non-blank line of r (trimmed) and its
// line number, until fn returns an error.
func eachImportLine(r io.Reader, fn func(line int, b []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	line := 0
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			line++
			if b = bytes.TrimSpace(b); len(b) > 0 {
				if ferr := fn(line, b); ferr != nil {
					return ferr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("import: read: %w", err)
		}
	}
}

// importSource is Import's input, read more than once: the input itself
// when it can seek, else a temporary copy the first pass writes.
type importSource struct {
	in    io.Reader
	seek  io.Seeker // the input's, when it seeks
	start int64     // the input's offset at the start
	spool *os.File  // the copy, when it does not
	first bool      // the first pass is reading
	size  int64     // the bytes the first pass read: later passes read no more
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n *int64
}

func (c counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// rewindable returns r as an importSource.
func rewindable(r io.Reader) (*importSource, error) {
	src := &importSource{in: r, first: true}
	if sk, ok := r.(io.Seeker); ok {
		if at, err := sk.Seek(0, io.SeekCurrent); err == nil {
			src.seek, src.start = sk, at
			return src, nil
		}
	}
	f, err := os.CreateTemp("", "mnemo-import-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("import: a temporary copy of the input: %w", err)
	}
	src.spool = f
	return src, nil
}

// reader returns what a pass reads: on the first pass the input (copied
// to the spool as it is read when it does not seek), then what the first
// pass read.
func (src *importSource) reader() io.Reader {
	switch {
	case src.first && src.spool != nil:
		return counter{io.TeeReader(src.in, src.spool), &src.size}
	case src.first:
		return counter{src.in, &src.size}
	case src.spool != nil:
		return io.LimitReader(src.spool, src.size)
	}
	// A file still growing is read no further than the first pass read it.
	return io.LimitReader(src.in, src.size)
}

// rewind makes the next pass read from the start.
func (src *importSource) rewind() error {
	src.first = false
	var err error
	if src.spool != nil {
		_, err = src.spool.Seek(0, io.SeekStart)
	} else {
		_, err = src.seek.Seek(src.start, io.SeekStart)
	}
	if err != nil {
		return fmt.Errorf("import: reading the input again: %w", err)
	}
	return nil
}

// close removes the spool.
func (src *importSource) close() {
	if src.spool != nil {
		src.spool.Close()
		os.Remove(src.spool.Name())
	}
}

func (s *Service) parseImportLine(b []byte, sc mnemo.Scope, c mnemo.Caller) (*mnemo.Record, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	// A line without importance or confidence (or with null) gets the
	// defaults of a write (mnemo.NewRecord); an explicit 0 is kept. The
	// two pointers stand in for the record's own fields of those names.
	var in struct {
		mnemo.Record
		Importance *float64 `json:"importance"`
		Confidence *float64 `json:"confidence"`
	}
	if err := dec.Decode(&in); err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "not a record: %s", jsonErr(err))
	}
	if dec.More() {
		return nil, mnemo.Errorf(mnemo.EINVALID, "more than one JSON value on the line")
	}
	rec := in.Record
	if rec.ID == "" {
		rec.ID = s.newID()
	}
	def := mnemo.NewRecord{Source: rec.Source}.Record()
	rec.Importance, rec.Confidence = def.Importance, def.Confidence
	if in.Importance != nil {
		rec.Importance = *in.Importance
	}
	if in.Confidence != nil {
		rec.Confidence = *in.Confidence
	}
	rec.Namespace = sc.Namespace
	rec.Normalize(s.now().UTC())
	if err := s.check(&rec, c); err != nil {
		return nil, err
	}
	return &rec, nil
}

// jsonErr shortens a JSON decoding error to something a user can act on.
func jsonErr(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("field %s has the wrong type (want %s)", te.Field, te.Type)
	}
	return err.Error()
}

// Reembed rebuilds every record's vector with the configured embedder and
// records it as the store's embedder. progress, when set, is called after
// each batch.
func (s *Service) Reembed(ctx context.Context, progress func(done, total int)) (int, error) {
	defer s.threads.lockAll()()
	var all []*mnemo.Record
	if err := s.store.EachRecord(ctx, func(r *mnemo.Record) error {
		all = append(all, r)
		return nil
	}); err != nil {
		return 0, err
	}
	// Embed every record's own text, then give threads their context, then
	// store: a thread's vectors depend on each other, so none is written
	// before all are known.
	const batch = 256
	own := make(map[mnemo.RecordKey][]float32, len(all))
	for i := 0; i < len(all); i += batch {
		part := all[i:min(i+batch, len(all))]
		texts := make([]string, len(part))
		for k, r := range part {
			texts[k] = embedText(r)
		}
		vecs, err := s.emb.Embed(ctx, texts)
		if err != nil {
			return 0, err
		}
		for k, r := range part {
			own[mnemo.RecordKey{Namespace: r.Namespace, ID: r.ID}] = vecs[k]
			r.Embedding = vecs[k]
		}
		if progress != nil {
			progress(i+len(part), len(all))
		}
	}
	rethread(all, own)
	for i := 0; i < len(all); i += batch {
		part := all[i:min(i+batch, len(all))]
		m := make(map[mnemo.RecordKey][]float32, len(part))
		for _, r := range part {
			m[mnemo.RecordKey{Namespace: r.Namespace, ID: r.ID}] = r.Embedding
		}
		if err := s.store.SetEmbeddings(ctx, m); err != nil {
			return i, err
		}
	}
	if err := s.store.SetEmbedder(ctx, s.emb.Info(), true); err != nil {
		return len(all), err
	}
	return len(all), nil
}
