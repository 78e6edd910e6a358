package data

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cholqr/sgp/sgp/internal/table"
	"github.com/cholqr/sgp/sgp/kernel"
)

// readCSVLines is a line-by-line reader (a bufio.Scanner limited to
// maxLine bytes a line), the reference that the parallel reader
// readCSVWith must agree with: the same rows, the same errors.
func readCSVLines(r io.Reader, name, label string, withTarget bool) (*Dataset, error) {
	if label == "" {
		label = "CSV input"
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	var (
		data, y              []float64
		cols, colsLine       int
		comma, seenFirst     bool
		headerLine, rows, ln int
		header               []string
		miss                 *MissingError
	)
	for sc.Scan() {
		ln++
		line := strings.TrimSpace(sc.Text())
		if ln == 1 {
			line = strings.TrimPrefix(line, "\uFEFF")
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !seenFirst {
			seenFirst = true
			if cells := splitCells(line, strings.Contains(line, ",")); isHeader(cells) {
				headerLine, header = ln, cells
				if err := headerError(cells, true); err != nil {
					return nil, fmt.Errorf("sgp: %s: line %d: %w", label, ln, err)
				}
				continue
			}
		}
		if cols == 0 {
			comma = strings.Contains(line, ",")
		}
		cells := splitCells(line, comma)
		if len(cells) < 2 && withTarget {
			return nil, fmt.Errorf("sgp: %s: line %d has %d column; need at least 2 (the inputs, then the target in the last column)%s", label, ln, len(cells), separatorHint(line))
		}
		headerCount := false
		if cols == 0 {
			headerCount = header != nil && len(cells) != len(header)
			cols, colsLine = len(cells), ln
		} else if len(cells) != cols {
			return nil, fmt.Errorf("sgp: %s: line %d has %d columns, but line %d has %d; every row needs the same number of columns", label, ln, len(cells), colsLine, cols)
		}
		row := make([]float64, len(cells))
		missCol := 0
		for j, c := range cells {
			if isMissing(c) {
				missCol = cmp.Or(missCol, j+1)
				continue
			}
			v, err := parseCell(c)
			if err != nil {
				name := ""
				if j < len(header) {
					name = fmt.Sprintf(" (%q)", table.Short(header[j]))
				}
				return nil, fmt.Errorf("sgp: %s: line %d, column %d%s: %w%s", label, ln, j+1, name, err, separatorHint(line))
			}
			row[j] = v
		}
		if headerCount {
			return nil, fmt.Errorf("sgp: %s: line %d has %d columns, but the header on line %d names %d; every row needs one value per named column", label, ln, len(cells), headerLine, len(header))
		}
		if missCol > 0 {
			if miss == nil {
				miss = &MissingError{Label: label, Line: ln, Column: missCol}
				if missCol <= len(header) {
					miss.Name = header[missCol-1]
				}
			}
			miss.Rows++
			continue
		}
		for j, v := range row {
			if j == cols-1 && withTarget {
				y = append(y, v)
			} else {
				data = append(data, v)
			}
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("sgp: %s: line %d is longer than %d MiB; is this a CSV file?", label, ln+1, maxLine>>20)
		}
		return nil, fmt.Errorf("sgp: %s: reading after line %d: %w", label, ln, err)
	}
	if miss != nil {
		return nil, miss
	}
	if rows == 0 {
		if headerLine > 0 {
			return nil, fmt.Errorf("sgp: %s: no data rows after the header on line %d", label, headerLine)
		}
		return nil, fmt.Errorf("sgp: %s: no data rows: the input is empty or holds only blank and '#' comment lines", label)
	}
	d := cols - 1
	if !withTarget {
		d = cols
	}
	x, err := kernel.NewVectors(rows, d, data)
	if err != nil {
		return nil, fmt.Errorf("sgp: %s: %w", label, err)
	}
	ds := &Dataset{Name: name, X: x, Y: y}
	if header != nil {
		if ds.X, err = x.WithNames(header[:d]); err != nil {
			return nil, fmt.Errorf("sgp: %s: %w", label, err)
		}
		if withTarget {
			ds.TargetName = header[d]
		}
	}
	return ds, nil
}

// sameCSVResult returns "" if two results of reading CSV agree exactly
// (shapes, every value bit for bit, error messages), else what differs.
func sameCSVResult(a *Dataset, aErr error, b *Dataset, bErr error) string {
	if (aErr == nil) != (bErr == nil) || aErr != nil && aErr.Error() != bErr.Error() {
		return fmt.Sprintf("errors differ: %v | %v", aErr, bErr)
	}
	if aErr != nil {
		return ""
	}
	if !slices.Equal(a.X.Names(), b.X.Names()) || a.TargetName != b.TargetName {
		return fmt.Sprintf("column names differ: %q, target %q | %q, target %q", a.X.Names(), a.TargetName, b.X.Names(), b.TargetName)
	}
	if a.Name != b.Name || a.X.Len() != b.X.Len() || a.X.Dim() != b.X.Dim() || len(a.Y) != len(b.Y) || (a.Y == nil) != (b.Y == nil) {
		return fmt.Sprintf("shapes differ: %q %d×%d, %d targets | %q %d×%d, %d targets",
			a.Name, a.X.Len(), a.X.Dim(), len(a.Y), b.Name, b.X.Len(), b.X.Dim(), len(b.Y))
	}
	for i, v := range a.X.RawData() {
		if w := b.X.RawData()[i]; math.Float64bits(v) != math.Float64bits(w) {
			return fmt.Sprintf("input value %d: %v | %v", i, v, w)
		}
	}
	for i, v := range a.Y {
		if math.Float64bits(v) != math.Float64bits(b.Y[i]) {
			return fmt.Sprintf("target %d: %v | %v", i, v, b.Y[i])
		}
	}
	return ""
}

// csvSplits returns the ways of splitting the work compared with the
// reference: one worker and one block, and small blocks (down to one byte,
// so that every line is cut) on several workers.
func csvSplits() []csvOptions {
	return []csvOptions{
		{block: maxLine, workers: 1},
		{block: 1, workers: 3},
		{block: 7, workers: 2},
		{block: 64, workers: 4},
		{block: 1000, workers: 2},
		{block: 4096, workers: 1},
	}
}

// checkCSVSplits reads in with the reference and every csvSplits option,
// with and without targets, and reports any difference.
func checkCSVSplits(t *testing.T, what string, in []byte) {
	t.Helper()
	for _, withTarget := range []bool{true, false} {
		want, wantErr := readCSVLines(bytes.NewReader(in), "n", "f.csv", withTarget)
		for _, opt := range csvSplits() {
			got, err := readCSVWith(bytes.NewReader(in), "n", "f.csv", withTarget, opt, nil)
			if diff := sameCSVResult(want, wantErr, got, err); diff != "" {
				t.Fatalf("%s, targets %v, blocks of %d bytes on %d workers: %s", what, withTarget, opt.block, opt.workers, diff)
			}
		}
	}
}

// genCSV writes rows of cols numbers (or words, for a header) in the
// given layout, with comments and blank lines sprinkled in.
func genCSV(rng *rand.Rand, rows, cols int, comma, header bool) []byte {
	var b bytes.Buffer
	sep := func() {
		if comma {
			b.WriteString([]string{",", ", ", " ,"}[rng.IntN(3)])
		} else {
			b.WriteString([]string{" ", "\t", "  "}[rng.IntN(3)])
		}
	}
	if header {
		for c := range cols {
			if c > 0 {
				sep()
			}
			fmt.Fprintf(&b, "col%d", c)
		}
		b.WriteString("\n")
	}
	for range rows {
		switch rng.IntN(20) {
		case 0:
			b.WriteString("# a comment, with 1,2,3\n")
		case 1:
			b.WriteString("   \n")
		}
		for c := range cols {
			if c > 0 {
				sep()
			}
			v := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(21)-10))
			s := strconv.FormatFloat(v, "gef"[rng.IntN(3)], rng.IntN(18)-1, 64)
			if comma && rng.IntN(10) == 0 {
				s = `"` + s + `"`
			}
			b.WriteString(s)
		}
		if rng.IntN(4) == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// TestReadCSVSplitsAgree: parsing in blocks on several workers gives the
// rows of the line-by-line reference bit for bit, and the same first error
// when errors lie in several blocks.
func TestReadCSVSplitsAgree(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for k, shape := range []struct {
		rows, cols    int
		comma, header bool
	}{
		{300, 9, true, true}, {300, 3, true, false}, {200, 4, false, true}, {150, 2, false, false}, {1, 2, true, false},
	} {
		in := genCSV(rng, shape.rows, shape.cols, shape.comma, shape.header)
		checkCSVSplits(t, fmt.Sprintf("file %d", k), in)

		// Spoil lines in several places; the first spoilt line must be
		// the one reported, whichever block it falls in.
		lines := bytes.SplitAfter(in, []byte("\n"))
		spoil := []func([]byte) []byte{
			func(l []byte) []byte { return append([]byte("abc,"), l...) },                     // a word, or a ragged row
			func(l []byte) []byte { return bytes.Replace(l, []byte("e"), []byte("e999"), 1) }, // out of range
			func(l []byte) []byte { return append([]byte("NaN "), l...) },                     // not finite, or a ragged row
			func(l []byte) []byte { return bytes.TrimRight(l, "0123456789.\r\n") },            // an empty cell
			func(l []byte) []byte { return []byte("1\n") },                                    // one column
		}
		for trial := range 40 {
			bad := make([][]byte, len(lines))
			copy(bad, lines)
			for range 1 + rng.IntN(4) {
				i := rng.IntN(len(bad))
				bad[i] = spoil[rng.IntN(len(spoil))](bytes.Clone(bad[i]))
			}
			checkCSVSplits(t, fmt.Sprintf("file %d, trial %d", k, trial), bytes.Join(bad, nil))
		}
	}
}

// TestReadCSVSplitsBlocks: a file of many blocks of 4 KiB, read on one
// worker and on four, gives the reference's rows; with errors spoilt into
// three far apart blocks, each split reports the first of them.
func TestReadCSVSplitsBlocks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	in := genCSV(rng, 20000, 5, true, true)
	splits := []csvOptions{{block: 4096, workers: 1}, {block: 4096, workers: 4}, {block: 100000, workers: 2}, defaultCSVOptions()}
	check := func(in []byte, wantErr string) {
		t.Helper()
		want, err := readCSVLines(bytes.NewReader(in), "n", "f.csv", true)
		if wantErr == "" && err != nil || wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)) {
			t.Fatalf("reference: %v, want an error with %q", err, wantErr)
		}
		for _, opt := range splits {
			got, gotErr := readCSVWith(bytes.NewReader(in), "n", "f.csv", true, opt, nil)
			if diff := sameCSVResult(want, err, got, gotErr); diff != "" {
				t.Errorf("blocks of %d bytes on %d workers: %s", opt.block, opt.workers, diff)
			}
		}
	}
	check(in, "")
	lines := bytes.SplitAfter(in, []byte("\n"))
	// data returns the first data line at or after line k (0-based).
	data := func(k int) int {
		for len(bytes.TrimSpace(lines[k])) == 0 || lines[k][0] == '#' {
			k++
		}
		return k
	}
	bad := make([][]byte, len(lines))
	for _, at := range [][3]int{{5000, 12000, 19000}, {15000, 9000, 17000}, {15000, 16000, 3000}} {
		// Line at[0] gets a word, at[1] a cell too many, at[2] a NaN.
		word, ragged, nan := data(at[0]), data(at[1]), data(at[2])
		copy(bad, lines)
		bad[word] = append([]byte("abc"), lines[word]...)
		bad[ragged] = append([]byte("1,"), lines[ragged]...)
		bad[nan] = append([]byte("Inf"), lines[nan][bytes.IndexByte(lines[nan], ','):]...)
		want := map[int]string{
			word:   fmt.Sprintf("line %d, column 1 (\"col0\"): cannot parse", word+1),
			ragged: fmt.Sprintf("line %d has 6 columns, but line 2 has 5", ragged+1),
			nan:    fmt.Sprintf("line %d, column 1 (\"col0\"): value \"Inf\" is not finite", nan+1),
		}[min(word, ragged, nan)]
		check(bytes.Join(bad, nil), want)
	}
}

