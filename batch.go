package mnemo

import "time"

// WriteBatch is what one write stores, committed by Store.Write in one
// transaction: every part of it is stored, or — on any error — none, and
// no reader sees part of it. The engine's Remember sends one per call: the
// new records, the stored records near-duplicates were merged into, the
// vectors of stored records that the new ones re-chain (engine/thread.go)
// and the supersessions, so that a supersession that fails leaves no new
// record stored behind the error.
//
// The parts are applied in this order: Updates, Insert, Embeddings,
// Supersede; a part sees what the parts before it wrote.
type WriteBatch struct {
	// Insert are new records (ids, embeddings and tokens set), written as
	// Store.Insert writes them: an id the namespace holds already (or one
	// earlier in Insert) is skipped and counted, the others get a revision
	// of action InsertAction ("create" when empty) by Actor.
	Insert       []*Record
	InsertAction string
	Actor        string
	// Updates replace stored records, each as Store.Update does (a missing
	// one is ENOTFOUND).
	Updates []RecordUpdate
	// Embeddings replace the vectors of stored records, Insert's included,
	// as Store.SetEmbeddings does (a missing one is ENOTFOUND).
	Embeddings map[RecordKey][]float32
	// Supersede ends the validity of stored records.
	Supersede []Supersession
	// Ready, when set, says that Insert's records are still being
	// completed (embedded, their tokens counted) as the batch is written,
	// in order: Ready(n) returns once the first n are complete, or with
	// the error that stopped their completion (the batch then fails). A
	// store calls it before it reads a record of Insert
	// (WriteBatch.WaitReady), and may insert the records that are complete
	// while the rest are completed, all in the one transaction. Ready is
	// safe for concurrent use.
	Ready func(n int) error
}

// WaitReady waits until the first n records of Insert are complete (see
// Ready).
func (b *WriteBatch) WaitReady(n int) error {
	if b.Ready == nil || n <= 0 {
		return nil
	}
	return b.Ready(min(n, len(b.Insert)))
}

// Empty reports whether the batch writes nothing.
func (b *WriteBatch) Empty() bool {
	return len(b.Insert) == 0 && len(b.Updates) == 0 && len(b.Embeddings) == 0 && len(b.Supersede) == 0
}

// RecordUpdate is one replacement of a stored record in a WriteBatch.
type RecordUpdate struct {
	Record *Record
	Action string // the revision's action; "update" when empty
	Actor  string
}

// Supersession ends a stored record's validity in favour of another: the
// record's valid_to becomes At, its superseded_by By and its updated_at
// UpdatedAt, and a "supersede" revision by the batch's Actor records it.
// The store reads the record inside the transaction and changes those
// three fields only, so whatever else changed on it since the writer read
// it stays.
//
// It fails, and with it the whole batch, with ENOTFOUND when the record
// does not exist in Scope's namespace or is above Scope's clearance, and
// with ECONFLICT when it is forgotten (or archived): restore it first.
type Supersession struct {
	Scope     Scope  // the writer's: the record must be visible to it
	ID        string // the record superseded
	By        string // the record that replaces it
	At        time.Time
	UpdatedAt time.Time
}

// Check rejects a supersession no store can apply (EINVALID).
func (sp Supersession) Check() error {
	if sp.ID == "" || sp.By == "" {
		return Errorf(EINVALID, "supersession without a record id or a successor")
	}
	if sp.ID == sp.By {
		return Errorf(EINVALID, "record %s cannot supersede itself", sp.ID)
	}
	if sp.At.IsZero() {
		return Errorf(EINVALID, "supersession of %s has no time", sp.ID)
	}
	if err := ValidateNamespace(sp.Scope.Namespace); err != nil {
		return err
	}
	return nil
}

// Supersede applies a supersession to a record read inside the writing
// transaction, checking it as Supersession says (the read's miss is the
// caller's ENOTFOUND). Stores call it between their read and their write.
func (sp Supersession) Supersede(r *Record) error {
	if r == nil || r.AccessLevel > sp.Scope.Clearance {
		return Errorf(ENOTFOUND, "record %s not found", sp.ID)
	}
	if r.DeletedAt != nil {
		return Errorf(ECONFLICT, "record %s is forgotten: restore it before superseding it", sp.ID)
	}
	at := sp.At
	r.ValidTo = &at
	r.SupersededBy = sp.By
	r.UpdatedAt = sp.UpdatedAt
	return nil
}
