package data

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// FuzzReadCSV: any input gives either an error of bounded length or a
// data set of finite numbers with consistent shapes.
func FuzzReadCSV(f *testing.F) {
	for _, seed := range []string{
		"x,y\n1,2\n3,4\n",
		"1 2 3\n4 5 6\n# comment\n\n7 8 9\n",
		"\ufeffa,b\n1,NaN\n",
		"1,2\n3\n",
		"1,\"2\"\n",
		"1e400,1\n",
		"",
		strings.Repeat("1,", 1000) + "1\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadCSV(bytes.NewReader(data), "fuzz")
		if err != nil {
			if len(err.Error()) > 400 {
				t.Fatalf("error message of %d bytes: %.100s…", len(err.Error()), err)
			}
			return
		}
		n := d.X.Len()
		if n == 0 || len(d.Y) != n || d.X.Dim() < 1 {
			t.Fatalf("%d rows, %d targets, dimension %d", n, len(d.Y), d.X.Dim())
		}
		for i := range n {
			for _, v := range append(d.X.Row(i), d.Y[i]) {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("non-finite value %v in row %d", v, i)
				}
			}
		}
	})
}

// TestReadCSVLimits: an endless line fails with a clear message, and a
// bad cell is quoted by a short excerpt only.
func TestReadCSVLimits(t *testing.T) {
	t.Parallel()
	_, err := ReadCSV(&zeros{left: maxLine + 1024}, "zeros")
	if err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("endless line: %v", err)
	}
	_, err = ReadCSV(strings.NewReader("x,y\n1,2\n\n3,"+strings.Repeat("z", 10000)+"\n"), "long")
	if err == nil || !strings.Contains(err.Error(), "line 4") || len(err.Error()) > 200 {
		t.Errorf("bad long cell: %v", err)
	}
}

// zeros is a reader of left zero bytes.
type zeros struct{ left int }

func (z *zeros) Read(p []byte) (int, error) {
	if z.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), z.left)
	clear(p[:n])
	z.left -= n
	return n, nil
}

// BenchmarkReadCSV reads a generated CSV of 200,000 rows × 9 numbers
// (about 16 MB, the layout of a million-row file at a fifth of the size)
// and reports MB/s.
func BenchmarkReadCSV(b *testing.B) {
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
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		d, err := ReadCSV(bytes.NewReader(data), "bench")
		if err != nil || d.Len() != 200000 {
			b.Fatal(err)
		}
	}
}
