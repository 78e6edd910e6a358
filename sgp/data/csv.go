package data

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/cholqr/sgp/sgp/internal/par"
	"github.com/cholqr/sgp/sgp/internal/table"
	"github.com/cholqr/sgp/sgp/kernel"
)

// This file holds the parallel CSV reader behind ReadCSV, ReadCSVFile and
// ReadInputsCSV (read.go). The input is read in blocks of whole lines;
// the first lines, up to the first data row (which fixes the separator and
// the number of columns), are parsed one by one by the caller, every later
// block by one of GOMAXPROCS workers. The blocks' rows are joined in file
// order, and the error reported is that of the first failing line in the
// file, so the result is the one of reading the lines one by one with a
// bufio.Scanner limited to maxLine bytes a line: the same rows, the same
// messages (dataset_csv_test.go keeps such a reader as the reference).
// The memory held is the blocks' rows and their joined copy, twice the
// parsed data, and a few blocks of input. Once a block fails, the blocks
// after it are skipped and reading stops.

// csvOptions sets how readCSVWith splits its work.
type csvOptions struct {
	block   int // bytes read before a block of whole lines is handed on (1 to maxLine)
	workers int // goroutines parsing blocks (≥ 1)
	// dropMissing drops the rows with a missing value (ReadOptions)
	// instead of failing with a *MissingError.
	dropMissing bool
}

// defaultCSVOptions: blocks of 1 MiB, one worker per processor.
func defaultCSVOptions() csvOptions {
	return csvOptions{block: 1 << 20, workers: runtime.GOMAXPROCS(0)}
}

// csvParser parses lines of a numeric CSV file. Its fields other than
// label and withTarget are fixed by the first lines (the header, if any,
// and the first data row); a copy taken after the first data row parses
// any later block of lines on its own.
type csvParser struct {
	label      string
	withTarget bool
	sel        *csvSelect // which columns are read (ReadPredictCSV); nil: all
	seenFirst  bool       // a non-blank, non-comment line has been seen
	headerLine int        // line of the header, 0 if none
	header     []string   // the header's cells, nil if none
	cols       int        // number of columns of the data rows, 0 until the first one
	colsLine   int        // line that fixed cols
	comma      bool       // separator of the data rows
	keep       []int      // with sel: column j's place among the values read, −1 for a column not read
	dOut       int        // with sel: values read per row
}

// csvSelect chooses the columns a reader reads, and which first lines
// are headers, for ReadPredictCSV.
type csvSelect struct {
	// isHeader reports whether the first line, of cells, is a header.
	isHeader func(cells []string) bool
	// choose returns, once the first data row has fixed the number of
	// columns cols, the place of each column among the values read (−1
	// for a column not read) and their number; header is nil without a
	// header row. Its error is reported for the line of that row.
	choose func(header []string, cols int) (keep []int, d int, err error)
}

// headerTest reports whether the first line, of cells, is a header.
func (p *csvParser) headerTest(cells []string) bool {
	if p.sel != nil {
		return p.sel.isHeader(cells)
	}
	return isHeader(cells)
}

// outDim returns the number of input values read per row.
func (p *csvParser) outDim() int {
	switch {
	case p.sel != nil:
		return p.dOut
	case p.withTarget:
		return p.cols - 1
	}
	return p.cols
}

// csvPart holds the rows parsed from one block of lines: inputs x
// (row-major) and targets y, or the first error in the block.
type csvPart struct {
	x, y  []float64
	rows  int
	err   error
	panic *par.Panic // a panic while parsing, raised again by the caller
	// missing counts the rows skipped for a missing value (isMissing);
	// missLine and missCol locate the first of them.
	missing, missLine, missCol int
}

// tooLong is the error for line lineNo exceeding maxLine bytes.
func (p *csvParser) tooLong(lineNo int) error {
	return fmt.Errorf("sgp: %s: line %d is longer than %d MiB; is this a CSV file?", p.label, lineNo, maxLine>>20)
}

// readError is the error for a failed read after line lineNo.
func (p *csvParser) readError(lineNo int, err error) error {
	if errors.Is(err, bufio.ErrTooLong) {
		return p.tooLong(lineNo + 1)
	}
	return fmt.Errorf("sgp: %s: reading after line %d: %w", p.label, lineNo, err)
}

