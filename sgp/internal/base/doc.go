// Package base holds what the models of package sgp and the CholQR
// engine (package cholqr) share, below both: the objectives and their
// terms (Objective, Parts), the engine's counters (Stats), a swap's
// result (SwapResult), the prior on an estimated mean (MeanPrior), a
// kernel read over all rows in parallel (KernelColumn, KernelDiag and the
// gradient sums), and the errors both report. Package sgp names the
// public ones through aliases (sgp.Parts is base.Parts), so that they
// are one type wherever they appear.
package base
