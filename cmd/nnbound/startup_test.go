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

// ownInits are the packages of nnbound whose initialiser may do work at
// every start of every command, and why. Any other, or any allocation by
// one of these, costs every start (BENCHMARKS.md, "Start-up, third
// round"): build tables on first use (sync.Once, a switch, an array of
// static data) rather than in package-level variables.
var ownInits = map[string]string{
	"github.com/nnbound/nnbound/sdp/internal/dense": "reads the CPU's features once for its kernels",
	"github.com/nnbound/nnbound/nn/onnx":            "two infinities (math.Inf), no allocation",
}

// TestStartupInits builds the command and runs "nnbound version" with
// GODEBUG=inittrace=1, which prints a line for every package initialiser
// that does any work, with the bytes and allocations it made: all of
// this is decided by the build, not by the machine or its load, so it
// guards the start-up without timing it. It checks that nnbound's own
// packages run no initialiser but those of ownInits, none allocating.
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
		if pkg != "main" && !strings.HasPrefix(pkg, "github.com/nnbound/nnbound") {
			continue
		}
		why, ok := ownInits[pkg]
		switch {
		case !ok:
			t.Errorf("%s runs an initialiser at every start (%s bytes, %s allocations)", pkg, size, allocs)
		case size != "0" || allocs != "0":
			t.Errorf("%s allocates at every start (%s bytes, %s allocations; allowed: %s)", pkg, size, allocs, why)
		}
	}
	if inits == 0 {
		t.Fatalf("no inittrace lines in the output of nnbound version:\n%s", stderr.String())
	}
}
