package mnemo

// DefaultEpisodeBudget is the token budget of an episode when none is given.
const DefaultEpisodeBudget = 200

// EpisodeResult is what Summarize wrote.
type EpisodeResult struct {
	Record  *Record `json:"record"`
	Created bool    `json:"created"` // false: the thread's episode was updated
	Records int     `json:"records"` // records of the thread summarised
	Chosen  int     `json:"sentences"`
}