// parse parses text, whole lines of which the first is line before+1 (the
// last line may lack its '\n'), appending the rows to part. It stops at
// the first error, which it stores in part.err, and returns the number of
// lines it consumed.
func (p *csvParser) parse(text string, before int, part *csvPart) int {
	lineNo := before
	var row []float64
	for len(text) > 0 {
		raw := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			raw, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		lineNo++
		if len(raw) >= maxLine {
			part.err = p.tooLong(lineNo)
			return lineNo - before
		}
		// TrimSpace also removes the '\r' of a "\r\n" line end.
		line := strings.TrimSpace(raw)
		if lineNo == 1 {
			line = strings.TrimPrefix(line, "\uFEFF") // byte order mark
		}
		if line == "" || line[0] == '#' {
			continue
		}
		if !p.seenFirst {
			p.seenFirst = true
			header, err := p.readHeader(line, lineNo)
			if err != nil {
				part.err = err
				return lineNo - before
			}
			if header {
				continue
			}
		}
		if p.cols == 0 && p.sel != nil {
			if err := p.selectColumns(line, lineNo); err != nil {
				part.err = err
				return lineNo - before
			}
		}
		var n, missCol int
		if row, n, missCol, part.err = p.parseRow(line, lineNo, row); part.err != nil {
			return lineNo - before
		}
		if missCol > 0 {
			// A row with a missing value is counted and skipped; the
			// reader fails at the end unless it drops such rows.
			if part.missing == 0 {
				part.missLine, part.missCol = lineNo, missCol
			}
			part.missing++
			continue
		}
		if p.withTarget {
			part.x = append(part.x, row[:n-1]...)
			part.y = append(part.y, row[n-1])
		} else {
			part.x = append(part.x, row...)
		}
		part.rows++
	}
	return lineNo - before
}

// readHeader reports whether the first non-blank line, line lineNo, is a
// header row, and records it; a header with bad names is an error.
func (p *csvParser) readHeader(line string, lineNo int) (bool, error) {
	cells := splitCells(line, strings.Contains(line, ","))
	if !p.headerTest(cells) {
		return false, nil
	}
	p.headerLine, p.header = lineNo, cells
	if err := headerError(cells, p.sel == nil); err != nil {
		return true, fmt.Errorf("sgp: %s: line %d: %w", p.label, lineNo, err)
	}
	return true, nil
}

// selectColumns chooses the columns read from the first data row, line
// lineNo, before its cells are parsed.
func (p *csvParser) selectColumns(line string, lineNo int) error {
	n := len(strings.Fields(line))
	if strings.Contains(line, ",") {
		n = strings.Count(line, ",") + 1
	}
	if p.header != nil && n != len(p.header) {
		return p.headerCount(lineNo, n)
	}
	keep, d, err := p.sel.choose(p.header, n)
	if err != nil {
		return fmt.Errorf("sgp: %s: %w", p.label, err)
	}
	p.keep, p.dOut = keep, d
	return nil
}

// parseRow parses the cells of the data row on line lineNo into row (its
// storage reused) and returns it with the row's number of cells and the
// 1-based column of its first missing value (0 for none). The first
// data row sets the number of columns and the separator. A wrong number
// of cells is reported before a bad cell, except that a first data row
// whose cells do not match the header's is reported after a cell that is
// not a number (a file separated by ';' has both).
func (p *csvParser) parseRow(line string, lineNo int, row []float64) ([]float64, int, int, error) {
	if p.cols == 0 {
		p.comma = strings.Contains(line, ",")
	}
	row, n, bad, badCol, missCol := p.cells(line, row)
	if n < 2 && p.withTarget {
		return row, n, 0, fmt.Errorf("sgp: %s: line %d has %d column; need at least 2 (the inputs, then the target in the last column)%s", p.label, lineNo, n, separatorHint(line))
	}
	headerCount := false
	if p.cols == 0 {
		headerCount = p.header != nil && n != len(p.header)
		p.cols, p.colsLine = n, lineNo
	} else if n != p.cols {
		return row, n, 0, fmt.Errorf("sgp: %s: line %d has %d columns, but line %d has %d; every row needs the same number of columns", p.label, lineNo, n, p.colsLine, p.cols)
	}
	if bad != nil {
		return row, n, 0, fmt.Errorf("sgp: %s: line %d, column %d%s: %w%s", p.label, lineNo, badCol, p.columnName(badCol), bad, separatorHint(line))
	}
	if headerCount {
		return row, n, 0, p.headerCount(lineNo, n)
	}
	return row, n, missCol, nil
}

