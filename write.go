package mnemo

// WriteOptions tune a Remember call.
type WriteOptions struct {
	// Dedup merges a new record into an existing near-duplicate (keyword
	// Jaccard >= 0.60 with >= 3 shared keywords, same layer and kind) instead
	// of inserting it. It costs one keyword query per record; bulk loads turn it off.
	Dedup bool
}

// Written is the outcome of one write.
type Written struct {
	*Record
	Merged bool `json:"merged,omitempty"` // the input was merged into this existing record
}
