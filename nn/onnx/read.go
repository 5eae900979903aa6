package onnx

import (
	"fmt"
	"os"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// Read reads the ONNX model in the file at path and translates it into a
// network (see the package documentation for what is supported). Info is
// returned whenever the file parses as ONNX, even if the translation fails,
// so that callers can show what the file contains.
func Read(path string) (*nn.Network, *Info, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("onnx: %w", err)
	}
	return Decode(data, path)
}

// Decode is Read for a model held in memory; name (usually the file name)
// prefixes error messages.
func Decode(data []byte, name string) (*nn.Network, *Info, error) {
	m, err := decodeModel(data)
	if err != nil {
		return nil, nil, fmt.Errorf("onnx: %s: %w", name, err)
	}
	b := newBuilder(m.graph, newBudget(len(data)))
	info := m.info(b.dataInputs())
	net, err := b.run()
	if err == nil {
		err = net.Validate()
	}
	if err != nil {
		return nil, info, fmt.Errorf("onnx: %s: %w", name, err)
	}
	return net, info, nil
}

// info collects the format details of m; inputs are the data inputs.
func (m *model) info(inputs []Value) *Info {
	in := &Info{
		IRVersion:       m.irVersion,
		Opsets:          m.opsets,
		ProducerName:    m.producerName,
		ProducerVersion: m.producerVersion,
		Initializers:    len(m.graph.inits),
	}
	if len(inputs) > 0 {
		in.Input = inputs[0]
	}
	if len(m.graph.outputs) > 0 {
		in.Output = m.graph.outputs[0]
	}
	for _, t := range m.graph.inits {
		if !slices.Contains(in.InitTypes, t.dataType) {
			in.InitTypes = append(in.InitTypes, t.dataType)
		}
	}
	for _, n := range m.graph.nodes {
		in.Ops = append(in.Ops, n.opType)
	}
	return in
}

// builder translates a chain graph node by node. The network built so far
// is layers, followed by the affine map pend and the elementwise clipping
// clip (either may be nil: none yet).
type builder struct {
	g      *graph
	bud    *budget
	inits  map[string]*tensor   // initializers not yet converted
	consts map[string]*constant // converted initializers and constant node outputs
	data   string               // name of the data value at the end of the chain
	used   map[string]bool      // data values consumed by a node: reading one again is a branch
	shape  shape                // shape of the data value
	layers []nn.Layer
	pend   *affine
	clip   *clipping
}

// clipping is the pending elementwise clipping y_i = min(max(x_i, lo_i), hi_i).
type clipping struct{ lo, hi []float64 }

func newBuilder(g *graph, bud *budget) *builder {
	b := &builder{g: g, bud: bud, inits: map[string]*tensor{}, consts: map[string]*constant{}, used: map[string]bool{}}
	for _, t := range g.inits {
		b.inits[t.name] = t
	}
	return b
}

// dataInputs returns the graph inputs that have no initializer.
func (b *builder) dataInputs() []Value {
	var in []Value
	for _, v := range b.g.inputs {
		if _, ok := b.inits[v.Name]; !ok {
			in = append(in, v)
		}
	}
	return in
}

// constant returns the constant called name, converting an initializer on
// first use; nil if name is not a constant.
func (b *builder) constant(name string) (*constant, error) {
	if c, ok := b.consts[name]; ok {
		return c, nil
	}
	t, ok := b.inits[name]
	if !ok {
		return nil, nil
	}
	c, err := t.toConstant()
	if err == nil {
		err = b.bud.take(c.size())
	}
	if err != nil {
		return nil, fmt.Errorf("initializer %q: %w", name, err)
	}
	b.consts[name] = c
	return c, nil
}

// run translates the graph.
func (b *builder) run() (*nn.Network, error) {
	in := b.dataInputs()
	switch len(in) {
	case 0:
		return nil, fmt.Errorf("the graph has no data input: %w", ErrNotChain)
	case 1:
	default:
		return nil, fmt.Errorf("the graph has %d data inputs (%q, %q, ...); nnbound reads single-input chains: %w",
			len(in), in[0].Name, in[1].Name, ErrNotChain)
	}
	var err error
	if b.shape, err = inputShape(in[0], b.bud.left); err != nil {
		return nil, err
	}
	b.data = in[0].Name
	for i, n := range b.g.nodes {
		if err := b.node(n); err != nil {
			name := ""
			if n.name != "" {
				name = fmt.Sprintf(" %q", n.name)
			}
			return nil, fmt.Errorf("node %d%s (%s): %w", i, name, n.opType, err)
		}
	}
	if len(b.g.outputs) != 1 {
		return nil, fmt.Errorf("the graph has %d outputs, want 1: %w", len(b.g.outputs), ErrNotChain)
	}
	if out := b.g.outputs[0].Name; out != b.data {
		return nil, fmt.Errorf("the graph output %q is not the end of the chain (%q): %w", out, b.data, ErrNotChain)
	}
	if err := b.flushClip(); err != nil {
		return nil, err
	}
	if b.pend != nil || len(b.layers) == 0 {
		if err := b.emit(nn.Activation{Kind: nn.Identity}); err != nil {
			return nil, err
		}
	}
	return &nn.Network{Layers: b.layers}, nil
}

// operands are the inputs of a node on the chain: the position of the data
// input, and the constant at every other position (nil where the optional
// input is absent).
type operands struct {
	data   int
	consts []*constant
}