// columnName returns the header's name of the 1-based column col as
// ` ("name")`, or "" without a header.
func (p *csvParser) columnName(col int) string {
	if col < 1 || col > len(p.header) {
		return ""
	}
	return fmt.Sprintf(" (%q)", table.Short(p.header[col-1]))
}

// cells parses the cells of line into row, the columns read in their
// places (p.keep) or all in order, and returns row, the number n of cells,
// the first bad cell's error with its 1-based column, and the 1-based
// column of the first missing value (isMissing), whose place holds NaN.
func (p *csvParser) cells(line string, row []float64) (_ []float64, n int, bad error, badCol, missCol int) {
	row = row[:0]
	if p.keep != nil {
		// Every place is set by its column, for a row without error.
		if cap(row) < p.dOut {
			row = make([]float64, p.dOut)
		}
		row = row[:p.dOut]
	}
	cell := func(c string) {
		j := n
		n++
		if bad != nil {
			return
		}
		// A column not read is not parsed; a wrong number of cells
		// is reported by the caller.
		if p.keep != nil && (j >= len(p.keep) || p.keep[j] < 0) {
			return
		}
		v, ok := parseDecimal(c)
		if !ok && isMissing(c) {
			v = math.NaN()
			if missCol == 0 {
				missCol = n
			}
		} else if !ok {
			var err error
			if v, err = parseCell(c); err != nil {
				bad, badCol = err, n
				return
			}
		}
		if p.keep != nil {
			row[p.keep[j]] = v
		} else {
			row = append(row, v)
		}
	}
	if p.comma {
		for rest := line; ; {
			i := strings.IndexByte(rest, ',')
			if i < 0 {
				cell(cleanCell(rest))
				break
			}
			cell(cleanCell(rest[:i]))
			rest = rest[i+1:]
		}
	} else {
		for c := range strings.FieldsSeq(line) {
			cell(c)
		}
	}
	return row, n, bad, badCol, missCol
}

// headerCount is the error for the first data row, on line lineNo, having
// n cells where the header has another number.
func (p *csvParser) headerCount(lineNo, n int) error {
	return fmt.Errorf("sgp: %s: line %d has %d columns, but the header on line %d names %d; every row needs one value per named column", p.label, lineNo, n, p.headerLine, len(p.header))
}

// headerError returns what is wrong with a header row's cells as column
// names: a first cell that is empty, the row index pandas writes, and
// with all, any other empty or repeated name.
func headerError(cells []string, all bool) error {
	if len(cells) > 1 && cells[0] == "" {
		return errors.New("the header's first column has no name: it is the row index that pandas' DataFrame.to_csv() writes; write the file with to_csv(index=False), or drop that column (cut -d, -f2-)")
	}
	if !all {
		return nil
	}
	if err := kernel.CheckNames(cells, len(cells)); err != nil {
		return fmt.Errorf("the header names its columns badly: %w", err)
	}
	return nil
}

// csvJob is a block of lines for a worker; the parsed part is sent on done.
type csvJob struct {
	idx    int    // position of the block among all blocks
	text   string // whole lines
	before int    // lines before text
	lines  int    // lines in text
	done   chan *csvPart
}

// csvPool parses blocks on worker goroutines and keeps their results in
// file order.
type csvPool struct {
	opt     csvOptions
	parser  csvParser   // fixed once the first data row has been read
	jobs    chan csvJob // nil until the first worker starts
	wg      sync.WaitGroup
	results []chan *csvPart // one per block, in file order
	failed  atomic.Int64    // smallest index of a block that failed
}

// add records a part parsed by the caller.
func (c *csvPool) add(part *csvPart) {
	ch := make(chan *csvPart, 1)
	ch <- part
	c.results = append(c.results, ch)
	if part.err != nil {
		c.fail(len(c.results) - 1)
	}
}