// TestReadCSVSplitsEdges: inputs around the stateful first lines (byte
// order mark, header, separator, comments) and the end of the input.
func TestReadCSVSplitsEdges(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"", "\n", "#\n", "x,y", "x,y\n", "x,y\n\n# c\n", "1,2", "1,2\n3", "1,2\n3,4\n5,",
		"\uFEFF1,2\n3,4\n", "\uFEFFx y\n1 2\n", " \uFEFF1,2\n", "\n\uFEFF1,2\n",
		"# c\n\n a , b \n1, 2\n3,4\n", "1 2\n3,4\n", "1,2\n3 4\n", "\"1\",\"2\"\n\"3\" , \" 4 \"\n",
		"1\u00852\n3\u00a04\n", "1\t2\r\n3\t4\r\n", "1,2\r\r\n3,4\n", "x,y\n1,2\n1e-400,5e-324\n",
		"1,NaN\n", "nan,inf\n", "a,NaN\n1,2\n", "1,2,3\n4,5\n6,x\n", "1 2\n\n\n\n3 x\n",
		"\xff,1\n2,3\n", "1,\xc2\n", "1,2\n\x00,3\n", "0x1p-2,1_0\n", "1,2\n0x10,1_000\n",
	} {
		checkCSVSplits(t, fmt.Sprintf("%q", in), []byte(in))
	}
}

