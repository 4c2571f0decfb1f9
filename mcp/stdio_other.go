//go:build !unix

package mcp

import "io"

func stdio(in io.Reader, out io.Writer) (io.Reader, io.Writer) { return in, out }
