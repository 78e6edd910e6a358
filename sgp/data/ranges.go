package data

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// This file reads a share of the rows of a CSV file, for the ranks of a
// distributed fit (sgp/comm), so that no rank holds all the rows. The
// file is cut into byte ranges, part k of P being [size·k/P, size·(k+1)/P);
// a range owns every line that starts in it, a line starting in the
// previous range being skipped up to its end. CountCSVPart counts one
// range's lines, a cheap pass; once every rank knows every range's counts
// (an all-gather of ints), ReadCSVRows reads any span of rows with the
// global line numbers in its errors. The lines are the ones ReadCSV
// reads, one row a line: like ReadCSV, the readers give a double quote no
// meaning beyond the cell it encloses, so a quoted cell cannot hold a
// line break under any number of ranks.

// CSVCount is what CountCSVPart counts in one byte range of a file.
type CSVCount struct {
	// Lines is the number of lines that start in the range.
	Lines int
	// Rows is the number of them that are data rows to ReadCSV: not
	// blank, not '#' comments, not the header. A row with a missing
	// value is one of them, even where ReadOptions.DropMissing drops it.
	Rows int
}

// csvFirst is the first line of a file that is neither blank nor a
// comment: its 1-based number and where it starts, and whether it is a
// header; line 0 without one.
type csvFirst struct {
	line   int
	start  int64
	header bool
}

// contentLine returns the text of line lineNo (raw, without its '\n')
// that ReadCSV parses: trimmed of spaces and of the "\r" of a "\r\n",
// and of a byte order mark on line 1. Blank lines and comments are ""
// or start with '#'.
func contentLine(raw string, lineNo int) string {
	line := strings.TrimSpace(raw)
	if lineNo == 1 {
		line = strings.TrimPrefix(line, "\uFEFF")
	}
	return line
}

// isRow reports whether a content line (contentLine) is a row or the
// header, rather than blank or a comment.
func isRow(line string) bool { return line != "" && line[0] != '#' }

// rawIsRow is isRow(contentLine(string(raw), lineNo)) without the copy.
func rawIsRow(raw []byte, lineNo int) bool {
	line := bytes.TrimSpace(raw)
	if lineNo == 1 {
		line = bytes.TrimPrefix(line, []byte("\uFEFF"))
	}
	return len(line) > 0 && line[0] != '#'
}

// partStart returns the offset of byte range part of parts in a file of
// size bytes.
func partStart(size int64, part, parts int) int64 {
	// size·part/parts without overflowing for any size of file.
	q, r := size/int64(parts), size%int64(parts)
	return q*int64(part) + r*int64(part)/int64(parts)
}

// lineScanner reads the lines of a file from an offset, keeping count of
// where each starts.
type lineScanner struct {
	r   *bufio.Reader
	pos int64 // where the next line starts
	buf []byte
}

// newLineScanner returns a scanner of f's lines from the first that
// starts at or after off.
func newLineScanner(f *os.File, off int64) (*lineScanner, error) {
	start := max(off-1, 0)
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return nil, err
	}
	s := &lineScanner{r: bufio.NewReaderSize(f, 64<<10), pos: start}
	if off > 0 {
		// The line starts at off if the byte before it ends a line;
		// otherwise the line holding off belongs to the range before.
		if _, err := s.next(); err != nil && err != io.EOF {
			return nil, err
		}
	}
	return s, nil
}

// next returns the next line, without its '\n', and advances; io.EOF
// when no line starts before the end of the file. A line of more than
// maxLine bytes is returned cut to its first maxLine + 1, which the
// parser reports as too long (ReadCSV's limit), without holding it all.
func (s *lineScanner) next() ([]byte, error) {
	s.buf = s.buf[:0]
	for {
		frag, err := s.r.ReadSlice('\n')
		s.pos += int64(len(frag))
		if len(s.buf) < maxLine {
			s.buf = append(s.buf, frag[:min(len(frag), maxLine-len(s.buf)+1)]...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(s.buf) == 0:
			return nil, io.EOF
		case err != nil && err != io.EOF:
			return nil, err
		}
		return bytes.TrimSuffix(s.buf, []byte{'\n'}), nil
	}
}

// firstLine finds the file's first line that is neither blank nor a
// comment, and whether ReadCSV takes it for a header.
func firstLine(f *os.File) (csvFirst, error) {
	s, err := newLineScanner(f, 0)
	if err != nil {
		return csvFirst{}, err
	}
	for n := 1; ; n++ {
		start := s.pos
		raw, err := s.next()
		if err == io.EOF {
			return csvFirst{}, nil
		}
		if err != nil {
			return csvFirst{}, err
		}
		if line := contentLine(string(raw), n); isRow(line) {
			return csvFirst{line: n, start: start, header: isHeader(splitCells(line, strings.Contains(line, ",")))}, nil
		}
	}
}

// CountCSVPart counts the lines that start in byte range part of parts of
// the CSV file at path (0 ≤ part < parts), and the data rows among them:
// the first pass of a read shared by parts ranks, each counting its own
// part, before ReadCSVRows. It reads the part's lines and the file's
// first lines up to the header, if any.
func CountCSVPart(path string, part, parts int) (CSVCount, error) {
	if parts < 1 || part < 0 || part >= parts {
		return CSVCount{}, fmt.Errorf("sgp: part %d of %d of a CSV file", part, parts)
	}
	f, size, err := openSized(path)
	if err != nil {
		return CSVCount{}, err
	}
	defer f.Close()
	first, err := firstLine(f)
	if err != nil {
		return CSVCount{}, fmt.Errorf("sgp: %s: %w", path, err)
	}
	lo, hi := partStart(size, part, parts), partStart(size, part+1, parts)
	s, err := newLineScanner(f, lo)
	if err != nil {
		return CSVCount{}, fmt.Errorf("sgp: %s: %w", path, err)
	}
	var c CSVCount
	for s.pos < hi {
		start := s.pos
		raw, err := s.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return CSVCount{}, fmt.Errorf("sgp: %s: %w", path, err)
		}
		c.Lines++
		// Only line 1 has a byte order mark, and a line starting at 0 is
		// line 1.
		n := 2
		if start == 0 {
			n = 1
		}
		if rawIsRow(raw, n) && !(first.header && start == first.start) {
			c.Rows++
		}
	}
	return c, nil
}

