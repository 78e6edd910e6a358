package repl

import (
	"fmt"
	"io"
	"regexp"
	"strings"
)

// Display is one rendering of a value: always text, and the PNG, SVG or
// HTML that the value's methods of those names return (or that a
// display.PNG, display.SVG or display.HTML call gave).
type Display struct {
	Text string
	PNG  []byte
	SVG  string
	HTML string
}

// cellWriter is the interpreter's standard output or error: it appends to
// the current cell's output and copies to the session's stream. On
// standard error it also keeps yaegi's panic trace lines apart.
type cellWriter struct {
	s      *Session
	stream io.Writer
	stderr bool
}

// panicTrace matches the lines yaegi prints for each frame of a panic.
var panicTrace = regexp.MustCompile(`^(?:[^\s:]*\.go:)?\d+:\d+: panic`)

func (w cellWriter) Write(p []byte) (int, error) {
	s := w.s
	if w.stderr && panicTrace.Match(p) {
		s.mu.Lock()
		for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
			s.panics = append(s.panics, line)
		}
		s.mu.Unlock()
		return len(p), nil
	}
	if s.pendingWarnings() {
		s.flushWarnings("") // a fit's warnings come before what follows it
	}
	s.mu.Lock()
	s.out.Write(p)
	s.mu.Unlock()
	if w.stream != nil {
		return w.stream.Write(p)
	}
	return len(p), nil
}

// show, showPNG, showSVG and showHTML are the display package.
func (s *Session) show(v any) { s.addDisplay(s.render(v)) }

func (s *Session) showPNG(b []byte) {
	s.addDisplay(Display{Text: fmt.Sprintf("[PNG image, %d bytes]", len(b)), PNG: b})
}

func (s *Session) showSVG(svg string) {
	s.addDisplay(Display{Text: fmt.Sprintf("[SVG image, %d bytes]", len(svg)), SVG: svg})
}

func (s *Session) showHTML(h string) {
	s.addDisplay(Display{Text: fmt.Sprintf("[HTML, %d bytes]", len(h)), HTML: h})
}

func (s *Session) addDisplay(d Display) {
	if s.pendingWarnings() {
		s.flushWarnings(d.Text) // not those the display shows (display.Show(res))
	}
	s.mu.Lock()
	s.displays = append(s.displays, d)
	s.mu.Unlock()
	if s.opts.OnDisplay != nil {
		s.opts.OnDisplay(d)
	}
}
