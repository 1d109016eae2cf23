package mnemo

import "time"

// Handoff defaults.
const (
	DefaultHandoffSpan   = 7 * 24 * time.Hour
	DefaultHandoffBudget = 4000
	// QuestionTag marks a record as an open question for handoffs.
	QuestionTag = "question"
)

// HandoffRequest asks for the brief of an incoming operator.
type HandoffRequest struct {
	From   string    `json:"from,omitempty"`   // the outgoing operator: only corrections naming "operator:<from>"; "" = everyone's
	Since  time.Time `json:"since,omitzero"`   // default: 7 days before now
	Budget int       `json:"budget,omitempty"` // tokens, default 4000
}

// HandoffPattern is one category of corrections of the period.
type HandoffPattern struct {
	Category       string   `json:"category"`
	Corrections    int      `json:"corrections"`
	MissingContext int      `json:"missing_context"`
	Summaries      []string `json:"summaries"` // the latest first, at most three
}

// HandoffArea is a component that needs attention: where corrections and
// critical events of the period concentrate.
type HandoffArea struct {
	Component      string `json:"component"`
	Corrections    int    `json:"corrections"`
	MissingContext int    `json:"missing_context"`
	CriticalEvents int    `json:"critical_events"`
}

// HandoffLink says that one critical event followed from another: named
// in its provenance ("record:<id>" or "caused-by:<id>"), or on the same
// component within six hours of it.
type HandoffLink struct {
	From string `json:"from"` // the earlier event
	To   string `json:"to"`
	Why  string `json:"why"` // "named", or "same component <c>, <d> later"
}

// Handoff is the brief an incoming operator starts a shift with: the
// outgoing operator's typical corrections, the areas that need attention,
// the decisions of the period with their rationale, the open questions and
// the timeline of critical events — as Markdown within a token budget, and
// as data.
type Handoff struct {
	Namespace  string           `json:"namespace"`
	From       string           `json:"from,omitempty"`
	Since      time.Time        `json:"since"`
	Until      time.Time        `json:"until"`
	Budget     int              `json:"budget"`
	UsedTokens int              `json:"used_tokens"`
	Tokenizer  string           `json:"tokenizer"`
	Patterns   []HandoffPattern `json:"patterns"`
	Attention  []HandoffArea    `json:"attention"`
	Decisions  []string         `json:"decisions"` // ids, newest first
	Questions  []string         `json:"questions"` // ids, newest first
	Timeline   []string         `json:"timeline"`  // ids of critical events, oldest first
	Links      []HandoffLink    `json:"links"`     // causal links found between the timeline's events
	Omitted    int              `json:"omitted"`   // lines left out for the budget
	Markdown   string           `json:"markdown"`
}