// openSized opens path and returns its size.
func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("sgp: cannot open CSV file: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("sgp: cannot open CSV file: %w", err)
	}
	return f, st.Size(), nil
}

// PartRows returns the data rows [lo, hi) of byte range part, by the
// counts of every part in order (CountCSVPart's): the rows ReadCSVRows
// reads for a rank that takes the rows of its own range.
func PartRows(counts []CSVCount, part int) (lo, hi int) {
	for k := range part {
		lo += counts[k].Rows
	}
	return lo, lo + counts[part].Rows
}

// ReadCSVRows reads data rows [lo, hi) (0-based, counted as CSVCount.Rows
// counts them) of the CSV file at path, as ReadCSVFileWith reads the
// whole file: the same header, names and checks of every row, and errors
// naming the file's line, as ReadCSV's. counts are CountCSVPart's counts
// of every byte range of the file, in order, for any number of ranges;
// they locate the rows without reading the lines before them.
//
// Every caller reads the file's first lines, up to its first data row,
// which fix the header and the number of columns, so an error there is
// every caller's. An error of a row in [lo, hi) is the caller's alone: the
// first failing line of the file is that of the first caller, in row
// order, with an error. A *MissingError counts the rows in [lo, hi) only.
// With DropMissing, a caller whose every row was dropped gets the
// *MissingError, which is the job's error only if no caller keeps a row
// (JobError). With lo = hi the Dataset's X is nil and Y empty; a file
// without data rows is ReadCSV's error for every caller.
func ReadCSVRows(path string, o ReadOptions, counts []CSVCount, lo, hi int) (*Dataset, error) {
	opt := defaultCSVOptions()
	opt.dropMissing = o.DropMissing
	return readCSVRows(path, opt, counts, lo, hi)
}

// readCSVRows implements ReadCSVRows with the work split as opt says.
func readCSVRows(path string, opt csvOptions, counts []CSVCount, lo, hi int) (*Dataset, error) {
	total := 0
	for _, c := range counts {
		total += c.Rows
	}
	if len(counts) == 0 || lo < 0 || lo > hi || hi > total {
		return nil, fmt.Errorf("sgp: %s: rows %d to %d of %d", path, lo, hi, total)
	}
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	base := filepath.Base(path)
	name := strings.TrimSuffix(base, filepath.Ext(base))
	c := &csvPool{opt: opt, parser: csvParser{label: path, withTarget: true}}
	c.failed.Store(math.MaxInt64)
	defer c.stop()
	if err := c.readPrefix(f); err != nil {
		return nil, err
	}
	if total == 0 {
		if c.parser.headerLine > 0 {
			return nil, fmt.Errorf("sgp: %s: no data rows after the header on line %d", path, c.parser.headerLine)
		}
		return nil, fmt.Errorf("sgp: %s: no data rows: the input is empty or holds only blank and '#' comment lines", path)
	}
	if lo == hi {
		return &Dataset{Name: name, Y: []float64{}, TargetName: c.parser.targetName()}, nil
	}
	if err := c.feedRows(f, size, counts, lo, hi); err != nil {
		return nil, err
	}
	c.stop()
	parts, rows, err := c.collect()
	if err != nil {
		return nil, err
	}
	miss := c.parser.missing(parts)
	if miss != nil && (!opt.dropMissing || rows == 0) {
		return nil, miss
	}
	ds, err := c.parser.dataset(name, parts, rows)
	if err != nil {
		return nil, err
	}
	if miss != nil {
		ds.Dropped = miss.Rows
	}
	return ds, nil
}

