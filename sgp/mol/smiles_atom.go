package mol

import (
	"fmt"
	"strings"
)

// elementSymbols lists the symbols of the chemical elements, for bracket
// atoms, each between spaces.
const elementSymbols = ` H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca ` +
	`Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd ` +
	`In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re Os ` +
	`Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr Rf ` +
	`Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og `

// isElement reports whether sym is the symbol of a chemical element.
func isElement(sym string) bool { return strings.Contains(elementSymbols, " "+sym+" ") }

// atom reads an organic-subset or bracket atom at p.pos.
func (p *smilesParser) atom() (smilesAtom, error) {
	s := p.s
	start := p.pos
	c := s[p.pos]
	if c == '[' {
		return p.bracketAtom()
	}
	p.pos++
	switch c {
	case '*':
		return smilesAtom{label: "*"}, nil
	case 'B', 'C':
		if p.pos < len(s) && (c == 'B' && s[p.pos] == 'r' || c == 'C' && s[p.pos] == 'l') {
			p.pos++
			return smilesAtom{label: s[start:p.pos]}, nil
		}
		return smilesAtom{label: string(c)}, nil
	case 'N', 'O', 'P', 'S', 'F', 'I':
		return smilesAtom{label: string(c)}, nil
	case 'b', 'c', 'n', 'o', 'p', 's':
		return smilesAtom{label: string(c), aromatic: true}, nil
	}
	end := start + 1
	if end < len(s) && s[end] >= 'a' && s[end] <= 'z' {
		end++
	}
	return smilesAtom{}, p.fail(start, "%q is not an organic-subset atom (B C N O P S F Cl Br I b c n o p s); write other elements in brackets, e.g. [%s]", s[start:end], s[start:end])
}

// bracketAtom reads [isotope? symbol chiral? hcount? charge? class?].
// The label is the element symbol with the charge; the isotope, the
// chirality, the hydrogen count and the class are read but not
// represented.
func (p *smilesParser) bracketAtom() (smilesAtom, error) {
	s := p.s
	open := p.pos
	end := strings.IndexByte(s[open:], ']')
	if end < 0 {
		return smilesAtom{}, p.fail(open, "unclosed bracket atom '['")
	}
	end += open
	p.pos++
	p.skipDigits(end) // isotope
	a, err := p.bracketSymbol(end)
	if err != nil {
		return a, err
	}
	if err := p.chirality(end); err != nil {
		return a, err
	}
	// Hydrogen count: H, H2, ….
	if p.pos < end && s[p.pos] == 'H' {
		p.pos++
		p.skipDigits(end)
	}
	charge, err := p.charge(end)
	if err != nil {
		return a, err
	}
	// Atom class: :n.
	if p.pos < end && s[p.pos] == ':' {
		p.pos++
		if p.pos >= end || !isDigit(s[p.pos]) {
			return a, p.fail(p.pos, "atom class ':' needs a number")
		}
		p.skipDigits(end)
	}
	if p.pos != end {
		return a, p.fail(p.pos, "unexpected %q in bracket atom %s", s[p.pos], shortText(s[open:end+1], 30))
	}
	p.pos = end + 1
	switch {
	case charge == 1:
		a.label += "+"
	case charge == -1:
		a.label += "-"
	case charge != 0:
		a.label += fmt.Sprintf("%+d", charge)
	}
	return a, nil
}

// skipDigits moves past the digits at the position, up to end.
func (p *smilesParser) skipDigits(end int) {
	for p.pos < end && isDigit(p.s[p.pos]) {
		p.pos++
	}
}

// bracketSymbol reads the element symbol of a bracket atom ending at end:
// '*', an aromatic symbol (b c n o p s se as te) or an element.
func (p *smilesParser) bracketSymbol(end int) (smilesAtom, error) {
	s := p.s
	var a smilesAtom
	switch {
	case p.pos >= end:
		return a, p.fail(p.pos, "bracket atom has no element symbol")
	case s[p.pos] == '*':
		a.label = "*"
		p.pos++
	case s[p.pos] >= 'a' && s[p.pos] <= 'z':
		a.aromatic = true
		if p.pos+1 < end {
			if two := s[p.pos : p.pos+2]; two == "se" || two == "as" || two == "te" {
				a.label = two
				p.pos += 2
				break
			}
		}
		if strings.IndexByte("bcnops", s[p.pos]) < 0 {
			return a, p.fail(p.pos, "%q is not an aromatic atom (b c n o p s se as te)", s[p.pos])
		}
		a.label = s[p.pos : p.pos+1]
		p.pos++
	case s[p.pos] >= 'A' && s[p.pos] <= 'Z':
		if p.pos+1 < end && s[p.pos+1] >= 'a' && s[p.pos+1] <= 'z' && isElement(s[p.pos:p.pos+2]) {
			a.label = s[p.pos : p.pos+2]
			p.pos += 2
		} else if isElement(s[p.pos : p.pos+1]) {
			a.label = s[p.pos : p.pos+1]
			p.pos++
		} else {
			return a, p.fail(p.pos, "unknown element %q", s[p.pos:p.pos+1])
		}
	default:
		return a, p.fail(p.pos, "bracket atom has no element symbol")
	}
	return a, nil
}

// chirality reads a chirality mark, if any: @, @@, @TH1, @AL2, @SP3,
// @TB12, @OH30.
func (p *smilesParser) chirality(end int) error {
	s := p.s
	if p.pos >= end || s[p.pos] != '@' {
		return nil
	}
	p.pos++
	if p.pos < end && s[p.pos] == '@' {
		p.pos++
	} else if p.pos+1 < end && isChiralClass(s[p.pos:p.pos+2]) {
		p.pos += 2
		if p.pos >= end || !isDigit(s[p.pos]) {
			return p.fail(p.pos, "chirality class needs a number")
		}
		p.skipDigits(end)
	}
	return nil
}

// charge reads a charge, if any: +, -, ++, --, +2, -3 (at most 15).
func (p *smilesParser) charge(end int) (int, error) {
	s := p.s
	if p.pos >= end || (s[p.pos] != '+' && s[p.pos] != '-') {
		return 0, nil
	}
	sign := 1
	if s[p.pos] == '-' {
		sign = -1
	}
	sym := s[p.pos]
	p.pos++
	charge := 0
	switch {
	case p.pos < end && isDigit(s[p.pos]):
		for p.pos < end && isDigit(s[p.pos]) {
			charge = 10*charge + int(s[p.pos]-'0')
			p.pos++
		}
		if charge > 15 {
			return 0, p.fail(p.pos-1, "charge %c%d is out of range", sym, charge)
		}
	default:
		charge = 1
		for p.pos < end && s[p.pos] == sym {
			charge++
			p.pos++
		}
	}
	return sign * charge, nil
}

// isChiralClass reports whether c is a chirality class of OpenSMILES.
func isChiralClass(c string) bool {
	switch c {
	case "TH", "AL", "SP", "TB", "OH":
		return true
	}
	return false
}
