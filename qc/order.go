package qc

import "github.com/nnbound/nnbound/nn"

// Order returns the order NewLayout(cfg).Dim would have, counting the
// coordinates by NewLayout's rules without building any form: cheap where
// the layout of a wide network is not (seconds for 561-500-6). It returns
// 0 when cfg is invalid (NewLayout reports why).
func Order(cfg Config) int {
	n1, n2 := cfg.Nets[0], cfg.Nets[1]
	if n1 == nil || n2 == nil || n1.Validate() != nil || n2.Validate() != nil || n2.InputSize() != n1.InputSize() {
		return 0
	}
	nx := n1.InputSize()
	in1, in2 := cfg.X1, cfg.X2
	if in1 == nil {
		in1 = make([]Input, nx)
	}
	if in2 == nil {
		in2 = make([]Input, nx)
	}
	if len(in1) != nx || len(in2) != nx {
		return 0
	}
	dim := 1 // the constant
	for i := range nx {
		if in1[i].Mode == InputFree {
			dim++
		}
		if in2[i].Mode == InputFree {
			dim++
		}
	}
	twins := exactTwins(cfg.Nets, in1, in2, cfg.Noise)
	for n, net := range cfg.Nets {
		for k := range net.Layers {
			nl := &net.Layers[k]
			for i := range nl.Out() {
				if noiseAt(cfg.Noise[n], k, i) > 0 {
					dim++
				}
				if st := satAt(cfg.Sat[n], k, i); st.Above {
					dim++
				}
				if st := satAt(cfg.Sat[n], k, i); st.Below {
					dim++
				}
			}
			if nl.Act.Kind == nn.Identity {
				continue
			}
			for i := range nl.Out() {
				nr := neuronAt(cfg.Neurons[n], k, i)
				if !nr.Eliminated && !(n == 1 && cfg.MergeIdentical && twins[k][i]) {
					dim++
				}
			}
		}
	}
	return dim
}
