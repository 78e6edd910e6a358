package mol

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cholqr/sgp/sgp/kernel"
)

// Bond types: the edge labels of the molecular graphs built by
// ParseSMILES.
const (
	BondSingle    = 1
	BondDouble    = 2
	BondTriple    = 3
	BondQuadruple = 4
	BondAromatic  = 5
)

// SMILESError reports a SMILES string that cannot be parsed.
type SMILESError struct {
	SMILES string
	Pos    int // 0-based byte offset of the fault in SMILES
	Msg    string
}

// Error names the string (a short excerpt around the fault for a long
// one), the 1-based character position and the fault.
func (e *SMILESError) Error() string {
	return fmt.Sprintf("sgp: SMILES %q, character %d: %s", smilesExcerpt(e.SMILES, e.Pos), e.Pos+1, e.Msg)
}

// smilesExcerpt returns s, or for a string longer than 40 bytes the 20
// bytes either side of pos, with "…" where it was cut.
func smilesExcerpt(s string, pos int) string {
	const side = 20
	if len(s) <= 2*side {
		return s
	}
	lo, hi := max(0, pos-side), min(len(s), pos+side)
	// Whole characters, as long as the bytes are UTF-8 at all.
	for i := 0; i < utf8.UTFMax-1 && lo > 0 && !utf8.RuneStart(s[lo]); i++ {
		lo--
	}
	for i := 0; i < utf8.UTFMax-1 && hi < len(s) && !utf8.RuneStart(s[hi]); i++ {
		hi++
	}
	out := s[lo:hi]
	if lo > 0 {
		out = "…" + out
	}
	if hi < len(s) {
		out += "…"
	}
	return out
}

// ParseSMILES reads a molecule written in SMILES (Weininger 1988;
// OpenSMILES 1.0, opensmiles.org) and returns its heavy-atom graph: one node
// per atom written, labelled by its element symbol, lower case for an
// aromatic atom, followed by its charge ("C", "c", "Cl", "N+", "O-", "n+",
// "Fe+2"); one edge per bond, labelled BondSingle, BondDouble, BondTriple,
// BondQuadruple or BondAromatic.
//
// It reads the organic subset (B C N O P S F Cl Br I and aromatic b c n o p
// s), the wildcard *, bracket atoms [isotope symbol chirality Hcount charge
// :class] with any element or aromatic b c n o p s se as te, bonds - = # $
// : / \, branches, ring closures 0–9, %nn and %(n…), and disconnected parts
// separated by '.' or by '~' (read as '.'; some reaction data sets write it
// between the fragments of one compound, as in [Na+]~[Cl-]). Not
// represented: hydrogens (implicit, or counted in brackets), isotopes,
// stereochemistry (@, /, \ read as plain bonds) and atom classes.
// A bond written without a symbol is aromatic between two aromatic atoms
// and single otherwise, except that one joining two rings (not itself in a
// ring, as in c1ccccc1c1ccccc1) is single, as in RDKit.
//
// An unparsable string returns a *SMILESError with the position of the
// fault: an unknown atom, an unmatched parenthesis or bracket, an unclosed
// ring, a bond without an atom on both sides, a ring closure that joins an
// atom to itself or repeats a bond, or conflicting ring-closure bonds.
// Cost O(len(s)).
//
// A string holding '>' is a reaction SMILES, reactants>agents>products,
// each part a list of molecules separated by '.' or '~'; the agents may be
// empty (A.B>>C), the reactants and products may not. It is read into one
// graph, the disjoint union of the molecules in the order written, each
// atom labelled as above with its role in front, "r:" (reactant), "a:"
// (agent) or "p:" (product), as in "r:C", "a:Pd", "p:c", so that the WL
// kernel tells an atom of a reactant from the same atom of a product.
// Errors then name the molecule at fault ("reactant 2 …"), with the
// position in the whole string. See reaction.go.
func ParseSMILES(s string) (*kernel.Graph, error) {
	if strings.IndexByte(s, '>') >= 0 {
		return parseReaction(s)
	}
	p := smilesParser{s: s, prev: -1, bond: -1}
	if err := p.parse(); err != nil {
		return nil, err
	}
	p.singleBridges()
	labels := make([]string, len(p.atoms))
	for i, a := range p.atoms {
		labels[i] = a.label
	}
	g, err := kernel.NewGraph(labels, p.edges)
	if err != nil {
		return nil, &SMILESError{SMILES: s, Pos: 0, Msg: err.Error()} // unreachable: the parser checks the edges
	}
	return g, nil
}

type smilesAtom struct {
	label    string
	aromatic bool
}

type smilesRing struct {
	atom, bond, pos int // bond −1 if none written
	open            bool
}

