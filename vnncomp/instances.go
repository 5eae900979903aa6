package vnncomp

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrRow reports a row of an instances file that cannot run: a malformed
// field or a file that does not exist. It concerns that row only.
var ErrRow = errors.New("bad instance")

// NamedModel is one network of an instance: the name the specification
// gives it (f, g) and the path of its model file. Name is empty in the
// one-network form of the CSV, where the first field is a bare path.
type NamedModel struct {
	Name string `json:"name,omitempty"`
	Path string `json:"path"`
}

// Instance is one row of an instances file: networks, specification and
// time limit, with paths resolved against the file's folder.
type Instance struct {
	Index    int           // 0-based row number among the file's records
	Networks []NamedModel  // in the order of the row
	Spec     string        // path of the VNN-LIB file
	Timeout  time.Duration // the row's time limit
}

// Row is an Instance as read from the file: Line locates it, and Err, when
// not nil, says why it cannot run (wrapping ErrRow). Fields that could be
// read are filled in even then.
type Row struct {
	Instance
	Line int
	Err  error
}

// ReadInstances reads an instances file of VNN-COMP's two-network
// benchmarks, one instance per record of three fields:
//
//	"[('f', 'onnx/A.onnx'), ('g', 'onnx/B.onnx')]",vnnlib/spec.vnnlib,100
//
// the networks as a Python list of (name, path) tuples with quoted strings
// (or, as in one-network benchmarks, a bare path), the VNN-LIB file, and
// the time limit in seconds. Relative paths are relative to the folder of
// the instances file. A record that cannot be understood becomes a Row
// with Err set, and reading goes on; only an unreadable file, broken CSV
// quoting or a file of no record (an error wrapping ErrRow) is an error
// of the whole file. Whether the files exist is
// checked by Run, when the row's turn comes.
func ReadInstances(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("vnncomp: cannot read the instances file: %w", err)
	}
	defer f.Close()
	return readInstances(f, path, filepath.Dir(path))
}

// readInstances reads records from r; name locates errors and dir
// resolves relative paths.
func readInstances(r io.Reader, name, dir string) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	var rows []Row
	for {
		rec, err := cr.Read()
		if err == io.EOF && len(rows) == 0 {
			return nil, rowErrorf("vnncomp: %s lists no instance (want one row each: networks, vnnlib file, timeout)", name)
		}
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("vnncomp: %s:%d: %v", name, pe.Line, pe.Err)
			}
			return nil, fmt.Errorf("vnncomp: cannot read %s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		row := Row{Instance: Instance{Index: len(rows)}, Line: line}
		if err := row.parse(rec, dir); err != nil {
			row.Err = fmt.Errorf("%s:%d: %w", name, line, err)
		}
		rows = append(rows, row)
	}
}

// parse fills r from the fields of one record.
func (r *Row) parse(rec []string, dir string) error {
	if len(rec) != 3 {
		return rowErrorf("%d fields, want 3 (networks, vnnlib file, timeout)", len(rec))
	}
	nets, err := parseNetworks(rec[0])
	if err != nil {
		return err
	}
	for i := range nets {
		nets[i].Path = resolve(dir, nets[i].Path)
	}
	r.Networks = nets
	spec := strings.TrimSpace(rec[1])
	if spec == "" {
		return rowErrorf("empty vnnlib path")
	}
	r.Spec = resolve(dir, spec)
	secs, err := strconv.ParseFloat(strings.TrimSpace(rec[2]), 64)
	if err != nil || math.IsNaN(secs) || secs <= 0 || secs > 1e9 {
		return rowErrorf("timeout %q is not a number of seconds in (0, 1e9]", rec[2])
	}
	r.Timeout = time.Duration(secs * float64(time.Second))
	return nil
}

