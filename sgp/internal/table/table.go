// Package table formats the displays of package sgp and its kernels: one
// compact number format, aligned text tables and HTML tables, the forms a
// REPL and a notebook front end render.
package table

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// G formats a number compactly for display.
func G(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// Hyper returns a row for each hyperparameter, named names, as exp θ.
func Hyper(names []string, theta []float64) [][2]string {
	rows := make([][2]string, len(theta))
	for i, v := range theta {
		rows[i] = [2]string{names[i], G(math.Exp(v))}
	}
	return rows
}

// KV returns a title line and the rows as "  label  value" lines with
// the values aligned.
func KV(title string, rows [][2]string) string {
	w := 0
	for _, r := range rows {
		w = max(w, utf8.RuneCountInString(r[0]))
	}
	var b strings.Builder
	b.WriteString(title)
	for _, r := range rows {
		b.WriteString("\n  " + r[0] + strings.Repeat(" ", w-utf8.RuneCountInString(r[0])+2) + r[1])
	}
	return b.String()
}

// Text returns the header and rows as columns two spaces apart,
// indented by two spaces; the columns c with right[c] are right-aligned.
func Text(header []string, rows [][]string, right []bool) string {
	w := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for c, cell := range r {
			w[c] = max(w[c], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	for i, r := range append([][]string{header}, rows...) {
		if i > 0 {
			b.WriteByte('\n')
		}
		var line strings.Builder
		for c, cell := range r {
			pad := strings.Repeat(" ", w[c]-utf8.RuneCountInString(cell))
			line.WriteString("  ")
			if c < len(right) && right[c] {
				line.WriteString(pad + cell)
			} else {
				line.WriteString(cell + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
	}
	return b.String()
}

// Grid returns an HTML table with a caption, a header row and rows.
func Grid(caption string, header []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString("<table><caption>" + html.EscapeString(caption) + "</caption><tr>")
	for _, h := range header {
		b.WriteString("<th>" + html.EscapeString(h) + "</th>")
	}
	b.WriteString("</tr>")
	for _, r := range rows {
		b.WriteString("<tr>")
		for _, cell := range r {
			b.WriteString("<td>" + html.EscapeString(cell) + "</td>")
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	return b.String()
}

// HTML returns a two-column HTML table with a caption.
func HTML(caption string, rows [][2]string) string {
	var b strings.Builder
	b.WriteString("<table><caption>" + html.EscapeString(caption) + "</caption>")
	for _, r := range rows {
		b.WriteString("<tr><th style=\"text-align:left\">" + html.EscapeString(r[0]) + "</th><td>" + html.EscapeString(r[1]) + "</td></tr>")
	}
	b.WriteString("</table>")
	return b.String()
}

// Short quotes at most 40 characters of s in an error message.
func Short(s string) string {
	r := []rune(s)
	if len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// Names lists column names for a message: at most 8, each shortened.
func Names(names []string) string {
	const most = 8
	parts := make([]string, 0, most+1)
	for i, name := range names {
		if i == most {
			parts = append(parts, fmt.Sprintf("… (%d in all)", len(names)))
			break
		}
		parts = append(parts, Short(name))
	}
	return strings.Join(parts, ", ")
}
