package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/spec"
)

// modelFlags are the flags of every command that reads a model:
//
//	--core    read an NNet file's normalised core network (x_norm -> y_norm,
//	          as verification benchmarks use it) instead of the raw-units one
//
// A command embeds a modelFlags, calls register on its flag set and load
// for each model path.
type modelFlags struct {
	core bool
	// chainOnly says why the command reads chains of layers only, and
	// what to use for a graph instead; load adds it to the error of a
	// graph (default: the commands that read graphs).
	chainOnly string
}

// register adds the flags to fs.
func (f *modelFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.core, "core", false, "read an NNet file's normalised core network instead of the raw-units one (clipping and normalisation built in)")
}

// model is a loaded model file: Net is its chain of layers, nil for a
// graph that is not one (loadGraph).
type model struct {
	Net   *nn.Network
	Graph *nn.Graph
	Info  *modelfile.Info
}

// load reads the model at path (errors are not usage errors: the command
// line was fine, the file is not).
func (f *modelFlags) load(path string) (*model, error) {
	net, info, err := modelfile.Load(path, modelfile.Options{Core: f.core})
	if errors.Is(err, onnx.ErrNotChain) {
		why := f.chainOnly
		if why == "" {
			why = "this command reads chains of layers so far (eval, inspect, compare, quantise, prune, sweep, verify and vnncomp's equivalence rows read graphs)"
		}
		return nil, fmt.Errorf("%w; %s", err, why)
	}
	if err != nil {
		return nil, err
	}
	return &model{Net: net, Info: info}, nil
}

// loadOverBox reads the model at path (load) and the input box of its
// inputs that in gives (boxNoted, whose notes go to stderr).
func (f *modelFlags) loadOverBox(path string, in *inputFlags, stderr io.Writer) (*model, spec.Box, error) {
	m, err := f.load(path)
	if err != nil {
		return nil, spec.Box{}, err
	}
	box, err := in.boxNoted(m.Net.InputSize(), stderr)
	return m, box, err
}

// loadGraph reads the model at path as a computation graph, with its
// chain of layers where it is one, for the commands that take graphs.
func (f *modelFlags) loadGraph(path string) (*model, error) {
	g, net, info, err := modelfile.LoadGraph(path, modelfile.Options{Core: f.core})
	if err != nil {
		return nil, err
	}
	return &model{Net: net, Graph: g, Info: info}, nil
}

// loadPair reads the two networks named by args and checks that they take
// the same inputs and give the same outputs (nn.CheckComparable).
func (f *modelFlags) loadPair(args []string) ([2]*nn.Network, error) {
	var nets [2]*nn.Network
	for i, path := range args {
		m, err := f.load(path)
		if err != nil {
			return nets, err
		}
		nets[i] = m.Net
	}
	return nets, nn.CheckComparable(args[0], nets[0], args[1], nets[1])
}

// describe returns "path (format, what)" for the model (modelfile.Info.Name).
func (m *model) describe() string { return m.Info.Name(m.Net) }

// heading names the model with its sizes, or its nodes and parameters
// for a graph (modelfile.Info.Heading).
func (m *model) heading() string { return m.Info.Heading(m.Net, m.Graph) }
