// Package repl is the interactive Go session of sgp: a Session evaluates
// cells of Go on the yaegi interpreter with sgp, sgp/figure, sgp/mol,
// gonum and gonum/plot loaded, renders their values (text, PNG, SVG,
// HTML), completes and documents names, and stops a running cell —
// interpreted loops at once, a Fit at its next swap — when asked.
//
// The Session is the one job of this package. Its front ends live beside
// it: repl/terminal (the terminal REPL and `sgprepl run`/`-e`) and
// repl/jupyter (the Jupyter kernel). Workarounds for yaegi's limits are
// in workaround.go, undefined.go and yaegi_stop.go, each naming the
// behaviour it works around.
package repl
