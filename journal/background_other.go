//go:build !linux

package journal

// background is a no-op where threads have no priority of their own.
func background() {}
