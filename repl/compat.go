package repl

import (
	"reflect"
	"slices"

	"github.com/cholqr/sgp/symbols"
)

// movedNames maps names that package sgp exported before figures and
// molecules got packages of their own to their new homes, so that cells
// written for earlier versions (sgp.PlotFit1D, sgp.LoadThrombin, …) keep
// working in a session. New code uses figure.Fit1D, mol.LoadThrombin, ….
var movedNames = map[string][2]string{
	"PlotFit1D":       {figurePath, "Fit1D"},
	"PlotCostRanking": {figurePath, "CostRanking"},
	"PlotTrace":       {figurePath, "Trace"},
	"PlotCurves":      {figurePath, "Curves"},
	"Figure":          {figurePath, "Figure"},
	"Series":          {figurePath, "Series"},
	"FigureDPI":       {figurePath, "DPI"},
}

// movedToMol lists the names that moved from sgp to sgp/mol unchanged.
var movedToMol = []string{"ParseSMILES", "GraphsFromSMILES", "ReadMoleculeCSV", "LoadThrombin", "LoadLipophilicity",
	"Molecules", "SMILESError", "RowErrors", "RowError", "InputsFromCells",
	"BondSingle", "BondDouble", "BondTriple", "BondQuadruple", "BondAromatic"}

// movedName reports whether name is one of the compatibility names of
// sgp, which completion does not offer.
func movedName(name string) bool {
	_, ok := movedNames[name]
	return ok || slices.Contains(movedToMol, name)
}

// addMovedNames adds the moved names to a session's copy of the sgp
// symbol table.
func addMovedNames(sgpSyms map[string]reflect.Value) {
	for old, to := range movedNames {
		if v, ok := symbols.Symbols[to[0]+"/"+pathBase(to[0])][to[1]]; ok {
			sgpSyms[old] = v
		}
	}
	for _, name := range movedToMol {
		if v, ok := symbols.Symbols[molPath+"/mol"][name]; ok {
			sgpSyms[name] = v
		}
	}
}
