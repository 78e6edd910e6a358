package repl

import (
	"bytes"
	"io"
)

// YaegiLogFilter returns a writer for the standard logger (log.SetOutput)
// that drops the line yaegi v0.16 writes with log.Panic before it panics
// on a type it cannot resolve ("nil type", interp/scope.go), and passes
// every other line to w. The panic itself becomes the cell's error,
// mapped to a readable message; the logged copy, with its
// timestamp, would otherwise reach the terminal or the notebook's stderr
// ahead of it. The program that owns the process installs it: a library
// does not set the standard logger's output.
func YaegiLogFilter(w io.Writer) io.Writer { return yaegiLogFilter{w} }

type yaegiLogFilter struct{ w io.Writer }

func (f yaegiLogFilter) Write(p []byte) (int, error) {
	if bytes.HasSuffix(p, []byte(" nil type\n")) || bytes.Equal(p, []byte("nil type\n")) {
		return len(p), nil
	}
	return f.w.Write(p)
}
