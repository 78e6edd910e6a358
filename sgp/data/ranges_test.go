package data

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"
)

// rankRead reads the file at path as p ranks would: each counts its byte
// range, then (with the counts of all) reads its span of rows; spans
// returns rank r's rows from the counts. It returns the ranks' datasets
// joined in rank order, or the error the job reports (JobError).
func rankRead(path string, o ReadOptions, p int, spans func(counts []CSVCount, r int) (lo, hi int)) (*Dataset, error) {
	counts := make([]CSVCount, p)
	for r := range p {
		c, err := CountCSVPart(path, r, p)
		if err != nil {
			return nil, err
		}
		counts[r] = c
	}
	dss, errs := make([]*Dataset, p), make([]error, p)
	var ints []int
	for r := range p {
		lo, hi := spans(counts, r)
		dss[r], errs[r] = ReadCSVRows(path, o, counts, lo, hi)
		if errs[r] == nil && hi-lo != dss[r].Len()+dss[r].Dropped {
			return nil, fmt.Errorf("rank %d read %d rows and dropped %d of rows [%d, %d)", r, dss[r].Len(), dss[r].Dropped, lo, hi)
		}
		ints = append(ints, RowsOutcomeOf(dss[r], errs[r]).Ints()...)
	}
	r, missing := JobError(RowsOutcomes(ints), o.DropMissing)
	if r >= 0 {
		var me *MissingError
		if errors.As(errs[r], &me) {
			me.Rows = missing
		}
		return nil, errs[r]
	}
	joined := &Dataset{Y: []float64{}, Dropped: missing}
	var x []float64
	for r, ds := range dss {
		if errs[r] != nil || ds.Len() == 0 {
			continue // no rows, or every row dropped
		}
		if joined.X == nil {
			joined.Name, joined.TargetName, joined.X = ds.Name, ds.TargetName, ds.X
		}
		if ds.TargetName != joined.TargetName || ds.Name != joined.Name {
			return nil, fmt.Errorf("rank %d: name %q, target %q; before: %q, %q", r, ds.Name, ds.TargetName, joined.Name, joined.TargetName)
		}
		joined.Y = append(joined.Y, ds.Y...)
		x = append(x, ds.X.RawData()...)
	}
	xs, err := kernel.NewVectors(joined.Len(), joined.X.Dim(), x)
	if err == nil && joined.X.Names() != nil {
		xs, err = xs.WithNames(joined.X.Names())
	}
	if err != nil {
		return nil, err
	}
	joined.X = xs
	return joined, nil
}

// evenSpans takes the rows of each rank's own byte range.
func evenSpans(counts []CSVCount, r int) (int, int) { return PartRows(counts, r) }

// blockSpans takes rows in whole blocks of 3, the blocks dealt as evenly
// as they go, as a distributed engine whose reductions run over fixed
// blocks of rows would.
func blockSpans(counts []CSVCount, r int) (int, int) {
	total := 0
	for _, c := range counts {
		total += c.Rows
	}
	blocks, p := (total+2)/3, len(counts)
	return min(total, 3*(blocks*r/p)), min(total, 3*(blocks*(r+1)/p))
}

// sameDataset reports how got differs from want, "" if in nothing.
func sameDataset(got, want *Dataset) string {
	switch {
	case got.Len() != want.Len():
		return fmt.Sprintf("%d rows, want %d", got.Len(), want.Len())
	case got.Name != want.Name || got.TargetName != want.TargetName:
		return fmt.Sprintf("named %q, target %q; want %q, %q", got.Name, got.TargetName, want.Name, want.TargetName)
	case got.Dropped != want.Dropped:
		return fmt.Sprintf("dropped %d, want %d", got.Dropped, want.Dropped)
	case !slices.Equal(got.X.Names(), want.X.Names()):
		return fmt.Sprintf("input names %q, want %q", got.X.Names(), want.X.Names())
	case got.X.Dim() != want.X.Dim():
		return fmt.Sprintf("%d inputs, want %d", got.X.Dim(), want.X.Dim())
	}
	for i := range want.Len() {
		if math.Float64bits(got.Y[i]) != math.Float64bits(want.Y[i]) {
			return fmt.Sprintf("row %d: target %v, want %v", i, got.Y[i], want.Y[i])
		}
		for j := range want.X.Dim() {
			if math.Float64bits(got.X.At(i, j)) != math.Float64bits(want.X.At(i, j)) {
				return fmt.Sprintf("row %d, input %d: %v, want %v", i, j, got.X.At(i, j), want.X.At(i, j))
			}
		}
	}
	return ""
}

