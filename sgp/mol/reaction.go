package mol

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/cholqr/sgp/sgp/kernel"
)

// reactionRoles are the three parts of a reaction SMILES in order, with the
// prefix that ParseSMILES puts on the labels of their atoms.
var reactionRoles = [3]struct{ prefix, one, all string }{
	{"r:", "reactant", "reactants"},
	{"a:", "agent", "agents"},
	{"p:", "product", "products"},
}

// parseReaction reads a reaction SMILES (Daylight Theory Manual, "Reaction
// SMILES"):
// reactants>agents>products, each part a list of molecules separated by '.'
// or '~' as in ParseSMILES; the agents may be empty (A.B>>C), the reactants
// and the products may not. It returns the disjoint union of the molecules'
// graphs, reactants first, then agents, then products, in the order written,
// each atom labelled as ParseSMILES labels it with "r:", "a:" or "p:" in
// front ("r:C", "a:Pd", "p:c"), so that the Weisfeiler–Lehman labels (wl.go)
// of an atom in a reactant differ from those of the same atom in a product.
// No edge joins two parts; within a part, a ring closure written across a
// '.' joins two molecules as it does in a plain SMILES string. Atom maps
// ([CH3:1]) are read as atom classes and not represented.
//
// Errors are *SMILESError on the whole string, the position counted in it,
// with the molecule at fault named ("reactant 2 …") when the fault is inside
// one, else the part ("the agents: …").
func parseReaction(s string) (*kernel.Graph, error) {
	var cuts []int
	for i := 0; i < len(s); i++ {
		if s[i] == '>' {
			cuts = append(cuts, i)
		}
	}
	fail := func(pos int, format string, args ...any) error {
		return &SMILESError{SMILES: s, Pos: pos, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case len(cuts) == 1:
		return nil, fail(cuts[0], "a reaction has two '>', reactants>agents>products (A.B>>C without agents); this has one")
	case len(cuts) > 2:
		return nil, fail(cuts[2], "a third '>': a reaction is reactants>agents>products")
	case cuts[0] == 0:
		return nil, fail(0, "the reaction has no reactants")
	case cuts[1] == len(s)-1:
		return nil, fail(cuts[1], "the reaction has no products")
	}
	bounds := [3][2]int{{0, cuts[0]}, {cuts[0] + 1, cuts[1]}, {cuts[1] + 1, len(s)}}
	var labels []string
	var edges []kernel.Edge
	for r, b := range bounds {
		lo, hi := b[0], b[1]
		if lo == hi {
			continue // no agents
		}
		g, err := ParseSMILES(s[lo:hi])
		if err != nil {
			var se *SMILESError
			if !errors.As(err, &se) {
				return nil, err // unreachable: ParseSMILES returns *SMILESError
			}
			return nil, &SMILESError{SMILES: s, Pos: lo + se.Pos, Msg: moleculeAt(s, lo, hi, lo+se.Pos, r) + ": " + se.Msg}
		}
		off := len(labels)
		for v := 0; v < g.NumNodes(); v++ {
			labels = append(labels, reactionRoles[r].prefix+g.Label(v))
		}
		for _, e := range g.Edges() {
			edges = append(edges, kernel.Edge{U: e.U + off, V: e.V + off, Label: e.Label})
		}
	}
	g, err := kernel.NewGraph(labels, edges)
	if err != nil {
		return nil, fail(0, "%v", err) // unreachable: the parts are valid graphs, offset
	}
	return g, nil
}

// moleculeAt names the molecule of role r (its part of s is s[lo:hi]) that
// holds byte pos: "reactant 2 \"CC(C\"" (the text shortened if long, left
// out if not printable), or the part ("the reactants") if pos is on a
// separator. Separators are '.' and '~' outside brackets.
func moleculeAt(s string, lo, hi, pos, r int) string {
	k, start, inBracket := 1, lo, false
	for i := lo; i <= hi; i++ {
		if i < hi {
			switch s[i] {
			case '[':
				inBracket = true
				continue
			case ']':
				inBracket = false
				continue
			case '.', '~':
				if inBracket {
					continue
				}
			default:
				continue
			}
		}
		// s[start:i] is the k-th molecule.
		if pos >= start && pos < i {
			name := fmt.Sprintf("%s %d", reactionRoles[r].one, k)
			if m, ok := shortMolecule(s[start:i]); ok {
				name += fmt.Sprintf(" %q", m)
			}
			return name
		}
		k, start = k+1, i+1
	}
	return "the " + reactionRoles[r].all
}

// shortMolecule returns m, shortened by shortText to 30 bytes, and whether
// that text is printable UTF-8 (so that quoting it keeps the error message
// short).
func shortMolecule(m string) (string, bool) {
	m = shortText(m, 30)
	for _, c := range m {
		if c == utf8.RuneError || !unicode.IsPrint(c) {
			return m, false
		}
	}
	return m, true
}

// shortText returns m if it has at most limit bytes, else its first
// limit−6 bytes, cut between whole characters, and "…".
func shortText(m string, limit int) string {
	if len(m) <= limit {
		return m
	}
	cut := limit - 6
	for i := 0; i < utf8.UTFMax-1 && cut > 0 && !utf8.RuneStart(m[cut]); i++ {
		cut--
	}
	return m[:cut] + "…"
}
