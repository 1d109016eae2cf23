package loops

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mnemo-dev/mnemo"
)

// State is what the loops keep of one namespace, in the store's settings
// under loops/<namespace> (never as memory records): the recent warm and
// cold runs, the importance adjustments in force and the patches waiting
// for a person's approval.
type State struct {
	Warm        []WarmRun              `json:"warm"`
	Cold        []ColdRun              `json:"cold"`
	Adjustments map[string]*Adjustment `json:"adjustments"`
	Pending     []Pending              `json:"pending"`
	Log         []AdjustmentEvent      `json:"adjustment_log"`
}

// Bounds of the kept history.
const (
	keepWarm = 100
	keepCold = 50
	keepLog  = 1000
)

func stateKey(ns string) string { return "loops/" + ns }

func loadState(ctx context.Context, st mnemo.SettingStore, ns string) (*State, error) {
	v, ok, err := st.Setting(ctx, stateKey(ns))
	if err != nil {
		return nil, err
	}
	s := &State{}
	if ok {
		if err := json.Unmarshal([]byte(v), s); err != nil {
			return nil, fmt.Errorf("loops: state of %s: %w", ns, err)
		}
	}
	if s.Adjustments == nil {
		s.Adjustments = map[string]*Adjustment{}
	}
	return s, nil
}

func saveState(ctx context.Context, st mnemo.SettingStore, ns string, s *State) error {
	if len(s.Warm) > keepWarm {
		s.Warm = s.Warm[len(s.Warm)-keepWarm:]
	}
	if len(s.Cold) > keepCold {
		s.Cold = s.Cold[len(s.Cold)-keepCold:]
	}
	if len(s.Log) > keepLog {
		s.Log = s.Log[len(s.Log)-keepLog:]
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return st.SetSetting(ctx, stateKey(ns), string(b))
}

// lastWarm returns the latest warm run, nil when none.
func (s *State) lastWarm() *WarmRun {
	if len(s.Warm) == 0 {
		return nil
	}
	return &s.Warm[len(s.Warm)-1]
}

// lastCold returns the latest cold run, nil when none.
func (s *State) lastCold() *ColdRun {
	if len(s.Cold) == 0 {
		return nil
	}
	return &s.Cold[len(s.Cold)-1]
}
