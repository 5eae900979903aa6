// Package experiment runs what nnbound's commands compute beyond a single
// certification, so that the command line tools only parse flags and
// print:
//   - the paper's experiments (Li, Drummond and Duncan, L4DC 2021): their
//     random instances (Setup.Instance, with the network of run r at depth
//     l seeded NetSeed(S, l, r), shared by nnbound paper and cmd/bench),
//     their certification and tightness over the paper's grid
//     (Setup.CertifyAll, Tightness, Aggregate), and the paper's own
//     tables (Reference);
//   - the bit-width sweep of a model (WidthSweep);
//   - the figures of a certificate (Figure, Curve);
//   - the JSON record of a certificate (Record, Summary).
//
// The tightness of a bound at an input pair is
//
//	T = ln(bound(x1, x2)^2) - ln(||f1(x1) - f2(x2)||^2),
//
// with bound(x1, x2) = certify.Certificate.BoundAt(x1, x2). The one-input
// figure also bounds each of a fixed set of sub-boxes by bound
// propagation (the quantisation cells, or 128 slices). Nothing here
// depends on the machine's speed: work cut short by a cancelled context
// ends with an error.
package experiment