// TestReadCSVReadErrors: a failing reader is reported after the line
// read last, unless a line before the failure is at fault.
func TestReadCSVReadErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for _, in := range []string{"", "1,2\n", "1,2\n3,4", "x,y\n1,2\n3,", "1,2\nx,3\n4,5\n", "# c\n"} {
		for _, opt := range csvSplits() {
			mk := func() io.Reader {
				return io.MultiReader(iotest.OneByteReader(strings.NewReader(in)), iotest.ErrReader(boom))
			}
			want, wantErr := readCSVLines(mk(), "n", "f.csv", true)
			got, err := readCSVWith(mk(), "n", "f.csv", true, opt, nil)
			if diff := sameCSVResult(want, wantErr, got, err); diff != "" {
				t.Errorf("%q then an error, blocks of %d bytes: %s", in, opt.block, diff)
			}
			if err != nil && !strings.Contains(err.Error(), "line") {
				t.Errorf("%q: %v", in, err)
			}
		}
	}
	// A reader that never delivers fails as bufio.Scanner does.
	_, err := readCSVWith(iotest.ErrReader(nil), "n", "f.csv", true, defaultCSVOptions(), nil)
	if err == nil || !errors.Is(err, io.ErrNoProgress) || !strings.Contains(err.Error(), "reading after line 0") {
		t.Errorf("reader without progress: %v", err)
	}
}

