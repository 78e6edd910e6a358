// Package mol reads molecules into inputs for the kernels of package sgp:
// its one job is the step from chemistry text to sgp.Inputs, so that a
// program fitting numeric data does not carry a SMILES reader.
//
//	ParseSMILES        smiles.go, smiles_atom.go  SMILES → a heavy-atom
//	                                    *sgp.Graph for the Weisfeiler–Lehman
//	                                    kernel (sgp.NewWL)
//	ReadMoleculeCSV    molecules.go     a CSV of SMILES and targets →
//	                                    Molecules; LoadThrombin and
//	                                    LoadLipophilicity read the molecule
//	                                    data sets of the examples
//	InputsFromCells    cells.go         table cells → the inputs a kernel
//	                                    spec reads (vectors, graphs,
//	                                    strings, sparse counts, histograms)
//
// Rows that cannot be read are collected in a *RowErrors, one RowError
// each, so that all of them can be fixed at once.
package mol
