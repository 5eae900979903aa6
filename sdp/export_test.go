package sdp

// KeepFactors turns off writing small factors out as entries, so that
// external tests reach the low-rank code; it returns a function restoring
// the default.
func KeepFactors() (restore func()) {
	expandSmallFactors = false
	return func() { expandSmallFactors = true }
}

// LiftAlways makes every block with a basis take the lifted route,
// whatever the cost model says; it returns a function restoring the
// default.
func LiftAlways() (restore func()) {
	forceLift = true
	return func() { forceLift = false }
}
