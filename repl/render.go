package repl

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// The method sets a value can render itself through: the same as
// gophernotes' PNGer, SVGer and HTMLer, so that sgp values (figure.Figure)
// render here, in notebooks and in gophernotes alike.
type (
	pnger  interface{ PNG() []byte }
	svger  interface{ SVG() string }
	htmler interface{ HTML() string }
	// pngStringer comes first in displayInterfaces so that a type declared
	// in a session with both methods keeps both.
	pngStringer interface {
		PNG() []byte
		String() string
	}
)

// displayInterfaces are the interfaces through which a value of a type
// declared in the session reaches Values and display.Show with its
// methods: yaegi wraps such a value in the first of them it implements.
var displayInterfaces = []reflect.Type{
	reflect.TypeFor[pngStringer](),
	reflect.TypeFor[pnger](),
	reflect.TypeFor[svger](),
	reflect.TypeFor[htmler](),
	reflect.TypeFor[fmt.Stringer](),
	reflect.TypeFor[error](),
}

// wrapperSymbols are yaegi's interface wrappers for the interfaces above
// (the form `yaegi extract` generates): a struct whose first field holds
// the value and whose other fields hold its methods.
var wrapperSymbols = map[string]reflect.Value{
	"_pngStringer": reflect.ValueOf((*pngStringerWrapper)(nil)),
	"_pnger":       reflect.ValueOf((*pngerWrapper)(nil)),
	"_svger":       reflect.ValueOf((*svgerWrapper)(nil)),
	"_htmler":      reflect.ValueOf((*htmlerWrapper)(nil)),
}

type pngStringerWrapper struct {
	IValue  any
	WPNG    func() []byte
	WString func() string
}

func (w pngStringerWrapper) PNG() []byte    { return w.WPNG() }
func (w pngStringerWrapper) String() string { return w.WString() }

type pngerWrapper struct {
	IValue any
	WPNG   func() []byte
}

func (w pngerWrapper) PNG() []byte { return w.WPNG() }

type svgerWrapper struct {
	IValue any
	WSVG   func() string
}

func (w svgerWrapper) SVG() string { return w.WSVG() }

type htmlerWrapper struct {
	IValue any
	WHTML  func() string
}

func (w htmlerWrapper) HTML() string { return w.WHTML() }

// maxText is the longest text rendering of a value, in bytes; longer ones
// are cut.
const maxText = 4000

// renderValues renders the results of a cell's final expression: one
// value as itself, several one per line, leaving out a final nil (the nil
// error of a (value, error) call).
func (s *Session) renderValues(vals []any) Display {
	if len(vals) > 1 && vals[len(vals)-1] == nil {
		vals = vals[:len(vals)-1]
	}
	if len(vals) == 1 {
		return s.render(vals[0])
	}
	var d Display
	texts := make([]string, len(vals))
	for i, v := range vals {
		r := s.render(v)
		texts[i] = r.Text
		if d.PNG == nil {
			d.PNG = r.PNG
		}
		if d.SVG == "" {
			d.SVG = r.SVG
		}
		if d.HTML == "" {
			d.HTML = r.HTML
		}
	}
	d.Text = strings.Join(texts, "\n")
	return d
}

// render renders v as text and, if it has the methods, as PNG, SVG and
// HTML (those in the session's Formats). A method that panics gives no
// rendering.
func (s *Session) render(v any) Display {
	d := Display{Text: s.renderText(v)}
	if p, ok := v.(pnger); ok && s.formats["png"] {
		d.PNG = safeCall(p.PNG)
	}
	if p, ok := v.(svger); ok && s.formats["svg"] {
		d.SVG = safeCall(p.SVG)
	}
	if p, ok := v.(htmler); ok && s.formats["html"] {
		d.HTML = safeCall(p.HTML)
	}
	return d
}

// safeCall returns fn(), or the zero value if fn panics (a method on a nil
// pointer, a failing renderer).
func safeCall[T any](fn func() T) (v T) {
	defer func() {
		if r := recover(); r != nil {
			var zero T
			v = zero
		}
	}()
	return fn()
}

// renderText renders v as text: through its Error or String method, a
// gonum matrix as an excerpt, long slices shortened, structs with field
// names.
func (s *Session) renderText(v any) string {
	text := safeCall(func() string { return textOf(v) })
	if text == "" && v != nil {
		// A String method that panicked: fmt reports the panic.
		text = fmt.Sprintf("%v", v)
	}
	if len(text) > maxText {
		cut := maxText
		for cut > 0 && !isRuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + fmt.Sprintf("… (%d more bytes)", len(text)-cut)
	}
	return text
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func textOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "<nil>"
	case error:
		return v.Error()
	case fmt.Stringer:
		return v.String()
	case mat.Matrix:
		return matrixText(v)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if rv.Len() > 20 {
			return excerpt(rv)
		}
	case reflect.Struct:
		return fmt.Sprintf("%+v", v)
	case reflect.Pointer:
		if !rv.IsNil() && rv.Elem().Kind() == reflect.Struct {
			return fmt.Sprintf("%+v", v)
		}
	}
	return fmt.Sprintf("%v", v)
}

// excerpt renders a long slice by its first and last elements.
func excerpt(rv reflect.Value) string {
	var b strings.Builder
	b.WriteByte('[')
	n := rv.Len()
	for i := 0; i < n; i++ {
		if i == 8 {
			b.WriteString(" …")
			i = n - 3
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%v", rv.Index(i).Interface())
	}
	fmt.Fprintf(&b, "] (len %d)", n)
	return b.String()
}

// matrixText renders a gonum matrix with its size and type, and its
// entries to 4 significant digits: all of them for a small matrix, the
// first and last rows and columns of a large one. (mat.Formatted with
// mat.Excerpt panics on some matrices in gonum v0.17.)
func matrixText(m mat.Matrix) string {
	r, c := m.Dims()
	rows, cols := excerptIndexes(r, 4), excerptIndexes(c, 3)
	cells := make([][]string, len(rows))
	width := make([]int, len(cols))
	for a, i := range rows {
		cells[a] = make([]string, len(cols))
		for b, j := range cols {
			switch {
			case i < 0:
				cells[a][b] = "⋮"
			case j < 0:
				cells[a][b] = "…"
			default:
				cells[a][b] = strconv.FormatFloat(m.At(i, j), 'g', 4, 64)
			}
			width[b] = max(width[b], utf8.RuneCountInString(cells[a][b]))
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d×%d %T", r, c, m)
	for _, row := range cells {
		sb.WriteString("\n ")
		for b, cell := range row {
			sb.WriteString(strings.Repeat(" ", width[b]-utf8.RuneCountInString(cell)+1))
			sb.WriteString(cell)
		}
	}
	return sb.String()
}

// excerptIndexes returns 0…n−1, or the first and last k of them with −1
// between them when n > 2k.
func excerptIndexes(n, k int) []int {
	var idx []int
	for i := 0; i < n; i++ {
		if n > 2*k && i == k {
			idx = append(idx, -1)
			i = n - k
		}
		idx = append(idx, i)
	}
	return idx
}
