// Package jupyter is the Jupyter front end of an sgp session (package
// repl): a kernel speaking the Jupyter messaging protocol 5.3 over
// ZeroMQ (pure Go), with signed messages (HMAC-SHA256, replays refused),
// rich outputs (PNG, SVG, HTML), a live progress display of the fits a
// cell runs (updated in place, ending in its final state; the cell's value
// comes after everything the cell printed), completion,
// inspection of sgp's doc comments, history, interrupts that stop a
// running Fit, and the output of compiled code captured into the notebook. Serve runs it on a
// connection file; Install writes the kernel spec Jupyter starts it from.
package jupyter
