package numtext

import "testing"

// TestUp checks that Up prints a decimal at least x, as close as sig
// digits allow: Float's digits, or one unit of the last digit more.
func TestUp(t *testing.T) {
	for _, c := range []struct {
		x    float64
		sig  int
		want string
	}{
		{4.20984, 5, "4.2099"},
		{4.25, 5, "4.25"},
		{0.1, 4, "0.1001"}, // the float64 0.1 is 0.1000000000000000055...
		{9.99996, 5, "10"}, // carries into the exponent
		{3.9525e-321, 5, "3.9526e-321"},
		{-1.23456, 3, "-1.23"}, // up is toward +inf
		{0, 5, "0"},
		{1.5e-10, 5, "1.5e-10"},
	} {
		got := Up(c.x, c.sig)
		if got != c.want {
			t.Errorf("Up(%v, %d) = %q, want %q", c.x, c.sig, got, c.want)
		}
		if !atLeast(got, c.x) {
			t.Errorf("Up(%v, %d) = %q is below x", c.x, c.sig, got)
		}
	}
}
