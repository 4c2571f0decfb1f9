//go:build !unix

package mcp

import "io"

func pollable(in io.Reader) io.Reader { return in }
