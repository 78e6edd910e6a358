package terminal

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"go/scanner"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cholqr/sgp/repl"
)

var update = flag.Bool("update", false, "rewrite the numbers of README.md's walkthrough comments that differ from what the session prints")

// readmePath is the README whose walkthrough TestReadmeWalkthrough runs.
var readmePath = filepath.Join("..", "..", "README.md")

// readmeWalkthrough returns README.md and the offset and text of its Go
// code block between the walkthrough markers.
func readmeWalkthrough(t *testing.T) (readme string, off int, code string) {
	t.Helper()
	b, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	readme = string(b)
	begin := strings.Index(readme, "<!-- walkthrough:begin -->")
	end := strings.Index(readme, "<!-- walkthrough:end -->")
	if begin < 0 || end < begin {
		t.Fatal("README.md has no <!-- walkthrough:begin --> … <!-- walkthrough:end --> section")
	}
	start := strings.Index(readme[begin:end], "```go\n")
	if start < 0 {
		t.Fatal("README.md has no ```go block in its walkthrough section")
	}
	off = begin + start + len("```go\n")
	stop := strings.Index(readme[off:end], "```")
	if stop < 0 {
		t.Fatal("README.md's walkthrough block is not closed")
	}
	return readme, off, readme[off : off+stop]
}

// A claim is a comment after code on a line of the walkthrough: what the
// cell that line belongs to prints. Its text is matched against the
// cell's output: "…" stands for any text (times, which vary by machine,
// and text left out), a run of spaces for any run of white space, and a
// number for a number that agrees with it to ±1 in its last digit
// (integers exactly); the rest must appear as written. A cell's claims
// match its output in order.
type claim struct {
	text string
	off  int // of text in README.md
	line int // in the code block, 1-based
}

// walkCell is a cell of the walkthrough as the REPL reads it: lines up to
// the first that completes the input.
type walkCell struct {
	code                string
	firstLine, lastLine int // in the code block, 1-based
	claims              []claim
}

// walkthroughCells splits the code block (at offset off in README.md)
// into the cells the REPL evaluates, with their claims.
func walkthroughCells(t *testing.T, code string, off int) []walkCell {
	t.Helper()
	var cells []walkCell
	var buf strings.Builder
	first := 1
	for i, line := range strings.Split(strings.TrimSuffix(code, "\n"), "\n") {
		buf.WriteString(line + "\n")
		if repl.IsComplete(buf.String()) {
			cells = append(cells, walkCell{code: buf.String(), firstLine: first, lastLine: i + 1})
			buf.Reset()
			first = i + 2
		}
	}
	if buf.Len() > 0 {
		t.Fatalf("the walkthrough ends inside an unfinished cell:\n%s", buf.String())
	}

	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(code))
	var sc scanner.Scanner
	sc.Init(file, []byte(code), nil, scanner.ScanComments)
	codeLine := 0 // the line of the last token that is not a comment
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		p := file.Position(pos)
		if tok == token.SEMICOLON && lit == "\n" {
			continue
		}
		if tok != token.COMMENT {
			codeLine = p.Line
			continue
		}
		if p.Line != codeLine || !strings.HasPrefix(lit, "//") {
			continue // a comment on a line of its own: prose
		}
		text := strings.TrimPrefix(lit, "//")
		lead := len(text) - len(strings.TrimLeft(text, " \t"))
		c := claim{text: text[lead:], off: off + file.Offset(pos) + 2 + lead, line: p.Line}
		for k := range cells {
			if cells[k].firstLine <= c.line && c.line <= cells[k].lastLine {
				cells[k].claims = append(cells[k].claims, c)
			}
		}
	}
	return cells
}

// claimPiece is a part of a claim: literal text, white space, "…" or a
// number.
type claimPiece struct {
	kind byte   // 'l'iteral, 's'pace, 'e'lision, 'n'umber
	text string // as written
	off  int    // of text in the claim
}

// numberAt matches a number at the start of a string: an optional minus,
// digits with an optional fraction and exponent.
var numberAt = regexp.MustCompile(`^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?`)

