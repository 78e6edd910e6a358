// Package kernel holds the covariance functions of package sgp and the
// inputs they read: Inputs and its kinds (Vectors, Strings, Graphs,
// Histograms, SparseCounts), the Kernel interface, and the built-in
// kernels — on vectors RBF, Matern (ν = 1/2, 3/2, 5/2) and RQ with one
// lengthscale per dimension, Linear with one variance per dimension,
// Periodic and Const; the WL subtree kernel on graphs, the k-mer Spectrum
// kernel on strings, Tanimoto on sparse counts, HistogramIntersection; a
// Sum and a Product of kernels, and Func, a kernel from a user's
// function. Parse builds a kernel from a specification such as "rbf",
// "matern52+linear", "periodic*rbf" or "wl:3", with starting
// hyperparameters from the data, as the command line names them;
// Describe and FromDescription are the kernels' JSON form in saved
// models, and Text a kernel's one-line display.
//
// A Kernel is read by column and by diagonal, never as an n×n matrix. The
// model engine asks more of the kernels that offer it through optional
// interfaces, as gonum's mat asks a Matrix for RawMatrixer: whole blocks
// at once (BlockEvaluator), blocks that do not depend on θ (ScaledSum),
// gradients with respect to the inputs for inducing inputs that move
// (InputGradient) and lengthscales (Lengthscaled). A kernel of another
// package needs only Kernel; Func turns a Go function into one.
package kernel
