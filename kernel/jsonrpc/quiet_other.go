//go:build !linux

package jsonrpc

import "io"

// QuietIO is a Linux-only optimisation (see quiet_linux.go); elsewhere streams are used as they are.
func QuietIO(c any) io.ReadWriteCloser { return nil }
