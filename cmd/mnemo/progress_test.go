package main

import "testing"

func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		done, total int
		want        string
	}{
		{0, 10, "w   0% [>                             ] (0/10)"},
		{5, 10, "w  50% [===============>              ] (5/10)"},
		{10, 10, "w 100% [==============================] (10/10)"},
		{3, 0, "w   0% [>                             ] (3/0)"},
	} {
		if got := progressLine("w", c.done, c.total); got != c.want {
			t.Errorf("progressLine(%d, %d) = %q, want %q", c.done, c.total, got, c.want)
		}
	}
}
