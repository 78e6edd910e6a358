package cli

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
)

// isSet reports whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// intList is a flag.Value holding comma-separated integers.
type intList []int

func (l *intList) String() string {
	if l == nil {
		return ""
	}
	return strings.ReplaceAll(formatInts(*l), " ", ",")
}

func (l *intList) Set(s string) error {
	*l = intList{}
	if strings.TrimSpace(s) == "" {
		return nil
	}
	for _, c := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil {
			return fmt.Errorf("%q is not an integer", strings.TrimSpace(c))
		}
		*l = append(*l, v)
	}
	return nil
}

// floatList is a flag.Value holding comma-separated numbers.
type floatList []float64

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// unknownFlagPrefix starts the error of package flag for a flag the set
// does not define.
const unknownFlagPrefix = "flag provided but not defined: -"

// flagHint returns, for the error of parsing fs, the flags of fs whose
// names are closest to an unknown flag's, as " (did you mean --selector?)",
// or "" for other errors and names far from every flag.
func flagHint(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if !strings.HasPrefix(msg, unknownFlagPrefix) {
		return ""
	}
	name := strings.TrimLeft(strings.TrimPrefix(msg, unknownFlagPrefix), "-")
	name, _, _ = strings.Cut(name, "=")
	var flags []string
	fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f.Name) })
	best := closest(strings.ToLower(name), flags)
	for i, f := range best {
		best[i] = "--" + f
	}
	return didYouMean(best)
}

// commandHint returns the subcommands closest to an unknown name, as
// " (did you mean fit?)", or "".
func commandHint(name string) string {
	return didYouMean(closest(strings.ToLower(name), append(commandNames(), "run", "help")))
}

// closest returns the candidates nearest to name by edit distance, if
// they differ from it in at most a third of its letters, and 3: every
// candidate at the least distance, in their order.
func closest(name string, candidates []string) []string {
	var best []string
	bestD := max(1, min(3, len(name)/3))
	for _, c := range candidates {
		switch d := editDistance(name, c); {
		case d > bestD:
		case d < bestD || best == nil:
			best, bestD = []string{c}, d
		default:
			best = append(best, c)
		}
	}
	return best
}

// didYouMean returns " (did you mean A or B?)" for the names, or "" for
// none.
func didYouMean(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", strings.Join(names, " or "))
}

// commandNames lists the subcommands' names.
func commandNames() []string {
	names := make([]string, len(commands))
	for i := range commands {
		names[i] = commands[i].name
	}
	return names
}

// editDistance is the optimal string alignment distance between a and b:
// the fewest insertions, deletions, substitutions and swaps of adjacent
// bytes that turn one into the other ("tarin" is 1 from "train").
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			sub := d[i-1][j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			d[i][j] = min(sub, d[i-1][j]+1, d[i][j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// count writes n and the noun, in the plural unless n is 1: "1 input
// column", "3 input columns".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// checkMBelowN checks --m against the n training rows of a sparse fit
// (sgp's rule 1 ≤ m < n), in the command line's words: with every row
// inducing the sparse model is the exact GP, which --selector exact fits;
// withExact is false for a command that has no --selector.
func checkMBelowN(m, n int, withExact bool) error {
	if m < n {
		return nil
	}
	if !withExact {
		return fmt.Errorf("--m %d: the number of inducing points must be below n = %d, the number of training points", m, n)
	}
	return fmt.Errorf("--m %d: the number of inducing points must be below n = %d, the number of training rows; to use every row, fit the exact GP with --selector exact (or leave out --m)", m, n)
}
