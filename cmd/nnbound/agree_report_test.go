package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAgreeReportInBrowser writes the report of a run with
// disagreements, checks its text, and loads it in a headless Chromium
// (skipped when none is installed), checking the page it renders.
func TestAgreeReportInBrowser(t *testing.T) {
	dir := t.TempDir()
	data := digitsSubset(t, dir, 4)
	page := filepath.Join(dir, "page")
	args := []string{"agree", digitsDir + "digits_relu.onnx", digitsDir + "digits_relu_int8_perchannel.onnx",
		"--data", data, "--radius", "0.3", "--out", filepath.Join(dir, "out"), "--report", page}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != exitFail {
		t.Fatalf("exit %d, stdout %s, stderr %s", code, stdout.String(), stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(page, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, "file", string(b))
	if strings.Contains(string(b), "<script") {
		t.Error("the page has a script")
	}
	checkReport(t, "chromium's DOM", headlessDOM(t, filepath.Join(page, "index.html")))
}

// headlessDOM loads the page file in a headless Chromium and returns the
// DOM it renders; it skips the test when no Chromium is installed.
func headlessDOM(t *testing.T, file string) string {
	t.Helper()
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no chromium to load the page in")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--no-first-run", "--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+file)
	var dom, log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &dom, &log
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, log.String())
	}
	return dom.String()
}

// checkReport checks the content of the report of TestAgreeReportInBrowser:
// 4 samples, all disagreeing at radius 0.3, drawn as 8 x 8 images.
func checkReport(t *testing.T, what, html string) {
	t.Helper()
	for _, want := range []string{
		`<table id="summary">`, `<tr><td>disagree</td><td>4</td><td>100.0 %</td></tr>`,
		`<tr><td>f</td><td>100.0 %</td><td>4</td></tr>`, `<svg id="verdicts"`, `<svg id="nodes"`,
		`<table id="disagreements">`, `class="image"`, `nnbound agree `, `--radius=0.3`, `digits_relu.onnx</td><td>SHA-256 `,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("%s: no %q in the page", what, want)
		}
	}
	if n := strings.Count(html, `class="image"`); n != 8 {
		t.Errorf("%s: %d images, want 8 (a sample and a witness per disagreement)", what, n)
	}
}

// TestAgreeReportInterrupted cancels agree --report after its first
// logged sample, as SIGINT would: it exits 130 and writes the page of the
// balls finished, as many as its log holds, saying (when some were cut)
// that the run was interrupted.
func TestAgreeReportInterrupted(t *testing.T) {
	dir := t.TempDir()
	data := digitsSubset(t, dir, 12)
	page, out := filepath.Join(dir, "page"), filepath.Join(dir, "out")
	args := []string{"agree", "-v", digitsDir + "digits_relu.onnx", digitsDir + "digits_relu_int8_perchannel.onnx",
		"--data", data, "--radius", "0.3", "--workers", "1", "--out", out, "--report", page}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelAfter{n: 1, marker: "sample ", cancel: cancel}
	var stdout bytes.Buffer
	if code := runContext(ctx, nil, args, &stdout, stderr); code != exitCancelled {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitCancelled, stderr.buf.String())
	}
	b, err := os.ReadFile(filepath.Join(page, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(out, "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	logged := strings.Count(string(log), "\n")
	html := string(b)
	if want := fmt.Sprintf("<tr><td>total</td><td>%d</td>", logged); logged < 1 || !strings.Contains(html, want) {
		t.Errorf("%d samples logged; no %q in the page", logged, want)
	}
	if cut := strings.Contains(stdout.String(), "interrupted, not counted"); cut != strings.Contains(html, "The run was interrupted:") {
		t.Errorf("the summary says interrupted %v, the page does not agree:\n%s", cut, stdout.String())
	}
}
