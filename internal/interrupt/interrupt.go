// Package interrupt gives long-running commands a context that the first
// SIGINT or SIGTERM cancels, so that they can stop their solvers, print
// what they have finished and remove their temporary files.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Context returns a context cancelled by the first SIGINT or SIGTERM; a
// second signal then ends the process at once (the default action).
func Context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the next signal gets the default action
	}()
	return ctx, stop
}
