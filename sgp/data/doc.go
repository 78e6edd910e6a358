// Package data reads and makes the regression data sets of package sgp:
// Dataset, numeric CSV files (ReadCSV, ReadCSVFile, and ReadInputsCSV and
// ReadPredictCSV for the inputs to predict at; CountCSVPart and
// ReadCSVRows for a share of the rows, one per rank of a distributed
// fit), the loop of table readers
// (EachRecord), the shared data sets of the experiments (LoadSnelson,
// LoadKIN40K, LoadKin8nm under Dir, $SGP_DATA) and synthetic sets that
// need no download (SnelsonLike, SyntheticARD, SyntheticDiscrete).
//
// The shared data sets are not part of the module: the repository's
// docs/data.md says where each comes from, under what licence, and how to
// fetch it into the folder that Dir names.
package data