// targetName returns the header's name of the target, "" without one.
func (p *csvParser) targetName() string {
	if p.header == nil || !p.withTarget {
		return ""
	}
	return p.header[len(p.header)-1]
}

// readPrefix parses the file's lines up to its first data row, which fix
// the parser (the header, the separator, the number of columns); the
// row itself is parsed again with the rows it belongs to.
func (c *csvPool) readPrefix(f *os.File) error {
	s, err := newLineScanner(f, 0)
	if err != nil {
		return fmt.Errorf("sgp: %s: %w", c.parser.label, err)
	}
	scratch := &csvPart{}
	for n := 0; c.parser.cols == 0; n++ {
		raw, err := s.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return c.parser.readError(n, err)
		}
		if c.parser.parse(string(raw), n, scratch); scratch.err != nil {
			return scratch.err
		}
		scratch.x, scratch.y = scratch.x[:0], scratch.y[:0]
	}
	return nil
}

// feedRows hands the lines of rows [lo, hi) to the workers in blocks of
// whole lines, from the first byte range that holds row lo.
func (c *csvPool) feedRows(f *os.File, size int64, counts []CSVCount, lo, hi int) error {
	q, rowsBefore, linesBefore := 0, 0, 0
	for q < len(counts)-1 && rowsBefore+counts[q].Rows <= lo {
		rowsBefore += counts[q].Rows
		linesBefore += counts[q].Lines
		q++
	}
	s, err := newLineScanner(f, partStart(size, q, len(counts)))
	if err != nil {
		return fmt.Errorf("sgp: %s: %w", c.parser.label, err)
	}
	var block strings.Builder
	blockBefore := linesBefore // lines before the block
	row, n := rowsBefore, linesBefore
	for row < hi && !c.hasFailed() {
		raw, err := s.next()
		if err == io.EOF {
			return fmt.Errorf("sgp: %s: the file ends at line %d, before row %d of %d: has it changed while it was read?", c.parser.label, n, hi, hi)
		}
		if err != nil {
			return c.parser.readError(n, err)
		}
		n++
		isData := rawIsRow(raw, n) && n != c.parser.headerLine
		if row < lo || (block.Len() == 0 && !isData) {
			// Before row lo, and the blank lines, comments and header
			// before a block's first row, are not parsed.
			if isData {
				row++
			}
			blockBefore = n
			continue
		}
		block.Write(raw)
		block.WriteByte('\n')
		if isData {
			row++
		}
		if block.Len() >= c.opt.block || row == hi {
			text := block.String()
			c.submit(text, blockBefore, countLines(text), row == hi)
			block.Reset()
			blockBefore = n
		}
	}
	return nil
}

// RowsOutcome is what ReadCSVRows came to on one rank, in the integers an
// all-gather carries to the others (Ints, RowsOutcomeOf), for JobError.
type RowsOutcome struct {
	Failed  int // 0: rows read; 1: a *MissingError; 2: another error
	Missing int // the rows with a missing value: the error's, or those dropped
	Rows    int // the rows read
}

// RowsOutcomeOf returns the outcome of ReadCSVRows's ds and err.
func RowsOutcomeOf(ds *Dataset, err error) RowsOutcome {
	var me *MissingError
	switch {
	case errors.As(err, &me):
		return RowsOutcome{Failed: 1, Missing: me.Rows}
	case err != nil:
		return RowsOutcome{Failed: 2}
	}
	return RowsOutcome{Rows: ds.Len(), Missing: ds.Dropped}
}

// Ints returns the outcome as three integers, in the order of its fields.
func (o RowsOutcome) Ints() []int { return []int{o.Failed, o.Missing, o.Rows} }

// RowsOutcomes reads the outcomes of ranks from the integers of Ints,
// one rank's after the other.
func RowsOutcomes(ints []int) []RowsOutcome {
	out := make([]RowsOutcome, len(ints)/3)
	for r := range out {
		out[r] = RowsOutcome{Failed: ints[3*r], Missing: ints[3*r+1], Rows: ints[3*r+2]}
	}
	return out
}

// JobError returns, from the outcomes of the ranks that read a file's
// rows in rank order (rows in file order), the rank whose error is the
// read's, as ReadCSVFileWith would report it, and the number of rows
// with a missing value that error must count (MissingError.Rows); rank −1
// when the read succeeds. As in ReadCSV, an error other than a missing
// value wins, the first in the file; then the rows with a missing value
// are an error located at the first, unless DropMissing drops them and
// some row is left.
func JobError(outs []RowsOutcome, dropMissing bool) (rank, missing int) {
	rank, rows := -1, 0
	for r, o := range outs {
		if o.Failed == 2 {
			return r, 0
		}
		if o.Missing > 0 && rank < 0 {
			rank = r
		}
		missing += o.Missing
		rows += o.Rows
	}
	if rank >= 0 && dropMissing && rows > 0 {
		return -1, missing
	}
	return rank, missing
}
