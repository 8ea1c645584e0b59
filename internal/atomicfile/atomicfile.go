// Package atomicfile writes files so that no reader, and no later run after
// a process was killed half-way, ever sees half a file: the data goes to a
// temporary file in the same folder, is synced to disk, and is renamed into
// place. Every output clinsql writes goes through Write.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// TempMark is part of every temporary file's name ("."+base+TempMark+random),
// so that RemoveTemps can recognise what a killed writer left behind.
const TempMark = ".tmp-"

// Write replaces path with data (mode 0644) atomically.
func Write(path string, data []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+TempMark+"*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// CreateTemp makes the file private; outputs are for reading.
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// RemoveTemps deletes the temporary files a killed writer left in dir.
func RemoveTemps(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), TempMark) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