// fail records that block idx holds an error.
func (c *csvPool) fail(idx int) {
	for {
		old := c.failed.Load()
		if int64(idx) >= old || c.failed.CompareAndSwap(old, int64(idx)) {
			return
		}
	}
}

// hasFailed reports whether some block holds an error, which makes the
// input after it irrelevant.
func (c *csvPool) hasFailed() bool { return c.failed.Load() != math.MaxInt64 }

// submit hands a block of lines, parsed by c.parser, to the workers; with
// last and no worker started, it parses the block at once instead.
func (c *csvPool) submit(text string, before, lines int, last bool) {
	if c.jobs == nil && last {
		part := c.newPart(lines)
		p := c.parser
		p.parse(text, before, part)
		c.add(part)
		return
	}
	if c.jobs == nil {
		c.jobs = make(chan csvJob, c.opt.workers)
		for range c.opt.workers {
			c.wg.Add(1)
			go c.work()
		}
	}
	j := csvJob{idx: len(c.results), text: text, before: before, lines: lines, done: make(chan *csvPart, 1)}
	c.results = append(c.results, j.done)
	c.jobs <- j
}

// newPart returns a part with room for the rows of a block of lines.
func (c *csvPool) newPart(lines int) *csvPart {
	d := c.parser.outDim()
	part := &csvPart{x: make([]float64, 0, lines*d)}
	if c.parser.withTarget {
		part.y = make([]float64, 0, lines)
	}
	return part
}

// work parses blocks until the jobs channel is closed; blocks after a
// failed one are skipped.
func (c *csvPool) work() {
	defer c.wg.Done()
	for j := range c.jobs {
		if int64(j.idx) > c.failed.Load() {
			j.done <- &csvPart{}
			continue
		}
		j.done <- c.parseJob(j)
	}
}

// parseJob parses a block for work, recording a panic in the part.
func (c *csvPool) parseJob(j csvJob) (part *csvPart) {
	part = c.newPart(j.lines)
	defer func() {
		if r := recover(); r != nil {
			part.panic = par.Capture(r, -1, -1)
		}
		if part.err != nil || part.panic != nil {
			c.fail(j.idx)
		}
	}()
	p := c.parser
	p.parse(j.text, j.before, part)
	return part
}

// stop ends the workers once they have finished their blocks.
func (c *csvPool) stop() {
	if c.jobs != nil {
		close(c.jobs)
		c.wg.Wait()
		c.jobs = nil
	}
}

// readSome reads into p as bufio.Scanner does: a reader that returns
// neither data nor an error 100 times in a row fails with io.ErrNoProgress,
// one that claims an impossible count with bufio.ErrBadReadCount.
func readSome(r io.Reader, p []byte) (int, error) {
	for empty := 0; ; {
		n, err := r.Read(p)
		if n < 0 || n > len(p) {
			return 0, bufio.ErrBadReadCount
		}
		if n > 0 || err != nil {
			return n, err
		}
		if empty++; empty > 100 {
			return 0, io.ErrNoProgress
		}
	}
}

// countLines returns the number of lines in text: its '\n's, and one more
// if it does not end with one.
func countLines(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && text[len(text)-1] != '\n' {
		n++
	}
	return n
}

// readCSVWith implements readCSV with the work split as opt says, reading
// the columns sel chooses (nil: all).
func readCSVWith(r io.Reader, name, label string, withTarget bool, opt csvOptions, sel *csvSelect) (*Dataset, error) {
	if label == "" {
		label = "CSV input"
	}
	opt.block, opt.workers = min(max(opt.block, 1), maxLine), max(opt.workers, 1)
	c := &csvPool{opt: opt, parser: csvParser{label: label, withTarget: withTarget, sel: sel}}
	c.failed.Store(math.MaxInt64)
	defer c.stop()

	tail := c.feed(r)
	c.stop()
	parts, rows, err := c.collect()
	if err != nil {
		return nil, err
	}
	if tail != nil {
		return nil, tail
	}
	miss := c.parser.missing(parts)
	if miss != nil && (!opt.dropMissing || rows == 0) {
		return nil, miss // with every row dropped, none is left to read
	}
	if rows == 0 {
		if c.parser.headerLine > 0 {
			return nil, fmt.Errorf("sgp: %s: no data rows after the header on line %d", label, c.parser.headerLine)
		}
		return nil, fmt.Errorf("sgp: %s: no data rows: the input is empty or holds only blank and '#' comment lines", label)
	}
	ds, err := c.parser.dataset(name, parts, rows)
	if ds != nil && miss != nil {
		ds.Dropped = miss.Rows
	}
	return ds, err
}

