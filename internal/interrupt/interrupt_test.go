package interrupt

import (
	"context"
	"os"
	"syscall"
	"testing"
)

// TestContext checks that SIGTERM cancels the context.
func TestContext(t *testing.T) {
	ctx, stop := Context(context.Background())
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
}
