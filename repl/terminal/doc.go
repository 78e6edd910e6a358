// Package terminal is the terminal front end of an sgp session
// (package repl): the interactive REPL with line editing, history,
// completion, a progress bar for fits and figures saved as PNG files
// (Interactive), and scripts run as one cell (RunScript, for
// `sgprepl run FILE.go` and `sgprepl -e 'CODE'`). The command line that
// starts them is cmd/sgprepl.
package terminal
