// Package mol reads molecules into inputs for the kernels of package
// sgp/kernel, so that a program fitting numeric data does not carry a
// SMILES reader:
//
//	ParseSMILES        SMILES (a molecule, or a reaction A.B>>C) → a
//	                   heavy-atom *kernel.Graph for the Weisfeiler–Lehman
//	                   kernel (kernel.NewWL)
//	ReadMoleculeCSV    a CSV file of SMILES and targets → Molecules;
//	                   LoadThrombin and LoadLipophilicity read the molecule
//	                   data sets of the examples
//	InputsFromCells    table cells → the inputs a kernel specification reads
//	                   (vectors, graphs, strings, sparse counts, histograms)
//
// Rows that cannot be read are collected in a *RowErrors, one RowError
// each, so that all of them can be fixed at once.
package mol
