// Package repl is the interactive Go session of sgp: a Session evaluates
// cells of Go on the yaegi interpreter with sgp, sgp/kernel, sgp/data,
// sgp/figure, sgp/mol, gonum and gonum/plot loaded, renders their values (text, PNG, SVG,
// HTML), completes and documents names, and stops a running cell —
// interpreted loops at once, a Fit at its next swap — when asked.
//
// The Session is the one job of this package. Its front ends live beside
// it: repl/terminal (the terminal REPL and `sgprepl run`/`-e`) and
// repl/jupyter (the Jupyter kernel). Workarounds for yaegi v0.16.1 live
// together in the files yaegi_*.go (but for compound in split.go, where it
// decides how a cell is split), each naming the behaviour (and the
// upstream issue, where there is one) it works around;
// yaegi_canary_test.go reproduces each on a bare interpreter and fails
// once an upgraded yaegi no longer needs the workaround.
package repl