// node translates one node.
func (b *builder) node(n *node) error {
	if n.domain != "" && n.domain != "ai.onnx" {
		return fmt.Errorf("operator domain %q: %w", n.domain, ErrUnsupportedOp)
	}
	if len(n.outputs) == 0 || n.outputs[0] == "" {
		return fmt.Errorf("node has no output: %w", ErrMalformed)
	}
	if n.opType == "Constant" {
		c, err := constantNode(n)
		if err != nil {
			return err
		}
		b.consts[n.outputs[0]] = c
		return nil
	}
	ops := operands{data: -1, consts: make([]*constant, len(n.inputs))}
	for i, name := range n.inputs {
		switch {
		case name == "":
			continue
		case name == b.data:
			if ops.data >= 0 {
				return fmt.Errorf("reads the data %q twice: %w", name, ErrNotChain)
			}
			ops.data = i
			continue
		case b.used[name]:
			return fmt.Errorf("reads %q, which an earlier node already consumed (a branch): %w", name, ErrNotChain)
		}
		c, err := b.constant(name)
		if err != nil {
			return err
		}
		if c == nil {
			return fmt.Errorf("input %q is neither a constant nor the output of an earlier node: %w", name, ErrNotChain)
		}
		ops.consts[i] = c
	}
	if ops.data < 0 {
		if n.opType == "Identity" && len(ops.consts) == 1 && ops.consts[0] != nil {
			b.consts[n.outputs[0]] = ops.consts[0]
			return nil
		}
		return fmt.Errorf("the node does not read the chain's data (constant folding is not supported): %w", ErrNotChain)
	}
	op, ok := registry[n.opType]
	if !ok {
		return fmt.Errorf("operator %q: %w", n.opType, ErrUnsupportedOp)
	}
	if err := op(b, n, ops); err != nil {
		return err
	}
	b.used[b.data] = true
	b.data = n.outputs[0]
	return nil
}

// applyAffine appends the affine map a (on the current sample) to the chain.
func (b *builder) applyAffine(a *affine) error {
	if err := b.flushClip(); err != nil {
		return err
	}
	if b.pend == nil {
		b.pend = a
		return nil
	}
	p, err := b.pend.then(a, b.bud)
	if err != nil {
		return err
	}
	b.pend = p
	return nil
}

// activate appends an activation layer.
func (b *builder) activate(act nn.Activation) error {
	if err := b.flushClip(); err != nil {
		return err
	}
	// Elu(1) followed by LeakyRelu(a) or PRelu(a) is Elu(a): for s < 0,
	// elu_1(s) = exp(s) - 1 < 0 is scaled by a. The writer uses this to store
	// an ELU alpha that is not a float32.
	if k := len(b.layers) - 1; act.Kind == nn.LeakyReLU && b.pend == nil && k >= 0 &&
		b.layers[k].Act == (nn.Activation{Kind: nn.ELU, Alpha: 1}) {
		b.layers[k].Act.Alpha = act.Alpha
		return nil
	}
	return b.emit(act)
}

// emit closes a layer: act applied to the pending affine map (the identity
// if there is none).
func (b *builder) emit(act nn.Activation) error {
	p := b.pend
	if p == nil {
		var err error
		if p, err = identity(b.shape.size(), b.bud); err != nil {
			return err
		}
	}
	l, err := p.layer(act, b.bud)
	if err != nil {
		return err
	}
	b.layers = append(b.layers, l)
	b.pend = nil
	return nil
}

// clipMax composes the pending clipping with y = max(y, c) (c per sample value).
func (b *builder) clipMax(c []float64) {
	cl := b.pendingClip()
	for i, v := range c {
		cl.lo[i], cl.hi[i] = max(cl.lo[i], v), max(cl.hi[i], v)
	}
}

// clipMin composes the pending clipping with y = min(y, d) (d per sample value).
func (b *builder) clipMin(d []float64) {
	cl := b.pendingClip()
	for i, v := range d {
		cl.lo[i], cl.hi[i] = min(cl.lo[i], v), min(cl.hi[i], v)
	}
}

// pendingClip returns the pending clipping, starting an unbounded one.
func (b *builder) pendingClip() *clipping {
	if b.clip == nil {
		n := b.shape.size()
		b.clip = &clipping{lo: make([]float64, n), hi: make([]float64, n)}
		for i := range n {
			b.clip.lo[i], b.clip.hi[i] = negInf, posInf
		}
	}
	return b.clip
}

// flushClip turns the pending clipping into layers (see nn.Clip).
func (b *builder) flushClip() error {
	cl := b.clip
	if cl == nil {
		return nil
	}
	b.clip = nil
	lo, hi := cl.lo[0], cl.hi[0]
	uniform := true
	for i := range cl.lo {
		uniform = uniform && cl.lo[i] == lo && cl.hi[i] == hi
	}
	switch {
	case uniform && lo == negInf && hi == posInf:
		return nil
	case uniform && lo > negInf && hi < posInf:
		return b.emit(nn.Activation{Kind: nn.HardTanh, Lo: lo, Hi: hi})
	case uniform && lo == 0 && hi == posInf:
		return b.emit(nn.Activation{Kind: nn.ReLU})
	}
	n := len(cl.lo)
	if err := b.bud.take(4*n*n + 4*n); err != nil {
		return err
	}
	layers, err := nn.Clip(cl.lo, cl.hi)
	if err != nil {
		return err
	}
	for _, l := range layers {
		a, err := fromLayer(l, b.bud)
		if err != nil {
			return err
		}
		if b.pend == nil {
			b.pend = a
		} else if b.pend, err = b.pend.then(a, b.bud); err != nil {
			return err
		}
		if l.Act.Kind != nn.Identity {
			if err := b.emit(l.Act); err != nil {
				return err
			}
		}
	}
	return nil
}