// missing returns the *MissingError of the rows the parts skipped for a
// missing value, or nil if there were none.
func (p *csvParser) missing(parts []*csvPart) *MissingError {
	var e *MissingError
	for _, part := range parts {
		if part.missing == 0 {
			continue
		}
		if e == nil {
			e = &MissingError{Label: p.label, Line: part.missLine, Column: part.missCol}
			if part.missCol <= len(p.header) {
				e.Name = p.header[part.missCol-1]
			}
		}
		e.Rows += part.missing
	}
	return e
}

// csvFeed hands the text read to a csvPool in whole lines.
type csvFeed struct {
	c     *csvPool
	lines int      // lines handed on
	first *csvPart // rows parsed before the first data row is known
}

// hand parses or submits text, whole lines: up to the first data row,
// lines are parsed one by one here, so that the header and the number of
// columns are known before blocks go to the workers.
func (fd *csvFeed) hand(text string, last bool) {
	c := fd.c
	for c.parser.cols == 0 && text != "" && fd.first.err == nil {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i+1], text[i+1:]
		} else {
			text = ""
		}
		fd.lines += c.parser.parse(line, fd.lines, fd.first)
		if c.parser.cols > 0 || fd.first.err != nil {
			c.add(fd.first)
		}
	}
	if text == "" || fd.first.err != nil {
		return
	}
	n := countLines(text)
	c.submit(text, fd.lines, n, last)
	fd.lines += n
}

// feed reads r in blocks of whole lines and hands them on until the input
// ends or a part fails. It returns the error found after the lines handed
// on: a read error, or a line longer than maxLine.
func (c *csvPool) feed(r io.Reader) (tail error) {
	fd := &csvFeed{c: c, first: &csvPart{}}
	buf := make([]byte, 0, c.opt.block) // input read but not handed on, from the start of a line
	for !c.hasFailed() {
		n, err := readSome(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			fd.hand(string(buf), true)
			if err != io.EOF {
				tail = c.parser.readError(fd.lines, err)
			}
			break
		}
		if len(buf) < cap(buf) {
			continue
		}
		k := bytes.LastIndexByte(buf, '\n')
		if k < 0 {
			// One line fills the buffer: make room for more of it, up
			// to the limit of maxLine bytes.
			if len(buf) >= maxLine {
				tail = c.parser.tooLong(fd.lines + 1)
				break
			}
			grown := make([]byte, len(buf), min(2*cap(buf), maxLine))
			copy(grown, buf)
			buf = grown
			continue
		}
		fd.hand(string(buf[:k+1]), false)
		rest := buf[k+1:]
		if cap(buf) > c.opt.block && len(rest) < c.opt.block {
			buf = make([]byte, 0, c.opt.block) // back to blocks after a long line
		}
		buf = buf[:copy(buf[:cap(buf)], rest)]
	}
	if c.parser.cols == 0 && fd.first.err == nil {
		c.add(fd.first) // no data row: first holds nothing
	}
	return tail
}

// collect waits for the parts in input order and returns them with their
// total number of rows, or the first part's error; a worker's panic is
// raised again here.
func (c *csvPool) collect() ([]*csvPart, int, error) {
	parts := make([]*csvPart, len(c.results))
	rows := 0
	for i, ch := range c.results {
		parts[i] = <-ch
		if parts[i].panic != nil {
			panic(parts[i].panic)
		}
		if parts[i].err != nil {
			return nil, 0, parts[i].err
		}
		rows += parts[i].rows
	}
	return parts, rows, nil
}