type smilesParser struct {
	s     string
	pos   int
	atoms []smilesAtom
	edges []kernel.Edge
	// implicit[e] is true when edges[e] was written without a bond symbol.
	implicit []bool
	bonded   map[[2]int]bool

	prev    int // atom that the next atom bonds to, −1 after '.', '~', '(' … or at the start
	last    byte
	bond    int // pending bond, −1 if none
	bondPos int
	branch  []smilesBranch
	rings   map[int]*smilesRing
}

type smilesBranch struct {
	atom, pos, natoms int
}

// token kinds for last.
const (
	tokStart byte = iota
	tokAtom
	tokRing
	tokBond
	tokOpen
	tokClose
	tokDot
)

func (p *smilesParser) fail(pos int, format string, args ...any) error {
	return &SMILESError{SMILES: p.s, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *smilesParser) parse() error {
	s := p.s
	if strings.TrimSpace(s) == "" {
		return p.fail(0, "empty SMILES")
	}
	p.bonded = make(map[[2]int]bool)
	p.rings = make(map[int]*smilesRing)
	for p.pos < len(s) {
		c := s[p.pos]
		switch {
		case c == '[' || c == '*' || isLetter(c):
			start := p.pos
			a, err := p.atom()
			if err != nil {
				return err
			}
			idx := len(p.atoms)
			p.atoms = append(p.atoms, a)
			if p.prev >= 0 {
				if err := p.addBond(p.prev, idx, p.bond, start); err != nil {
					return err
				}
			}
			p.prev, p.bond, p.last = idx, -1, tokAtom
		case strings.IndexByte("-=#$:/\\", c) >= 0:
			if p.bond >= 0 {
				return p.fail(p.pos, "two bond symbols in a row")
			}
			if p.prev < 0 || (p.last != tokAtom && p.last != tokRing && p.last != tokClose && p.last != tokOpen) {
				return p.fail(p.pos, "bond %q has no atom before it", c)
			}
			p.bond, p.bondPos, p.last = bondOf(c), p.pos, tokBond
			p.pos++
		case c == '.' || c == '~':
			if p.bond >= 0 {
				return p.fail(p.bondPos, "bond before %q joins no atom", c)
			}
			if p.last != tokAtom && p.last != tokRing && p.last != tokClose {
				return p.fail(p.pos, "%q has no atom before it", c)
			}
			p.prev, p.last = -1, tokDot
			p.pos++
		case c == '(':
			if p.bond >= 0 {
				return p.fail(p.bondPos, "bond before '(': write the bond inside the branch")
			}
			if p.prev < 0 || (p.last != tokAtom && p.last != tokRing && p.last != tokClose) {
				return p.fail(p.pos, "branch '(' has no atom before it")
			}
			p.branch = append(p.branch, smilesBranch{atom: p.prev, pos: p.pos, natoms: len(p.atoms)})
			p.last = tokOpen
			p.pos++
		case c == ')':
			if len(p.branch) == 0 {
				return p.fail(p.pos, "unmatched ')'")
			}
			if p.bond >= 0 {
				return p.fail(p.bondPos, "bond at the end of a branch joins no atom")
			}
			b := p.branch[len(p.branch)-1]
			if len(p.atoms) == b.natoms {
				return p.fail(b.pos, "empty branch '()'")
			}
			if p.last == tokDot {
				return p.fail(p.pos-1, "%q at the end of a branch", s[p.pos-1])
			}
			p.branch = p.branch[:len(p.branch)-1]
			p.prev, p.last = b.atom, tokClose
			p.pos++
		case isDigit(c) || c == '%':
			if err := p.ring(); err != nil {
				return err
			}
		default:
			return p.fail(p.pos, "unexpected character %q", c)
		}
	}
	switch {
	case p.bond >= 0:
		return p.fail(p.bondPos, "bond at the end joins no atom")
	case len(p.branch) > 0:
		return p.fail(p.branch[len(p.branch)-1].pos, "unclosed branch '('")
	case p.last == tokDot:
		return p.fail(len(s)-1, "%q at the end", s[len(s)-1])
	}
	// The first unclosed ring, so that the error does not depend on the
	// map's order.
	first, firstNum := (*smilesRing)(nil), 0
	for num, r := range p.rings {
		if r.open && (first == nil || r.pos < first.pos) {
			first, firstNum = r, num
		}
	}
	if first != nil {
		return p.fail(first.pos, "ring bond %d is never closed", firstNum)
	}
	return nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// bondOf returns the bond type of a bond symbol.
func bondOf(c byte) int {
	switch c {
	case '=':
		return BondDouble
	case '#':
		return BondTriple
	case '$':
		return BondQuadruple
	case ':':
		return BondAromatic
	}
	return BondSingle // '-', '/', '\'
}

// addBond joins atoms a and b by bond (−1: implicit).
func (p *smilesParser) addBond(a, b, bond, pos int) error {
	if a == b {
		return p.fail(pos, "ring closure joins an atom to itself")
	}
	key := [2]int{min(a, b), max(a, b)}
	if p.bonded[key] {
		return p.fail(pos, "atoms %d and %d (counting from 1) are already bonded", a+1, b+1)
	}
	p.bonded[key] = true
	implicit := bond < 0
	if implicit {
		bond = BondSingle
		if p.atoms[a].aromatic && p.atoms[b].aromatic {
			bond = BondAromatic
		}
	}
	p.edges = append(p.edges, kernel.Edge{U: a, V: b, Label: bond})
	p.implicit = append(p.implicit, implicit)
	return nil
}

// ring reads a ring-closure number and opens or closes that ring.
func (p *smilesParser) ring() error {
	s := p.s
	start := p.pos
	if p.prev < 0 || (p.last != tokAtom && p.last != tokRing && p.last != tokBond && p.last != tokClose) {
		return p.fail(start, "ring-closure number has no atom before it")
	}
	var num int
	switch {
	case isDigit(s[p.pos]):
		num = int(s[p.pos] - '0')
		p.pos++
	case p.pos+1 < len(s) && s[p.pos+1] == '(':
		end := strings.IndexByte(s[p.pos:], ')')
		if end < 0 {
			return p.fail(start, "unclosed ring-closure number '%%('")
		}
		digits := s[p.pos+2 : p.pos+end]
		if digits == "" || len(digits) > 5 || strings.Trim(digits, "0123456789") != "" {
			return p.fail(start, "ring-closure number %%(%s) must be 1 to 5 digits", shortText(digits, 12))
		}
		for _, d := range []byte(digits) {
			num = 10*num + int(d-'0')
		}
		p.pos += end + 1
	default:
		if p.pos+2 >= len(s) || !isDigit(s[p.pos+1]) || !isDigit(s[p.pos+2]) {
			return p.fail(start, "'%%' must be followed by two digits")
		}
		num = int(s[p.pos+1]-'0')*10 + int(s[p.pos+2]-'0')
		p.pos += 3
	}
	r := p.rings[num]
	if r == nil || !r.open {
		if r == nil {
			r = new(smilesRing)
			p.rings[num] = r
		}
		*r = smilesRing{atom: p.prev, bond: p.bond, pos: start, open: true}
	} else {
		bond := r.bond
		switch {
		case bond < 0:
			bond = p.bond
		case p.bond >= 0 && p.bond != bond:
			return p.fail(start, "ring bond %d is opened with one bond type and closed with another", num)
		}
		if err := p.addBond(r.atom, p.prev, bond, start); err != nil {
			return err
		}
		r.open = false
	}
	p.bond, p.last = -1, tokRing
	return nil
}

// singleBridges relabels as single the implicit aromatic bonds that are in
// no ring (bridges of the graph), such as the bond joining the two rings of
// c1ccccc1c1ccccc1, found by Tarjan's bridge-finding depth-first search
// (Tarjan 1974), iteratively, in O(|V| + |E|).
func (p *smilesParser) singleBridges() {
	n := len(p.atoms)
	found := false
	for e, ed := range p.edges {
		if p.implicit[e] && ed.Label == BondAromatic {
			found = true
			break
		}
	}
	if !found {
		return
	}
	type arc struct{ to, edge int }
	adj := make([][]arc, n)
	for e, ed := range p.edges {
		adj[ed.U] = append(adj[ed.U], arc{ed.V, e})
		adj[ed.V] = append(adj[ed.V], arc{ed.U, e})
	}
	disc := make([]int, n) // discovery time + 1, 0 if unvisited
	low := make([]int, n)
	type frame struct{ v, parentEdge, next int }
	time := 0
	for root := 0; root < n; root++ {
		if disc[root] != 0 {
			continue
		}
		time++
		disc[root], low[root] = time, time
		stack := []frame{{root, -1, 0}}
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next < len(adj[f.v]) {
				a := adj[f.v][f.next]
				f.next++
				if a.edge == f.parentEdge {
					continue
				}
				if disc[a.to] == 0 {
					time++
					disc[a.to], low[a.to] = time, time
					stack = append(stack, frame{a.to, a.edge, 0})
				} else {
					low[f.v] = min(low[f.v], disc[a.to])
				}
				continue
			}
			v, pe := f.v, f.parentEdge
			stack = stack[:len(stack)-1]
			if pe >= 0 {
				u := stack[len(stack)-1].v
				low[u] = min(low[u], low[v])
				if low[v] > disc[u] && p.implicit[pe] && p.edges[pe].Label == BondAromatic {
					p.edges[pe].Label = BondSingle
				}
			}
		}
	}
}
