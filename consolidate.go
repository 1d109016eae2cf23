package mnemo

// ConsolidatePair is one merge of a consolidation pass: Merged was folded
// into Kept and forgotten (restorable, audited "consolidate").
type ConsolidatePair struct {
	Kept   string `json:"kept"`
	Merged string `json:"merged"`
}

// ConsolidateResult lists what Consolidate merged (or would merge).
type ConsolidateResult struct {
	Checked int               `json:"checked"` // live records looked at
	Pairs   []ConsolidatePair `json:"pairs"`   // in the order they were merged
	DryRun  bool              `json:"dry_run,omitempty"`
}
