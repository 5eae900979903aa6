package verify

import "testing"

// TestFrontier: best first within the limit; beyond it the overflow goes
// on a stack taken first, and the heap never holds more than the limit.
func TestFrontier(t *testing.T) {
	q := newFrontier(func(a, b int) bool { return a < b }, 3)
	for _, x := range []int{5, 1, 4, 2, 3} {
		q.Push(x)
		if len(q.heap.items) > 3 {
			t.Fatalf("heap holds %d, limit 3", len(q.heap.items))
		}
	}
	var got []int
	for q.Len() > 0 {
		got = append(got, q.Pop())
	}
	want := []int{3, 2, 1, 4, 5} // the stack (2, 3) newest first, then the heap best first
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("popped %v, want %v", got, want)
		}
	}
	u := newFrontier(func(a, b int) bool { return a < b }, 0) // no limit
	for _, x := range []int{3, 1, 2} {
		u.Push(x)
	}
	if a, b, c := u.Pop(), u.Pop(), u.Pop(); a != 1 || b != 2 || c != 3 {
		t.Errorf("no limit: popped %d, %d, %d, want 1, 2, 3", a, b, c)
	}
}
