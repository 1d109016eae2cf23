package mnemo

// The principle registry: records of kind principle are the standing
// rules decisions apply; a decision cites them by id
// (Decision.Principles), beside or instead of naming its principle in
// words (Decision.Principle).

// MaxPrinciples bounds the principles one decision cites.
const MaxPrinciples = 32

func validatePrinciples(ids []string) error {
	if len(ids) > MaxPrinciples {
		return Errorf(EINVALID, "a decision cites %d principles, over the limit of %d", len(ids), MaxPrinciples)
	}
	for _, id := range ids {
		if err := ValidateID(id); err != nil {
			return Errorf(EINVALID, "decision.principles: %s", ErrorMessage(err))
		}
	}
	return nil
}

// Principle is one principle of the registry with the decisions that
// apply it, as `mnemo principles` and GET /v1/principles list them.
type Principle struct {
	ID          string `json:"id"`
	Text        string `json:"text"`
	Scope       string `json:"scope"`
	Component   string `json:"component,omitempty"`
	AccessLevel int    `json:"access_level"`
	// Decisions are the live decisions the caller sees that apply the
	// principle, oldest first.
	Decisions []PrincipleDecision `json:"decisions"`
}

// PrincipleDecision is a decision that applies a principle.
type PrincipleDecision struct {
	ID     string `json:"id"`
	Title  string `json:"title,omitempty"`
	Text   string `json:"text"`
	Status string `json:"status,omitempty"`
	// Cites says how: "id" when the decision cites the principle's id,
	// "text" when its free-text principle is the principle's text.
	Cites string `json:"cites"`
}
