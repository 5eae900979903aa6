package bounds

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/internal/shared"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/nnet"
)

// acasProperty is one ACAS Xu property of the peers' benchmark.
type acasProperty struct {
	Target int       `json:"target_output"`
	Lo     []float64 `json:"normalised_lower"`
	Hi     []float64 `json:"normalised_upper"`
	Nets   []string  `json:"nets"`
}

// acasInstance is one (property, network) pair with NeuroDiff's first-pass
// bound on |f'_t - f_t|.
type acasInstance struct {
	prop      string
	net       string
	neuroDiff float64
}

// loadACAS returns properties 3 and 4 and their instances.
func loadACAS(t *testing.T, dir string) (map[string]acasProperty, []acasInstance) {
	t.Helper()
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
	f, err := os.Open(filepath.Join(dir, "reference-results.tsv"))
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
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	var out []acasInstance
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := rec[col["prop"]]
		if rec[col["suite"]] != "acasxu-f16" || (p != "3" && p != "4") || rec[col["tool"]] != "NeuroDiff" || rec[col["eps"]] != "0.05" {
			continue
		}
		v, err := strconv.ParseFloat(rec[col["firstpass_abs"]], 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, acasInstance{prop: p, net: rec[col["net"]], neuroDiff: v})
	}
	return doc.Properties, out
}

// loadAttained returns the attained extremes of f'_t - f_t found by the
// data's own search (lower bounds of the true extremes), keyed by
// "prop/net", for the shipped float16 copies.
func loadAttained(t *testing.T, dir string) map[string][2]float64 {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "empirical-lower-bounds.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma, r.FieldsPerRecord = '\t', -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]float64{}
	for _, rec := range recs[1:] {
		if rec[0] != "acasxu-f16" || rec[5] != "shipped" {
			continue
		}
		hi, err1 := strconv.ParseFloat(rec[6], 64)
		lo, err2 := strconv.ParseFloat(rec[7], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("empirical-lower-bounds.tsv: bad row %v", rec)
		}
		out[rec[2]+"/"+rec[3]] = [2]float64{lo, hi}
	}
	return out
}

// readACAS reads the core network of ACAS Xu net "a_b" and its shipped
// float16 copy.
func readACAS(t *testing.T, dir, net string) (f, g *nn.Network) {
	t.Helper()
	name := "ACASXU_run2a_" + net + "_batch_2000"
	f, _, err := nnet.Read(filepath.Join(dir, "acasxu-f16", "nnet", name+".nnet"), nnet.Options{Core: true})
	if err != nil {
		t.Fatal(err)
	}
	g, _, err = nnet.Read(filepath.Join(dir, "acasxu-f16", "compressed_nnets", name+"_16bit.nnet"), nnet.Options{Core: true})
	if err != nil {
		t.Fatal(err)
	}
	return f, g
}

// TestACASXuFloat16 bounds f'_t - f_t on the 84 ACAS Xu float16 instances
// of properties 3 and 4 and compares with NeuroDiff's first pass. Run with
// -v to see the table.
func TestACASXuFloat16(t *testing.T) {
	dir := shared.Path(t, "data", "benchmarks")
	props, insts := loadACAS(t, dir)
	attained := loadAttained(t, dir)
	if len(insts) != 84 {
		t.Fatalf("found %d instances, want 84", len(insts))
	}
	ratios := map[string][]float64{}
	var total time.Duration
	rng := rand.New(rand.NewPCG(9, 0))
	for _, inst := range insts {
		p := props[inst.prop]
		f, g := readACAS(t, dir, inst.net)
		in := Inputs{Box: Box{Lo: p.Lo, Hi: p.Hi}, Pairing: SameInput}
		start := time.Now()
		pb, err := Pair(f, g, in, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		el := time.Since(start)
		total += el
		o := pb.Output[p.Target]
		ours := max(-o.Lo, o.Hi)
		ratios[inst.prop] = append(ratios[inst.prop], ours/inst.neuroDiff)
		att, ok := attained[inst.prop+"/"+inst.net]
		if !ok || o.Lo > att[0] || o.Hi < att[1] {
			t.Fatalf("prop %s net %s: bound %v misses the attained range %v", inst.prop, inst.net, o, att)
		}
		// Sampled differences lie inside the bound.
		for range 20 {
			x := boundstest.Uniform(rng, p.Lo, p.Hi)
			y1, _ := f.Eval(x)
			y2, _ := g.Eval(x)
			if d := y2[p.Target] - y1[p.Target]; !near(o, d, math.Abs(y1[p.Target])) {
				t.Fatalf("prop %s net %s: sampled difference %v outside %v", inst.prop, inst.net, d, o)
			}
		}
		t.Logf("prop %s net %s: ours %.4g neurodiff %.4g ratio %.4f attained %.3g time %v unstable1 %v unstable2 %v",
			inst.prop, inst.net, ours, inst.neuroDiff, ours/inst.neuroDiff, max(-att[0], att[1]), el.Round(time.Millisecond),
			pb.Net1.Unstable(f), pb.Net2.Unstable(g))
	}
	for _, p := range []string{"3", "4"} {
		r := ratios[p]
		slices.Sort(r)
		t.Logf("property %s: median ratio ours/NeuroDiff %.4f (min %.4f, max %.4f)", p, median(r), r[0], r[len(r)-1])
	}
	t.Logf("total time %v for %d instances", total.Round(time.Millisecond), len(insts))
}

// median returns the median of sorted values.
func median(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	return (s[(n-1)/2] + s[n/2]) / 2
}
