package vnncomp

import "fmt"

// sentinelError is an error whose text is a full sentence and which
// matches a package sentinel under errors.Is without repeating its text.
type sentinelError struct {
	msg    string
	target error
}

func (e *sentinelError) Error() string        { return e.msg }
func (e *sentinelError) Is(target error) bool { return target == e.target }

// rowErrorf returns an error matching ErrRow.
func rowErrorf(format string, a ...any) error {
	return &sentinelError{msg: fmt.Sprintf(format, a...), target: ErrRow}
}

// shardErrorf returns an error matching ErrShard.
func shardErrorf(format string, a ...any) error {
	return &sentinelError{msg: fmt.Sprintf(format, a...), target: ErrShard}
}
