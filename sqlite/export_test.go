package sqlite

// SeqReads returns how many times the store has read its change stamp.
func (s *Store) SeqReads() int64 { return s.seqReads.Load() }

// Compiles returns how many filters the store has compiled for its
// in-memory searches.
func (s *Store) Compiles() int64 { return s.compiles.Load() }