// checkRanks compares, for P = 1 to 5 and both ways of dealing the rows,
// the ranks' read of the file at path with ReadCSVFileWith's: the same
// rows in order, or the same error.
func checkRanks(t *testing.T, path string, o ReadOptions) {
	t.Helper()
	want, wantErr := ReadCSVFileWith(path, o)
	for p := 1; p <= 5; p++ {
		for _, sp := range []struct {
			name  string
			spans func([]CSVCount, int) (int, int)
		}{{"ranges", evenSpans}, {"blocks", blockSpans}} {
			got, err := rankRead(path, o, p, sp.spans)
			switch {
			case wantErr != nil && err == nil:
				t.Errorf("%s, P=%d by %s: no error, want %v", filepath.Base(path), p, sp.name, wantErr)
			case wantErr != nil && err.Error() != wantErr.Error():
				t.Errorf("%s, P=%d by %s: error\n  %v\nwant\n  %v", filepath.Base(path), p, sp.name, err, wantErr)
			case wantErr == nil && err != nil:
				t.Errorf("%s, P=%d by %s: %v", filepath.Base(path), p, sp.name, err)
			case wantErr == nil:
				if diff := sameDataset(got, want); diff != "" {
					t.Errorf("%s, P=%d by %s: %s", filepath.Base(path), p, sp.name, diff)
				}
			}
		}
	}
}

// rangeFiles are small files of the shapes that make a reader by byte
// ranges go wrong: line ends, blank and comment lines, a byte order
// mark, fewer rows than ranks, bad rows in every place.
var rangeFiles = map[string]string{
	"header":           "a,b,y\n1,2,3\n4,5,6\n7,8,9\n10,11,12\n13,14,15\n16,17,18\n19,20,21\n",
	"crlf":             "a,b,y\r\n1,2,3\r\n4,5,6\r\n7,8,9\r\n10,11,12\r\n13,14,15\r\n16,17,18\r\n",
	"no final \\n":     "1 2 3\n4 5 6\n7 8 9\n10 11 12\n13 14 15\n16 17 18\n19 20 21",
	"blank lines":      "\n\n# comment\n   \nx,y\n\n1,2\n\n\n3,4\n# 5,6\n5,6\n  \t \n7,8\n\n9,10\n\n\n",
	"bom":              "\uFEFFa,b,y\n1,2,3\n4,5,6\n7,8,9\n",
	"bom comment":      "\uFEFF# made by hand\n1,2\n3,4\n5,6\n",
	"one row":          "a,y\n1,2\n",
	"one row, no \\n":  "1,2",
	"two rows":         "1,2\n3,4\n",
	"spaces":           "  1   2  \n\t3\t4\n 5 6\n7 8\n9 10\n11 12\n13 14\n15 16\n17 18\n19 20\n21 22\n",
	"long row":         "1,2\n" + strings.Repeat("1,", 300) + "2\n3,4\n",
	"quoted":           "\"a\",\"y\"\n\"1\",\"2\"\n\"3\",\"4\"\n5,6\n",
	"empty":            "",
	"only comments":    "# a\n\n# b\n",
	"header only":      "a,b,y\n",
	"bad header":       ",a,y\n1,2,3\n",
	"bad first row":    "a,y\n1,x\n3,4\n5,6\n",
	"bad middle row":   "a,y\n1,2\n3,4\n5,6\n7,oops\n9,10\n11,12\n13,14\n",
	"bad last row":     "1,2\n3,4\n5,6\n7,8\n9,10\n11,12\n13,14,15\n",
	"two bad rows":     "1,2\n3,4\n5,x\n7,8\n9,10\n11,12\n13,y\n15,16\n",
	"header mismatch":  "a,b,y\n1,2\n3,4\n",
	"semicolons":       "a;y\n1;2\n3;4\n",
	"inf":              "1,2\n3,4\n5,6\n7,inf\n9,10\n",
	"missing":          "a,y\n1,2\n3,\n5,6\nNA,8\n9,10\n11,12\n,14\n15,16\n",
	"missing then bad": "a,y\n1,2\n3,\n5,6\n7,8\n9,x\n11,12\n",
	"all missing":      "a,y\n1,\n,2\nNaN,3\n",
	"a block missing":  "a,y\n1,2\n3,4\n5,6\n7,\n,8\nNA,9\n10,11\n",
}

