package verify

import "container/heap"

// frontier holds a search's open boxes: best first (by less) in a heap of
// at most limit boxes, and depth first beyond it. Once the heap is full,
// boxes pushed go on a stack, which Pop empties first; the children of a
// box popped from the stack go on the stack, so the stack grows by at most
// a batch's children per level of the tree and the frontier's memory stays
// within limit boxes plus the tree's depth times the batch. A limit of 0
// means no limit.
type frontier[T any] struct {
	heap  frontierHeap[T]
	stack []T
	limit int
}

// newFrontier returns an empty frontier ordered by less, best first.
func newFrontier[T any](less func(a, b T) bool, limit int) *frontier[T] {
	return &frontier[T]{heap: frontierHeap[T]{less: less}, limit: limit}
}

// Len returns the number of boxes held.
func (q *frontier[T]) Len() int { return len(q.heap.items) + len(q.stack) }

// Push adds x: to the heap while it has room and the stack is empty, else
// to the stack.
func (q *frontier[T]) Push(x T) {
	if len(q.stack) == 0 && (q.limit == 0 || len(q.heap.items) < q.limit) {
		heap.Push(&q.heap, x)
		return
	}
	q.stack = append(q.stack, x)
}

// Pop removes and returns the top of the stack if there is one, else the
// best box of the heap. It panics on an empty frontier.
func (q *frontier[T]) Pop() T {
	if n := len(q.stack); n > 0 {
		x := q.stack[n-1]
		var zero T
		q.stack[n-1] = zero
		q.stack = q.stack[:n-1]
		return x
	}
	return heap.Pop(&q.heap).(T)
}

// frontierHeap is a min-heap by less.
type frontierHeap[T any] struct {
	items []T
	less  func(a, b T) bool
}

func (h frontierHeap[T]) Len() int           { return len(h.items) }
func (h frontierHeap[T]) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h frontierHeap[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *frontierHeap[T]) Push(x any)        { h.items = append(h.items, x.(T)) }
func (h *frontierHeap[T]) Pop() any {
	n := len(h.items)
	x := h.items[n-1]
	var zero T
	h.items[n-1] = zero
	h.items = h.items[:n-1]
	return x
}