// dataset joins the parts' rows into a Dataset, with the header's names
// for the inputs and the target.
func (p *csvParser) dataset(name string, parts []*csvPart, rows int) (*Dataset, error) {
	d := p.outDim()
	data, y := parts[0].x, parts[0].y
	if len(parts) > 1 {
		data = make([]float64, 0, rows*d)
		if p.withTarget {
			y = make([]float64, 0, rows)
		}
		for i, part := range parts {
			data = append(data, part.x...)
			y = append(y, part.y...)
			parts[i] = nil // let the collector have the block's rows
		}
	}
	x, err := kernel.NewVectors(rows, d, data)
	if err != nil {
		return nil, fmt.Errorf("sgp: %s: %w", p.label, err)
	}
	ds := &Dataset{Name: name, X: x, Y: y}
	h := p.header
	if h == nil {
		return ds, nil
	}
	var names []string
	switch {
	case p.keep != nil:
		names = make([]string, d)
		for j, at := range p.keep {
			if at >= 0 {
				names[at] = h[j]
			}
		}
	case p.withTarget:
		names, ds.TargetName = h[:len(h)-1], h[len(h)-1]
	default:
		names = h
	}
	// The header's names have been checked (headerError), except those
	// of columns a selection took by position, for a model whose inputs
	// have no names to match: such inputs keep none if they are named
	// badly.
	if named, err := x.WithNames(names); err == nil {
		ds.X = named
	} else if p.keep == nil {
		return nil, fmt.Errorf("sgp: %s: %w", p.label, err)
	}
	return ds, nil
}