// TestReadCSVRowsFiles checks the reads by ranks of rangeFiles against
// ReadCSVFileWith's, with and without DropMissing.
func TestReadCSVRowsFiles(t *testing.T) {
	dir := t.TempDir()
	for name, text := range rangeFiles {
		path := filepath.Join(dir, strings.NewReplacer(" ", "_", ",", "", "\\", "").Replace(name)+".csv")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			checkRanks(t, path, ReadOptions{})
			checkRanks(t, path, ReadOptions{DropMissing: true})
		})
	}
}

// TestReadCSVRowsMany checks a file of many rows, with blank lines, in
// blocks of fewer bytes than it holds, so that the rows go to the
// workers in many blocks.
func TestReadCSVRowsMany(t *testing.T) {
	var b strings.Builder
	b.WriteString("u,v,target\r\n")
	for i := range 5003 {
		fmt.Fprintf(&b, "%d.5,%g,%d\r\n", i, 1/float64(i+1), i%7)
		if i%101 == 0 {
			b.WriteString("\r\n# a comment\r\n")
		}
	}
	path := filepath.Join(t.TempDir(), "many.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	checkRanks(t, path, ReadOptions{})

	// In blocks of 512 bytes on 3 workers: the blocks' rows joined in
	// order.
	want, err := ReadCSVFile(path)
	if err != nil {
		t.Fatal(err)
	}
	counts := []CSVCount{}
	for r := range 3 {
		c, err := CountCSVPart(path, r, 3)
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, c)
	}
	got, err := readCSVRows(path, csvOptions{block: 512, workers: 3}, counts, 0, want.Len())
	if err != nil {
		t.Fatal(err)
	}
	if diff := sameDataset(got, want); diff != "" {
		t.Errorf("in blocks of 512 bytes: %s", diff)
	}
}

// TestReadCSVRowsLongLine checks that a line over ReadCSV's limit in the
// middle of a file is the same error for the ranks.
func TestReadCSVRowsLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 64 MiB file")
	}
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "%d,%d\n", i, i)
	}
	b.WriteString(strings.Repeat("1", maxLine+10))
	b.WriteString(",2\n5,6\n")
	path := filepath.Join(t.TempDir(), "long.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, want := ReadCSVFile(path)
	if want == nil || !strings.Contains(want.Error(), "line 101 is longer") {
		t.Fatalf("ReadCSVFile: %v", want)
	}
	// Under 2 ranks the long line starts in the first range and ends in
	// the second.
	if _, err := rankRead(path, ReadOptions{}, 2, evenSpans); err == nil || err.Error() != want.Error() {
		t.Errorf("P=2: %v, want %v", err, want)
	}
}

// TestReadCSVRowsShared checks the reads by ranks of the shared data
// sets' text files against ReadCSVFileWith's: rows of numbers, and files
// of text columns whose first data row is an error.
func TestReadCSVRowsShared(t *testing.T) {
	dir := Dir("../../../shared/data")
	files := []string{"kin8nm/data.txt", "kin40k/kin40k_test_data.asc", "snelson1d/train_inputs", "lipophilicity/Lipophilicity.csv", "thrombin_chembl204/CHEMBL204_Ki.csv"}
	found := 0
	for _, f := range files {
		path := filepath.Join(dir, f)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		found++
		t.Run(f, func(t *testing.T) { checkRanks(t, path, ReadOptions{}) })
	}
	if found == 0 {
		t.Skipf("no shared data set under %s (%s)", dir, dataHint)
	}
}

