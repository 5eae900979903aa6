package boundstest

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/nnet"
)

// ACASInstance is one instance of the peers' ACAS Xu float16 benchmark:
// bound f'_t(x) - f_t(x) for x in the normalised box of a property, where f
// is ACAS Xu network Net and f' its float16 copy as the peers shipped it.
type ACASInstance struct {
	Prop, Net string
	Target    int
	Lo, Hi    []float64
	// NeuroDiff is NeuroDiff's first-pass bound on |f'_t - f_t| (eps 0.05
	// runs).
	NeuroDiff float64
	// AttainedLo, AttainedHi are the extremes of f'_t - f_t found by the
	// data's own search (lower bounds of the true extremes).
	AttainedLo, AttainedHi float64

	dir string
}

// ACASInstances returns the 84 instances of properties 3 and 4, skipping
// the test when the shared benchmark data is absent.
func ACASInstances(t testing.TB) []ACASInstance {
	t.Helper()
	dir, props := acasProperties(t)
	attained := map[string][2]float64{}
	for _, rec := range readTSV(t, filepath.Join(dir, "empirical-lower-bounds.tsv")) {
		if rec["suite"] != "acasxu-f16" || rec["fprime"] != "shipped" {
			continue
		}
		attained[rec["prop"]+"/"+rec["net"]] = [2]float64{parse(t, rec["delta_min_found"]), parse(t, rec["delta_max_found"])}
	}
	var out []ACASInstance
	for _, rec := range readTSV(t, filepath.Join(dir, "reference-results.tsv")) {
		p := rec["prop"]
		if rec["suite"] != "acasxu-f16" || (p != "3" && p != "4") || rec["tool"] != "NeuroDiff" || rec["eps"] != "0.05" {
			continue
		}
		prop := props[p]
		att, ok := attained[p+"/"+rec["net"]]
		if !ok {
			t.Fatalf("no attained differences for property %s net %s", p, rec["net"])
		}
		out = append(out, ACASInstance{Prop: p, Net: rec["net"], Target: prop.Target, Lo: prop.Lo, Hi: prop.Hi,
			NeuroDiff: parse(t, rec["firstpass_abs"]), AttainedLo: att[0], AttainedHi: att[1], dir: dir})
	}
	if len(out) != 84 {
		t.Fatalf("found %d ACAS Xu instances of properties 3 and 4, want 84", len(out))
	}
	return out
}

// acasProperty is a property's target output and normalised box.
type acasProperty struct {
	Target int       `json:"target_output"`
	Lo     []float64 `json:"normalised_lower"`
	Hi     []float64 `json:"normalised_upper"`
}

// acasProperties returns the benchmark folder and its properties by name,
// skipping the test when the shared data is absent.
func acasProperties(t testing.TB) (string, map[string]acasProperty) {
	t.Helper()
	dir := sharedtest.Path(t, "data", "benchmarks")
	data, err := os.ReadFile(filepath.Join(dir, "properties.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Properties map[string]acasProperty `json:"properties"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return dir, doc.Properties
}

// ACASProperty returns the instance of property prop on net (i_j) of the
// peers' ACAS Xu float16 benchmark, of any property, without NeuroDiff's
// bound or the attained differences; it skips the test when the shared
// data is absent.
func ACASProperty(t testing.TB, prop, net string) ACASInstance {
	t.Helper()
	dir, props := acasProperties(t)
	p, ok := props[prop]
	if !ok {
		t.Fatalf("no ACAS Xu property %q", prop)
	}
	return ACASInstance{Prop: prop, Net: net, Target: p.Target, Lo: p.Lo, Hi: p.Hi, dir: dir}
}

// Networks reads the instance's core networks f and f'.
func (a ACASInstance) Networks(t testing.TB) (f, g *nn.Network) {
	t.Helper()
	name := "ACASXU_run2a_" + a.Net + "_batch_2000"
	f, _, err := nnet.Read(filepath.Join(a.dir, "acasxu-f16", "nnet", name+".nnet"), nnet.Options{Core: true})
	if err != nil {
		t.Fatal(err)
	}
	g, _, err = nnet.Read(filepath.Join(a.dir, "acasxu-f16", "compressed_nnets", name+"_16bit.nnet"), nnet.Options{Core: true})
	if err != nil {
		t.Fatal(err)
	}
	return f, g
}

// readTSV returns the rows of a tab-separated file with a header, as maps
// from column name to field.
func readTSV(t testing.TB, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma, r.LazyQuotes, r.FieldsPerRecord = '\t', true, -1
	head, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		m := make(map[string]string, len(head))
		for i, h := range head {
			if i < len(rec) {
				m[h] = rec[i]
			}
		}
		out = append(out, m)
	}
}

// parse returns the float in s, failing the test if there is none.
func parse(t testing.TB, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