// claimPieces splits a claim's text into pieces. A number starts after a
// byte that is not a letter, digit or underscore ("lengthscale[0]" holds
// one, "k1" and "x0" none), and its minus sign after such a byte too
// ("fig-001" holds 001).
func claimPieces(text string) []claimPiece {
	var ps []claimPiece
	add := func(kind byte, s string, off int) {
		if kind == 'l' && len(ps) > 0 && ps[len(ps)-1].kind == 'l' {
			ps[len(ps)-1].text += s
			return
		}
		ps = append(ps, claimPiece{kind, s, off})
	}
	for i := 0; i < len(text); {
		rest := text[i:]
		num := numberAt.FindString(rest)
		switch {
		case strings.HasPrefix(rest, "…"):
			add('e', "…", i)
			i += len("…")
		case rest[0] == ' ' || rest[0] == '\t':
			j := i
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			add('s', text[i:j], i)
			i = j
		case num != "" && (i == 0 || !isWordByte(text[i-1])):
			add('n', num, i)
			i += len(num)
		default:
			_, size := utf8.DecodeRuneInString(rest)
			add('l', rest[:size], i)
			i += size
		}
	}
	return ps
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// outputNumber matches a number in the output.
const outputNumber = `(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)`

// pattern returns the regular expression of pieces, one group per number.
func pattern(ps []claimPiece) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?s)")
	for _, p := range ps {
		switch p.kind {
		case 'l':
			b.WriteString(regexp.QuoteMeta(p.text))
		case 's':
			b.WriteString(`\s+`)
		case 'e':
			b.WriteString(`.*?`)
		case 'n':
			b.WriteString(outputNumber)
		}
	}
	return regexp.MustCompile(b.String())
}

