package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/report"
)

// compressCert are the certification flags of quantise and prune, which
// certify the error between the model and its compressed copy after
// saving it:
//
//	--certify              also certify the error (off by default: saving
//	                       a compressed copy needs no solver)
//	--box/--lo/--hi        the input box (default [-1, 1] per input)
//	--qc, --weights, ...   the certification flags (see certFlags)
//	--pairing              same (default: both networks get the input) or
//	                       quantised (--input-frac-bits: the copy gets q(x))
//	--arith real|float32   the arithmetic the bound covers (arithFlag)
//	--json                 print the certificate as JSON
//	--plot FILE            draw the error and bound
type compressCert struct {
	input   inputFlags
	cert    certFlags
	pair    pairFlags
	certify bool
	json    bool
	plot    string
	arith   arithFlag
}

// register adds the flags to cmd.
func (cc *compressCert) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	cc.input.register(fs)
	cc.cert.register(fs)
	cc.pair.register(cmd, cc.cert.opts)
	cc.arith.register(fs)
	fs.BoolVar(&cc.certify, "certify", false, "also certify the error between the model and its compressed copy")
	fs.BoolVar(&cc.json, "json", false, "print the report (and certificate) as one JSON object")
	fs.StringVar(&cc.plot, "plot", "", "draw the error and bound to `FILE`.png or .svg")
}

// check reports usage errors before any work is done.
func (cc *compressCert) check() (certjob.Job, error) {
	if err := cc.input.check(); err != nil {
		return certjob.Job{}, err
	}
	opts, err := cc.cert.options(nil)
	if err != nil {
		return opts, err
	}
	if err := cc.pair.apply(&opts); err != nil {
		return opts, err
	}
	if err := cc.arith.apply(&opts); err != nil {
		return opts, err
	}
	if cc.plot != "" {
		if err := checkPlot(cc.plot); err != nil {
			return opts, err
		}
	}
	return opts, nil
}

// run prints the compression report (writeReport, or j under --json)
// and, under --certify, certifies the model against its compressed copy
// and prints the certificate (text after the compression report, or JSON
// with the report in its "compression" field).
func (cc *compressCert) run(cmd *cobra.Command, m *model, c *modelfile.Compressed, writeReport func(io.Writer) error, j *experiment.CompressionRecord) error {
	stdout := cmd.OutOrStdout()
	opts, err := cc.check()
	if err != nil {
		return err
	}
	if cc.cert.verbose {
		opts.Solver.Log, opts.Log = cmd.ErrOrStderr(), cmd.ErrOrStderr()
	}
	switch {
	case cc.json && !cc.certify:
		return report.WriteJSON(stdout, j)
	case !cc.json:
		if err := writeReport(stdout); err != nil {
			return err
		}
	}
	if !cc.certify {
		return nil
	}
	box, err := cc.input.boxNoted(m.Net.InputSize(), cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if err := copyWidth(&opts, c.Net.Graph(), "the copy", cmd.ErrOrStderr()); err != nil {
		return err
	}
	cert, err := opts.BoundShowing(cmd.Context(), m.Net, c.Net, box, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if !cc.json {
		fmt.Fprintln(stdout)
	}
	return emitCertificate(cmd.Context(), stdout, cert, cc.json, j, cc.plot, func() (*report.Figure, error) {
		return experiment.Figure(cmd.Context(), m.Net, c.Net, box, opts, cert, filepath.Base(m.Info.Path)+" and its compressed copy")
	})
}
