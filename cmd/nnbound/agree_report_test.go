package main

import (
	"bytes"
	"context"
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