// TestReadCSVLineLimit: a line of maxLine−1 bytes is read, one of maxLine
// bytes is too long, with a '\n' or at the end of the input, as with the
// line-by-line reference.
func TestReadCSVLineLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("reads lines of 64 MiB")
	}
	for _, tc := range []struct {
		pad  int
		end  string
		want string // "" for success
	}{
		{maxLine - 1, "\n", ""},
		{maxLine, "\n", "line 3 is longer than 64 MiB"},
		{maxLine - 1, "", ""},
		{maxLine, "", "line 3 is longer than 64 MiB"},
	} {
		// Line 3 is "1," and spaces up to pad bytes, then "2".
		in := make([]byte, 0, tc.pad+20)
		in = append(in, "x,y\n0,1\n1,"...)
		in = append(in, bytes.Repeat([]byte(" "), tc.pad-3)...)
		in = append(in, "2"+tc.end...)
		for _, opt := range []csvOptions{defaultCSVOptions(), {block: 1000, workers: 2}} {
			d, err := readCSVWith(bytes.NewReader(in), "n", "f.csv", true, opt, nil)
			switch {
			case tc.want == "" && (err != nil || d.Len() != 2 || d.Y[1] != 2):
				t.Errorf("line of %d bytes%q: %v", tc.pad, tc.end, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("line of %d bytes%q: %v, want %q", tc.pad, tc.end, err, tc.want)
			}
		}
		want, wantErr := readCSVLines(bytes.NewReader(in), "n", "f.csv", true)
		got, err := readCSVWith(bytes.NewReader(in), "n", "f.csv", true, defaultCSVOptions(), nil)
		if diff := sameCSVResult(want, wantErr, got, err); diff != "" {
			t.Errorf("line of %d bytes%q: %s", tc.pad, tc.end, diff)
		}
	}
}

// FuzzReadCSVSplits: reading in small blocks on several workers agrees
// with the line-by-line reference on any input.
func FuzzReadCSVSplits(f *testing.F) {
	for _, seed := range []string{
		"x,y\n1,2\n3,4\n",
		"1 2 3\n4 5 6\n# comment\n\n7 8 9\n",
		"\ufeffa,b\n1,NaN\n",
		"1,2\n3\n",
		"1,\"2\"\n",
		"1e400,1\n",
		"",
		"x,y\r\n1,2\r\n\r\n3,4,5\r\nq,1\n",
	} {
		f.Add([]byte(seed), uint16(3), uint8(2), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, block uint16, workers uint8, withTarget bool) {
		opt := csvOptions{block: 1 + int(block%512), workers: 1 + int(workers%4)}
		want, wantErr := readCSVLines(bytes.NewReader(data), "n", "f", withTarget)
		got, err := readCSVWith(bytes.NewReader(data), "n", "f", withTarget, opt, nil)
		if diff := sameCSVResult(want, wantErr, got, err); diff != "" {
			t.Fatalf("blocks of %d bytes on %d workers: %s", opt.block, opt.workers, diff)
		}
	})
}

