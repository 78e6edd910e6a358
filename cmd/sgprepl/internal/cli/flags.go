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
