package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
func (s *Service) Import(ctx context.Context, r io.Reader, progress func(done, total int)) (mnemo.ImportResult, error) {
	c, sc, err := writer(ctx)
	if err != nil {
		return mnemo.ImportResult{}, err
	}
	var recs []*mnemo.Record
	br := bufio.NewReaderSize(r, 1<<20)
	line := 0
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			line++
			b = bytes.TrimSpace(b)
			if len(b) > 0 {
				rec, perr := s.parseImportLine(b, sc, c)
				if perr != nil {
					return mnemo.ImportResult{}, mnemo.Errorf(mnemo.ErrorCode(perr), "line %d: %s", line, mnemo.ErrorMessage(perr))
				}
				recs = append(recs, rec)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return mnemo.ImportResult{}, fmt.Errorf("import: read: %w", err)
		}
	}
	res := mnemo.ImportResult{Read: len(recs)}
	// Records keep their ids: ids are unique per namespace, so an export
	// imports into any namespace as it is, whatever other namespaces hold.
	seen := make(map[string]bool, len(recs))
	for i, rec := range recs {
		if seen[rec.ID] {
			return mnemo.ImportResult{}, mnemo.Errorf(mnemo.EINVALID, "record %d: id %s appears twice", i+1, rec.ID)
		}
		seen[rec.ID] = true
	}
	threads := make([]string, len(recs))
	for i, r := range recs {
		threads[i] = r.Thread
	}
	defer s.threads.lock(sc.Namespace, threads...)()
	for i := 0; i < len(recs); i += ImportBatch {
		batch := recs[i:min(i+ImportBatch, len(recs))]
		restamped, err := s.prepare(ctx, batch)
		if err != nil {
			return res, err
		}
		skipped, err := s.store.Insert(ctx, batch, "import", c.Name)
		if err != nil {
			return res, err
		}
		if err := s.storeVectors(ctx, restamped); err != nil {
			return res, err
		}
		res.Skipped += skipped
		res.Imported += len(batch) - skipped
		if progress != nil {
			progress(i+len(batch), len(recs))
		}
	}
	return res, nil
}

func (s *Service) parseImportLine(b []byte, sc mnemo.Scope, c mnemo.Caller) (*mnemo.Record, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var rec mnemo.Record
	if err := dec.Decode(&rec); err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "not a record: %s", jsonErr(err))
	}
	if dec.More() {
		return nil, mnemo.Errorf(mnemo.EINVALID, "more than one JSON value on the line")
	}
	if rec.ID == "" {
		rec.ID = s.newID()
	}
	// A line without importance or confidence (or with null) gets the
	// defaults of a write (mnemo.NewRecord); an explicit 0 is kept.
	var given struct{ Importance, Confidence *float64 }
	if err := json.Unmarshal(b, &given); err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "not a record: %s", jsonErr(err))
	}
	def := mnemo.NewRecord{Source: rec.Source}.Record()
	if given.Importance == nil {
		rec.Importance = def.Importance
	}
	if given.Confidence == nil {
		rec.Confidence = def.Confidence
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
