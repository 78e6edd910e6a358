package cli

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cholqr/sgp/sgp/kernel"
)

// readDoc returns the text of docs/name, from the repository's root.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tableRows returns the cells of the rows of the Markdown table whose
// header line is header, without the header and the rule below it.
func tableRows(doc, header string) [][]string {
	i := strings.Index(doc, "\n"+header+"\n")
	if i < 0 {
		return nil
	}
	var rows [][]string
	for n, line := range strings.Split(doc[i+1:], "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if n < 2 {
			continue
		}
		// A cell may hold an escaped bar (var\|mle).
		line = strings.ReplaceAll(line, `\|`, "\x00")
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for c := range cells {
			cells[c] = strings.TrimSpace(strings.ReplaceAll(cells[c], "\x00", "|"))
		}
		rows = append(rows, cells)
	}
	return rows
}

// documentedFlag matches a flag table's first cell, "`--name …`".
var documentedFlag = regexp.MustCompile("^`--([a-z0-9-]+)[ `=]")

// TestDocsFlagTables checks the flag table of every subcommand in
// docs/cli.md, headed "| `NAME` flag | meaning |", against the
// subcommand's own flag set: every flag documented, every documented flag
// defined.
func TestDocsFlagTables(t *testing.T) {
	t.Parallel()
	doc := readDoc(t, "cli.md")
	for i := range commands {
		c := &commands[i]
		fs, _ := c.newFlagSet()
		var defined []string
		fs.VisitAll(func(f *flag.Flag) { defined = append(defined, f.Name) })
		rows := tableRows(doc, "| `"+c.name+"` flag | meaning |")
		if len(defined) == 0 {
			if rows != nil {
				t.Errorf("%s has no flags, but docs/cli.md has a table of them", c.name)
			}
			continue
		}
		if rows == nil {
			t.Errorf("docs/cli.md has no table \"| `%s` flag | meaning |\"", c.name)
			continue
		}
		var documented []string
		for _, r := range rows {
			m := documentedFlag.FindStringSubmatch(r[0])
			if m == nil {
				t.Errorf("%s: docs/cli.md row %q does not start with a flag", c.name, r[0])
				continue
			}
			documented = append(documented, m[1])
		}
		for _, name := range defined {
			if !slices.Contains(documented, name) {
				t.Errorf("%s --%s is not in docs/cli.md", c.name, name)
			}
		}
		for _, name := range documented {
			if fs.Lookup(name) == nil {
				t.Errorf("docs/cli.md documents %s --%s, which is not a flag of it", c.name, name)
			}
		}
	}
}

// backticked matches a `name` in a table cell.
var backticked = regexp.MustCompile("`([a-z0-9*+-]+)`")

