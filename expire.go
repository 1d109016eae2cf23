package mnemo

import "time"

// Expiry defaults: a record of importance below 0.1 that nobody has read
// or changed for 120 days is archived.
const (
	DefaultExpireImportance = 0.1
	DefaultExpireIdle       = 120 * 24 * time.Hour
)

// ExpireOptions say which records Expire archives.
type ExpireOptions struct {
	// MaxImportance: records with importance below it are candidates
	// (DefaultExpireImportance when 0).
	MaxImportance float64
	// Idle: how long since the record was last read (recalled, digested)
	// or changed (DefaultExpireIdle when 0).
	Idle time.Duration
	// DryRun lists what would be archived without changing anything.
	DryRun bool
}

// ExpireResult lists what Expire archived (or would archive).
type ExpireResult struct {
	Checked  int      `json:"checked"`  // live records looked at
	Archived []string `json:"archived"` // ids, oldest first
	DryRun   bool     `json:"dry_run,omitempty"`
}
