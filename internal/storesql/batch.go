package storesql

import "github.com/mnemo-dev/mnemo"

// BatchSteps are a store's writes of the parts of a mnemo.WriteBatch,
// each run inside the store's transaction: Update for each of the batch's
// Updates (its index in them and the update), Insert for the new records,
// Embed for the replaced vectors, Supersede for each supersession.
type BatchSteps struct {
	Update    func(i int, u mnemo.RecordUpdate) error
	Insert    func() error
	Embed     func() error
	Supersede func(sp mnemo.Supersession) error
}

// ApplyBatch runs w's steps for b in the order mnemo.WriteBatch names —
// Updates, Insert, Embeddings, Supersede — and stops at the first error,
// which it returns for the store to roll back.
func ApplyBatch(b *mnemo.WriteBatch, w BatchSteps) error {
	for i, u := range b.Updates {
		if err := w.Update(i, u); err != nil {
			return err
		}
	}
	if err := w.Insert(); err != nil {
		return err
	}
	if err := w.Embed(); err != nil {
		return err
	}
	for _, sp := range b.Supersede {
		if err := w.Supersede(sp); err != nil {
			return err
		}
	}
	return nil
}

// CheckSupersessions rejects a supersession no store can apply: one that
// fails mnemo.Supersession.Check or names no namespace.
func CheckSupersessions(sps []mnemo.Supersession) error {
	for _, sp := range sps {
		if err := sp.Check(); err != nil {
			return err
		}
		if err := CheckNamespace(sp.Scope.Namespace); err != nil {
			return err
		}
	}
	return nil
}
