package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// droppedInits are packages whose initialisers nnbound stopped linking,
// and why they must not come back.
var droppedInits = map[string]string{
	"google.golang.org/protobuf": "its detrand initialiser reads the executable; nn/onnx reads the wire format itself",
	"gonum.org/v1/plot":          "fonts and codecs at start-up; report draws its figures itself",
}

// allowedInits are nnbound's packages that may run an initialiser, if it
// allocates nothing, and why.
var allowedInits = map[string]string{
	"github.com/nnbound/nnbound/internal/dense": "chooses its kernels by the CPU's features (golang.org/x/sys/cpu)",
}

// TestStartupInits builds the command and runs "nnbound version" with
// GODEBUG=inittrace=1, which prints a line for every package initialiser
// that does any work, with the bytes and allocations it made: all of
// this is decided by the build, not by the machine or its load, so it
// guards the start-up without timing it. It checks that nnbound's own
// packages run no initialiser (but allowedInits', allocating nothing): one would cost every start of every
// command (docs/tuning.md). Build tables on first
// use (sync.Once, a switch, an array of static data) rather than in
// package-level variables. Nor may the packages of droppedInits come back.
func TestStartupInits(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	gocmd, err := exec.LookPath("go")
	if err != nil {
		gocmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "nnbound")
	build := exec.Command(gocmd, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := exec.Command(bin, "version")
	run.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	run.Stderr = &stderr
	if err := run.Run(); err != nil {
		t.Fatalf("nnbound version: %v\n%s", err, stderr.String())
	}
	inits := 0
	sc := bufio.NewScanner(bytes.NewReader(stderr.Bytes()))
	for sc.Scan() {
		// "init PKG @0.5 ms, 0.010 ms clock, 96 bytes, 2 allocs"
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" {
			continue
		}
		inits++
		pkg, size, allocs := f[1], f[7], f[9]
		ownPkg := pkg == "main" || strings.HasPrefix(pkg, "github.com/nnbound/nnbound")
		if why, ok := allowedInits[pkg]; ok && size == "0" && allocs == "0" {
			t.Logf("%s: %s", pkg, why)
		} else if ownPkg {
			t.Errorf("%s runs an initialiser at every start (%s bytes, %s allocations)", pkg, size, allocs)
		}
		for prefix, why := range droppedInits {
			if strings.HasPrefix(pkg, prefix) {
				t.Errorf("%s is linked again: %s", pkg, why)
			}
		}
	}
	if inits == 0 {
		t.Fatalf("no inittrace lines in the output of nnbound version:\n%s", stderr.String())
	}
}
