package benchdata

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// ReadTSV reads a tab-separated file with '#' comments and a header row,
// returning one map from column name to value per row.
func ReadTSV(path string) ([]map[string]string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var header []string
	var rows []map[string]string
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "#") || strings.TrimSpace(text) == "" {
			continue
		}
		f := strings.Split(text, "\t")
		if header == nil {
			header = f
			continue
		}
		if len(f) > len(header) {
			return nil, fmt.Errorf("%s:%d: %d columns, header has %d", path, line, len(f), len(header))
		}
		row := make(map[string]string, len(header))
		for i, v := range f {
			row[header[i]] = v
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

// Column returns the numbers in column col of the rows of the TSV file
// path that keep accepts, keyed by key.
func Column(path, col string, keep func(map[string]string) bool, key func(map[string]string) string) (map[string]float64, error) {
	rows, err := ReadTSV(path)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, r := range rows {
		if !keep(r) {
			continue
		}
		v, err := strconv.ParseFloat(r[col], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %s %q: %w", path, key(r), col, r[col], err)
		}
		out[key(r)] = v
	}
	return out, nil
}

// valueOr returns m[key], or NaN when absent.
func valueOr(m map[string]float64, key string) float64 {
	if v, ok := m[key]; ok {
		return v
	}
	return math.NaN()
}
