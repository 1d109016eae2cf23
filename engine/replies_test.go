package engine

import "testing"

func TestIsQuestion(t *testing.T) {
	for text, want := range map[string]bool{
		"Caroline: What's your best camping memory?":          true,
		"Mel: How was it? [shares a photo: a tent by a lake]": true,
		`He asked: "are you coming?"`:                         true,
		"Анна: Как прошла ярмарка?":                           true,
		"Ben: Great, we sold forty loaves.":                   false,
		"Is it? No, it was fine.":                             false,
		"":                                                    false,
		"[shares a photo: a cake]":                            false,
		"Unbalanced ] bracket?":                               true,
		"What is it? [first] [second]":                        true,
	} {
		if got := isQuestion(text); got != want {
			t.Errorf("isQuestion(%q) = %v, want %v", text, got, want)
		}
	}
}
