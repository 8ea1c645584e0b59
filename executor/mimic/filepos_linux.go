package mimic

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// filePosition is how far this process has read the file at abs: the
// largest offset among its open descriptors of it (/proc/self/fdinfo).
// DuckDB reads a compressed CSV sequentially, so the offset is its progress
// through the compressed bytes; it reports false when no descriptor is open.
func filePosition(abs string) (int64, bool) {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0, false
	}
	var best int64
	found := false
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err != nil || target != abs {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc/self/fdinfo", fd.Name()))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "pos:"); ok {
				if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n >= best {
					best, found = n, true
				}
			}
		}
	}
	return best, found
}
