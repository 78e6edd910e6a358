// Package notebooks holds the tutorial notebooks (*.ipynb) and the test
// that executes each of them headless through Jupyter's nbconvert and the
// project's own kernel (sgprepl kernel), failing on any error output.
//
// The notebooks are committed with their outputs. To refresh them after a
// change, with Debian's Jupyter installed:
//
//	go build -o /tmp/sgprepl ./cmd/sgprepl && /tmp/sgprepl install-kernel --prefix /tmp/sgpk
//	JUPYTER_PATH=/tmp/sgpk/share/jupyter /usr/bin/jupyter nbconvert --to notebook --execute --inplace \
//	    --ExecutePreprocessor.record_timing=False --ExecutePreprocessor.timeout=600 notebooks/*.ipynb
package notebooks
