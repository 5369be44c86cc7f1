package screen

import "github.com/charmbracelet/x/ansi"

// cellsOf splits a line of text into the cells a terminal fills with it: one
// cell per grapheme cluster, a cluster of width 2 followed by its empty
// continuation cell. Widths are ansi.GraphemeWidth's, the measure the built-in
// terminal (charmbracelet/x/vt) uses for every cluster it draws. A cluster of
// width 0 (a control or format character, a combining mark with no base) takes
// no cell: the terminal draws nothing for it either.
func cellsOf(line string) []Cell {
	var cells []Cell
	for line != "" {
		cluster, w := ansi.FirstGraphemeCluster(line, ansi.GraphemeWidth)
		if cluster == "" {
			break
		}
		line = line[len(cluster):]
		if w <= 0 {
			continue
		}
		cells = append(cells, Cell{Text: cluster, Width: w})
		for range w - 1 {
			cells = append(cells, Cell{})
		}
	}
	return cells
}

// TextWidth is the number of columns text fills on a screen.
func TextWidth(text string) int {
	return len(cellsOf(text))
}