// resolve makes a path of the instances file relative to the current
// directory: relative paths are taken from dir.
func resolve(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// parseNetworks reads the first field of a record: a Python list of
// (name, path) tuples, or a bare path.
func parseNetworks(field string) ([]NamedModel, error) {
	s := strings.TrimSpace(field)
	if s == "" {
		return nil, rowErrorf("empty networks field")
	}
	if !strings.HasPrefix(s, "[") {
		return []NamedModel{{Path: s}}, nil
	}
	p := &tupleLexer{s: s}
	nets, err := p.list()
	if err != nil {
		return nil, fmt.Errorf("networks field %q: %w", field, err)
	}
	seen := map[string]bool{}
	for _, n := range nets {
		if n.Name == "" || n.Path == "" {
			return nil, rowErrorf("networks field %q: empty name or path", field)
		}
		if seen[n.Name] {
			return nil, rowErrorf("networks field %q: network %q given twice", field, n.Name)
		}
		seen[n.Name] = true
	}
	return nets, nil
}

// tupleLexer reads the subset of Python literal syntax the networks field
// uses: [('f', 'a.onnx'), ("g", "b.onnx")], with an optional trailing
// comma in the list.
type tupleLexer struct {
	s   string
	pos int
}

func (p *tupleLexer) skipSpace() {
	for p.pos < len(p.s) && strings.ContainsRune(" \t\r\n", rune(p.s[p.pos])) {
		p.pos++
	}
}

// expect consumes the byte c after optional space.
func (p *tupleLexer) expect(c byte) error {
	p.skipSpace()
	if p.pos >= len(p.s) || p.s[p.pos] != c {
		return rowErrorf("expected %q at offset %d", c, p.pos)
	}
	p.pos++
	return nil
}

// peek returns the next byte after optional space, or 0 at the end.
func (p *tupleLexer) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.s) {
		return 0
	}
	return p.s[p.pos]
}

func (p *tupleLexer) list() ([]NamedModel, error) {
	if err := p.expect('['); err != nil {
		return nil, err
	}
	var nets []NamedModel
	for p.peek() != ']' {
		if err := p.expect('('); err != nil {
			return nil, err
		}
		name, err := p.str()
		if err != nil {
			return nil, err
		}
		if err := p.expect(','); err != nil {
			return nil, err
		}
		path, err := p.str()
		if err != nil {
			return nil, err
		}
		if p.peek() == ',' { // a one-element tuple's trailing comma
			p.pos++
		}
		if err := p.expect(')'); err != nil {
			return nil, err
		}
		nets = append(nets, NamedModel{Name: name, Path: path})
		if p.peek() != ',' {
			break
		}
		p.pos++
	}
	if err := p.expect(']'); err != nil {
		return nil, err
	}
	if p.skipSpace(); p.pos != len(p.s) {
		return nil, rowErrorf("unexpected text after the list at offset %d", p.pos)
	}
	if len(nets) == 0 {
		return nil, rowErrorf("no networks in the list")
	}
	return nets, nil
}

// str reads a string quoted with ' or ", with backslash escapes of the
// quote and of the backslash.
func (p *tupleLexer) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", rowErrorf("expected a quoted string at offset %d", p.pos)
	}
	p.pos++
	var b strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		p.pos++
		switch {
		case c == q:
			return b.String(), nil
		case c == '\\' && p.pos < len(p.s):
			b.WriteByte(p.s[p.pos])
			p.pos++
		default:
			b.WriteByte(c)
		}
	}
	return "", rowErrorf("unterminated string")
}

// checkFiles reports the first file of in that cannot be used: missing or
// not a regular file. VNN-COMP's benchmark repositories ship models and
// specifications gzipped (A.onnx.gz for a row naming A.onnx); nnbound
// reads them as they are, so a row's file counts as present when either
// it or its .gz exists (internal/gzfile says which one is read).
func checkFiles(in Instance) error {
	paths := make([]string, 0, len(in.Networks)+1)
	for _, n := range in.Networks {
		paths = append(paths, n.Path)
	}
	for _, p := range append(paths, in.Spec) {
		st, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) && !strings.HasSuffix(p, ".gz") {
			st, err = os.Stat(p + ".gz")
		}
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return rowErrorf("%s does not exist", p)
			}
			return rowErrorf("cannot read %s: %v", p, err)
		}
		if !st.Mode().IsRegular() {
			return rowErrorf("%s is not a regular file", p)
		}
	}
	return nil
}
