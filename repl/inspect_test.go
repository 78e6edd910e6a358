package repl

import (
	"strings"
	"testing"
)

func TestNameAt(t *testing.T) {
	for _, tc := range []struct {
		code   string
		cursor int
		want   string
	}{
		{"sgp.NewModel(x)", 6, "sgp.NewModel"},
		{"sgp.NewModel(x)", 2, "sgp"},
		{"sgp.NewModel(x, ", 16, "sgp.NewModel"},
		{"m.Fit()", 7, ""},
		{"a + m.Fit", 9, "m.Fit"},
		{"f(g(1), ", 8, "f"},
		{"3.5", 3, ""},
	} {
		if got := strings.Join(nameAt(tc.code, tc.cursor), "."); got != tc.want {
			t.Errorf("nameAt(%q, %d) = %q, want %q", tc.code, tc.cursor, got, tc.want)
		}
	}
}
