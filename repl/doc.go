// Package repl is the interactive Go session of sgp: a Session evaluates
// cells of Go on the yaegi interpreter with sgp, sgp/kernel, sgp/data,
// sgp/figure, sgp/mol, gonum and gonum/plot loaded, renders their values (text, PNG, SVG,
// HTML), completes and documents names, and stops a running cell —
// interpreted loops at once, a Fit at its next swap — when asked.
//
//	s, err := repl.New(repl.Options{}) // the zero Options collect output in each Result
//	res, err := s.Eval(ctx, `train, _ := data.SnelsonLike(200, 1); train`)
//	// res.Output is what the cell printed, res.Value its final value rendered
//
// Cancelling ctx stops the cell. Variables, functions and types persist
// from one cell to the next until Reset; Complete and Inspect serve a
// front end's completion and documentation. Two front ends use it:
// repl/terminal (the terminal REPL and `sgprepl run`/`-e`) and
// repl/jupyter (the Jupyter kernel).
//
// yaegi v0.16.1 interprets Go at the level of Go 1.22 with gaps: no range
// over an integer, no min/max/clear builtins, loop variables shared by
// closures, no method expressions, and type switches that never take an
// interface case (case error:, case mat.Symmetric:; comma-ok assertions
// work). The session works around the interpreter's other known faults.
package repl