// BenchmarkReadCSVLines reads BenchmarkReadCSV's input with the
// line-by-line reference, for comparison.
func BenchmarkReadCSVLines(b *testing.B) {
	data := benchCSV()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		d, err := readCSVLines(bytes.NewReader(data), "bench", "bench", true)
		if err != nil || d.Len() != 200000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadCSVOneWorker reads BenchmarkReadCSV's input in blocks on
// one worker.
func BenchmarkReadCSVOneWorker(b *testing.B) {
	data := benchCSV()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		d, err := readCSVWith(bytes.NewReader(data), "bench", "bench", true, csvOptions{block: 1 << 20, workers: 1}, nil)
		if err != nil || d.Len() != 200000 {
			b.Fatal(err)
		}
	}
}

// benchCSV is the input of BenchmarkReadCSV.
func benchCSV() []byte {
	var buf bytes.Buffer
	buf.WriteString("x1,x2,x3,x4,x5,x6,x7,x8,y\n")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		for c := range 9 {
			if c > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64))
		}
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// checkDecimal fails if parseDecimal accepts s with another value than
// strconv.ParseFloat's, or accepts what ParseFloat rejects.
func checkDecimal(t *testing.T, s string) bool {
	t.Helper()
	v, ok := parseDecimal(s)
	if !ok {
		return false
	}
	w, err := strconv.ParseFloat(s, 64)
	if err != nil || math.Float64bits(v) != math.Float64bits(w) {
		t.Fatalf("parseDecimal(%q) = %v (%#x), ParseFloat = %v (%#x), %v", s, v, math.Float64bits(v), w, math.Float64bits(w), err)
	}
	return true
}

// TestParseDecimal: the fast path agrees with strconv.ParseFloat bit for
// bit, and takes the common forms.
func TestParseDecimal(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"0", "-0", "+0", "0.0", "-0.000", ".5", "5.", "-.5e1", "1e22", "1e-22", "9007199254740992", "-9007199254740992e-22",
		"0.1", "0.3", "123.456", "1E5", "2.5e+3", "2.5e-3", "000123.4500", "0.000000000000000000001", "4.35", "1234567890123456",
		"9007199254740993", "1e23", "1e-23", "12345678901234567890", "1x", "1e", "1e+", "e5", ".", "-", "+-1", "1..2", "1.2.3",
		"1_0", "0x10", "inf", "NaN", " 1", "1 ", "1e5x", "1e0000000000000000000000001", "0e999", "1e-999",
	} {
		checkDecimal(t, s)
	}
	for _, s := range []string{"0", "-0", "1.5", "-2.25e-3", ".5", "5.", "0.6581793012470213", "1e22", "9007199254740992"} {
		if _, ok := parseDecimal(s); !ok {
			t.Errorf("parseDecimal(%q) declined", s)
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	taken := 0
	for range 200000 {
		v := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
		s := strconv.FormatFloat(v, "gefE"[rng.IntN(4)], rng.IntN(19)-1, 64)
		if checkDecimal(t, s) {
			taken++
		}
		// Random digit strings, which need not be shortest representations.
		b := []byte(strconv.FormatUint(rng.Uint64()>>rng.IntN(64), 10))
		if k := rng.IntN(len(b) + 1); k < len(b) {
			b = append(b[:k:k], append([]byte("."), b[k:]...)...)
		}
		if rng.IntN(2) == 0 {
			b = strconv.AppendInt(append(b, 'e'), int64(rng.IntN(50)-25), 10)
		}
		checkDecimal(t, string(b))
	}
	if taken < 100000 {
		t.Errorf("the fast path took only %d of 200000 formatted numbers", taken)
	}
}

// FuzzParseDecimal: the fast path agrees with strconv.ParseFloat on any
// string it accepts.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"1.5", "-0", ".5e-3", "9007199254740993", "1e22", "0.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkDecimal(t, s) })
}