// TestCountCSVPart checks that the parts' counts add up to the file's
// lines and rows, whatever the number of parts, and that every line is
// counted in exactly one part.
func TestCountCSVPart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.csv")
	text := "x,y\n\n1,2\n3,4\r\n# c\n5,6"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for p := 1; p <= 2*len(text); p++ {
		var sum CSVCount
		for r := range p {
			c, err := CountCSVPart(path, r, p)
			if err != nil {
				t.Fatal(err)
			}
			sum.Lines += c.Lines
			sum.Rows += c.Rows
		}
		if sum != (CSVCount{Lines: 6, Rows: 3}) {
			t.Errorf("P=%d: the parts count %+v, want 6 lines and 3 rows", p, sum)
		}
	}
	if _, err := CountCSVPart(path, 2, 2); err == nil {
		t.Error("part 2 of 2: no error")
	}
	if _, err := ReadCSVRows(path, ReadOptions{}, []CSVCount{{Lines: 6, Rows: 3}}, 2, 4); err == nil {
		t.Error("rows 2 to 4 of 3: no error")
	}
}

// FuzzReadCSVRows: for any file, the reads by P = 1 to 4 ranks (by byte
// ranges and by blocks of rows) give ReadCSVFileWith's rows, bit for bit,
// or its error, with and without DropMissing.
func FuzzReadCSVRows(f *testing.F) {
	for _, text := range rangeFiles {
		f.Add([]byte(text), false)
	}
	f.Add([]byte("\r\n\r\n1,2\r\n\r\n"), true)
	f.Fuzz(func(t *testing.T, text []byte, drop bool) {
		path := filepath.Join(t.TempDir(), "f.csv")
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
		o := ReadOptions{DropMissing: drop}
		want, wantErr := ReadCSVFileWith(path, o)
		for p := 1; p <= 4; p++ {
			for _, spans := range []func([]CSVCount, int) (int, int){evenSpans, blockSpans} {
				got, err := rankRead(path, o, p, spans)
				switch {
				case (err == nil) != (wantErr == nil):
					t.Fatalf("P=%d: error %v, want %v", p, err, wantErr)
				case err != nil && err.Error() != wantErr.Error():
					t.Fatalf("P=%d: error\n  %v\nwant\n  %v", p, err, wantErr)
				case err == nil:
					if diff := sameDataset(got, want); diff != "" {
						t.Fatalf("P=%d: %s", p, diff)
					}
				}
			}
		}
	})
}

// BenchmarkReadCSVRows reads the file of BenchmarkReadCSV (200,000 rows ×
// 9 numbers) from disk, as one rank of P reads its share: the count of
// its byte range, then its rows; MB/s is of the whole file, so that P
// ranks reading at once would take the time of one.
func BenchmarkReadCSVRows(b *testing.B) {
	var buf strings.Builder
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
	path := filepath.Join(b.TempDir(), "bench.csv")
	if err := os.WriteFile(path, []byte(buf.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, p := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("P=%d", p), func(b *testing.B) {
			counts := make([]CSVCount, p)
			for r := range p {
				c, err := CountCSVPart(path, r, p)
				if err != nil {
					b.Fatal(err)
				}
				counts[r] = c
			}
			b.SetBytes(int64(buf.Len()))
			b.ResetTimer()
			for range b.N {
				if _, err := CountCSVPart(path, p-1, p); err != nil {
					b.Fatal(err)
				}
				lo, hi := PartRows(counts, p-1)
				d, err := ReadCSVRows(path, ReadOptions{}, counts, lo, hi)
				if err != nil || d.Len() != hi-lo {
					b.Fatal(err)
				}
			}
		})
	}
}
