package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// defaultMaxExactN is the largest exact model predict loads without
// --max-exact-n: loading one factorises its n×n kernel matrix again
// (sgp.LoadExactPredictor), 8n² bytes and about n³/3 flops, 200 MB and a
// few seconds at 5000. A model file is a few bytes a training point, so a
// small file from elsewhere can ask for gigabytes (3.2 GB at sgp's
// MaxExactN of 20000); the flag raises the limit for a file one trusts.
const defaultMaxExactN = 5000

// exactModelFormat is the "format" of an exact model file (sgp's
// ExactPredictor.Save).
const exactModelFormat = "sgp-exact-model/1"

// checkExactSize reads the model file at path as far as its "format" and
// "n" fields and returns an error, before the model is loaded, when it is
// an exact model of more than maxN training points, with the memory and
// time loading it would take. Other files, and files it cannot read, are
// left to the loader, which says what is wrong with them.
func checkExactSize(path string, maxN int) error {
	f, err := os.Open(path)
	if err != nil {
		return nil // the loader reports it
	}
	defer f.Close()
	n, ok := exactModelN(bufio.NewReader(f))
	if !ok || n <= maxN {
		return nil
	}
	gb := 8 * float64(n) * float64(n) / 1e9
	return fmt.Errorf("predict: %s is an exact model of n=%d training points: loading it factorises their %d×%d kernel matrix, %.3g GB of memory and about %.2g flops; predict loads exact models of at most --max-exact-n %d training points (%.3g GB); give --max-exact-n %d if you trust the file and have the memory",
		path, n, n, n, gb, float64(n)*float64(n)*float64(n)/3, maxN, 8*float64(maxN)*float64(maxN)/1e9, n)
}

// exactModelN returns the "n" of an exact model file read from r, and
// whether r holds one (a JSON object whose "format" is exactModelFormat
// and whose "n" is an integer). It reads the top-level fields one value
// at a time and stops once it knows: sgp writes "format" first, so a
// sparse model file is read no further than its first field.
func exactModelN(r io.Reader) (n int, ok bool) {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, false
	}
	format, haveN := "", false
	for dec.More() {
		t, err := dec.Token()
		key, isKey := t.(string)
		if err != nil || !isKey {
			return 0, false
		}
		switch key {
		case "format":
			if err := dec.Decode(&format); err != nil || format != exactModelFormat {
				return 0, false
			}
		case "n":
			if err := dec.Decode(&n); err != nil {
				return 0, false
			}
			haveN = true
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return 0, false
			}
		}
		if format != "" && haveN {
			return n, true
		}
	}
	return 0, false
}
