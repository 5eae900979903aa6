package vnncomp

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestReadInstancesRows(t *testing.T) {
	dir := filepath.FromSlash("bench/acas")
	tests := []struct {
		name string
		line string
		want Instance
	}{
		{"isomorphic ACAS Xu row", `"[('f', 'onnx/ACASXU_run2a_1_1_batch_2000.onnx'), ('g', 'onnx/ACASXU_run2a_1_1_batch_2000_pruned10.onnx')]",./vnnlib/instance_1.vnnlib2,100`,
			Instance{Networks: []NamedModel{
				{"f", filepath.Join(dir, "onnx/ACASXU_run2a_1_1_batch_2000.onnx")},
				{"g", filepath.Join(dir, "onnx/ACASXU_run2a_1_1_batch_2000_pruned10.onnx")}},
				Spec: filepath.Join(dir, "vnnlib/instance_1.vnnlib2"), Timeout: 100 * time.Second}},
		{"double quotes, spaces, trailing comma", `"[ (""f"",""a.onnx"") , (""g"", ""b.onnx""), ]", spec.vnnlib , 2.5`,
			Instance{Networks: []NamedModel{{"f", filepath.Join(dir, "a.onnx")}, {"g", filepath.Join(dir, "b.onnx")}},
				Spec: filepath.Join(dir, "spec.vnnlib"), Timeout: 2500 * time.Millisecond}},
		{"one network, bare path", `onnx/a.onnx,vnnlib/p.vnnlib,60`,
			Instance{Networks: []NamedModel{{"", filepath.Join(dir, "onnx/a.onnx")}},
				Spec: filepath.Join(dir, "vnnlib/p.vnnlib"), Timeout: time.Minute}},
		{"absolute paths kept", `"[('f', '/m/a.onnx'), ('g', '/m/b.onnx')]",/s/p.vnnlib,1`,
			Instance{Networks: []NamedModel{{"f", "/m/a.onnx"}, {"g", "/m/b.onnx"}}, Spec: "/s/p.vnnlib", Timeout: time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := readInstances(strings.NewReader(tt.line+"\n"), "instances.csv", dir)
			if err != nil || len(rows) != 1 {
				t.Fatalf("rows %v, err %v", rows, err)
			}
			if rows[0].Err != nil {
				t.Fatalf("row error: %v", rows[0].Err)
			}
			if !reflect.DeepEqual(rows[0].Instance, tt.want) {
				t.Errorf("got  %+v\nwant %+v", rows[0].Instance, tt.want)
			}
		})
	}
}

func TestReadInstancesBadRowsDoNotStopTheFile(t *testing.T) {
	good := `"[('f', 'a.onnx'), ('g', 'b.onnx')]",p.vnnlib,10`
	tests := []struct {
		name, line, msg string
	}{
		{"two fields", `a.onnx,p.vnnlib`, "2 fields, want 3"},
		{"timeout not a number", `"[('f', 'a.onnx')]",p.vnnlib,soon`, `timeout "soon"`},
		{"timeout zero", `"[('f', 'a.onnx')]",p.vnnlib,0`, `timeout "0"`},
		{"timeout NaN", `"[('f', 'a.onnx')]",p.vnnlib,NaN`, `timeout "NaN"`},
		{"unquoted name", `"[(f, 'a.onnx')]",p.vnnlib,1`, "expected a quoted string"},
		{"unterminated string", `"[('f', 'a.onnx)]",p.vnnlib,1`, "unterminated string"},
		{"missing bracket", `"[('f', 'a.onnx')",p.vnnlib,1`, `expected ']'`},
		{"text after the list", `"[('f', 'a.onnx')] x",p.vnnlib,1`, "unexpected text after the list"},
		{"empty list", `"[]",p.vnnlib,1`, "no networks"},
		{"same name twice", `"[('f', 'a.onnx'), ('f', 'b.onnx')]",p.vnnlib,1`, `network "f" given twice`},
		{"empty spec", `"[('f', 'a.onnx')]", ,1`, "empty vnnlib path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := readInstances(strings.NewReader(good+"\n"+tt.line+"\n"+good+"\n"), "instances.csv", ".")
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 3 || rows[0].Err != nil || rows[2].Err != nil || rows[2].Index != 2 {
				t.Fatalf("rows around the bad one are not read: %+v", rows)
			}
			err = rows[1].Err
			if !errors.Is(err, ErrRow) || !strings.Contains(err.Error(), tt.msg) || !strings.HasPrefix(err.Error(), "instances.csv:2: ") {
				t.Errorf("error %q: want ErrRow, prefix instances.csv:2: and %q", err, tt.msg)
			}
		})
	}
}

func TestReadInstancesBrokenQuotingIsAFileError(t *testing.T) {
	_, err := readInstances(strings.NewReader("a.onnx,p.vnnlib,1\n\"[('f', 'a.onnx')],p.vnnlib,1\n"), "instances.csv", ".")
	if err == nil || !strings.Contains(err.Error(), "instances.csv:") {
		t.Fatalf("err = %v, want a positioned error", err)
	}
}

func TestReadInstancesMissingFile(t *testing.T) {
	_, err := ReadInstances(filepath.Join(t.TempDir(), "instances.csv"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v", err)
	}
}

func TestCheckFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.onnx", "b.onnx.gz", "p.vnnlib", "c.onnx.gz"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := func(f string) string { return filepath.Join(dir, f) }
	in := func(net, spec string) Instance {
		return Instance{Networks: []NamedModel{{"f", p("a.onnx")}, {"g", p(net)}}, Spec: p(spec)}
	}
	tests := []struct {
		name string
		in   Instance
		msg  string // "" when the files are fine
	}{
		{"all present", in("a.onnx", "p.vnnlib"), ""},
		{"missing network", in("x.onnx", "p.vnnlib"), "x.onnx does not exist"},
		{"missing spec", in("a.onnx", "q.vnnlib"), "q.vnnlib does not exist"},
		{"only gzipped copy", in("b.onnx", "p.vnnlib"), ""},
		{"gzipped file named", in("c.onnx.gz", "p.vnnlib"), ""},
		{"gzipped file missing", in("d.onnx.gz", "p.vnnlib"), "d.onnx.gz does not exist"},
		{"directory", in(".", "p.vnnlib"), "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkFiles(tt.in)
			if tt.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrRow) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want %q", err, tt.msg)
			}
		})
	}
}

// TestReadInstancesEmpty checks that a file of no record is an error
// naming the file, not a run of nothing.
func TestReadInstancesEmpty(t *testing.T) {
	for _, text := range []string{"", "\n\n"} {
		rows, err := readInstances(strings.NewReader(text), "instances.csv", ".")
		if !errors.Is(err, ErrRow) || !strings.Contains(err.Error(), "instances.csv lists no instance") {
			t.Errorf("%q: rows %v, error %v; want one naming the file, wrapping ErrRow", text, rows, err)
		}
	}
}
