package data

import (
	"encoding/csv"
	"errors"
	"strings"
	"testing"
)

// TestEachCSVRecord: records come with the line they start on; a reader
// error is prefixed with the label, and fn's error stops the loop as is.
func TestEachCSVRecord(t *testing.T) {
	in := "a,b\n\"x\ny\",1\nz,2\n"
	var got []string
	err := EachRecord(csv.NewReader(strings.NewReader(in)), "t", func(rec []string, line int) error {
		got = append(got, rec[0]+"@"+string(rune('0'+line)))
		return nil
	})
	if err != nil || strings.Join(got, " ") != "a@1 x\ny@2 z@4" {
		t.Errorf("got %q, %v", got, err)
	}
	err = EachRecord(csv.NewReader(strings.NewReader("a,b\nc\n")), "file.csv", func([]string, int) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), "file.csv: ") {
		t.Errorf("reader error %v, want one prefixed with file.csv", err)
	}
	stop := errors.New("stop")
	n := 0
	err = EachRecord(csv.NewReader(strings.NewReader(in)), "t", func([]string, int) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("fn's error: %v after %d calls", err, n)
	}
}
