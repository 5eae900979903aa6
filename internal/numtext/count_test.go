package numtext

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 inputs"}, {1, "1 input"}, {2, "2 inputs"}} {
		if got := Count(c.n, "input"); got != c.want {
			t.Errorf("Count(%d, input) = %q, want %q", c.n, got, c.want)
		}
	}
}
