package mnemo

// ImportResult says what an import did.
type ImportResult struct {
	Read     int `json:"read"`
	Imported int `json:"imported"`
	Skipped  int `json:"skipped"` // already present in the namespace (import is idempotent by id)
}