// kernelNames returns the single kernels of numeric inputs named in text.
func kernelNames(text string) []string {
	all := kernel.NamesWith(func(kernel.Caps) bool { return true })
	var names []string
	for _, m := range backticked.FindAllStringSubmatch(text, -1) {
		if slices.Contains(all, m[1]) && !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	return names
}

// TestDocsKernelCapabilities checks the table of input gradients, hybrid
// and sgpr-continuous in docs/kernels.md, and the kernels docs/cli.md
// lists for those selectors, against kernel.Capabilities.
func TestDocsKernelCapabilities(t *testing.T) {
	t.Parallel()
	rows := tableRows(readDoc(t, "kernels.md"), "| kernel | input gradient | hybrid | sgpr-continuous |")
	if rows == nil {
		t.Fatal("docs/kernels.md has no capability table")
	}
	yes := func(cell string) bool { return strings.HasPrefix(cell, "yes") || strings.HasPrefix(cell, "zero") }
	var seen []string
	for _, r := range rows {
		names := kernelNames(r[0])
		if strings.HasPrefix(r[0], "sums and products") {
			names = []string{"rbf+linear", "periodic*rbf"}
		}
		for _, name := range names {
			c, err := kernel.SpecCapabilities(name)
			if err != nil {
				t.Fatal(err)
			}
			if yes(r[1]) != c.InputGradient || yes(r[2]) != c.Hybrid || yes(r[3]) != c.Continuous {
				t.Errorf("docs/kernels.md: %s: %q, %q, %q; kernel.Capabilities: %+v", name, r[1], r[2], r[3], c)
			}
			seen = append(seen, name)
		}
	}
	for _, name := range kernel.NamesWith(func(kernel.Caps) bool { return true }) {
		if !slices.Contains(seen, name) {
			t.Errorf("docs/kernels.md's capability table lacks %s", name)
		}
	}

	hybrid := kernel.NamesWith(func(c kernel.Caps) bool { return c.Hybrid })
	cont := kernel.NamesWith(func(c kernel.Caps) bool { return c.Continuous })
	cli := readDoc(t, "cli.md")
	for _, r := range tableRows(cli, "| name | inducing points |") {
		var want []string
		switch r[0] {
		case "`hybrid`":
			want = hybrid
		case "`sgpr-continuous`":
			want = cont
		default:
			continue
		}
		if got := kernelNames(r[1]); !slices.Equal(got, want) {
			t.Errorf("docs/cli.md: selector %s lists kernels %v; kernel.Capabilities gives %v", r[0], got, want)
		}
	}
	for _, r := range tableRows(cli, "| `fit` flag | meaning |") {
		if strings.HasPrefix(r[0], "`--selector") {
			if got := kernelNames(r[1]); !slices.Equal(got, hybrid) {
				t.Errorf("docs/cli.md: --selector's default hybrid for %v; kernel.Capabilities gives %v", got, hybrid)
			}
		}
	}
}

// TestDocsExactBackend: the exact GP's factorisation runs on the SGP_BLAS
// backend (sgp/internal/linalg's Potrf and Potri, OpenBLAS's dpotrf and
// dpotri when loaded); docs/speed.md and Exact's doc comment say so, and
// neither says it is gonum's LAPACK alone.
func TestDocsExactBackend(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "sgp", "exact.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "linalg.Potrf(") || !strings.Contains(string(src), "linalg.Potri(") {
		t.Fatal("sgp/exact.go no longer factorises through sgp/internal/linalg: fix this test and the docs")
	}
	for name, text := range map[string]string{"docs/speed.md": readDoc(t, "speed.md"), "sgp/exact.go": string(src)} {
		flat := strings.Join(strings.Fields(strings.ReplaceAll(text, "//", "")), " ")
		if strings.Contains(flat, "not the SGP_BLAS backend") || strings.Contains(flat, "not the `SGP_BLAS` backend") {
			t.Errorf("%s says the exact GP does not use the SGP_BLAS backend", name)
		}
		if !strings.Contains(flat, "dpotrf") || !strings.Contains(flat, "OpenBLAS") {
			t.Errorf("%s does not say the exact GP's dpotrf runs on OpenBLAS when loaded", name)
		}
	}
}

// TestReadmeForNewcomers checks what README.md tells a newcomer: at most
// 250 lines, no dated results table (docs/results.md holds it), the quick
// test command, the true rule for the real-data tests, a word on the
// first build's minutes, and command-line examples that write their
// outputs outside the checkout.
func TestReadmeForNewcomers(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n > 250 {
		t.Errorf("README.md has %d lines, more than 250", n)
	}
	if regexp.MustCompile(`\b20[0-9][0-9]-[01][0-9]-[0-3][0-9]\b`).MatchString(readme) || strings.Contains(readme, "| data set |") {
		t.Error("README.md holds dated results; they belong in docs/results.md")
	}
	if !strings.Contains(readDoc(t, "results.md"), "| data set | CholQR |") {
		t.Error("docs/results.md lacks the summary table")
	}
	flat := strings.Join(strings.Fields(readme), " ")
	for _, want := range []string{"go test -short ./...", "The first `go run`", "in `$SGP_DATA`, or else in `../shared/data`"} {
		if !strings.Contains(flat, want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
	if strings.Contains(flat, "run when SGP_DATA is set") {
		t.Error("README.md says the real-data tests need SGP_DATA; they run whenever the data are found")
	}
	// An output flag followed by a bare file name writes into the
	// checkout, where the example is run.
	bare := regexp.MustCompile(`--(save|output|predictions|out) ([A-Za-z0-9_.-]+)`)
	for _, m := range bare.FindAllStringSubmatch(readme, -1) {
		t.Errorf("README.md: %s writes into the checkout; write it to a temporary folder", m[0])
	}
}
