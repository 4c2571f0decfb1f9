//go:build !linux

package journal

import "os"

// appendRedo appends b to the redo log (see redo_write_linux.go for the Linux variant).
func appendRedo(f *os.File, _ uintptr, b []byte) error {
	_, err := f.Write(b)
	return err
}