// agrees reports whether the printed number got agrees with the claimed
// one: integers exactly, others to ±1 in the claim's last digit.
func agrees(claimed, got string) bool {
	c, err1 := strconv.ParseFloat(claimed, 64)
	g, err2 := strconv.ParseFloat(got, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	if !strings.ContainsAny(claimed, ".eE") {
		return c == g
	}
	return math.Abs(c-g) <= lastDigit(claimed)*(1+1e-9)
}

// lastDigit returns the value of one unit in the last digit of a number
// as written: 0.01 for 1.25, 1e-5 for 1.5e-4.
func lastDigit(num string) float64 {
	mant, exp, hasExp := strings.Cut(strings.ToLower(num), "e")
	e := 0
	if hasExp {
		e, _ = strconv.Atoi(exp)
	}
	if _, frac, ok := strings.Cut(mant, "."); ok {
		e -= len(frac)
	}
	return math.Pow(10, float64(e))
}

// rewrite returns the claimed number written again with the value got,
// to the same digits.
func rewrite(claimed, got string) string {
	g, _ := strconv.ParseFloat(got, 64)
	mant, _, hasExp := strings.Cut(strings.ToLower(claimed), "e")
	_, frac, hasFrac := strings.Cut(mant, ".")
	switch {
	case hasExp:
		return strconv.FormatFloat(g, 'e', len(frac), 64)
	case hasFrac:
		return strconv.FormatFloat(g, 'f', len(frac), 64)
	}
	return strconv.FormatFloat(math.Round(g), 'f', 0, 64)
}

// edit replaces README.md's bytes [off, off+len(old)) by new.
type edit struct {
	off      int
	old, new string
}

// TestReadmeWalkthrough types the README's REPL walkthrough into sgprepl,
// cell by cell as the REPL reads it, and checks that every cell succeeds
// and prints what its comments say (see claim), numbers included. With
// -update it rewrites the numbers that differ, to the digits written:
//
//	go test ./repl/terminal -run TestReadmeWalkthrough -update
//
// Text that differs is reported and left to be edited by hand.
func TestReadmeWalkthrough(t *testing.T) {
	// The REPL's own temporary figure folder, as a user gets it.
	t.Setenv("SGPREPL_OUT", "")
	t.Setenv("TMPDIR", t.TempDir())
	readme, off, code := readmeWalkthrough(t)
	cells := walkthroughCells(t, code, off)

	var out, errOut bytes.Buffer
	term, err := newTerminal(Streams{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if err != nil {
		t.Fatal(err)
	}
	defer term.figs.cleanup()
	var edits []edit
	claims := 0
	for _, c := range cells {
		out.Reset()
		errOut.Reset()
		term.eval(context.Background(), c.code)
		if errOut.Len() > 0 {
			t.Fatalf("the walkthrough's cell\n%s\nfailed: %s", c.code, errOut.String())
		}
		stdout := out.String()
		at := 0
		for _, cl := range c.claims {
			claims++
			ps := claimPieces(cl.text)
			loc := pattern(ps).FindStringSubmatchIndex(stdout[at:])
			if loc == nil {
				t.Errorf("README.md, walkthrough line %d: the output of\n%s\ndoes not match the comment\n\t%s\n%s\nthe output is:\n%s",
					cl.line, c.code, cl.text, mismatch(ps, stdout[at:]), stdout)
				continue
			}
			group := 1
			for _, p := range ps {
				if p.kind != 'n' {
					continue
				}
				got := stdout[at+loc[2*group] : at+loc[2*group+1]]
				group++
				if agrees(p.text, got) {
					continue
				}
				if !*update {
					t.Errorf("README.md, walkthrough line %d: %s is printed as %s (comment: %s); go test ./repl/terminal -run TestReadmeWalkthrough -update rewrites it",
						cl.line, p.text, got, cl.text)
				}
				edits = append(edits, edit{off: cl.off + p.off, old: p.text, new: rewrite(p.text, got)})
			}
			at += loc[1]
		}
	}
	if claims == 0 {
		t.Fatal("the walkthrough has no comments to check")
	}
	if *update && len(edits) > 0 {
		sort.Slice(edits, func(a, b int) bool { return edits[a].off > edits[b].off })
		for _, e := range edits {
			readme = readme[:e.off] + e.new + readme[e.off+len(e.old):]
			t.Logf("README.md: %s → %s", e.old, e.new)
		}
		if err := os.WriteFile(readmePath, []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// mismatch says how far a claim's pieces match the output: the longest
// leading part that does, and the piece after it.
func mismatch(ps []claimPiece, output string) string {
	for n := len(ps) - 1; n > 0; n-- {
		if pattern(ps[:n]).MatchString(output) {
			next := ps[n]
			for next.kind == 's' && n+1 < len(ps) {
				n++
				next = ps[n]
			}
			var shown []string
			for _, p := range ps[:n] {
				shown = append(shown, p.text)
			}
			return fmt.Sprintf("it matches up to %q, then not %q", strings.Join(shown, ""), next.text)
		}
	}
	return "not even its start matches"
}

// TestClaimPieces: numbers in a walkthrough comment are found where they
// stand alone, not inside names; they agree with the output to ±1 in
// their last digit (integers exactly) and are rewritten to their digits.
func TestClaimPieces(t *testing.T) {
	t.Parallel()
	var got []string
	for _, p := range claimPieces("lengthscale[0] 0.7045, k1.variance -0.8 fig-001.png x0 …s 1e-05") {
		got = append(got, string(p.kind)+":"+p.text)
	}
	want := []string{"l:lengthscale[", "n:0", "l:]", "s: ", "n:0.7045", "l:,", "s: ", "l:k1.variance", "s: ", "n:-0.8",
		"s: ", "l:fig-", "n:001", "l:.png", "s: ", "l:x0", "s: ", "e:…", "l:s", "s: ", "n:1e-05"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("pieces\n%q\nwant\n%q", got, want)
	}
	for _, c := range []struct {
		claimed, printed string
		agree            bool
		rewritten        string
	}{
		{"0.7045", "0.704459", true, "0.7045"},
		{"0.7045", "0.70561", false, "0.7056"},
		{"8", "8", true, "8"},
		{"7", "8", false, "8"},
		{"001", "1", true, "1"},
		{"-0.702", "0.964", false, "0.964"},
		{"1.5e-04", "1.52e-4", true, "1.5e-04"},
		{"1.5e-04", "1.7e-4", false, "1.7e-04"},
	} {
		if agrees(c.claimed, c.printed) != c.agree || rewrite(c.claimed, c.printed) != c.rewritten {
			t.Errorf("claimed %s, printed %s: agrees %v, rewritten %s; want %v, %s",
				c.claimed, c.printed, agrees(c.claimed, c.printed), rewrite(c.claimed, c.printed), c.agree, c.rewritten)
		}
	}
	if m := pattern(claimPieces("variance 1.275 … noise 0.1070")).FindStringSubmatch("  variance   1.2746\n  lengthscale[0] 0.7\n  noise 0.106955"); m == nil || m[1] != "1.2746" || m[2] != "0.106955" {
		t.Errorf("pattern matched %q", m)
	}
}
