// Package asm holds the assembly kernels of package sgp's inner loops and
// their Go fallbacks, with the same bits either way: the RBF kernel's
// exponential (ExpRow) and squared distances (SqAcc4, WSqDot4), the Matérn
// and rational quadratic kernels' values (MaternRow, Log1pRow, RQRow) and
// the same with their gradients' factors (MaternPsiRow, RQGradRow), and the
// plane rotations of a swap (Rot2). The amd64 versions pick AVX2, AVX or
// SSE2 by what the CPU has; other architectures run the Go loops.
package asm