// parseDecimal is a fast path of strconv.ParseFloat(s, 64) for the
// numbers of typical data files: with ok, v is the value ParseFloat
// returns, bit for bit; without, the caller must ask strconv. It accepts
// only plain decimals, [+-]digits[.digits][(e|E)[+-]digits] (digits may
// be missing on one side of the point), of at most 19 digits that form an
// integer m ≤ 2⁵³ and whose value is m·10^e with |e| ≤ 22. Then m and
// 10^|e| are float64s exactly, and one multiplication or division rounds
// m·10^e correctly, to the value ParseFloat (which also rounds correctly,
// and takes this path itself) returns.
func parseDecimal(s string) (v float64, ok bool) {
	i, neg := 0, false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	// The digits, leading zeros included, form m; at most 19 of them
	// keep it below 2⁶⁴.
	var m uint64
	start := i
	for ; i < len(s) && s[i]-'0' < 10; i++ {
		m = m*10 + uint64(s[i]-'0')
	}
	nd := i - start
	exp := 0
	if i < len(s) && s[i] == '.' {
		i++
		frac := i
		for ; i < len(s) && s[i]-'0' < 10; i++ {
			m = m*10 + uint64(s[i]-'0')
		}
		nd += i - frac
		exp = frac - i
	}
	if nd == 0 || nd > 19 {
		return 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return 0, false
		}
		e := 0
		for ; i < len(s) && s[i]-'0' < 10; i++ {
			if e < 1000 {
				e = e*10 + int(s[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(s) || m > 1<<53 || exp < -22 || exp > 22 {
		return 0, false
	}
	v = float64(int64(m)) // exact: m ≤ 2⁵³
	if exp < 0 {
		v /= exactPow10(-exp)
	} else {
		v *= exactPow10(exp)
	}
	if neg {
		v = -v
	}
	return v, true
}

// exactPow10 returns 10^e for 0 ≤ e ≤ 22, the powers of ten that float64
// represents exactly.
func exactPow10(e int) float64 {
	switch e {
	case 0:
		return 1
	case 1:
		return 1e1
	case 2:
		return 1e2
	case 3:
		return 1e3
	case 4:
		return 1e4
	case 5:
		return 1e5
	case 6:
		return 1e6
	case 7:
		return 1e7
	case 8:
		return 1e8
	case 9:
		return 1e9
	case 10:
		return 1e10
	case 11:
		return 1e11
	case 12:
		return 1e12
	case 13:
		return 1e13
	case 14:
		return 1e14
	case 15:
		return 1e15
	case 16:
		return 1e16
	case 17:
		return 1e17
	case 18:
		return 1e18
	case 19:
		return 1e19
	case 20:
		return 1e20
	case 21:
		return 1e21
	case 22:
		return 1e22
	}
	panic("sgp: exactPow10 of " + strconv.Itoa(e))
}

// separatorHint names the likely cause of a row that does not split into
// numbers: a file separated by semicolons (often with decimal commas),
// which this reader does not take.
func separatorHint(line string) string {
	if strings.ContainsRune(line, ';') {
		return "; the line holds ';', but values must be separated by commas or whitespace (with '.' as the decimal point)"
	}
	return ""
}

// maxLine bounds the length of one line of a text data file.
const maxLine = 64 << 20

// splitCells splits a trimmed line at commas or at runs of white space, and
// strips spaces and enclosing double quotes from each cell.
func splitCells(line string, comma bool) []string {
	if !comma {
		return strings.Fields(line)
	}
	cells := strings.Split(line, ",")
	for i, c := range cells {
		cells[i] = cleanCell(c)
	}
	return cells
}

// cleanCell strips spaces and enclosing double quotes from one cell of a
// comma separated line.
func cleanCell(c string) string {
	if c != "" && c[0] > ' ' && c[0] != '"' && c[0] < utf8.RuneSelf && c[len(c)-1] > ' ' && c[len(c)-1] < utf8.RuneSelf {
		return c // nothing to strip: the common case, without TrimSpace's call
	}
	c = strings.TrimSpace(c)
	if len(c) >= 2 && c[0] == '"' && c[len(c)-1] == '"' {
		c = strings.TrimSpace(c[1 : len(c)-1])
	}
	return c
}

// isHeader reports whether a first row is a header: some cell that is
// not a missing value (isMissing) does not parse as a float64. Missing
// values alone do not make a header, so that a data row with a missing
// value is reported rather than skipped.
func isHeader(cells []string) bool {
	for _, c := range cells {
		if _, err := strconv.ParseFloat(c, 64); !isMissing(c) && err != nil && !errors.Is(err, strconv.ErrRange) {
			return true
		}
	}
	return false
}

// isMissing reports whether a cell marks a missing value: empty (what
// pandas' to_csv writes for NaN), NaN in any case, or NA (R's).
func isMissing(c string) bool {
	return c == "" || strings.EqualFold(strings.TrimLeft(c, "+-"), "nan") || c == "NA"
}

// parseCell parses one cell, not a missing value (isMissing), as a finite
// float64.
func parseCell(c string) (float64, error) {
	v, err := strconv.ParseFloat(c, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, fmt.Errorf("value %q is out of the float64 range", table.Short(c))
		}
		return 0, notNumber(table.Short(c))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("value %q is not finite; remove or impute ±Inf values", table.Short(c))
	}
	return v, nil
}

// ErrNotNumber is what the errors of the numeric readers (ReadCSV and
// its kin) wrap for a cell that is not a number: errors.Is finds it, so
// that a caller can say how to read a column of text instead.
var ErrNotNumber = errors.New("not a number")

// notNumber is the error of a cell that is not a number, the cell
// shortened.
type notNumber string

func (e notNumber) Error() string        { return fmt.Sprintf("cannot parse %q as a number", string(e)) }
func (e notNumber) Is(target error) bool { return target == ErrNotNumber }

// MissingError is the error of the numeric readers (ReadCSV and its kin)
// for rows with a missing value (an empty cell, NaN or NA): how many, and
// where the first is. ReadOptions.DropMissing drops such rows instead.
type MissingError struct {
	Label        string // the file or input
	Rows         int    // rows with a missing value
	Line, Column int    // the first missing value's line and 1-based column
	Name         string // that column's name in the header, "" without one
}

func (e *MissingError) Error() string {
	return "sgp: " + e.Counted() + "; impute them, or drop them (data.ReadOptions.DropMissing)"
}

// Counted is the error's message without its advice: the source, how
// many rows have a missing value and where the first is.
func (e *MissingError) Counted() string {
	col := fmt.Sprintf("column %d", e.Column)
	if e.Name != "" {
		col += fmt.Sprintf(" (%q)", table.Short(e.Name))
	}
	rows := "1 row has a missing value"
	if e.Rows != 1 {
		rows = fmt.Sprintf("%d rows have a missing value", e.Rows)
	}
	return fmt.Sprintf("%s: %s (an empty cell, NaN or NA), the first on line %d, %s", e.Label, rows, e.Line, col)
}
